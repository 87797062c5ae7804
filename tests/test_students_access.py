"""A student actor (issue 26): the student actions only, and only on their own work."""
import pytest

import factories as f
from core.accounts import access
from core.accounts.access import Forbidden


def test_a_student_may_only_the_student_actions():
    me = access.student(3, 1, assignment_id=5)
    assert access.allowed(me, 1) == {"student_view", "appeal"}
    assert access.allowed(me, 2) == frozenset()
    for staff in ("read", "review", "release", "dashboards", "calibrate", "settings", "users", "lti"):
        assert not access.may(me, staff, 1)
    teacher = f.actor()
    assert not access.may(teacher, "student_view", 1) and not access.may(teacher, "appeal", 1)
    with pytest.raises(ValueError):
        access.Actor("x", role="student", courses={1: False})  # no student id
    with pytest.raises(ValueError):
        access.Actor("x", role="ta", student_id=3, courses={1: False})


def test_check_student_opens_only_their_own_submission_in_the_links_assignment(conn):
    course = f.course(conn, weeks=2)
    cid, (week1, week2) = course["course_id"], course["assignment_ids"]
    me, other = f.student(conn, cid), f.student(conn, cid)
    mine1, mine2 = f.submission(conn, week1, me), f.submission(conn, week2, me)
    theirs = f.submission(conn, week1, other)
    link = access.student(me, cid, assignment_id=week1)
    assert access.check_student(conn, link, "student_view", mine1) == cid
    lti = access.student(me, cid)  # a Learner launch: every assignment of the course
    assert access.check_student(conn, lti, "appeal", mine2) == cid
    refusals = set()
    for who, sid in ((link, mine2), (link, theirs), (link, 10**9), (lti, theirs)):
        with pytest.raises(Forbidden) as e:
            access.check_student(conn, who, "student_view", sid)
        refusals.add(str(e.value))
    assert refusals == {access.NOT_YOURS}  # one message: which ids exist is not told
    with pytest.raises(Forbidden):  # a teacher never passes the student check
        access.check_student(conn, f.actor(), "student_view", mine1)
