"""The LMS roster (issue 25, Names and Role Provisioning Services) from the test platform on a
real HTTP server: students created and updated from every page of the membership list, matched
to those FairMark already has, masked before any model call like uploaded ones; uploads match
them by LMS id, then e-mail, then SIS id; `lti roster` on the command line."""
from __future__ import annotations

import json

import pytest

import factories as f
import lti_support
from core import ingest  # noqa: F401  (the package, as tests/test_ingest.py uses it)
from core.accounts.access import Actor
from core.cli import main
from core.errors import ConfigError, Forbidden
from core.ingest import commit as ingest_commit
from core.lti import roster, tokens
from core.lti.tokens import ServiceError
from core.pipeline import Ids, item_for, masked_job
from lti_support import client, lti_env, platform  # noqa: F401  (fixtures)

ADMIN = Actor("ann", role="admin")
m = lti_support.member


@pytest.fixture
def lms(conn, platform, client):
    """The course "Biology" and its assignment "Week 1", made by its instructor's launch from the
    test platform (whose roster is empty until a test fills it)."""
    c = lti_support.launched(client, platform, context_title="Biology", link_title="Week 1")
    yield platform.services, c


def students(conn, course_id):
    return {r[0]: r[1:] for r in conn.execute(
        "SELECT st.name, st.email, st.external_id, r.lms_user_id, r.sis_id, st.pseudonym FROM students st "
        "LEFT JOIN lti_roster r ON r.student_id = st.id WHERE st.course_id = ? ORDER BY st.id", [course_id])}


def test_sync_reads_every_page_and_creates_only_the_learners(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "Ana López", "ana@school.example", "SIS-1"), m("u2", "Ben Okafor", "ben@school.example"),
                   m("t1", "Ms Teacher", "teach@school.example", role="Instructor"), m("u3", "Cy Dee", sis="SIS-3"),
                   m("u4", "Gone Away", "gone@school.example", status="Inactive"), m("u5", "Eve Five")]
    out = roster.sync(conn, c["course_id"], actor=ADMIN)
    assert out == {"course_id": c["course_id"], "members": 6, "created": 4, "updated": 0, "matched": 0,
                   "not_students": 1, "inactive": 1}                     # 6 members over 3 pages of 2
    got = students(conn, c["course_id"])
    assert got["Ana López"][:4] == ("ana@school.example", "SIS-1", "u1", "SIS-1")
    assert got["Ben Okafor"][1:3] == ("ben@school.example", "u2") and got["Cy Dee"][1] == "SIS-3"
    assert got["Eve Five"][1:3] == ("lms:u5", "u5") and "Ms Teacher" not in got and "Gone Away" not in got
    assert all(p.startswith("Student-") for *_, p in got.values())
    audit = json.loads(conn.execute("SELECT after FROM audit_log WHERE action = 'lti_roster' ORDER BY id DESC"
                                    ).fetchone()[0])
    assert audit["created"] == 4 and "Ana" not in json.dumps(audit)


def test_a_second_sync_updates_names_and_emails_and_never_duplicates(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "Ana López", "ana@school.example", "SIS-1")]
    roster.sync(conn, c["course_id"], actor=ADMIN)
    pseudonym = students(conn, c["course_id"])["Ana López"][4]
    svc.members = [m("u1", "Ana López-Berg", "ana.berg@school.example", "SIS-1")]
    out = roster.sync(conn, c["course_id"], actor=ADMIN)
    assert (out["created"], out["updated"], out["matched"]) == (0, 1, 1)
    got = students(conn, c["course_id"])
    assert list(got) == ["Ana López-Berg"] and got["Ana López-Berg"][0] == "ana.berg@school.example"
    assert got["Ana López-Berg"][4] == pseudonym                             # the pseudonym never changes


def test_uploaded_students_are_matched_by_email_then_sis_id(conn, lms):
    svc, c = lms
    by_email = f.student(conn, c["course_id"], external_id="x17", name="Ana L")
    conn.execute("UPDATE students SET email = 'Ana@School.example' WHERE id = ?", [by_email])
    by_sis = f.student(conn, c["course_id"], external_id="SIS-2", name="B. Okafor")
    svc.members = [m("u1", "Ana López", "ana@school.example"), m("u2", "Ben Okafor", sis="SIS-2")]
    out = roster.sync(conn, c["course_id"], actor=ADMIN)
    assert (out["created"], out["matched"]) == (0, 2)
    rows = dict(conn.execute("SELECT student_id, lms_user_id FROM lti_roster").fetchall())
    assert rows == {by_email: "u1", by_sis: "u2"}


