"""'Save as eval case' on a corrected review item: pseudonymised, with the reason, audited, and
exported to JSONL that the suite loader reads."""
import json

import pytest

import factories as f
from core.courses import answer_keys
from core.cli import main
from core.errors import FairMarkError
from core.evals import cases, saved
from core.signoff import actions
from core.accounts.access import Actor

TEXT = "I am Ana Silva (ana.silva@uni.se). I computed w = 5.0 but I am unsure about the sign."
LEAKED = "Ana, the answer is 3.0: you added instead of subtracting. What will you check next time?"
FIXED = "Ana, check the sign of your step: do you go with or against the gradient? Try it again."


def _item(conn):
    c = f.course(conn)
    answer_keys.set_answer_key(conn, c["assignment_id"], kind="number", value="3.0", source="Lesson 3.", actor=Actor("Ms T", role="admin"))
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ana Silva"), TEXT)
    conn.execute("UPDATE students SET email = 'ana.silva@uni.se'")
    f.draft(conn, sid, {"concept_understanding": 1, "real_world_application": 1, "reflection_depth": 1,
                        "clarity": 2}, comment=LEAKED)
    review = actions.open_item(conn, sid, actor=Actor("Ms T", role="admin"))
    actions.save_edit(conn, sid, version=review["version"], scores=review["scores"], comment=FIXED,
                      reasons=["inaccurate"], note="", actor=Actor("Ms T", role="admin"))
    return sid


def test_a_corrected_item_becomes_a_pseudonymised_case_with_the_reason(conn):
    sid = _item(conn)
    cid = saved.save_case(conn, sid, dimension="leakage", reason="Ana must find 3.0 herself: hint at the sign.",
                          actor=Actor("Ms T", role="admin"))
    case = saved.cases_for_export(conn, actor=Actor("test", role="admin"))[0]
    blob = json.dumps(case)
    assert "Ana" not in blob and "ana.silva" not in blob and "Student-" in case["input"]["reflection"]
    assert case["failed_comment"].startswith("Student-") and "check the sign" in case["corrected_comment"]
    assert case["input"]["answer_key"] == {"kind": "number", "value": "3.0", "tolerance": 1.0}
    assert case["input"]["source"] == "Lesson 3." and "comment" not in case
    assert [c["rule"] for c in case["checks"] if c.get("rule")] == ["leakage"]
    parsed = cases.Case.model_validate(case)
    assert parsed.is_blocking and parsed.comment is None                 # the agents draft it again
    audit = next(conn.query("SELECT actor, action, entity_id FROM audit_log WHERE action = 'save_eval_case'"))
    assert audit == {"actor": "Ms T", "action": "save_eval_case", "entity_id": cid}
    with pytest.raises(FairMarkError, match="Say what the AI's comment got wrong"):
        saved.save_case(conn, sid, dimension="leakage", reason=" ", actor=Actor("Ms T", role="admin"))


def test_classmates_named_in_a_saved_case_are_masked_too(conn):
    """A saved case goes into the suite and later to models: every student of the course it
    names is a pseudonym, not only its author."""
    sid = _item(conn)
    course_id = conn.execute("SELECT course_id FROM students").fetchone()[0]
    f.student(conn, course_id, name="Zoë O'Connor")
    conn.execute("UPDATE submissions SET text = ? WHERE id = ?",
                 [TEXT + " Zoë O'Connor (0701234567) showed me her notes.", sid])
    saved.save_case(conn, sid, dimension="leakage", reason="Ana and Zoe O'Connor must find 3.0 themselves.",
                    actor=Actor("Ms T", role="admin"))
    blob = json.dumps(saved.cases_for_export(conn, actor=Actor("test", role="admin"))[0], ensure_ascii=False)
    assert "Zoë" not in blob and "Zoe" not in blob and "Connor" not in blob and "0701234567" not in blob
    assert blob.count("Student-") >= 4


def test_saved_cases_export_to_a_suite_file(conn, db_path, tmp_path, capsys):
    sid = _item(conn)
    saved.save_case(conn, sid, dimension="pedagogy", reason="It should lead with a question.", actor=Actor("Ms T", role="admin"))
    out = tmp_path / "suite" / "saved.jsonl"
    assert main(["evals", "export-saved", "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == 1
    assert main(["evals", "export-saved", "--out", str(out)]) == 0           # nothing twice
    assert json.loads(capsys.readouterr().out) == {"out": str(out), "written": 0, "already_there": 1}
    suite = cases.load_suite(out.parent)
    assert [c.id for c in suite.cases] == [f"saved-{sid}-1"]


def test_save_as_eval_case_on_the_review_item(conn, app_test):
    sid = _item(conn)
    at = app_test("pages/review.py")
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception
    next(s for s in at.selectbox if s.label == "What went wrong").set_value("grounding")
    next(t for t in at.text_area if t.label.startswith("What should the comment do instead")).input(
        "Say only what the student wrote.")
    next(b for b in at.button if b.label == "Save as eval case").click().run()
    assert not at.exception
    rows = saved.cases_for_export(conn, actor=Actor("test", role="admin"))
    assert len(rows) == 1 and rows[0]["dimension"] == "grounding"


def test_a_coordinator_sees_the_saved_cases_of_their_granted_courses_only(conn):
    first = _item(conn)
    conn.execute("UPDATE courses SET name = 'Last year'")   # the next item is made in a course of its own
    second = _item(conn)
    for sid in (first, second):
        saved.save_case(conn, sid, dimension="leakage", reason="Ana must find 3.0 herself: hint at the sign.",
                        actor=Actor("Ms T", role="admin"))
    course_of = {sid: conn.execute("SELECT a.course_id FROM submissions s JOIN assignments a "
                                   "ON a.id = s.assignment_id WHERE s.id = ?", [sid]).fetchone()[0]
                 for sid in (first, second)}
    cora = f.user(conn, "cora", "coordinator", courses=[course_of[second]])
    assert [r["submission_id"] for r in saved.saved_cases(conn, actor=cora)] == [second]
    assert [r["submission_id"] for r in saved.saved_cases(conn, actor=f.user(conn, "nobody", "coordinator"))] == []
    assert [r["submission_id"] for r in saved.saved_cases(conn, actor=Actor("a", role="admin"))] == [first, second]
