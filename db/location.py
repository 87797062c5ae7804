"""Where the database is (FAIRMARK_DB, `--db`): which values FairMark accepts, said in one place.

Supported: a file path, which is a SQLite database (made when missing). A value that looks like a
database address (`postgresql://…`, `sqlite:…`, any `scheme://…`) is refused before anything is
opened or made: sqlite3 would otherwise take `postgresql://host/db` for a relative path and make a
folder named `postgresql:` with an empty database in it, and the app would run on that unnoticed.
PostgreSQL is refused too until its support is ready (issue: several app hosts on one database).

The message never repeats the value: an address may carry a password.
"""
from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, unquote, urlencode

from db.errors import ConfigError

SUPPORTED = "a file path, e.g. fairmark.db or /srv/fairmark/fairmark.db (a SQLite database, made when missing)"

# scheme://… is an address, whatever the scheme; a database scheme is one even without the slashes
# (postgresql:fm, sqlite:fm.db). A Windows drive (C:\…, C:/…) is one letter and never matches.
_ADDRESS = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):(//)?")
_DATABASE_SCHEMES = {"postgresql", "postgres", "sqlite", "sqlite3", "mysql", "mariadb", "mssql", "oracle", "file"}
_POSTGRES = {"postgresql", "postgres"}


# PostgreSQL (db/postgres) is built but not yet accepted: the test suite's PostgreSQL run turns it on
# in its own process (tests/conftest_postgres.py); the app and the command line refuse it.
postgresql_accepted = False


def is_postgresql(value) -> bool:
    found = _ADDRESS.match(str(value))
    return bool(found) and found.group(1).lower() in _POSTGRES


def check(value, source: str = "FAIRMARK_DB") -> str:
    """The value as a SQLite file path; a ConfigError naming `source` and what is supported when
    it is an address instead (nothing is made either way)."""
    text = str(value)
    found = _ADDRESS.match(text)
    if found and (found.group(2) or found.group(1).lower() in _DATABASE_SCHEMES):
        scheme = found.group(1).lower()
        if scheme in _POSTGRES and postgresql_accepted:
            return text
        if scheme in _POSTGRES:
            raise ConfigError(f"{source} is a PostgreSQL address, and PostgreSQL support is not ready yet. "
                              f"Supported: {SUPPORTED}. Nothing was created.")
        raise ConfigError(f"{source} is an address ({scheme}:…), which FairMark does not support. "
                          f"Supported: {SUPPORTED}. Nothing was created.")
    if text != ":memory:" and os.path.isdir(text):
        raise ConfigError(f"{source} is a folder, not a file. Supported: {SUPPORTED}. Nothing was created.")
    return text


def split_password(url: str) -> tuple[str, str | None]:
    """A PostgreSQL address without its password, and the password (None when it has none): the
    address is what may be shown or put on a command line (pg_dump's), the password goes to a
    passfile. Both places an address holds one are read: `user:password@host` and `?password=`."""
    scheme, sep, rest = str(url).partition("://")
    if not sep:
        return str(url), None
    place, slash, tail = rest.partition("/")
    password = None
    if "@" in place:
        user_info, _, hosts = place.rpartition("@")
        user, colon, secret = user_info.partition(":")
        if colon:
            password = unquote(secret)
        place = f"{user}@{hosts}" if user else hosts
    path, question, query = tail.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True) if question else []
    if any(key == "password" for key, _ in pairs):
        password = [value for key, value in pairs if key == "password"][-1]
        kept = [(k, v) for k, v in pairs if k != "password"]
        tail = path + ("?" + urlencode(kept) if kept else "")
    return f"{scheme}://{place}{slash}{tail}", password


def shown(url: str) -> str:
    """The address as a message may say it: without its password."""
    return split_password(url)[0]


def scrubbed(text: str, url: str) -> str:
    """`text` (a driver's or a tool's message) with the address's password taken out, should it be in it."""
    password = split_password(url)[1]
    if password:
        text = text.replace(password, "***")
    return text
