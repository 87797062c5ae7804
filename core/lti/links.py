"""What the Advantage services (core.lti.grades, core.lti.roster) read of a launch's links.
Both are called only after those services' own checked entry points (tests/test_access.py
lists them as internal)."""
from __future__ import annotations

from db import lti as lti_db


def _platform(row: dict) -> dict:
    return {"id": row["platform_id"], "issuer": row["issuer"], "client_id": row["client_id"],
            "token_url": row["token_url"]}


def for_assignment(conn, assignment_id: int) -> dict | None:
    """{platform: {id, issuer, client_id, token_url}, lineitem_url, lineitems_url, ags_scopes,
    nrps_url, context_id, course_id} of the assignment's newest resource link; None when no
    launch linked it."""
    row = lti_db.link_of_assignment(conn, assignment_id)
    if row is None:
        return None
    return {"platform": _platform(row), "lineitem_url": row["lineitem_url"], "lineitems_url": row["lineitems_url"],
            "ags_scopes": list(row["ags_scopes"]), "nrps_url": row["nrps_url"], "context_id": row["context_id"],
            "course_id": row["course_id"]}


def for_course(conn, course_id: int) -> dict | None:
    """{platform, nrps_url, context_id, course_id} of the LMS context linked to the course."""
    row = lti_db.context_of_course(conn, course_id)
    if row is None:
        return None
    return {"platform": _platform(row), "nrps_url": row["nrps_url"], "context_id": row["context_id"],
            "course_id": row["course_id"]}
