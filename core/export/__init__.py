"""Exports: what teachers released, and the analysis export for a coordinator's own statistics."""
