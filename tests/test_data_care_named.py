"""Deleting a student also deletes the free text of their course that names them outside their
own work: a rubric draft whose description, descriptors or notes name them (or give the
pseudonym the model read instead), and a bank comment typed or imported with their name, with
the audit rows that copied its text. The rest of the course's drafts and bank stays."""
from __future__ import annotations

import factories as f
from core import data_care
from core.courses import comment_bank as bank
from core.courses import rubric_builder as builder
from db import rubric_drafts

ADMIN = f.actor("ann")


def test_deleting_a_student_deletes_the_drafts_and_bank_comments_that_name_them(conn):
    c = f.course(conn)
    cid = c["course_id"]
    ana = f.student(conn, cid, name="Ana Silva")
    f.student(conn, cid, name="Bob Stone")
    pseudonym = conn.execute("SELECT pseudonym FROM students WHERE id = ?", [ana]).fetchone()[0]
    named = builder.draft(conn, cid, "reflections like the one Ana Silva wrote, 3 criteria, 0-3", actor=ADMIN)
    quoted = builder.draft(conn, cid, "an essay, 4 criteria, 1 to 6", actor=ADMIN)
    row = rubric_drafts.get(conn, quoted)
    row["definition"]["criteria"][0]["guidance"] = f"As {pseudonym} did: name the test."   # the model read this
    rubric_drafts.update_definition(conn, quoted, row["definition"])
    kept = builder.draft(conn, cid, "a lab report, 3 criteria, 0-4", actor=ADMIN)
    typed = bank.add(conn, cid, "Like Ana, name one source.", actor=ADMIN, mine=False)
    bank.import_csv(conn, cid, "text\nAsk Ana Silva how she tested it.\nName one source you checked.\n", actor=ADMIN)
    stays = [b["id"] for b in bank.search(conn, cid, actor=ADMIN)["course"] if "Ana" not in b["text"]]
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'bank_comments' AND entity_id = ?",
                        [typed]).fetchone()[0] == 1

    counts = data_care.delete_student(conn, ana, actor=ADMIN)

    assert counts["rubric_drafts"] == 2 and counts["bank_comments"] == 2
    assert [d["id"] for d in rubric_drafts.of_course(conn, cid, unsaved_only=False)] == [kept]
    assert [b["id"] for b in bank.search(conn, cid, actor=ADMIN)["course"]] == stays
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'bank_comments' AND entity_id = ?",
                        [typed]).fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'rubric_drafts' AND entity_id IN (?, ?)",
                        [named, quoted]).fetchone()[0] == 0
    assert "2 rubric drafts" in data_care.deleted_words(counts) and "2 comment bank comments" in data_care.deleted_words(counts)
