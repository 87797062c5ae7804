"""A student reaches nothing but their own appeal and its reads (issue 26): the generated table of
every public core function on a course's data (tests/test_access.py), called by the student who
owns the submission, refuses them everywhere except the student's own functions below."""
from __future__ import annotations

from core.accounts import access
from test_access import INTERNAL, public_course_functions, refusal_problem, two_courses  # noqa: F401  (fixture)

# The student's own: each checks access.check_student (their own released work) first.
STUDENT_OWN = {"core.appeals.filing.file", "core.appeals.filing.for_student"}


def test_every_course_function_refuses_a_student_but_their_own(conn, db_path, two_courses):  # noqa: F811
    ids = two_courses["ids"]
    me = access.student(ids["student"], ids["course"])
    names = {n for n, _ in public_course_functions()}
    assert STUDENT_OWN <= names
    problems = {}
    for name, fn in public_course_functions():
        if name in INTERNAL or name in STUDENT_OWN:
            continue
        problem = refusal_problem(fn, conn, db_path, me, ids)
        if problem:
            problems[name] = problem
    assert not problems, "these functions let a student through:\n" + "\n".join(
        f"  {n}: {p}" for n, p in problems.items())
