"""No roster name, phone number or e-mail address reaches the model: reflections that name
classmates in every spelling, with phone numbers and obfuscated e-mails, assessed through the
real openai SDK against the fake OpenAI-compatible server, whose request bodies are searched."""
import json
import re

import pytest

import factories
from core.runs import reflections as runs
from fake_openai_server import FakeOpenAI
from core.accounts.access import Actor
from privacy_cases import FILLER, REFLECTIONS, ROSTER, fold, leaks, sent

TEXTS = [text for _, text in REFLECTIONS]


def sent_text(server) -> str:
    return sent(server.bodies)


@pytest.fixture
def course(conn):
    c = factories.course(conn, name="Privacy")
    students = {}
    for ext, name, email in ROSTER:
        students[name] = factories.student(conn, c["course_id"], external_id=ext, name=name)
        conn.execute("UPDATE students SET email = ? WHERE id = ?", [email, students[name]])
    names = {ext: name for ext, name, _ in ROSTER}
    subs = [factories.submission(conn, c["assignment_id"], students[names[author]], t + " " + FILLER * 3)
            for author, t in REFLECTIONS]
    return c, subs


def test_no_roster_name_phone_or_email_reaches_the_model(conn, db_path, course, monkeypatch):
    c, subs = course
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        factories.cleared_config(conn)
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai", actor=Actor("test", role="admin"))
        p = runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["failed"] == 0 and len(server.bodies) >= 15
    sent = sent_text(server)
    assert "[phone]" in sent and "[email]" in sent or "@example.invalid" in sent
    assert leaks(sent) == {}
    # The teacher sees the names again in the stored drafts (restored), never pseudonyms of
    # people who were in the text.
    stored = " ".join(r[0] for r in conn.execute("SELECT outputs || comment FROM drafts"))
    assert "Student-" not in stored


def test_masking_covers_every_request_of_every_role(conn, db_path, course, monkeypatch):
    c, subs = course
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        factories.cleared_config(conn)
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai", actor=Actor("test", role="admin"))
        runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    roles = {re.search(r"You are the ([A-Za-z ]+?)[ ,.]", json.loads(b)["messages"][0]["content"]).group(1)
             for b in server.bodies if "You are the" in json.loads(b)["messages"][0]["content"]}
    assert {"Evaluator"} <= roles and len(roles) >= 4, roles


def assert_no_roster_data(sent: str) -> None:
    assert leaks(sent) == {}


def test_classmates_named_in_the_evaluators_examples_are_masked(conn, db_path, course, monkeypatch):
    """A calibrated assignment's blind-scored texts become the Evaluator's examples: the
    classmates they name are masked like the scored text's (not only the example's author)."""
    from core.calibration import anchors, blind
    from db import calibration

    c, subs = course
    for sid, level in zip(subs[:2], (1, 3)):
        calibration.add_items(conn, c["assignment_id"], [(sid, None, "test")], actor=Actor("ann", role="admin"), at="2025-01-01")
        blind.save(conn, sid, dict.fromkeys(c["rubric"].keys, level), actor=Actor("ann", role="admin"))
    assert len(anchors.for_submission(conn, subs[2], c["assignment_id"], c["rubric"])) == 2
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        factories.cleared_config(conn)
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai", actor=Actor("test", role="admin"))
        assert runs.execute(db_path, run_id, actor=Actor("test", role="admin"))["failed"] == 0
    evaluator = [json.loads(b)["messages"][0]["content"] for b in server.bodies
                 if "<examples>" in json.loads(b)["messages"][0]["content"]]
    assert evaluator and any("Student-" in e.split("<examples>")[1][:2000] for e in evaluator)
    assert_no_roster_data(sent_text(server))


def _addressing_comment(request: dict) -> dict:
    """The fake model's answer, naming the students it saw (as placeholders) as a real model's
    would: the Evaluator's reasoning, then the comment written from it. Stored, the names come
    back as first names."""
    answer = FakeOpenAI._answer(request)
    seen = list(dict.fromkeys(re.findall(r"Student-\d{4}", json.dumps(request["messages"]))))
    if not seen:
        return answer
    for value in answer.values():
        if isinstance(value, dict) and "reasoning" in value:
            value["reasoning"] = f"{seen[0]} explains the idea with {seen[-1]}."
    if "comment" in answer:
        answer["comment"] = (f"Well done, {seen[0]}: your work with {seen[-1]} is clear. Next: (1) add one "
                             "example, (2) test it twice. What would you try first?")
    return answer


def test_a_blind_comparison_and_its_judge_see_no_roster_name(conn, db_path, course, monkeypatch, tmp_path):
    """Comparison drafting (A and B) loads the item with the roster, and the pedagogy judge reads
    the masked text and the comment masked again (the stored comment has first names back)."""
    from core import prompts
    from core.evals import config as ai_config
    from core.evals import pairwise
    from db import comparisons as cmp_db

    variant = tmp_path / "variants" / "warmer"
    variant.mkdir(parents=True)
    (variant / "aggregator.md").write_text((prompts.PROMPT_DIR / "aggregator.md").read_text()
                                           .replace("Start with 1-2 specific strengths.", "Start warmly."))
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", variant.parent)
    c, subs = course

    def answer(request):   # B's prompt writes another comment (a pair of the same comment is skipped)
        out = _addressing_comment(request)
        if "comment" in out and "Start warmly." in request["messages"][0]["content"]:
            out["comment"] = "Warmly: " + out["comment"]
        return out

    with FakeOpenAI(answer=answer) as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        cid = pairwise.create(conn, course_id=c["course_id"], variant_b="warmer", sample_size=3, seed=1,
                              provider="openai", actor=Actor("C", role="admin"))
        assert pairwise.draft(db_path, cid, actor=Actor("test", role="admin"))["status"] == "ready"
    pairs = cmp_db.pairs(conn, cid)
    assert len(pairs) == 3 and all(p["judge_a"] and p["judge_b"] for p in pairs)
    stored = " ".join(r[0] + r[1] for r in conn.execute("SELECT comment_a, comment_b FROM comparison_pairs"))
    assert "Well done, Ana" in stored and "Student-" not in stored     # the teachers read names
    judged = [b for b in server.bodies if "Pedagogy" in json.loads(b)["messages"][0]["content"]]
    assert len(judged) >= 3 and all("Well done, Student-" in json.loads(b)["messages"][-1]["content"]
                                    for b in judged)
    assert_no_roster_data(sent_text(server))


def test_the_leak_finder_finds_each_kind_of_leak_and_the_benchmark_uses_these_cases():
    """The search the test and bench.privacy share must find what it looks for."""
    import bench.privacy

    text = fold("Ask Ana  Lopez or siobhan at +46 70 123 45 67, mail ams@uni.se")
    assert leaks(text) == {"name part Ana": 1, "name part López": 1, "name part Siobhán": 1, "e-mail part siobhan": 1,
                           "e-mail part ams": 1, "e-mail part uni.se": 1,
                           "phone +46 70 123 45 67": 1, "phone (555) 123-4567": 1}   # the same last 7 digits
    assert leaks(fold("Student-ABCDE wrote to [email] and [phone]")) == {}
    assert bench.privacy.REFLECTIONS is REFLECTIONS and bench.privacy.leaks is leaks
