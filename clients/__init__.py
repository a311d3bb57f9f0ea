"""envfarm clients layer (see DESIGN.md)."""
