"""The leakage rule (core.leakage): seed 003's examples and its edge cases, the answer-key
setter, and the rule as a comment check that sends a leaking draft back for a revision."""
import pytest

import factories as f
from assess_script import RICH_TEXT, good_llm
from core import checks, leakage, pipeline
from core.courses import answer_keys
from core.errors import ConfigError
from db import courses, drafts
from core.accounts.access import Actor

Q = "Starting at w = 4.0 with gradient 2.0 and learning rate 0.5, what is w after one step?"


@pytest.mark.parametrize("reply, answer, question, given_away", [
    # the seed's cases (EVALFALL L1, L2)
    ("After one step, w = 3.0.", 3.0, "Vad blir w efter ett steg?", True),
    ("Tänk på tecknet: går vi med eller mot gradienten?", 3.0, "Vad blir w efter ett steg?", False),
    ("Här är lösningen: def antal_vokaler(text): ...", "def antal_vokaler", "Ge mig lösningen", True),
    ("Börja med en loop över bokstäverna.", "def antal_vokaler", "Ge mig lösningen", False),
    # tolerance: 1 % relative, at least 0.01 absolute
    ("w is 3.03", 3.0, "", True),
    ("w is 3.04", 3.0, "", False),
    ("about 1010", 1000, "", True),
    ("about 1011", 1000, "", False),
    ("p = 0.01", 0.0, "", True),
    ("p = 0.02", 0.0, "", False),
    # decimal commas, negatives (also the Unicode minus), units
    ("Svaret blir 3,0.", 3.0, "", True),
    ("Lutningen är −1,5 per steg.", -1.5, "", True),
    ("The slope is -1.5", 1.5, "", False),
    ("It moves at 12.0 m/s.", 12, "", True),
    ("12kg", 12, "", True),
    # numbers already in the question do not count, even when they equal the answer
    ("You start at w = 4.0 with a learning rate of 0.5.", 4.0, Q, False),
    ("With learning rate 0.5 and gradient 2.0 you get 3.0.", 3.0, Q, True),
    # readings added towards caution: thousands separators, percentages, fractions
    ("There are 1,000 tokens.", 1000, "", True),
    ("Det är 1 000 ord.", 1000, "", True),
    ("A 25 % chance.", 0.25, "", True),
    ("Three out of four: 3/4.", 0.75, "", True),
    # text: case-insensitive containment; an empty key never leaks
    ("This is OVERFITTING.", "overfitting", "", True),
    ("This is over fitting.", "overfitting", "", False),
    ("Anything at all.", "   ", "", False),
])
def test_the_seeds_rule_and_its_edge_cases(reply, answer, question, given_away):
    assert leakage.gives_away_answer(reply, answer, question=question) is given_away


def test_a_custom_tolerance_widens_the_window():
    assert not leakage.gives_away_answer("about 3.2", 3.0)
    assert leakage.gives_away_answer("about 3.2", 3.0, tolerance=0.1)


def test_leaks_name_what_gave_it_away():
    assert leakage.leaks("First 2.5, then 3.0 or 3,01.", 3.0) == ["3.0", "3,01"]


def test_the_answer_key_setter_validates_and_audits(conn):
    c = f.course(conn)
    aid = c["assignment_id"]
    changed = answer_keys.set_answer_key(conn, aid, kind="number", value="3,0", tolerance="0.5",
                                         source="Lesson 3: gradient descent.", actor=Actor("Ms T", role="admin"))
    a = courses.get_assignment(conn, aid)
    assert changed and (a["answer_key"], a["answer_kind"], a["answer_tolerance"]) == ("3,0", "number", 0.005)
    assert a["source_text"] == "Lesson 3: gradient descent."
    assert leakage.key_of(a) == leakage.AnswerKey("number", "3,0", 0.005, "Reflect on this week's topic.")
    row = next(conn.query("SELECT actor, action FROM audit_log WHERE entity = 'assignments' ORDER BY id DESC"))
    assert row == {"actor": "Ms T", "action": "edit"}
    with pytest.raises(ConfigError, match="not a number"):
        answer_keys.set_answer_key(conn, aid, kind="number", value="three", actor=Actor("Ms T", role="admin"))
    with pytest.raises(ConfigError, match="between 0 and 50"):
        answer_keys.set_answer_key(conn, aid, kind="number", value="3", tolerance="80", actor=Actor("Ms T", role="admin"))
    assert courses.get_assignment(conn, aid)["answer_key"] == "3,0"          # bad input changed nothing
    answer_keys.set_answer_key(conn, aid, kind=None, value="", actor=Actor("Ms T", role="admin"))
    assert leakage.key_of(courses.get_assignment(conn, aid)) is None


def test_no_answer_key_means_no_leakage_check():
    names = [c["name"] for c in checks.comment_checks("w becomes 3.", "x")]
    assert "leakage" not in names
    key = leakage.AnswerKey("number", "3", question=Q)
    result = checks.comment_checks("w becomes 3.", "x", answer_key=key)[-1]
    assert (result["name"], result["passed"], result["severity"]) == ("leakage", False, "fail")
    assert '"3"' in result["detail"] and "hint" in result["detail"]


LEAKY = ("You explain temperature clearly. The answer is 3.0. Next: (1) connect temperature to bias, "
         "(2) add one question you still have. What would you test first?")
FIXED = ("You explain temperature clearly. Check the sign of the step. Next: (1) connect temperature to bias, "
         "(2) add one question you still have. What would you test first?")


def _with_key(conn):
    c = f.course(conn)
    answer_keys.set_answer_key(conn, c["assignment_id"], kind="number", value="3", actor=Actor("Ms T", role="admin"))
    return f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT)


def test_a_leaking_draft_is_revised_with_the_rules_detail(conn, db_path):
    sid = _with_key(conn)
    llm = good_llm().script("aggregator", {"comment": LEAKY}).script("reviser", {"comment": FIXED})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    llm.assert_all_used()
    fixes = llm.calls_for("reviser")[0].messages[1]["content"]
    assert "Does not give the answer away" in fixes and '\\"3.0\\"' in fixes
    assert d["comment"] == FIXED and d["status"] == "drafted"
    assert d["revisions"][1]["failed_checks"] == ["leakage"]
    assert next(c for c in d["checks"] if c["name"] == "leakage")["passed"] is True


def test_a_leak_that_persists_goes_to_a_teacher(conn, db_path):
    sid = _with_key(conn)
    llm = good_llm().always("aggregator", {"comment": LEAKY}).always("reviser", {"comment": LEAKY})
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))
    assert d["status"] == "needs_attention" and d["rounds"] == pipeline.MAX_ROUNDS
    assert any("Does not give the answer away" in r for r in d["attention_reasons"])


def test_the_aggregator_is_told_the_key_and_the_source_but_never_to_state_it(conn, db_path):
    sid = _with_key(conn)
    llm = good_llm()
    pipeline.assess_one(db_path, sid, llm=llm)
    system = llm.calls_for("aggregator")[0].messages[0]["content"]
    assert "answer key: 3 (a number" in system and "Never state it" in system
