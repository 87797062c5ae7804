"""The review page for tests: one item opened with AppTest in the browser's locale."""
from __future__ import annotations


def review_item(app_test, course: dict, submission_id: int, locale: str):
    """pages/review.py run with AppTest in `locale`, on `course`'s assignment with one item open."""
    at = app_test("pages/review.py")
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = course["course_id"], course["assignment_id"]
    at.session_state["review_item"] = submission_id
    at.run()
    assert not at.exception, at.exception
    return at
