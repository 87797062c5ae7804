"""Items for the sign-off tests (tests/test_signoff_*.py, test_queue.py): a course fixture, an
item with a draft, and the actions in an item's audit trail."""
from __future__ import annotations

import pytest

import factories as f
from db import reviews

HIGH = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}
LOW = {"concept_understanding": 1, "real_world_application": 0, "reflection_depth": 1, "clarity": 1}


@pytest.fixture
def course(conn):
    return f.course(conn)


def make_item(conn, course, scores=HIGH, text="I learned about temperature and bias.", **kw):
    sid = f.submission(conn, course["assignment_id"], f.student(conn, course["course_id"]), text=text)
    f.draft(conn, sid, scores, **kw)
    return sid


def audited(conn, sid):
    """The actions in an item's audit trail, oldest first."""
    return [h["action"] for h in reviews.history(conn, sid)]