def test_uploads_match_rostered_students_by_lms_id_then_email_then_sis_id(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "Ana López", "ana@school.example"), m("u2", "Ben Okafor", "ben@school.example"),
                   m("u3", "Cy Dee", sis="SIS-3")]
    roster.sync(conn, c["course_id"], actor=ADMIN)
    ids = {r[1]: r[0] for r in conn.execute("SELECT student_id, lms_user_id FROM lti_roster")}
    text = "\"" + "I learned that the data a model learns from shapes what it says, and I want to test that. " * 3 + "\""
    csv = ("student_id,email,name,text\n" f"u1,,Ana,{text}\n" f"other-id,BEN@school.example,Ben,{text}\n"
           f"SIS-3,,Cy,{text}\n" f"s99,new@school.example,Newcomer,{text}\n")
    out = ingest_commit.import_files(conn, [("week1.csv", csv.encode())], ingest_commit.Target("Biology", "Week 1"),
                                     actor=ADMIN)
    assert out.imported == 4 and out.new_students == 1
    authors = dict(conn.execute("SELECT st.name, s.student_id FROM submissions s JOIN students st ON st.id = s.student_id"))
    assert authors["Ana López"] == ids["u1"] and authors["Ben Okafor"] == ids["u2"] and authors["Cy Dee"] == ids["u3"]
    assert "Newcomer" in authors


def test_rostered_names_are_masked_before_any_model_call(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "Ana López", "ana@school.example"), m("u2", "Ben Okafor", "ben@school.example")]
    roster.sync(conn, c["course_id"], actor=ADMIN)
    author = conn.execute("SELECT id FROM students WHERE name = 'Ana López'").fetchone()[0]
    sid = f.submission(conn, c["assignment_id"], author, text="I worked with Ben Okafor (ben@school.example). Ana")
    job, _ = masked_job(item_for(conn, sid, offline=True), Ids(submission_id=sid))
    assert "Ben" not in job.text and "Okafor" not in job.text and "ben@" not in job.text and "Ana" not in job.text


def test_hostile_and_oversized_names_are_stored_as_plain_text(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "<script>alert(1)</script>\x00\u202e **x**", "not-an-email"), m("u2", "A" * 5000),
                   {"user_id": "u3", "roles": "Learner", "name": "roles not a list"}, {"name": "no id", "roles": []}]
    out = roster.sync(conn, c["course_id"], actor=ADMIN)
    got = students(conn, c["course_id"])
    assert "<script>alert(1)</script> **x**" in got and got["<script>alert(1)</script> **x**"][0] == ""
    assert "A" * 200 in got and out["created"] == 2 and out["not_students"] == 1


def test_the_command_line_syncs_and_refuses_without_the_grant(conn, lms, capsys):
    svc, c = lms
    svc.members = [m("u1", "Ana López", "ana@school.example")]
    assert main(["lti", "roster", "--course", "Biology"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["course"] == "Biology" and printed["created"] == 1
    f.user(conn, "tom", "ta", courses=[c["course_id"]])
    assert main(["--as", "tom", "lti", "roster", "--course", "Biology"]) == 2
    assert "may not upload or edit course material" in capsys.readouterr().out
    with pytest.raises(Forbidden):
        roster.sync(conn, c["course_id"], actor=Actor("x", role="instructor", courses={}))


def test_refusals_say_what_to_do_and_change_nothing(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "Ana López")]
    svc.refuse_tokens = True
    tokens.forget()                                  # the launch's token is cached: ask the LMS again
    with pytest.raises(ServiceError, match="refused FairMark's key"):
        roster.sync(conn, c["course_id"], actor=ADMIN)
    assert students(conn, c["course_id"]) == {}
    unlinked = f.course(conn, "Chemistry")
    with pytest.raises(ConfigError, match="not linked to an LMS course: its instructor launches FairMark"):
        roster.sync(conn, unlinked["course_id"], actor=ADMIN)


def test_two_lms_users_with_the_same_email_stay_two_students(conn, lms):
    svc, c = lms
    svc.members = [m("u1", "Ana López", "shared@school.example")]
    roster.sync(conn, c["course_id"], actor=ADMIN)
    svc.members.append(m("u2", "Ana López Twin", "shared@school.example"))
    out = roster.sync(conn, c["course_id"], actor=ADMIN)
    assert out["created"] == 1
    rows = dict(conn.execute("SELECT r.lms_user_id, st.external_id FROM lti_roster r "
                             "JOIN students st ON st.id = r.student_id").fetchall())
    assert rows == {"u1": "shared@school.example", "u2": "lms:u2"}
