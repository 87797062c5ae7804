"""A private PostgreSQL server for the tests and the benchmarks: Debian's programs
(/usr/lib/postgresql/<version>/bin), run as the `postgres` OS user when we are root (initdb and
pg_ctl refuse root), on a free port of 127.0.0.1 only, trust sign-in, in a temporary folder.

`durable=False` (the tests): fsync off and, when /dev/shm has room, in memory; a throw-away
database whose copies (`CREATE DATABASE … TEMPLATE`) take 0.02 s instead of 0.75 s on this
machine's virtual disk, where a copy writes about 1,500 small files. `durable=True` (bench.load):
PostgreSQL's own defaults for durability, on disk, as a production server would run.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


class NoPostgres(RuntimeError):
    """Debian's postgresql is not installed."""


def programs() -> Path:
    """Debian's PostgreSQL programs, the newest version installed."""
    found = [p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")]
    return max(found, key=lambda b: int(b.parent.name) if b.parent.name.isdigit() else 0,
               default=Path("/usr/lib/postgresql/15/bin"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(*argv) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else list(argv)


def _memory() -> str | None:
    try:
        return "/dev/shm" if shutil.disk_usage("/dev/shm").free >= 2 * 2**30 else None
    except OSError:
        return None


class Server:
    """Started on creation; `url` is its maintenance database; `stop()` removes everything."""

    def __init__(self, *, durable: bool = False, max_connections: int = 200):
        bin_ = programs()
        if not (bin_ / "initdb").exists():
            raise NoPostgres("this needs Debian's postgresql (the README's test command installs it): "
                             "apt-get install -y postgresql")
        self.bin = bin_
        self.dir = Path(tempfile.mkdtemp(prefix="fairmark-pg-", dir=None if durable else _memory()))
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        data = self.dir / "data"
        subprocess.run(_as_postgres(str(bin_ / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                    *([] if durable else ["--no-sync"])), check=True, capture_output=True)
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=256MB"
        subprocess.run(_as_postgres(str(bin_ / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                                    str(self.dir / "server.log"), "-w", "start"), check=True, capture_output=True)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database(self, name: str) -> str:
        """A new empty database on this server: its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.url.rpartition("/")[0] + "/" + name

    def stop(self) -> None:
        subprocess.run(_as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate",
                                    "stop"), capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
