"""Learning over time: growth per criterion across weeks from released scores (per student and
cohort), growth after each AI configuration's feedback, and next steps acted on as teachers mark
them on the review item. No satisfaction figure anywhere."""
import factories as f
from core.growth import learning
from core.signoff import actions, release
from core.accounts.access import Actor

KEYS = ("concept_understanding", "real_world_application", "reflection_depth", "clarity")


def _release_week(conn, aid, sid, score, *, config="cfg-a"):
    did = f.draft(conn, sid, dict.fromkeys(KEYS, score))
    conn.execute("UPDATE drafts SET ai_config = ? WHERE id = ?", [config, did])
    review = actions.open_item(conn, sid, actor=Actor("Ms T", role="admin"))
    actions.approve(conn, sid, version=review["version"], actor=Actor("Ms T", role="admin"))
    release.release(conn, aid, actor=Actor("Ms T", role="admin"))


def _course(conn):
    """Two students over three weeks; the AI configuration changes after week 2."""
    c = f.course(conn, weeks=3)
    students = [f.student(conn, c["course_id"], name=n) for n in ("Ana Silva", "Bo Berg")]
    subs = {}
    for w, aid in enumerate(c["assignment_ids"], start=1):
        for st, start in zip(students, (0, 1)):
            sid = f.submission(conn, aid, st, f"Week {w} reflection of {st}.")
            subs[(st, w)] = sid
            _release_week(conn, aid, sid, min(3, start + w - 1), config="cfg-a" if w < 3 else "cfg-b")
    return c, students, subs


def test_growth_per_criterion_per_student_and_cohort(conn):
    c, students, _ = _course(conn)
    g = learning.growth(conn, c["course_id"], actor=Actor("test", role="admin"))
    assert g["weeks"] == [1, 2, 3] and g["released"] == 6 and set(g["criteria"]) == set(KEYS)
    week_means = {(x["week"], x["criterion"]): (x["mean"], x["n"]) for x in g["cohort"]}
    assert week_means[(1, "clarity")] == (0.5, 2) and week_means[(3, "clarity")] == (2.5, 2)
    assert g["slopes"]["clarity"]["mean"] == 1.0 and g["slopes"]["clarity"]["n"] == 2
    ana = learning.student_growth(conn, c["course_id"], students[0], actor=Actor("test", role="admin"))
    assert {(s["criterion"], s["first"], s["last"], s["slope"]) for s in ana} == {(k, 0, 2, 1.0) for k in KEYS}


def test_growth_after_each_configuration(conn):
    c, _, _ = _course(conn)
    after = learning.after_config(conn, c["course_id"], actor=Actor("test", role="admin"))
    assert [a["config"] for a in after] == ["cfg-a"]     # cfg-b's week 3 has no next week yet
    assert after[0]["n"] == 4 and after[0]["mean"] == 1.0 and after[0]["from_week"] == 1


def test_next_steps_are_marked_on_the_item_and_counted(conn, app_test):
    c, students, subs = _course(conn)
    week3 = f.submission(conn, c["assignment_ids"][2], students[0], "A new week 3 text, not released yet.")
    f.draft(conn, week3, dict.fromkeys(KEYS, 2))
    prev = learning.previous_next_steps(conn, week3, actor=Actor("test", role="admin"))
    assert prev["week"] == 2 and prev["acted"] is None and prev["comment"]
    at = app_test("pages/review.py")
    at.session_state["assignment_id"] = c["assignment_ids"][2]
    at.session_state["review_item"] = week3
    at.run()
    assert not at.exception
    assert any("next week's drafts for this student are told it" in c.value for c in at.caption)
    radio = next(r for r in at.radio if r.label.startswith("Did the student act on these next steps"))
    radio.set_value("partly")
    next(b for b in at.button if b.label == "Save mark").click().run()
    assert not at.exception
    assert learning.previous_next_steps(conn, week3, actor=Actor("test", role="admin"))["acted"] == "partly"
    learning.mark_next_steps(conn, subs[(students[1], 3)], "yes", actor=Actor("Mr U", role="admin"))
    ns = learning.next_steps(conn, c["course_id"], actor=Actor("test", role="admin"))
    assert ns["overall"] == {"n": 2, "yes": 1, "partly": 1, "no": 0, "acted_share": 0.75}
    assert ns["by_config"] == [{"config": "cfg-a", "n": 2, "yes": 1, "partly": 1, "no": 0, "acted_share": 0.75}]
    audit = next(conn.query("SELECT actor, action FROM audit_log WHERE action = 'mark_next_steps' ORDER BY id"))
    assert audit["action"] == "mark_next_steps"


def test_the_learning_page_shows_growth_and_no_satisfaction_measure(conn, app_test):
    c, _, _ = _course(conn)
    at = app_test("pages/learning.py").run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1 and len(at.dataframe) >= 3
    text = " ".join(x.value for x in at.caption).lower()
    assert "no satisfaction measure" in text


def _course_without_weeks(conn):
    """Issue 21 item 8: a course whose assignments carry no week number (an upload without one)."""
    c, students, subs = _course(conn)
    conn.execute("UPDATE assignments SET week = NULL WHERE course_id = ?", [c["course_id"]])
    return c, students, subs


def test_growth_counts_assignments_without_a_week_number_at_their_place(conn):
    c, students, _ = _course_without_weeks(conn)
    g = learning.growth(conn, c["course_id"], actor=Actor("test", role="admin"))
    assert g["released"] == 6 and g["weeks"] == [1, 2, 3]           # created 1st, 2nd, 3rd
    assert g["slopes"]["clarity"]["mean"] == 1.0
    assert g["by_position"] == ["Week 1", "Week 2", "Week 3"]


def test_the_learning_page_shows_released_work_of_assignments_without_a_week_number(conn, app_test):
    c, _, _ = _course_without_weeks(conn)
    at = app_test("pages/learning.py").run()
    assert not at.exception, at.exception
    assert not any("Nothing released" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 1
    assert any("Without a week number" in x.value for x in at.caption)
