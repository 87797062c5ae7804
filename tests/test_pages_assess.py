"""The Assess page (AppTest, offline provider: no LLM call ever)."""
import time

import factories
from assess_script import RICH_TEXT
from db import runs as runs_db
from shown import plain
from core.accounts.access import Actor
from waits import WAIT_S

PAGE = "pages/assess.py"


def make_course(conn, n=3):
    c = factories.course(conn)
    for i in range(n):
        factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT + f" {i}")
    return c


def assess_page(app_test, c):
    """AppTest runs the page script alone after switch_page, so set the sidebar's selection."""
    at = app_test(PAGE)
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def wait_done(conn, run_id, timeout=WAIT_S):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if runs_db.get_run(conn, run_id)["status"] in ("done", "failed", "cancelled"):
            return runs_db.get_run(conn, run_id)
        time.sleep(0.05)
    raise AssertionError("run did not finish")


def texts(at):
    return " ".join(str(getattr(e, "value", "")) + " " + str(getattr(e, "label", ""))
                    for kind in ("markdown", "caption", "subheader", "metric", "info", "expander", "radio")
                    for e in getattr(at, kind))


def test_empty_database_asks_for_a_course(app_test):
    at = app_test(PAGE).run()
    assert not at.exception
    assert any("No course yet" in i.value for i in at.info)


def test_shows_configuration_and_estimate_then_runs_in_the_background(app_test, conn):
    c = make_course(conn)
    at = assess_page(app_test, c)
    assert not at.exception, at.exception
    page = texts(at)
    assert "Configuration: offline baseline — no LLM" in page
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Submissions to assess"] == "3" and metrics["Estimated cost"] == "$0 (offline)"
    start = next(b for b in at.button if b.label == "Start assessment")
    at = start.click().run()
    assert not at.exception, at.exception
    run = runs_db.list_runs(conn, c["course_id"])[0]
    assert run["provider"] == "offline"
    wait_done(conn, run["id"])
    at = at.run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Drafted"] == "3" and metrics["Failed"] == "0" and metrics["Submissions to assess"] == "0"
    assert any(f"Run {run['id']}: finished" in s.value for s in at.subheader)
    assert next(b for b in at.button if b.label == "Start assessment").disabled  # nothing left to assess
    table = at.dataframe[-1].value
    assert list(table["run"]) == [run["id"]] and table["calls"][0] > 0


def test_interrupted_run_offers_resume_and_resumes(app_test, conn, db_path):
    c = make_course(conn)
    from core.runs import reflections as runs

    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    conn.execute("UPDATE runs SET status = 'running', heartbeat_at = '2026-01-01T00:00:00.000000Z' WHERE id = ?",
               [run_id])
    at = assess_page(app_test, c)
    assert not at.exception, at.exception
    assert any("interrupted" in s.value for s in at.subheader)
    assert [b.label for b in at.button if b.label in ("Cancel run", "Resume run")] == ["Resume run"]
    at = next(b for b in at.button if b.label == "Resume run").click().run()
    assert not at.exception, at.exception
    assert wait_done(conn, run_id)["status"] == "done"
    assert runs_db.item_counts(conn, run_id)["done"] == 3


def test_running_run_can_be_cancelled(app_test, conn, db_path):
    c = make_course(conn)
    from core.runs import reflections as runs

    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    conn.execute("UPDATE runs SET status = 'running', heartbeat_at = ? WHERE id = ?",
               [__import__("db").now(), run_id])  # a live worker in another process (the CLI)
    at = assess_page(app_test, c)
    assert not at.exception, at.exception
    start = next(b for b in at.button if b.label == "Start assessment")
    assert start.disabled
    at = next(b for b in at.button if b.label == "Cancel run").click().run()
    assert not at.exception, at.exception
    assert runs_db.get_run(conn, run_id)["cancel_requested"] == 1


