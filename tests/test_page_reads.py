"""One read per page (instructor pages): a render asks core for what it shows in one call, and
that call checks the signed-in actor once (tests/page_reads.py counts the checks the page's own
script makes; the app shell around it is left out).

Each entry of PAGES is a page as an instructor of a seeded course opens it; add a page by adding
an entry (its name, its file, and what to put in the session before the run)."""
from __future__ import annotations

import pytest

import factories as f
from page_reads import PermissionCount

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
LOW = {"concept_understanding": 1, "real_world_application": 0, "reflection_depth": 1, "clarity": 1}


@pytest.fixture
def seeded(conn):
    """A course with four drafted reflections (one needing attention), one of them released."""
    from core.signoff import actions, release

    c = f.course(conn)
    sids = []
    for i, (scores, kw) in enumerate([(HIGH, {}), (LOW, {}), (HIGH, {"status": "needs_attention"}),
                                      (HIGH, {"confidence": 0.3})]):
        st_id = f.student(conn, c["course_id"], external_id=f"p{i}", name=f"Name {i}")
        sid = f.submission(conn, c["assignment_id"], st_id, text=f"I learned about temperature, part {i}.")
        f.draft(conn, sid, scores, **kw)
        sids.append(sid)
        if i == 0:      # released before the item needing attention arrives (the release gate)
            admin = f.actor()
            review = actions.open_item(conn, sid, actor=admin)
            actions.approve(conn, sid, version=review["version"], actor=admin)
            release.release(conn, c["assignment_id"], actor=admin, expected=1)
    return {**c, "submission_ids": sids}


def _selected(state, c) -> None:
    state["course_id"], state["assignment_id"] = c["course_id"], c["assignment_id"]


PAGES = {   # name -> (page file, session state before the run)
    "review queue": ("pages/review.py", _selected),
    "review item": ("pages/review.py", lambda s, c: (_selected(s, c), s.__setitem__("review_item",
                                                                                  c["submission_ids"][1]))),
    "review released item": ("pages/review.py", lambda s, c: (_selected(s, c), s.__setitem__(
        "review_item", c["submission_ids"][0]))),
    "release": ("pages/release.py", _selected),
    "students": ("pages/student.py", _selected),
    "home": ("pages/home.py", _selected),
    "upload": ("pages/upload.py", _selected),
    "assess": ("pages/assess.py", _selected),
    "calibrate": ("pages/calibrate.py", _selected),
    "calibrate item": ("pages/calibrate.py", lambda s, c: (_selected(s, c), s.__setitem__("cal_item",
                                                                                        c["submission_ids"][2]))),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_a_render_checks_the_actor_once(name, app_test, seeded, monkeypatch):
    page, prepare = PAGES[name]
    at = app_test(page, role="instructor", courses=(seeded["course_id"],))
    prepare(at.session_state, seeded)
    counter = PermissionCount(monkeypatch)
    at.run()
    assert not at.exception, at.exception
    assert not any(b.label == "Sign in" for b in at.button)
    assert len(counter.calls) == 1, counter.calls
    counter.reset()
    at.run()        # a rerun (the first one created the teacher's review of an opened item) reads once too
    assert not at.exception, at.exception
    assert len(counter.calls) == 1, counter.calls
