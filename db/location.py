"""Where the database is (FAIRMARK_DB, `--db`): which values FairMark accepts, said in one place.

Supported: a file path, which is a SQLite database (made when missing), the default; or a
PostgreSQL URL, `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (`postgres://` too), the
database several app hosts share (db/postgres; docs/deploy.md, "Several hosts on PostgreSQL").
Any other value that looks like a database address (`sqlite:…`, `mysql://…`, any `scheme://…`, a
PostgreSQL scheme without the `//`) is refused before anything is opened or made: sqlite3 would
otherwise take `mysql://host/db` for a relative path and make a folder named `mysql:` with an empty
database in it, and the app would run on that unnoticed.

A message never repeats the value: an address may carry a password (`shown` and `scrubbed` take it
out, `split_password` hands it to whatever needs it apart from the address).
"""
from __future__ import annotations

import os
import re
from urllib.parse import unquote

from db.errors import ConfigError
from db.message import Message

SUPPORTED = Message("a file path, e.g. fairmark.db or /srv/fairmark/fairmark.db (a SQLite database, made when "
                    "missing), or a PostgreSQL URL, postgresql://USER:PASSWORD@HOST:PORT/DATABASE")

# scheme://… is an address, whatever the scheme; a database scheme is one even without the slashes
# (postgresql:fm, sqlite:fm.db). A Windows drive (C:\…, C:/…) is one letter and never matches.
_ADDRESS = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):(//)?")
_DATABASE_SCHEMES = {"postgresql", "postgres", "sqlite", "sqlite3", "mysql", "mariadb", "mssql", "oracle", "file"}
_POSTGRES = {"postgresql", "postgres"}


def is_postgresql(value) -> bool:
    """Whether the value is a PostgreSQL URL (postgresql://… or postgres://…)."""
    found = _ADDRESS.match(str(value))
    return bool(found) and found.group(1).lower() in _POSTGRES and bool(found.group(2))


def check(value, source: str = "FAIRMARK_DB") -> str:
    """The value as it is when FairMark supports it (a SQLite file path or a PostgreSQL URL); a
    ConfigError naming `source` and what is supported otherwise (nothing is made either way)."""
    text = str(value)
    found = _ADDRESS.match(text)
    if found and (found.group(2) or found.group(1).lower() in _DATABASE_SCHEMES):
        scheme = found.group(1).lower()
        if is_postgresql(text):
            return text
        if scheme in _POSTGRES:
            raise ConfigError(Message("{source} is a PostgreSQL address without // after {scheme}:, which FairMark "
                                      "does not read. Supported: {supported}. Nothing was created.", source=source,
                                      scheme=scheme, supported=SUPPORTED))
        raise ConfigError(Message("{source} is an address ({scheme}:…), which FairMark does not support. Supported: "
                                  "{supported}. Nothing was created.", source=source, scheme=scheme,
                                  supported=SUPPORTED))
    if text != ":memory:" and os.path.isdir(text):
        raise ConfigError(Message("{source} is a folder, not a file. Supported: {supported}. Nothing was created.",
                                  source=source, supported=SUPPORTED))
    return text


def split_password(url: str) -> tuple[str, str | None]:
    """A PostgreSQL address without its password, and the password (None when it has none): the
    address is what may be shown or put on a command line (pg_dump's), the password goes to a
    passfile. Both places an address holds one are read: `user:password@host` and `?password=`."""
    scheme, sep, rest = str(url).partition("://")
    if not sep:
        return str(url), None
    # The user part ends at the LAST "@" before the query: a password may hold "/" or "@"
    # unencoded, and libpq's own reading of such an address would fail (the message then shows it).
    before_query, question, query = rest.partition("?")
    password = None
    if "@" in before_query:
        user_info, _, after = before_query.rpartition("@")
        user, colon, secret = user_info.partition(":")
        if colon:
            password = unquote(secret)
        before_query = f"{user}@{after}" if user else after
    if question:
        # Split by hand: parse_qsl would read "+" as a space (libpq does not) and urlencode would
        # re-encode the other parameters' text.
        pairs = [part.partition("=") for part in query.split("&")]
        secrets = [unquote(value) for key, _, value in pairs if unquote(key) == "password"]
        if secrets:
            password = secrets[-1]
            kept = "&".join(key + eq + value for key, eq, value in pairs if unquote(key) != "password")
            query = kept
            question = "?" if kept else ""
    return f"{scheme}://{before_query}{question}{query}", password


def shown(url: str) -> str:
    """The address as a message may say it: without its password."""
    return split_password(url)[0]


def scrubbed(text: str, url: str) -> str:
    """`text` (a driver's or a tool's message) with the address's password taken out, should it be in it."""
    password = split_password(url)[1]
    if password:
        text = text.replace(password, "***")
    return text
