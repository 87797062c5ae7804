"""The data model's migrations, by the name the rest of the code imports them under.

They live one module each in db/migrations/ (the order: db/migrations/__init__.py).
"""
from db.migrations import migrations

__all__ = ["migrations"]
