"""The permission counter behind the one-read-per-page tests counts a page's checks, not the shell's."""
from __future__ import annotations

import factories as f
from page_reads import PermissionCount


def test_counts_the_pages_checks_and_not_the_shells(app_test, conn, monkeypatch):
    c = f.course(conn)
    counter = PermissionCount(monkeypatch)
    at = app_test("pages/review.py", role="instructor", courses=(c["course_id"],))
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    assert counter.calls, "the review page checks the actor at least once"
    assert all(name in {"require", "check", "check_path", "check_all", "scope_for", "may"} for name, _ in counter.calls)
    n = len(counter.calls)
    counter.reset()
    at.run()
    assert len(counter.calls) == n      # every rerun counts afresh, the same page the same way
