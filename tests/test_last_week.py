"""Continuity across weeks: which comment counts as a student's "previous released comment"
(core.growth.learning.last_week, db.learning.previous_released) and the teacher's marks with it."""
import factories as f
from core.accounts.access import Actor
from core.growth import learning
from core.signoff import actions, release
from db import courses

KEYS = ("concept_understanding", "real_world_application", "reflection_depth", "clarity")
ADMIN = Actor("Ms T", role="admin")


def released(conn, aid, sid, comment):
    """Draft, approve and release one item with `comment` as its released comment."""
    f.draft(conn, sid, dict.fromkeys(KEYS, 2), comment=comment)
    review = actions.open_item(conn, sid, actor=ADMIN)
    actions.approve(conn, sid, version=review["version"], actor=ADMIN)
    release.release(conn, aid, actor=ADMIN)


def three_weeks(conn, name="Ana Silva"):
    c = f.course(conn, weeks=3)
    st = f.student(conn, c["course_id"], name=name)
    return c, st


def test_the_latest_earlier_week_released_comment_is_the_previous_one(conn):
    c, st = three_weeks(conn)
    w1, w2, w3 = c["assignment_ids"]
    s1 = f.submission(conn, w1, st, "Week one text.")
    released(conn, w1, s1, "Week one comment.")
    s2 = f.submission(conn, w2, st, "Week two text.")
    released(conn, w2, s2, "Week two comment.")
    s3 = f.submission(conn, w3, st, "Week three text.")
    got = learning.last_week(conn, s3)
    assert (got["week"], got["title"], got["comment"]) == (2, "Week 2", "Week two comment.")
    assert learning.last_week(conn, s2)["comment"] == "Week one comment."
    assert learning.last_week(conn, s1) is None          # nothing before week 1
    conn.execute("UPDATE release_items SET comment = ' ' WHERE submission_id = ?", [s2])
    assert learning.last_week(conn, s3) is None          # an empty released comment: nothing to follow up


def test_an_unreleased_earlier_comment_is_never_used(conn):
    c, st = three_weeks(conn)
    w1, w2, w3 = c["assignment_ids"]
    s1 = f.submission(conn, w1, st, "Week one text.")
    released(conn, w1, s1, "Week one comment.")
    s2 = f.submission(conn, w2, st, "Week two text.")
    f.draft(conn, s2, dict.fromkeys(KEYS, 2), comment="Week two draft, approved but not released.")
    review = actions.open_item(conn, s2, actor=ADMIN)
    actions.approve(conn, s2, version=review["version"], actor=ADMIN)
    s3 = f.submission(conn, w3, st, "Week three text.")
    assert learning.last_week(conn, s3)["comment"] == "Week one comment."


def test_a_later_or_same_week_comment_is_never_used(conn):
    c, st = three_weeks(conn)
    w1, w2, w3 = c["assignment_ids"]
    s3 = f.submission(conn, w3, st, "Week three text.")
    released(conn, w3, s3, "Week three comment.")
    other_w2 = courses.ensure_assignment(conn, c["course_id"], "Week 2, second task", rubric_id=c["rubric_id"], week=2)
    s2b = f.submission(conn, other_w2, st, "Second task of week two.")
    released(conn, other_w2, s2b, "Same week comment.")
    s2 = f.submission(conn, w2, st, "Week two text.")
    assert learning.last_week(conn, s2) is None          # week 3 is later, the other week-2 task the same week
    assert learning.last_week(conn, s3)["comment"] == "Same week comment."


def test_another_students_or_another_courses_comment_is_never_used(conn):
    c, st = three_weeks(conn)
    w1, w2, _ = c["assignment_ids"]
    classmate = f.student(conn, c["course_id"], name="Bo Berg")
    s1 = f.submission(conn, w1, classmate, "The classmate's week one.")
    released(conn, w1, s1, "The classmate's comment.")
    # The same person (same external id) in another course, released in week 1 there.
    other = f.course(conn, name="Another course", weeks=1)
    ext = next(conn.query("SELECT external_id FROM students WHERE id = ?", [st]))["external_id"]
    twin = f.student(conn, other["course_id"], external_id=ext, name="Ana Silva")
    t1 = f.submission(conn, other["assignment_id"], twin, "Week one in the other course.")
    released(conn, other["assignment_id"], t1, "The other course's comment.")
    s2 = f.submission(conn, w2, st, "Week two text.")
    assert learning.last_week(conn, s2) is None


def test_a_re_release_replaces_the_previous_comment(conn):
    c, st = three_weeks(conn)
    w1, w2, _ = c["assignment_ids"]
    s1 = f.submission(conn, w1, st, "Week one text.")
    released(conn, w1, s1, "First release.")
    rid = next(conn.query("SELECT MAX(id) AS id FROM releases"))["id"]
    # A later release of the same item (an appeal's changed score goes out as a new release).
    new = conn.execute("INSERT INTO releases (assignment_id, released_by, n_items) VALUES (?, 'Ms T', 1)",
                       [w1]).lastrowid
    conn.execute("INSERT INTO release_items (release_id, submission_id, review_version, scores, comment) "
                 "SELECT ?, submission_id, review_version + 1, scores, 'Second release.' FROM release_items "
                 "WHERE release_id = ?", [new, rid])
    s2 = f.submission(conn, w2, st, "Week two text.")
    assert learning.last_week(conn, s2)["comment"] == "Second release."


