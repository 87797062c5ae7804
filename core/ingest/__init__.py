"""Bringing reflections in: read the uploaded files, map their columns, validate, commit."""
