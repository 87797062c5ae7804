"""No roster name, phone number or e-mail address reaches the model: reflections that name
classmates in every spelling, with phone numbers and obfuscated e-mails, assessed through the
real openai SDK against the fake OpenAI-compatible server, whose request bodies are searched."""
import json
import re
import unicodedata

import pytest

import factories
from core import runs
from fake_openai_server import FakeOpenAI
from core.access import Actor

ROSTER = [("s1", "Ana López", "ana.lopez@uni.es"), ("s2", "Zoë O'Connor", "zoe.oconnor@uni.ie"),
          ("s3", "José Núñez", "jnunez@uni.mx"), ("s4", "Ana Silva", "ana.silva@uni.pt"),
          ("s5", "Siobhán Ní Bhriain", "siobhan@uni.ie"), ("s6", "Anne-Marie Svensson", "ams@uni.se")]
PHONES = ["+46 70 123 45 67", "070-987 65 43", "(555) 123-4567", "+353 87 765 4321"]
FILLER = ("This week I learned how a language model predicts the next token and how temperature changes "
          "its answers. For example, at work I drafted e-mails with a chatbot and compared the drafts. "
          "I wonder how bias enters the training data, and whether we can trust these tools for hiring. ")
TEXTS = [
    "I worked with Ana López and ana lopez's notes helped; Zoë O'Connor disagreed, and Mr. O'Connor's "
    "example (from Zoe OConnor) was about chess. Call me on +46 70 123 45 67 or mail ana.lopez [at] uni.es.",
    "My surname Silva comes from Porto. José Núñez and J. Nunez (the same person) said NÚÑEZ is fine; "
    "reach José at jnunez(at)uni(dot)mx or 070-987 65 43.",
    "Siobhán Ní Bhriain and Siobhan talked to Anne-Marie Svensson, also Anne Marie and AnneMarie. "
    "Her number is (555) 123-4567; mine is +353 87 765 4321; write to ams at uni dot se or zoe.oconnor @ uni.ie.",
]


def fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold().replace("'", "").replace("’", "")


def sent_text(server) -> str:
    contents = []
    for body in server.bodies:
        for message in json.loads(body).get("messages", []):
            contents.append(str(message.get("content", "")))
    return fold("\n".join(contents))


@pytest.fixture
def course(conn):
    c = factories.course(conn, name="Privacy")
    students = {}
    for ext, name, email in ROSTER:
        students[name] = factories.student(conn, c["course_id"], external_id=ext, name=name)
        conn.execute("UPDATE students SET email = ? WHERE id = ?", [email, students[name]])
    authors = ["Ana Silva", "Ana Silva", "Zoë O'Connor"]
    subs = [factories.submission(conn, c["assignment_id"], students[a], t + " " + FILLER * 3)
            for a, t in zip(authors, TEXTS)]
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
    for _, name, email in ROSTER:
        for part in re.split(r"[\s\-]+", name):
            if len(part) >= 3:
                assert not re.search(rf"(?<!\w){re.escape(fold(part))}(?!\w)", sent), (part, name)
        assert fold(email.split("@")[0]) not in sent and fold(email.split("@")[1]) not in sent, email
    digits = re.sub(r"\D", "", sent)
    for phone in PHONES:
        assert re.sub(r"\D", "", phone)[-7:] not in digits, phone
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
