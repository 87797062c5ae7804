"""The project's error hierarchy, as core/, pages/ and the command line import it.

The classes are defined in `db.errors` (db/ raises them too and imports nothing from core/);
this module is their public name outside db/.
"""
from db.errors import *  # noqa: F401,F403  (every class; db/errors.py lists them in __all__)
from db.errors import __all__  # noqa: F401
