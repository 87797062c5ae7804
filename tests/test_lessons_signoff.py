"""The teacher's sign-off on a lesson (each fix as a decision, approval with a verdict, stale
versions refused) and the export of approved lessons with their review record."""
import io
import re

import docx
import pytest
import yaml

from core.errors import ConflictError
from core.lessons import export, review, signoff
from db import lessons as lessons_db
from fake_llm import ScriptedLLM
from lesson_helpers import LESSON, ONE_JUDGE, add_lesson, issue, verdict
from core.accounts.access import Actor

HOOK = "The water did not disappear."


def reviewed_with_two_rounds(conn, db_path) -> tuple[int, list[dict]]:
    """A lesson whose introduction was rewritten twice (round 2 rewrote round 1's version)."""
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.6, 0.1, [issue("engagement_tone", HOOK)]),
                verdict(0.9, 0.9, 0.6, 0.4), verdict(0.9, 0.9, 0.7, 0.8))
    fake.script("lesson_fixer", {"text": "Round one hook. Where did the puddle go?", "summary": "1"},
                {"text": "Round two hook: imagine a vanishing puddle. Where did it go?", "summary": "2"})
    out = review.review_lesson(db_path, lid, fake)
    fake.assert_all_used()
    return lid, lessons_db.fixes(conn, out["review_id"])


def test_accepting_a_fix_changes_only_its_section_and_is_audited(conn, db_path):
    lid, (first, second) = reviewed_with_two_rounds(conn, db_path)
    assert second["before"] == first["after"]
    before = lessons_db.get(conn, lid)
    signoff.accept_fix(conn, lid, first["id"], version=before["version"], actor=Actor("ana", role="admin"))
    after = lessons_db.get(conn, lid)
    assert after["text"] == before["text"].replace(first["before"], first["after"]) and after["version"] == 2
    history = lessons_db.history(conn, lid)[-1]
    assert history["action"] == "accept_fix" and history["actor"] == "ana" and history["before"]["text"] == first["before"]
    signoff.accept_fix(conn, lid, second["id"], version=2, actor=Actor("ana", role="admin"))
    assert "Round two hook" in lessons_db.get(conn, lid)["text"] and "Round one" not in lessons_db.get(conn, lid)["text"]


def test_a_later_round_cannot_be_accepted_before_the_round_it_rewrote(conn, db_path):
    lid, (first, second) = reviewed_with_two_rounds(conn, db_path)
    with pytest.raises(ConflictError, match="round 1's fix: accept that one first"):
        signoff.accept_fix(conn, lid, second["id"], version=1, actor=Actor("ana", role="admin"))
    signoff.reject_fix(conn, lid, first["id"], version=1, actor=Actor("ana", role="admin"))
    lesson = lessons_db.get(conn, lid)
    assert lesson["text"] == lesson["original_text"] and lesson["version"] == 2
    assert lessons_db.get_fix(conn, first["id"])["status"] == "rejected"


def test_a_stale_version_changes_nothing(conn, db_path):
    lid, (first, _) = reviewed_with_two_rounds(conn, db_path)
    signoff.reject_fix(conn, lid, first["id"], version=1, actor=Actor("ana", role="admin"))
    with pytest.raises(ConflictError, match="changed since you opened it"):
        signoff.reject_fix(conn, lid, first["id"], version=1, actor=Actor("ben", role="admin"))       # a double click
    with pytest.raises(ConflictError, match="changed since you opened it"):
        signoff.approve(conn, lid, version=1, actor=Actor("ben", role="admin"))
    assert lessons_db.get(conn, lid)["version"] == 2 and lessons_db.get(conn, lid)["status"] == "reviewed"


