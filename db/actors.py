"""Who does something: the leaf type both layers share (core/accounts/access.py re-exports it and holds
the permissions). An `Actor` IS the name recorded as who did a thing (a `str`: the audit log's
`actor`, `reviewed_by`, a blind score's rater), and carries the user id and role that
`db.audit` writes beside it, and the courses the person may reach. So a name travels through
every existing write unchanged, while a plain string can never pass a permission check."""
from __future__ import annotations

from collections.abc import Mapping

ROLES = ("admin", "coordinator", "instructor", "ta")
ROLE_LABELS = {"admin": "admin", "coordinator": "coordinator", "instructor": "instructor",
               "ta": "teaching assistant", "automatic": "FairMark acting on its own", "student": "student"}
# FairMark itself, acting on a schedule with nobody signed in (core.accounts.access.automatic):
# never a user's role (not in ROLES), and allowed only the actions that name it.
AUTOMATIC = "automatic"
# A student who opened a private link or launched from the LMS as a Learner (issue 26): never a
# user's role either; allowed only the student actions, and only on their own released work
# (`student_id`, and `assignment_id` when the link is for one assignment).
STUDENT = "student"


class Actor(str):
    """The signed-in user, or the command line.

    name          what the audit log records (a user's username; "command line (<OS user>)")
    role          one of ROLES
    user_id       the users row (None for the command line)
    display_name  what the sidebar shows
    courses       {course id: may see student names}, or None for every course (admin, CLI)
    student_id    a student's own students row (role STUDENT only)
    assignment_id the one assignment a student's link opens (None: every assignment of the course)
    """

    def __new__(cls, name: str, *, role: str, user_id: int | None = None, display_name: str = "",
                courses: Mapping[int, bool] | None = None, via: str = "password", student_id: int | None = None,
                assignment_id: int | None = None):
        if role not in ROLES and role not in (AUTOMATIC, STUDENT):
            raise ValueError(f"unknown role {role!r}: one of {', '.join(ROLES)}")
        if (role == STUDENT) != (student_id is not None):
            raise ValueError("a student actor needs its student_id, and only a student actor has one")
        if role == STUDENT and (courses is None or len(courses) != 1):
            raise ValueError("a student actor belongs to exactly one course")
        self = super().__new__(cls, name)
        for key, value in (("role", role), ("user_id", user_id), ("display_name", display_name or name),
                           ("courses", None if courses is None else dict(courses)), ("via", via),
                           ("student_id", student_id), ("assignment_id", assignment_id)):
            object.__setattr__(self, key, value)
        return self

    def __setattr__(self, key, value):
        raise AttributeError("an Actor cannot change: sign in again")

    def __reduce__(self):  # copies and pickles (Streamlit's session state) keep the attributes
        return (_rebuild, (str(self), self.role, self.user_id, self.display_name, self.courses, self.via,
                           self.student_id, self.assignment_id))

    @property
    def role_label(self) -> str:
        return ROLE_LABELS[self.role]

    @property
    def all_courses(self) -> bool:
        return self.courses is None

    def has_course(self, course_id: int) -> bool:
        return self.courses is None or int(course_id) in self.courses

    def course_ids(self) -> list[int] | None:
        """The granted courses (None: every course)."""
        return None if self.courses is None else sorted(self.courses)

    def __repr__(self) -> str:
        return f"Actor({str(self)!r}, role={self.role!r})"


def _rebuild(name, role, user_id, display_name, courses, via, student_id=None, assignment_id=None):
    return Actor(name, role=role, user_id=user_id, display_name=display_name, courses=courses, via=via,
                 student_id=student_id, assignment_id=assignment_id)


def audit_fields(actor) -> tuple[str, int | None, str | None]:
    """(name, user id, role) for an audit row: an Actor gives all three; a plain string is a
    process acting on its own (a background run's worker) and has neither id nor role."""
    return str(actor), getattr(actor, "user_id", None), getattr(actor, "role", None)
