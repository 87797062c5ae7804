"""LTI 1.3 rows (m025a): registered platforms and their deployments, the tool's keys, login
states and used nonces, and what launches linked (contexts to courses, LMS users to FairMark
users or students, resource links to assignments). The rules are core/lti's; this module only
reads and writes."""
from __future__ import annotations

from sqlite_utils import Database

from db import audit, dumps, loads, now

_PLATFORM = "id, issuer, client_id, auth_url, token_url, jwks_url, created_at"


# --- platforms and deployments ------------------------------------------------------
def insert_platform(conn: Database, *, issuer: str, client_id: str, auth_url: str, token_url: str, jwks_url: str,
                    actor) -> int:
    pid = conn.execute("INSERT INTO lti_platforms (issuer, client_id, auth_url, token_url, jwks_url) "
                       "VALUES (?, ?, ?, ?, ?)", [issuer, client_id, auth_url, token_url, jwks_url]).lastrowid
    audit(conn, actor=actor, action="lti_platform_add", entity="lti_platforms", entity_id=pid,
          after={"issuer": issuer, "client_id": client_id, "auth_url": auth_url, "token_url": token_url,
                 "jwks_url": jwks_url})
    return pid


def add_deployment(conn: Database, platform_id: int, deployment_id: str, *, actor) -> bool:
    """True when it was new."""
    n = conn.execute("INSERT OR IGNORE INTO lti_deployments (platform_id, deployment_id) VALUES (?, ?)",
                     [platform_id, deployment_id]).rowcount
    if n:
        audit(conn, actor=actor, action="lti_deployment_add", entity="lti_platforms", entity_id=platform_id,
              after={"deployment_id": deployment_id})
    return bool(n)


def platform(conn: Database, platform_id: int) -> dict | None:
    return next(conn.query(f"SELECT {_PLATFORM} FROM lti_platforms WHERE id = ?", [platform_id]), None)


def find_platform(conn: Database, issuer: str, client_id: str) -> dict | None:
    return next(conn.query(f"SELECT {_PLATFORM} FROM lti_platforms WHERE issuer = ? AND client_id = ?",
                           [issuer, client_id]), None)


def platforms_of_issuer(conn: Database, issuer: str) -> list[dict]:
    return list(conn.query(f"SELECT {_PLATFORM} FROM lti_platforms WHERE issuer = ? ORDER BY id", [issuer]))


def has_platform(conn: Database) -> bool:
    """Whether any LMS platform is registered (one indexed row read: the automatic retry's first step)."""
    return conn.execute("SELECT 1 FROM lti_platforms LIMIT 1").fetchone() is not None


def list_platforms(conn: Database) -> list[dict]:
    rows = list(conn.query(f"SELECT {_PLATFORM} FROM lti_platforms ORDER BY issuer, client_id"))
    for row in rows:
        row["deployments"] = deployments(conn, row["id"])
    return rows


def deployments(conn: Database, platform_id: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT deployment_id FROM lti_deployments WHERE platform_id = ? "
                                       "ORDER BY deployment_id", [platform_id])]


def has_deployment(conn: Database, platform_id: int, deployment_id: str) -> bool:
    return conn.execute("SELECT 1 FROM lti_deployments WHERE platform_id = ? AND deployment_id = ?",
                        [platform_id, deployment_id]).fetchone() is not None


# --- the tool's keys ----------------------------------------------------------------
def insert_key(conn: Database, *, kid: str, public_jwk: dict, private_key: str, actor) -> None:
    conn.execute("INSERT INTO lti_keys (kid, public_jwk, private_key, created_at) VALUES (?, ?, ?, ?)",
                 [kid, dumps(public_jwk), private_key, now()])
    audit(conn, actor=actor, action="lti_key_create", entity="lti_keys", after={"kid": kid})


def current_key(conn: Database) -> dict | None:
    """The newest key not retired: the one that signs."""
    return next(conn.query("SELECT kid, public_jwk, private_key, created_at FROM lti_keys WHERE retired_at IS NULL "
                           "ORDER BY created_at DESC, rowid DESC LIMIT 1"), None)


def published_keys(conn: Database, *, retired_after: str) -> list[dict]:
    """The public keys of the current key and of keys retired after `retired_after`."""
    return [loads(r[0]) for r in conn.execute(
        "SELECT public_jwk FROM lti_keys WHERE retired_at IS NULL OR retired_at > ? ORDER BY created_at, rowid",
        [retired_after])]