def test_names_the_course_and_assignment_and_hides_another_assignments_run(app_test, conn):
    from core.runs import reflections as runs

    c = factories.course(conn, name="Spring course", weeks=2)
    a1, a2 = c["assignment_ids"]
    for aid in (a1, a2):
        factories.submission(conn, aid, factories.student(conn, c["course_id"]), RICH_TEXT + f" {aid}")
    run_id = runs.create(conn, course_id=c["course_id"], assignment_id=a1, provider="offline", actor=Actor("test", role="admin"))
    runs_db.finish(conn, run_id, "done")
    at = assess_page(app_test, c)
    assert not at.exception, at.exception
    options = [plain(o) for o in at.radio(key="assess_scope").options]
    assert options == ["This assignment: Week 1: Week 1 (Spring course)", "Every assignment of Spring course"]
    assert any(f"Run {run_id}:" in s.value for s in at.subheader)
    assert any("Assessed: Week 1: Week 1" in plain(cap.value) for cap in at.caption)
    # Another assignment selected in the sidebar: the old run's panel goes, the history names it.
    at.sidebar.selectbox(key="_pick_assignment").set_value(a2).run()
    assert not at.exception, at.exception
    assert at.session_state["assignment_id"] == a2
    assert plain(at.radio(key="assess_scope").options[0]) == "This assignment: Week 2: Week 2 (Spring course)"
    assert not any(s.value.startswith("Run ") for s in at.subheader)
    table = at.dataframe[-1].value
    assert list(table["run"]) == [run_id] and list(table["assignment"]) == ["Week 1: Week 1"]
    assert "T" not in table["started"][0].removesuffix(" UTC")
    # The whole course covers every assignment's runs.
    at.radio(key="assess_scope").set_value("course").run()
    assert any(f"Run {run_id}:" in s.value for s in at.subheader)


def test_course_wide_run_is_named_in_recent_runs(app_test, conn):
    from core.runs import reflections as runs

    c = make_course(conn, n=1)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    runs_db.finish(conn, run_id, "done")
    at = assess_page(app_test, c)
    assert not at.exception, at.exception
    assert list(at.dataframe[-1].value["assignment"]) == ["Every assignment of Test course"]
    assert runs.progress(conn, run_id, actor=Actor("test", role="admin"))["assignment_title"] is None


def test_assess_choices_survive_leaving_the_page(app_test, conn):
    """Issue 11 item 13: the scope radio reset when the teacher visited another page."""
    c = make_course(conn)
    at = assess_page(app_test, c)
    at.radio(key="assess_scope").set_value("course").run()
    at.checkbox(key="assess_redo").check().run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/assess.py").run()
    assert not at.exception, at.exception
    assert at.radio(key="assess_scope").value == "course" and at.checkbox(key="assess_redo").value


def test_course_names_in_the_scope_labels_are_not_markdown(app_test, conn):
    """Issue 11 item 7: `**Course**` in a course name rendered bold in the Assess labels."""
    c = factories.course(conn, name="**Course** :material/delete:")
    at = assess_page(app_test, c)
    label = at.radio(key="assess_scope").options[1]
    assert "\\*\\*Course\\*\\*" in label and ":material/delete:" not in label
    assert plain(label) == "Every assignment of **Course** :material/delete:"


def test_a_finished_run_links_to_review(app_test, conn, db_path):
    """Issue 21 item 16: when a run finished, nothing led on to the Review page."""
    from core.runs import reflections as runs

    c = make_course(conn)
    run_id = runs.create(conn, course_id=c["course_id"], provider="offline", actor=Actor("test", role="admin"))
    at = assess_page(app_test, c)                             # waiting to start: nothing to review yet
    assert f"Run {run_id}: waiting to start" in texts(at)
    assert "Go to Review" not in [x.proto.label for x in at.main.get("page_link")]
    runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    at = assess_page(app_test, c)
    assert not at.exception, at.exception
    link = next(x.proto for x in at.main.get("page_link") if x.proto.label == "Go to Review")
    assert link.page == "review"
