"""The Second marking, Moderation and Markers pages (AppTest): the second marker sees nothing of the
first mark or the AI's draft until they commit; the moderator settles; a marker sees only their figures."""
from __future__ import annotations

import pytest

import factories as f
from page_reads import PermissionCount
from core.moderation import markers, marking, sample
from core.signoff import actions
from db import moderation as mod_db
from db import reviews

LOW = {"concept_understanding": 1, "real_world_application": 1, "reflection_depth": 1, "clarity": 1}
HIGH = {"concept_understanding": 3, "real_world_application": 3, "reflection_depth": 3, "clarity": 3}
SECRET = "SECRET AI COMMENT"


def _seeded(conn) -> dict:
    """Two items first-marked by ivy (approved as the AI drafted), drawn with tina second."""
    c = f.course(conn, name="Course M")
    sids = []
    for k in range(2):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id=f"s{k}"),
                           text=f"My reflection number {k} on temperature.")
        f.draft(conn, sid, LOW, comment=f"{SECRET} {k}")
        sids.append(sid)
    ivy = f.user(conn, "ivy", "instructor", courses=[c["course_id"]])
    f.user(conn, "tina", "ta", courses=[c["course_id"]])
    cora = f.user(conn, "cora", "coordinator", courses=[c["course_id"]])
    markers.assign(conn, c["assignment_id"], how="random", markers=["ivy"], actor=cora)
    for sid in sids:
        actions.open_item(conn, sid, actor=ivy)
        actions.approve(conn, sid, version=reviews.get_review(conn, sid)["version"], actor=ivy)
    sample.draw(conn, c["assignment_id"], size=2, actor=cora)
    return {"c": c, "sids": sids}


def _page(app_test, m, path, role, user):
    at = app_test(path, role=role, user=user, courses=[m["c"]["course_id"]])
    at.session_state["course_id"] = m["c"]["course_id"]
    at.session_state["assignment_id"] = m["c"]["assignment_id"]
    return at.run()


def _shown(at) -> str:
    parts = []
    for kind in ("markdown", "text", "caption", "info", "warning", "error", "success", "subheader", "title"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(o) for box in at.selectbox for o in (box.label, *box.options)]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(parts).replace("\\", "")      # Markdown escapes off: the words as read


def test_the_second_markers_page_hides_the_first_mark_and_the_ai_until_committed(conn, app_test):
    m = _seeded(conn)
    sid = m["sids"][0]
    at = _page(app_test, m, "pages/second_marking.py", "ta", "tina")
    assert not at.exception, at.exception
    at.button(key=f"sm_open_{sid}").click().run()
    text = _shown(at)
    assert "My reflection number 0" in text and SECRET not in text and "First marker" not in text
    for c in m["c"]["rubric"].criteria:
        at.selectbox(key=f"sm_score_{sid}_{c.key}").set_value(3)
    at.run()
    at.button(key=f"sm_save_{sid}").click().run()
    assert not at.exception, at.exception
    text = _shown(at)
    assert f"{SECRET} 0" in text and "First marker" in text
    assert mod_db.item(conn, sid)["second_scores"] == HIGH


def test_the_moderator_settles_on_the_moderation_page_and_a_ta_is_refused_it(conn, app_test):
    m = _seeded(conn)
    tina = f.user(conn, "tina", "ta")
    for sid in m["sids"]:
        marking.mark(conn, sid, HIGH, actor=tina)
    refused = _page(app_test, m, "pages/moderation.py", "ta", "tina")
    assert "may not draw moderation samples" in _shown(refused)
    at = _page(app_test, m, "pages/moderation.py", "coordinator", "cora")
    assert not at.exception, at.exception
    assert [x.value for x in at.metric] == ["2", "2", "2", "0"]
    sid = m["sids"][0]
    for c in m["c"]["rubric"].criteria:
        at.selectbox(key=f"mod_final_{sid}_{c.key}").set_value(2)
    at.text_input(key=f"mod_note_{sid}").input("both half right")
    at.button(key=f"FormSubmitter:mod_settle_{sid}-Settle").click().run()
    assert not at.exception, at.exception
    assert [x.value for x in at.metric] == ["2", "2", "2", "1"]
    assert reviews.get_review(conn, sid)["scores"] == {k: 2 for k in LOW}


