"""Release gates and locked versions (core.signoff.release, db.releases) on a real SQLite file."""
from __future__ import annotations

import pytest

from core.errors import GateError
from core.signoff import actions, release
from db import reviews, submissions
from signoff_items import HIGH, audited, course, make_item  # noqa: F401  (course: a fixture)
from core.accounts.access import Actor


def test_edit_after_release_makes_new_version_needing_own_release(conn, course):
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=Actor("ann", role="admin"))
    actions.approve(conn, sid, version=1, actor=Actor("ann", role="admin"))
    rel = release.release(conn, course["assignment_id"], actor=Actor("ann", role="admin"))
    assert rel["n_items"] == 1
    assert submissions.get_submission(conn, sid)["status"] == "released"
    locked = conn.execute("SELECT review_version, scores FROM release_items WHERE submission_id = ?", [sid]).fetchone()
    assert locked[0] == 2
    r = reviews.get_review(conn, sid)
    actions.save_edit(conn, sid, version=r["version"], scores=dict(HIGH, clarity=0), comment=r["comment"],
                     reasons=["too_lenient"], actor=Actor("ann", role="admin"))
    sub = submissions.get_submission(conn, sid)
    assert sub["status"] == "drafted" and reviews.get_review(conn, sid)["status"] == "in_review"
    # The release still holds the locked version.
    assert conn.execute("SELECT review_version FROM release_items WHERE submission_id = ?", [sid]).fetchone()[0] == 2
    with pytest.raises(GateError, match="no approved item"):
        release.release(conn, course["assignment_id"], actor=Actor("ann", role="admin"))
    r = reviews.get_review(conn, sid)
    actions.approve(conn, sid, version=r["version"], actor=Actor("ann", role="admin"))
    second = release.release(conn, course["assignment_id"], actor=Actor("ann", role="admin"))
    versions = [row[0] for row in conn.execute(
        "SELECT review_version FROM release_items WHERE submission_id = ? ORDER BY release_id", [sid])]
    assert second["release_id"] != rel["release_id"] and versions == [2, 4]


def test_release_gate_needs_attention_items_decided(conn, course):
    ok = make_item(conn, course)
    bad = make_item(conn, course, status="needs_attention", attention_reasons=["REVISE after 2 rounds"])
    actions.open_item(conn, ok, actor=Actor("ann", role="admin"))
    actions.approve(conn, ok, version=1, actor=Actor("ann", role="admin"))
    gates = {g.name: g for g in release.release_gates(conn, course["assignment_id"], actor=Actor("test", role="admin"))}
    assert not gates["No item needing attention left unreviewed"].ok
    with pytest.raises(GateError, match="needing attention"):
        release.release(conn, course["assignment_id"], actor=Actor("ann", role="admin"))
    assert conn.execute("SELECT COUNT(*) FROM releases").fetchone()[0] == 0
    actions.open_item(conn, bad, actor=Actor("ann", role="admin"))
    actions.reject(conn, bad, version=1, note="needs a rewrite", actor=Actor("ann", role="admin"))
    out = release.release(conn, course["assignment_id"], actor=Actor("ann", role="admin"))
    assert out["n_items"] == 1
    assert submissions.get_submission(conn, bad)["status"] == "rejected"
    assert audited(conn, ok)[-1] == "release"