def retire_keys(conn: Database, *, keep: str, actor) -> list[str]:
    """Retire every signing key but `keep`; returns the kids retired."""
    kids = [r[0] for r in conn.execute("SELECT kid FROM lti_keys WHERE retired_at IS NULL AND kid != ?", [keep])]
    conn.execute("UPDATE lti_keys SET retired_at = ? WHERE retired_at IS NULL AND kid != ?", [now(), keep])
    for kid in kids:
        audit(conn, actor=actor, action="lti_key_retire", entity="lti_keys", after={"kid": kid})
    return kids


def drop_keys_retired_before(conn: Database, cut: str) -> int:
    """Forget the private keys no token in flight can need any more."""
    return conn.execute("DELETE FROM lti_keys WHERE retired_at IS NOT NULL AND retired_at <= ?", [cut]).rowcount


# --- login states and nonces ----------------------------------------------------------
def insert_state(conn: Database, *, state: str, platform_id: int, nonce: str, browser_hash: str,
                 target_link_uri: str) -> None:
    conn.execute("INSERT INTO lti_states (state, platform_id, nonce, browser_hash, target_link_uri, created_at) "
                 "VALUES (?, ?, ?, ?, ?, ?)", [state, platform_id, nonce, browser_hash, target_link_uri, now()])


def get_state(conn: Database, state: str) -> dict | None:
    return next(conn.query("SELECT * FROM lti_states WHERE state = ?", [state]), None)


def use_state(conn: Database, state: str) -> bool:
    return conn.execute("UPDATE lti_states SET used_at = ? WHERE state = ? AND used_at IS NULL",
                        [now(), state]).rowcount == 1


def nonce_used(conn: Database, platform_id: int, nonce: str) -> bool:
    return conn.execute("SELECT 1 FROM lti_nonces WHERE platform_id = ? AND nonce = ?",
                        [platform_id, nonce]).fetchone() is not None


def use_nonce(conn: Database, platform_id: int, nonce: str, *, expires_at: str) -> bool:
    return conn.execute("INSERT OR IGNORE INTO lti_nonces (platform_id, nonce, expires_at) VALUES (?, ?, ?)",
                        [platform_id, nonce, expires_at]).rowcount == 1


def purge_expired(conn: Database, *, states_before: str, nonces_before: str) -> None:
    """Login states past their life and nonces no valid token can carry any more."""
    conn.execute("DELETE FROM lti_states WHERE created_at < ?", [states_before])
    conn.execute("DELETE FROM lti_nonces WHERE expires_at < ?", [nonces_before])


# --- contexts, users and links ------------------------------------------------------
def find_context(conn: Database, platform_id: int, context_id: str) -> dict | None:
    return next(conn.query("SELECT * FROM lti_contexts WHERE platform_id = ? AND context_id = ?",
                           [platform_id, context_id]), None)


def insert_context(conn: Database, *, platform_id: int, context_id: str, title: str, course_id: int | None,
                   actor) -> int:
    cid = conn.execute("INSERT INTO lti_contexts (platform_id, context_id, title, course_id) VALUES (?, ?, ?, ?)",
                       [platform_id, context_id, title, course_id]).lastrowid
    audit(conn, actor=actor, action="lti_context_link", entity="lti_contexts", entity_id=cid,
          after={"platform_id": platform_id, "context_id": context_id, "course_id": course_id})
    return cid


def update_context(conn: Database, row_id: int, *, title: str) -> None:
    conn.execute("UPDATE lti_contexts SET title = ? WHERE id = ?", [title, row_id])


def list_contexts(conn: Database) -> list[dict]:
    return list(conn.query(
        "SELECT x.id, x.platform_id, x.context_id, x.title, x.course_id, c.name AS course FROM lti_contexts x "
        "LEFT JOIN courses c ON c.id = x.course_id ORDER BY x.platform_id, x.context_id"))


def find_person(conn: Database, platform_id: int, sub: str, context_row: int) -> dict | None:
    return next(conn.query("SELECT * FROM lti_users WHERE platform_id = ? AND sub = ? AND context_row = ?",
                           [platform_id, sub, context_row]), None)