def test_the_markers_page_shows_a_marker_only_their_own_figures(conn, app_test):
    m = _seeded(conn)
    tina = f.user(conn, "tina", "ta")
    for sid in m["sids"]:
        marking.mark(conn, sid, HIGH, actor=tina)
    at = _page(app_test, m, "pages/markers.py", "coordinator", "cora")
    assert not at.exception, at.exception
    text = _shown(at)
    assert "marks Clarity 2.0 lower than the consensus" in text and "marks Clarity 2.0 higher" in text
    own = _page(app_test, m, "pages/markers.py", "ta", "tina")
    text = _shown(own)
    assert "marks Clarity 2.0 higher than the consensus" in text and "lower than the consensus" not in text


@pytest.mark.parametrize("path, role, user, item", [
    ("pages/second_marking.py", "ta", "tina", False), ("pages/second_marking.py", "ta", "tina", True),
    ("pages/moderation.py", "coordinator", "cora", False), ("pages/markers.py", "coordinator", "cora", False),
    ("pages/markers.py", "ta", "tina", False)])
def test_a_render_checks_the_actor_once(conn, app_test, monkeypatch, path, role, user, item):
    m = _seeded(conn)
    at = app_test(path, role=role, user=user, courses=[m["c"]["course_id"]])
    at.session_state["course_id"] = m["c"]["course_id"]
    at.session_state["assignment_id"] = m["c"]["assignment_id"]
    if item:
        at.session_state["sm_item"] = m["sids"][0]
    counter = PermissionCount(monkeypatch)
    at.run()
    assert not at.exception, at.exception
    assert len(counter.calls) == 1, counter.calls


def _listed(at) -> set[int]:
    return {int(b.key.removeprefix("open_")) for b in at.button if (b.key or "").startswith("open_")}


def test_the_review_pages_queue_shows_a_markers_items_unless_all_and_never_one_they_mark_blind(conn, app_test):
    c = f.course(conn, name="Course M")
    sids = []
    for k in range(4):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id=f"s{k}"))
        f.draft(conn, sid, LOW, comment=f"{SECRET} {k}")
        sids.append(sid)
    f.user(conn, "ivy", "instructor", courses=[c["course_id"]])
    f.user(conn, "tina", "ta", courses=[c["course_id"]])
    cora = f.user(conn, "cora", "coordinator", courses=[c["course_id"]])
    markers.assign(conn, c["assignment_id"], how="random", seed=1, actor=cora)
    ivy_items = {s for s, who in mod_db.assigned(conn, c["assignment_id"]).items() if who == "ivy"}
    at = _page(app_test, {"c": c}, "pages/review.py", "instructor", "ivy")
    assert not at.exception, at.exception
    assert _listed(at) == ivy_items
    at.toggle(key="rq_all").set_value(True).run()
    assert _listed(at) == set(sids)
    drawn = sample.draw(conn, c["assignment_id"], size=4, actor=cora)["sample"]
    blind_for_ivy = {i["submission_id"] for i in drawn if i["second_marker"] == "ivy"}
    assert blind_for_ivy
    at.run()
    assert _listed(at) == set(sids) - blind_for_ivy


def test_the_release_page_names_the_moderated_item_that_waits_and_why(conn, app_test):
    m = _seeded(conn)
    at = _page(app_test, m, "pages/release.py", "instructor", "ivy")
    assert not at.exception, at.exception
    text = _shown(at)
    assert "Moderation sample marked and settled" in text
    assert f"submission {m['sids'][0]} waits for its second mark (by tina)" in text
