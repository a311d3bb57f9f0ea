"""envfarm synthesis layer (see DESIGN.md)."""