def test_assignments_without_a_week_number_count_at_their_place(conn):
    c, st = three_weeks(conn)
    conn.execute("UPDATE assignments SET week = NULL WHERE course_id = ?", [c["course_id"]])
    w1, w2, _ = c["assignment_ids"]
    s1 = f.submission(conn, w1, st, "First text.")
    released(conn, w1, s1, "First comment.")
    s2 = f.submission(conn, w2, st, "Second text.")
    assert learning.last_week(conn, s2)["comment"] == "First comment."


def test_the_marks_come_with_it_and_a_mark_about_other_feedback_does_not(conn):
    c, st = three_weeks(conn)
    w1, w2, w3 = c["assignment_ids"]
    s1 = f.submission(conn, w1, st, "Week one text.")
    released(conn, w1, s1, "Week one comment.")
    s3 = f.submission(conn, w3, st, "Week three text.")
    f.draft(conn, s3, dict.fromkeys(KEYS, 2))
    learning.mark_next_steps(conn, s3, "no", actor=ADMIN)          # about week one's comment
    assert learning.last_week(conn, s3)["acted"] == "no"
    s2 = f.submission(conn, w2, st, "Week two text.")
    f.draft(conn, s2, dict.fromkeys(KEYS, 2))
    learning.mark_next_steps(conn, s2, "yes", actor=ADMIN)         # week two acts on week one's
    review = actions.open_item(conn, s2, actor=ADMIN)
    actions.approve(conn, s2, version=review["version"], actor=ADMIN)
    release.release(conn, w2, actor=ADMIN)
    got = learning.last_week(conn, s3)
    # Week three's previous is now week two's comment: the "no" was about week one's, so unmarked;
    # the teacher's "yes" on week two's item reaches week three's drafts.
    assert got["week"] == 2 and got["acted"] is None and got["acted_before"] == "yes"
    assert learning.previous_next_steps(conn, s3, actor=ADMIN)["acted"] is None


# --- the free rule on real drafts, and the offline baseline --------------------------------
INVENTED = ("You explain temperature clearly and give a concrete example from work. Last week you planned to add "
            "an example; this week you did. Next: (1) connect temperature to bias, (2) add one question you still "
            "have. What would you test first?")


def test_a_draft_that_invents_last_week_fails_its_check_and_is_revised(conn, db_path):
    from assess_script import GOOD_COMMENT, RICH_TEXT, good_llm
    from core import pipeline
    from db import drafts

    c = f.course(conn, weeks=2)
    sid = f.submission(conn, c["assignment_ids"][1], f.student(conn, c["course_id"], name="Ana Silva"), RICH_TEXT)
    llm = good_llm()
    llm.script("aggregator", {"comment": INVENTED})
    llm.script("reviser", {"comment": GOOD_COMMENT})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["revisions"][1]["failed_checks"] == ["history"] and d["comment"] == GOOD_COMMENT
    assert next(ch for ch in d["checks"] if ch["name"] == "history")["passed"]


def test_with_last_weeks_comment_the_same_sentence_passes(conn, db_path):
    from assess_script import RICH_TEXT, good_llm
    from core import pipeline
    from db import drafts

    c, st = three_weeks(conn)
    s1 = f.submission(conn, c["assignment_ids"][0], st, "Week one text.")
    released(conn, c["assignment_ids"][0], s1, "Next step: add an example from your job.")
    sid = f.submission(conn, c["assignment_ids"][1], st, RICH_TEXT)
    llm = good_llm().always("aggregator", {"comment": INVENTED})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["rounds"] == 0 and d["comment"] == INVENTED
    assert next(ch for ch in d["checks"] if ch["name"] == "history")["passed"]


def test_the_rules():
    from types import SimpleNamespace as NS

    from core.evals import rules

    none, some = NS(previous=""), NS(previous="Next step: add an example.")
    assert rules.history("Last week's feedback asked for an example.", none, NS())[0] is False
    assert rules.history("Last week you said you were tired; here you explain why.", none, NS())[0] is False
    assert rules.history("You write that last week you read the chapter twice.", none, NS())[0] is True
    assert rules.history("Last week's feedback asked for an example.", some, NS())[0] is True
    assert rules.follow_through("Last week you planned to add an example; this week's does that.", some, NS())[0]
    assert not rules.follow_through("You give a clear example from your job.", some, NS())[0]


def test_the_offline_comment_says_only_what_the_teacher_marked(conn):
    from assess_script import RICH_TEXT
    from core import pipeline
    from core.agents import Ids
    from core.offline.provider import OfflineLLM

    c, st = three_weeks(conn)
    s1 = f.submission(conn, c["assignment_ids"][0], st, "Week one text.")
    released(conn, c["assignment_ids"][0], s1, "Next step: add an example from your job.")
    sid = f.submission(conn, c["assignment_ids"][1], st, RICH_TEXT)

    def offline_comment():
        return pipeline.build_draft(OfflineLLM(), pipeline.item_for(conn, sid, offline=True), Ids(submission_id=sid))["comment"]

    assert "last week" not in offline_comment().lower()          # not marked: the baseline cannot tell
    f.draft(conn, sid, dict.fromkeys(KEYS, 2))
    learning.mark_next_steps(conn, sid, "yes", actor=ADMIN)
    marked = offline_comment()
    assert "This week you acted on last week's next step" in marked and marked.index("last week") > marked.index(".")
    learning.mark_next_steps(conn, sid, "no", actor=ADMIN)
    assert "last week" not in offline_comment().lower()
