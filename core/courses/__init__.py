"""Courses and assignments: editing the catalogue, answer keys, and what the pages read about courses."""
