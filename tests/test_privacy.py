"""No roster name, phone number or e-mail address reaches the model: reflections that name
classmates in every spelling, with phone numbers and obfuscated e-mails, assessed through the
real openai SDK against the fake OpenAI-compatible server, whose request bodies are searched."""
import json
import re

import pytest

import factories
from core import runs
from fake_openai_server import FakeOpenAI
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
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai")
        p = runs.execute(db_path, run_id)
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
        run_id = runs.create(conn, course_id=c["course_id"], provider="openai")
        runs.execute(db_path, run_id)
    roles = {re.search(r"You are the ([A-Za-z ]+?)[ ,.]", json.loads(b)["messages"][0]["content"]).group(1)
             for b in server.bodies if "You are the" in json.loads(b)["messages"][0]["content"]}
    assert {"Evaluator"} <= roles and len(roles) >= 4, roles


def test_the_leak_finder_finds_each_kind_of_leak_and_the_benchmark_uses_these_cases():
    """The search the test and bench.privacy share must find what it looks for."""
    import bench.privacy

    text = fold("Ask Ana  Lopez or siobhan at +46 70 123 45 67, mail ams@uni.se")
    assert leaks(text) == {"name part Ana": 1, "name part López": 1, "name part Siobhán": 1, "e-mail part siobhan": 1,
                           "e-mail part ams": 1, "e-mail part uni.se": 1,
                           "phone +46 70 123 45 67": 1, "phone (555) 123-4567": 1}   # the same last 7 digits
    assert leaks(fold("Student-ABCDE wrote to [email] and [phone]")) == {}
    assert bench.privacy.REFLECTIONS is REFLECTIONS and bench.privacy.leaks is leaks
