"""What the LTI service tests need from the launch side (l-lti's part of issue 25) before the
two are merged, kept here in the tests and nowhere in core/:

- `install_standins()`: modules `core.lti.keys` (sign, jwks with one test RSA key) and
  `core.lti.links` (for_assignment, for_course) built on the contract's tables, registered only
  when the real modules do not exist yet;
- `create_launch_tables(conn)`: l-lti's tables with the contract's columns (IF NOT EXISTS);
- `link(conn, svc, course_id, assignment_id=...)`: a platform, its context and a resource link;
- `serve(svc)`: the test platform's services on 127.0.0.1 (uvicorn in a thread).
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import socket
import sys
import threading
import time
import types

import uvicorn
from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.applications import Starlette

from lti_platform.services import SCOPE, Services, routes

_KEY = RSAKey.generate_key(2048, parameters={"kid": "test-tool-key", "use": "sig", "alg": "RS256"})


def _sign(claims: dict, conn) -> str:
    return jwt.encode({"alg": "RS256", "kid": "test-tool-key"}, claims, _KEY)


def _jwks(conn=None) -> dict:
    return {"keys": [_KEY.as_dict(private=False)]}


def _launch_tables(conn) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'lti_links'").fetchone() is not None


def _for_course(conn, course_id: int) -> dict | None:
    if not _launch_tables(conn):
        return None
    row = conn.execute(
        "SELECT p.id, p.issuer, p.client_id, p.token_url, c.context_id, c.course_id, "
        "(SELECT l.nrps_url FROM lti_links l WHERE l.context_row = c.id AND l.nrps_url != '' ORDER BY l.id DESC) "
        "FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE c.course_id = ?",
        [course_id]).fetchone()
    if row is None:
        return None
    return {"platform": {"id": row[0], "issuer": row[1], "client_id": row[2], "token_url": row[3]},
            "context_id": row[4], "course_id": row[5], "nrps_url": row[6] or ""}


def _for_assignment(conn, assignment_id: int) -> dict | None:
    if not _launch_tables(conn):
        return None
    row = conn.execute(
        "SELECT l.lineitem_url, l.lineitems_url, l.ags_scopes, l.nrps_url, c.course_id FROM lti_links l "
        "JOIN lti_contexts c ON c.id = l.context_row WHERE l.assignment_id = ? ORDER BY l.id DESC",
        [assignment_id]).fetchone()
    if row is None:
        return None
    out = _for_course(conn, row[4])
    return {**out, "lineitem_url": row[0] or "", "lineitems_url": row[1] or "", "ags_scopes": (row[2] or "").split(),
            "nrps_url": row[3] or out["nrps_url"]}


def install_standins() -> None:
    """core.lti.keys / core.lti.links as the contract describes them, unless l-lti's exist."""
    for name, attrs in (("core.lti.keys", {"sign": _sign, "jwks": _jwks}),
                        ("core.lti.links", {"for_assignment": _for_assignment, "for_course": _for_course})):
        if name in sys.modules or importlib.util.find_spec(name) is not None:
            continue
        module = types.ModuleType(name, "test stand-in for l-lti's module (tests/lti_support.py)")
        module.__dict__.update(attrs)
        sys.modules[name] = module
        setattr(importlib.import_module("core.lti"), name.rsplit(".", 1)[1], module)


LAUNCH_TABLES = (
    "CREATE TABLE IF NOT EXISTS lti_platforms (id INTEGER PRIMARY KEY, issuer TEXT NOT NULL, client_id TEXT NOT NULL, "
    "auth_url TEXT NOT NULL DEFAULT '', token_url TEXT NOT NULL, jwks_url TEXT NOT NULL DEFAULT '', "
    "created_at TEXT NOT NULL DEFAULT '', UNIQUE (issuer, client_id))",
    "CREATE TABLE IF NOT EXISTS lti_contexts (id INTEGER PRIMARY KEY, platform_id INTEGER NOT NULL, "
    "context_id TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', course_id INTEGER)",
    "CREATE TABLE IF NOT EXISTS lti_links (id INTEGER PRIMARY KEY, platform_id INTEGER NOT NULL, "
    "resource_link_id TEXT NOT NULL, context_row INTEGER NOT NULL, assignment_id INTEGER, lineitem_url TEXT, "
    "lineitems_url TEXT, ags_scopes TEXT, nrps_url TEXT)",
)


def create_launch_tables(conn) -> None:
    for sql in LAUNCH_TABLES:
        conn.execute(sql)
    conn.conn.commit()


def link(conn, svc: Services, course_id: int, assignment_id: int | None = None, *, lineitem: str = "",
         scopes=("score", "lineitem", "nrps"), context: str = "ctx1") -> None:
    """What a launch from `context` into the course (and the assignment's resource link) stores."""
    create_launch_tables(conn)
    pid = conn.execute("SELECT id FROM lti_platforms WHERE client_id = ?", [svc.client_id]).fetchone()
    pid = pid[0] if pid else conn.execute(
        "INSERT INTO lti_platforms (issuer, client_id, auth_url, token_url, jwks_url, created_at) "
        "VALUES (?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z')",
        [svc.base_url, svc.client_id, f"{svc.base_url}/auth", svc.token_url, f"{svc.base_url}/jwks"]).lastrowid
    ctx = conn.execute("SELECT id FROM lti_contexts WHERE platform_id = ? AND context_id = ?", [pid, context]).fetchone()
    ctx = ctx[0] if ctx else conn.execute(
        "INSERT INTO lti_contexts (platform_id, context_id, title, course_id) VALUES (?, ?, 'LMS course', ?)",
        [pid, context, course_id]).lastrowid
    conn.execute("INSERT INTO lti_links (platform_id, resource_link_id, context_row, assignment_id, lineitem_url, "
                 "lineitems_url, ags_scopes, nrps_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 [pid, f"rl-{assignment_id}", ctx, assignment_id, lineitem,
                  svc.lineitems_url(context), " ".join(SCOPE[s] for s in scopes if s != "nrps"),
                  svc.nrps_url(context) if "nrps" in scopes else ""])
    conn.conn.commit()


@contextlib.contextmanager
def serve(svc: Services):
    """The services on a real HTTP server at 127.0.0.1:<free port> for the block."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    svc.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=routes(svc)), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + 10
    while not server.started and time.time() < deadline:
        time.sleep(0.02)
    try:
        yield svc
    finally:
        server.should_exit = True
        thread.join(5)
        sock.close()


def member(user_id: str, name: str, email: str = "", sis: str = "", *, role: str = "Learner",
           status: str = "Active") -> dict:
    """One NRPS member as an LMS sends it."""
    m = {"status": status, "name": name, "user_id": user_id,
         "roles": [f"http://purl.imsglobal.org/vocab/lis/v2/membership#{role}"]}
    if email:
        m["email"] = email
    if sis:
        m["lis_person_sourcedid"] = sis
    return m


@contextlib.contextmanager
def linked_course(db_path, course_name: str):
    """The course of that name linked to a served test platform with one learner (the command
    line reference's runs, tests/test_docs.py)."""
    import db
    from core.lti import tokens
    from db import courses

    install_standins()
    tokens.forget()
    svc = Services(client_id="fairmark-docs", tool_jwks=_jwks, members=[member("u1", "Ana López", "ana@school.example")])
    with serve(svc):
        conn = db.connect(db_path)
        try:
            link(conn, svc, courses.course_by_name(conn, course_name)["id"])
        finally:
            conn.close()
        yield svc
    tokens.forget()
