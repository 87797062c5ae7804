"""The labels core gives the review pages (core/signoff/labels.py, triage.py, eligibility.py and
the offline baseline's label) read in the teacher's language: the queue's groups, flags and tags,
the item's status, the reasons for a change and the history table."""
from __future__ import annotations

import factories as f
from core.signoff import labels, triage
from shown import plain

SCORES = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


def _course_with_a_draft(conn, **draft):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Elev Ett"),
                       text="Jag lärde mig att temperaturen styr hur slumpmässiga svaren blir.")
    f.draft(conn, sid, SCORES, **draft)
    return c, sid


def _review(app_test, c, locale, item=None):
    at = app_test("pages/review.py")
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    if item is not None:   # opened as the queue's button does (AppTest's click would format the
        at.session_state["review_item"] = item   # queue's translated choices outside the run, in English)
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_queues_groups_flags_and_tags_in_swedish(app_test, conn):
    c, sid = _course_with_a_draft(conn, flags=["short_text"])
    at = _review(app_test, c, "sv-SE")
    groups = at.selectbox(key="rq_group").options
    assert "Övriga utkast" in groups and "Osäker AI / granskarna oeniga" in groups
    assert triage.LABELS[triage.REST] not in groups   # the English group name is gone
    assert "Kort text" in at.selectbox(key="rq_flag").options
    captions = [plain(x.value) for x in at.caption]
    assert any("Granskaren: säker" in x and "Kort text" in x for x in captions), captions
    # The command line and exports still read the English label.
    assert labels.label(labels.FLAG_LABELS, "short_text") == "Short text"


def test_the_item_its_reasons_and_its_history_in_russian(app_test, conn):
    c, sid = _course_with_a_draft(conn, is_offline=True)
    at = _review(app_test, c, "ru-RU", item=sid)
    shown = [plain(m.value) for m in at.markdown] + [plain(x.value) for x in at.caption]
    assert any("черновик" in x.lower() and "офлайн-базовая модель — без LLM" in x for x in shown), shown
    reasons = at.multiselect(key=f"ri_reasons_{sid}_1")
    assert "Слишком строго" in reasons.options and "Другое (добавьте заметку)" in reasons.options
    history = next(d.value for d in at.dataframe if "Действие" in d.value.columns)
    assert list(history.columns) == ["Когда", "Кто", "Действие", "Причина", "Изменение"]
    assert "Открыто" in set(history["Действие"])