def test_approval_needs_a_review_and_every_fix_decided(conn, db_path):
    fresh = add_lesson(conn, name="x.md", course="Other")
    with pytest.raises(ConflictError, match="no finished review"):
        signoff.approve(conn, fresh, version=1, actor=Actor("ana", role="admin"))
    lid, fixes = reviewed_with_two_rounds(conn, db_path)
    with pytest.raises(ConflictError, match="Decide every proposed fix first"):
        signoff.approve(conn, lid, version=1, actor=Actor("ana", role="admin"))
    signoff.accept_fix(conn, lid, fixes[0]["id"], version=1, actor=Actor("ana", role="admin"))
    signoff.reject_fix(conn, lid, fixes[1]["id"], version=2, actor=Actor("ana", role="admin"))
    signoff.approve(conn, lid, version=3, actor=Actor("ana", role="admin"), verdict="revise", note="good after the hook")
    lesson = lessons_db.get(conn, lid)
    assert lesson["status"] == "approved" and lesson["approved_by"] == "ana" and lesson["priority"] == 7
    refs = list(conn.query("SELECT rater, verdict FROM lesson_references WHERE lesson_id = ?", [lid]))
    assert refs == [{"rater": "teacher:ana", "verdict": "revise"}]
    assert lessons_db.history(conn, lid)[-1]["reason"] == "good after the hook"


def test_export_writes_the_approved_text_with_its_spec_and_review_record(conn, db_path, tmp_path):
    lid, fixes = reviewed_with_two_rounds(conn, db_path)
    with pytest.raises(ConflictError, match="not approved"):
        export.to_markdown(conn, lid, actor=Actor("test", role="admin"))
    signoff.accept_fix(conn, lid, fixes[0]["id"], version=1, actor=Actor("ana", role="admin"))
    signoff.reject_fix(conn, lid, fixes[1]["id"], version=2, actor=Actor("ana", role="admin"))
    signoff.approve(conn, lid, version=3, actor=Actor("ana", role="admin"), verdict="revise")
    md = export.to_markdown(conn, lid, actor=Actor("test", role="admin"))
    front = yaml.safe_load(md.split("---\n")[1])
    assert front["title"] == "The water cycle" and front["target_grade"] == 5 and front["approved_by"] == "ana"
    text, record = md.split("## Review record")
    assert "Round one hook" in text and HOOK not in text
    assert "Judged by deepseek-chat" in record and "Fix, round 1, Engagement \\& tone in 'The water cycle': accepted by ana" \
        in record and "round 2" in record and "rejected by ana" in record and "Stage 1 - Length" in record
    document = docx.Document(io.BytesIO(export.to_docx(conn, lid, actor=Actor("test", role="admin"))))
    paragraphs = [p.text for p in document.paragraphs]
    assert paragraphs[0] == "The water cycle" and "Review record" in paragraphs and "Evaporation" in paragraphs
    assert any(p.startswith("Round one hook") for p in paragraphs)
    files = export.export_course(conn, lessons_db.get(conn, lid)["course_id"], tmp_path / "out", "docx",
                                 actor=Actor("test", role="admin"))
    assert [f.rsplit("/", 1)[1] for f in files] == ["The_water_cycle.docx"]


def _approved(conn, db_path, title: str, approver: str = "ana") -> int:
    lid = add_lesson(conn, LESSON.replace(b"title: The water cycle", f"title: {title}".encode()),
                     name=f"{abs(hash(title))}.md")
    review.review_lesson(db_path, lid, None)
    signoff.approve(conn, lid, version=1, actor=Actor(approver, role="admin"), verdict="publish")
    return lid


def test_export_keeps_every_scripts_letters_and_never_overwrites_a_lesson(conn, db_path, tmp_path):
    """Review finding 9: Cyrillic titles all became lesson.md, each overwriting the last."""
    titles = ["Круговорот воды", "Облака?", "Облака!", "облака"]
    for title in titles:
        _approved(conn, db_path, title)
    cid = lessons_db.queue(conn, 1)[0]["course_id"]
    files = export.export_course(conn, cid, tmp_path / "out", "md", actor=Actor("test", role="admin"))
    names = [f.rsplit("/", 1)[1] for f in files]
    assert names == ["Круговорот_воды.md", "Облака.md", "Облака-2.md", "облака-3.md"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(names)
    shown = {yaml.safe_load((tmp_path / "out" / n).read_text().split("---\n")[1])["title"] for n in names}
    assert shown == set(titles)


def test_the_review_record_in_markdown_is_escaped(conn, db_path):
    lid = _approved(conn, db_path, "Clouds", approver="[Ana](https://evil.example) <img src=x onerror=alert(1)>")
    record = export.to_markdown(conn, lid, actor=Actor("test", role="admin")).split("## Review record")[1]
    assert "\\[Ana\\](https://evil.example) \\<img src=x onerror=alert(1)\\>" in record
    assert not re.search(r"(?<!\\)(<img|\[Ana)", record)
