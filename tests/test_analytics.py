"""db.analytics: which scores are compared, scope, the counts SQL returns, caching."""
import pytest

import factories as f
from dashboard_data import item, scores
from db import analytics
from db.analytics import Scope


def test_reference_precedence_expert_then_blind_and_teacher_only_apart(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=1, blind=0, teacher=3)   # expert wins
    item(conn, c, 2, blind=0, teacher=3)             # blind calibration score
    item(conn, c, 2, teacher=3)                      # approved after seeing the draft: not in "auto"
    item(conn, c, 2, teacher=0, status="in_review")  # not final: no reference
    item(conn, c, 2, teacher=0, status="rejected")   # rejected: no reference
    item(conn, c, 2, teacher=2, bulk=True)           # bulk approval: never a reference
    item(conn, c, 2)                                 # nothing
    t = analytics.pair_counts(conn, Scope("assignment", assignment_id=c["assignment_id"]), by=("source",))
    got = t.groupby(["source", "reference"])["n"].sum().to_dict()
    assert got == {("expert", 1.0): 4, ("blind", 0.0): 4}
    teacher_only = analytics.pair_counts(conn, Scope("all"), reference="teacher", by=("source",))
    assert teacher_only.groupby(["source", "reference"])["n"].sum().to_dict() == {("teacher", 3.0): 12}
    blind_only = analytics.pair_counts(conn, Scope("all"), reference="blind")
    assert blind_only.groupby("reference")["n"].sum().to_dict() == {0.0: 8}


def test_pairs_name_their_student(conn):
    c = f.course(conn)
    sid, _ = item(conn, c, 2, expert=1)
    student = conn.execute("SELECT student_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
    t = analytics.pair_counts(conn, Scope("all"), by=("student",))
    assert set(t["student"]) == {student} and t["n"].sum() == 4


def test_released_submission_counts_as_final(conn):
    c = f.course(conn)
    sid, _ = item(conn, c, 2, teacher=1, status="in_review")
    conn.execute("UPDATE submissions SET status = 'released' WHERE id = ?", [sid])
    assert analytics.pair_counts(conn, Scope("all"), reference="teacher")["n"].sum() == 4


def test_ai_is_the_draft_the_review_started_from_not_a_later_one(conn):
    c = f.course(conn)
    sid, did = item(conn, c, 3, teacher=3)
    f.draft(conn, sid, scores(0))  # a re-run later: becomes current_draft_id
    t = analytics.pair_counts(conn, Scope("all"), reference="teacher")
    assert t.groupby("ai")["n"].sum().to_dict() == {3.0: 4}
    # without a review, the current draft is the AI's
    sid2, _ = item(conn, c, 1, expert=1)
    f.draft(conn, sid2, scores(2))
    t = analytics.pair_counts(conn, Scope("all"), reference="expert")
    assert t.groupby("ai")["n"].sum().to_dict() == {2.0: 4}


def test_rater_choice_and_mean_of_raters_with_half_points(conn):
    c = f.course(conn)
    sid, _ = item(conn, c, 2, expert=1, rater="r1")
    f.reference(conn, sid, scores(2), rater="r2")
    assert analytics.raters(conn, Scope("all")) == ["r1", "r2"]
    mean = analytics.pair_counts(conn, Scope("all"), reference="expert")
    assert mean["reference"].unique().tolist() == [1.5]
    r2 = analytics.pair_counts(conn, Scope("all"), reference="rater:r2")
    assert r2["reference"].unique().tolist() == [2.0]
    with pytest.raises(ValueError, match="reference must be"):
        analytics.pair_counts(conn, Scope("all"), reference="nobody")


def test_scope_assignment_course_all(conn):
    a = f.course(conn, "A", weeks=2)
    b = f.course(conn, "B")
    item(conn, a, 2, expert=2, assignment=0)
    item(conn, a, 2, expert=2, assignment=1)
    item(conn, b, 2, expert=2)
    n = lambda s: int(analytics.pair_counts(conn, s)["n"].sum())
    assert n(Scope("assignment", a["course_id"], a["assignment_ids"][1])) == 4
    assert n(Scope("course", a["course_id"])) == 8
    assert n(Scope("all")) == 12
    assert n(Scope("assignment")) == 0  # nothing chosen: nothing shown


def test_cache_is_invalidated_by_any_write(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=2)
    before = analytics.data_version(conn)
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4
    sid, _ = item(conn, c, 1, blind=1)
    assert analytics.data_version(conn) > before
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 8
    conn.execute("DELETE FROM calibration_scores WHERE submission_id = ?", [sid])
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4


def test_cached_results_cannot_be_changed_by_a_caller(conn):
    c = f.course(conn)
    item(conn, c, 2, expert=2)
    first = analytics.pair_counts(conn, Scope("all"))
    first["n"] = 0
    assert analytics.pair_counts(conn, Scope("all"))["n"].sum() == 4


def test_rubric_ids_and_attributes_in_scope(conn):
    c = f.course(conn)
    item(conn, c, 2, attrs={"section": "A"})
    assert analytics.rubric_ids(conn, Scope("course", c["course_id"])) == [c["rubric_id"]]
    assert analytics.attributes(conn, Scope("all")) == ["section"]
    assert analytics.rubric_ids(conn, Scope("assignment")) == []
