"""A PostgreSQL database's backup and restore with PostgreSQL's own tools, pg_dump and pg_restore.

A backup is pg_dump's custom format (one file, compressed, consistent while the app keeps writing:
pg_dump reads one snapshot). A restore is pg_restore's SQL replayed into the configured database in the
caller's transaction (core ends every session and writes the audit row in the same one: a failure
anywhere leaves the database as it was), dropping FairMark's objects first (--clean) and making them
again owned by the user FairMark signs in as.

The password is never on a command line (another user's `ps` shows those): the tools get the address
without it, and the password in a passfile (PGPASSFILE, mode 0600, in a temporary folder removed
when the tool ends). Their messages are shown with the password taken out, should they repeat it.
"""
from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import db.location as location
from db.errors import ConfigError
from db.message import Message

INSTALL = "apt-get install -y postgresql-client"   # Debian and Ubuntu: pg_dump, pg_restore, psql
MAGIC = b"PGDMP"   # the first bytes of pg_dump's custom format
# Where Debian keeps each PostgreSQL version's programs (/usr/bin/pg_dump is a wrapper that picks one).
SEARCH = "/usr/lib/postgresql/*/bin"
READING = Message("Reading the backup")   # what failed, when pg_restore cannot read the archive


def program(name: str) -> str:
    """The path of pg_dump / pg_restore on this host; a ConfigError saying how to install it."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(os.path.join(SEARCH, name)),
                      key=lambda p: [int(n) for n in re.findall(r"\d+", p)], reverse=True)
    if versions:
        return versions[0]
    raise ConfigError(Message("{name} is not installed on this host, and a PostgreSQL database is backed up and "
                              "restored with it. Install it with: {install} (Debian, Ubuntu; the client of the "
                              "server's version or newer), then try again. Nothing was changed.", name=name,
                              install=INSTALL))


def _passfile_line(password: str) -> str:
    escaped = password.replace("\\", "\\\\").replace(":", "\\:")
    return f"*:*:*:*:{escaped}\n"


@contextlib.contextmanager
def _signed_in(url: str):
    """(the address without its password, the tool's environment with the password in a passfile)."""
    bare, password = location.split_password(url)
    env = dict(os.environ)
    if password is None:
        yield bare, env
        return
    env.pop("PGPASSWORD", None)   # it would win over the passfile
    with tempfile.TemporaryDirectory(prefix="fairmark-pg-") as tmp:
        path = Path(tmp) / "pgpass"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(_passfile_line(password))
        env["PGPASSFILE"] = str(path)
        yield bare, env


def _run(argv: list[str], url: str | None = None, what: str = "") -> str:
    """Run a tool (with the database's address when url is given); its stdout, or a ConfigError
    with its message (password taken out) when it fails."""
    with contextlib.ExitStack() as stack:
        env = dict(os.environ)
        if url is not None:
            bare, env = stack.enter_context(_signed_in(url))
            argv = [*argv, f"--dbname={bare}"]
        try:
            out = subprocess.run(argv, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        except OSError as e:
            raise ConfigError(Message("{what} could not start {program} ({error}). Install it with: {install}, then "
                                      "try again. Nothing was changed.", what=what, program=Path(argv[0]).name,
                                      error=str(e), install=INSTALL)) from e
    if out.returncode != 0:
        said = " ".join((out.stderr or out.stdout).split())[:600]
        said = (location.scrubbed(said, url) if url else said) if said else Message("exit status {code}",
                                                                                    code=out.returncode)
        raise ConfigError(Message("{what} failed: {error}", what=what, error=said))
    return out.stdout


def dump(url: str, dest: str | Path) -> None:
    """pg_dump of the whole database at url into the new file dest (custom format); no file when it fails."""
    tool = program("pg_dump")
    try:
        _run([tool, "--format=custom", "--no-owner", "--no-privileges", f"--file={dest}"], url,
             Message("The backup (pg_dump)"))
    except BaseException:
        Path(dest).unlink(missing_ok=True)    # never a half backup
        raise


def replay(pg, source: str | Path, error) -> None:
    """The archive `source` written into the database of the psycopg connection `pg`, inside the
    transaction the caller holds (so that ending the sessions and the audit row commit with it, or
    nothing does): pg_restore says it as SQL (--clean: FairMark's objects dropped first, then made
    again owned by the user FairMark signs in as), streamed, each COPY block's rows sent as COPY.
    `error`: the driver's error class, turned into a ConfigError that says nothing was changed."""
    tool = program("pg_restore")
    argv = [tool, "--clean", "--if-exists", "--no-owner", "--no-privileges", "--file=-", str(source)]
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL)
        try:
            _replay_lines(pg, proc.stdout)
        except error as e:
            proc.kill()
            raise ConfigError(Message("The restore failed ({error}). Nothing was changed.",
                                      error=" ".join(str(e).split())[:500])) from e
        finally:
            proc.stdout.close()
            code = proc.wait()
        if code != 0:
            errors.seek(0)
            said = " ".join(errors.read().decode(errors="replace").split())[:600]
            raise ConfigError(Message("The restore (pg_restore) failed: {error}. Nothing was changed.",
                                      error=said or Message("exit status {code}", code=code)))
    pg.execute("RESET search_path")   # the script empties it for its own statements


# Lines of the script that are not SQL: psql's \restrict / \unrestrict (pg_restore since 15.14, 16.10,
# 17.6), and a setting a client newer than the server says (pg_restore 17's transaction_timeout);
# and the script's "lock_timeout = 0", which would let a restore wait forever for a lock instead of
# FairMark's own 30 s (db/postgres/connection.py); its statement timeout stays the script's (none),
# so a large restore is not cut short.
_NOT_FOR_THE_SERVER = re.compile(rb"^(\\(un)?restrict\b|SET (transaction_timeout|lock_timeout) = )")


def _replay_lines(pg, lines) -> None:
    statements: list[bytes] = []

    def flush():
        text = b"".join(statements).decode()
        statements.clear()
        if any(line.strip() and not line.lstrip().startswith("--") for line in text.splitlines()):
            pg.execute(text)

    for line in lines:
        if line.startswith(b"COPY ") and line.rstrip().endswith(b" FROM stdin;"):
            flush()
            with pg.cursor().copy(line.rstrip()[:-1].decode()) as copy:
                for row in lines:
                    if row == b"\\.\n":
                        break
                    copy.write(row)
        elif not _NOT_FOR_THE_SERVER.match(line):
            statements.append(line)
    flush()


def contents(source: str | Path) -> list[str]:
    """The archive's table of contents (pg_restore --list): one line per object, e.g.
    '231; 1259 16390 TABLE public courses postgres'. A ConfigError when it cannot be read."""
    return [line for line in _run([program("pg_restore"), "--list", str(source)], what=READING)
            .splitlines() if line and not line.startswith(";")]


def table_rows(source: str | Path, table: str) -> list[dict]:
    """The rows of one table in the archive (its COPY data, read without a database)."""
    text = _run([program("pg_restore"), "--data-only", f"--table={table}", "--file=-", str(source)],
                what=READING)
    rows, columns = [], None
    for line in text.splitlines():
        if columns is None:
            found = re.match(r"COPY \S+ \((.*)\) FROM stdin;$", line)
            if found:
                columns = [c.strip().strip('"') for c in found.group(1).split(",")]
            continue
        if line == "\\.":
            break
        rows.append(dict(zip(columns, (None if v == "\\N" else _unescape(v) for v in line.split("\t")))))
    return rows


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), value)


def is_archive(source: str | Path) -> bool:
    with open(source, "rb") as fh:
        return fh.read(len(MAGIC)) == MAGIC