def insert_person(conn: Database, *, platform_id: int, sub: str, context_row: int, user_id: int | None,
                  student_id: int | None, role: str, name: str, email: str, sourcedid: str, actor) -> int:
    pid = conn.execute(
        "INSERT INTO lti_users (platform_id, sub, context_row, user_id, student_id, role, name, email, sourcedid, "
        "last_launch_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [platform_id, sub, context_row, user_id, student_id, role, name, email, sourcedid, now()]).lastrowid
    audit(conn, actor=actor, action="lti_user_link", entity="lti_users", entity_id=pid,
          after={"platform_id": platform_id, "context_row": context_row, "user_id": user_id,
                 "student_id": student_id, "role": role})
    return pid


def update_person(conn: Database, row_id: int, **fields) -> None:
    allowed = {"user_id", "student_id", "role", "name", "email", "sourcedid"}
    if set(fields) - allowed:
        raise ValueError(f"cannot update {sorted(set(fields) - allowed)}")
    sets = "".join(f"{k} = ?, " for k in fields)
    conn.execute(f"UPDATE lti_users SET {sets}last_launch_at = ? WHERE id = ?", [*fields.values(), now(), row_id])


def find_link(conn: Database, platform_id: int, resource_link_id: str) -> dict | None:
    row = next(conn.query("SELECT * FROM lti_links WHERE platform_id = ? AND resource_link_id = ?",
                          [platform_id, resource_link_id]), None)
    return _link(row)


def link_of_lineitem(conn: Database, context_row: int, lineitem_url: str) -> dict | None:
    """Another resource link of the context on the same gradebook column (its assignment)."""
    row = next(conn.query("SELECT * FROM lti_links WHERE context_row = ? AND lineitem_url = ? "
                          "AND assignment_id IS NOT NULL ORDER BY id LIMIT 1", [context_row, lineitem_url]), None)
    return _link(row)


def insert_link(conn: Database, *, platform_id: int, resource_link_id: str, context_row: int,
                assignment_id: int | None, title: str, services: dict, actor) -> int:
    lid = conn.execute(
        "INSERT INTO lti_links (platform_id, resource_link_id, context_row, assignment_id, title, lineitem_url, "
        "lineitems_url, ags_scopes, nrps_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [platform_id, resource_link_id, context_row, assignment_id, title, services["lineitem_url"],
         services["lineitems_url"], dumps(services["ags_scopes"]), services["nrps_url"]]).lastrowid
    audit(conn, actor=actor, action="lti_link", entity="lti_links", entity_id=lid,
          after={"resource_link_id": resource_link_id, "assignment_id": assignment_id})
    return lid


def update_link(conn: Database, row_id: int, *, assignment_id: int | None, title: str, services: dict) -> None:
    conn.execute("UPDATE lti_links SET assignment_id = ?, title = ?, lineitem_url = ?, lineitems_url = ?, "
                 "ags_scopes = ?, nrps_url = ? WHERE id = ?",
                 [assignment_id, title, services["lineitem_url"], services["lineitems_url"],
                  dumps(services["ags_scopes"]), services["nrps_url"], row_id])


def _link(row: dict | None) -> dict | None:
    if row is not None:
        row["ags_scopes"] = loads(row["ags_scopes"], [])
    return row


def link_of_assignment(conn: Database, assignment_id: int) -> dict | None:
    """The newest link of an assignment, with its context and platform."""
    row = next(conn.query(
        "SELECT l.*, x.context_id, x.course_id, p.issuer, p.client_id, p.token_url FROM lti_links l "
        "JOIN lti_contexts x ON x.id = l.context_row JOIN lti_platforms p ON p.id = l.platform_id "
        "WHERE l.assignment_id = ? ORDER BY l.id DESC LIMIT 1", [assignment_id]), None)
    return _link(row)


def context_of_course(conn: Database, course_id: int) -> dict | None:
    """The context linked to a course, with its platform and the newest roster endpoint seen there."""
    return next(conn.query(
        "SELECT x.*, p.issuer, p.client_id, p.token_url, (SELECT nrps_url FROM lti_links l WHERE l.context_row = x.id "
        "AND COALESCE(l.nrps_url, '') != '' ORDER BY l.id DESC LIMIT 1) AS nrps_url FROM lti_contexts x "
        "JOIN lti_platforms p ON p.id = x.platform_id WHERE x.course_id = ? ORDER BY x.id LIMIT 1", [course_id]), None)
