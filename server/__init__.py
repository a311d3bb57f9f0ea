"""envfarm server layer (see DESIGN.md)."""
