"""A student's browser on the student page (app.py's router) in a given language, for
tests/test_i18n.py: the classroom of tests/student_support.py, Sam's link opened, an open appeal
form (a deadline ahead)."""
from __future__ import annotations

from core.courses import catalogue
from core.students import links
from student_support import classroom, token_of


def student_app(conn, db_path, app_test, locale: str, course_language: str | None = None):
    import db as dbmod

    c = classroom(conn)
    if course_language is not None:
        catalogue.set_language(conn, c["course_id"], course_language, actor=c["teacher"])
    catalogue.edit_assignment(conn, c["week1"], actor=c["teacher"], appeal_deadline="2099-01-01")
    other = dbmod.connect(db_path)
    try:
        token = links.open_link(other, token_of(c["links"][c["sam1"]]), client="test").token
    finally:
        other.close()
    at = app_test(signed_in=False)
    at.session_state["_student_token"] = token
    at.context = {"locale": locale}
    return at.run()
