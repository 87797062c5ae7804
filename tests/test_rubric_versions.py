"""A rubric's versions (issue 27): the plain diff between any two, rollback as a new version
(drafts keep the version they were scored under), and grader guidance: it reaches the
Evaluator's prompt, its hash and the cache key, and never a student's export."""
from __future__ import annotations

import io
import zipfile

import pytest

import factories as f
from assess_script import RICH_TEXT, evaluation_for
from core.accounts.access import Actor, Forbidden
from core.agents import Job, evaluator
from core.courses import catalogue
from core.courses import rubric_versions as versions
from core.errors import ConflictError, RubricError
from core.export import released as export
from core.llm.logged import LoggedLLM
from core.rubric import default_rubric, parse_rubric
from core.signoff import actions, release
from db import courses
from fake_llm import ScriptedLLM

ADMIN = Actor("ann", role="admin")
NOTE = "GRADER-ONLY: concrete means a named test, not 'I used statistics'."


def _with_guidance(rubric, text=NOTE):
    data = rubric.model_dump(mode="json")
    data["criteria"][1]["guidance"] = text
    return parse_rubric(data)


def _edited(rubric, **level_texts):
    data = rubric.model_dump(mode="json")
    for level, text in level_texts.items():
        data["criteria"][0]["levels"][level[1:]] = text
    return parse_rubric(data)


def test_guidance_is_left_out_of_the_json_and_hash_when_empty():
    r = default_rubric()
    assert "guidance" not in r.to_json()
    assert _with_guidance(r).content_hash != r.content_hash and NOTE in _with_guidance(r).to_json()


def test_diff_says_criterion_by_criterion_and_level_by_level_what_changed():
    a = default_rubric()
    data = _edited(a, l2="Mostly clear, with one gap.").model_dump(mode="json")
    data["criteria"][3]["title"] = "Clarity of writing"
    data["criteria"].pop(2)
    data["criteria"].append({"key": "sources", "title": "Sources", "levels": dict.fromkeys(["0", "1", "2", "3"], "x")})
    assert versions.diff_lines(a, parse_rubric(data)) == [
        "Concept understanding — level 2: “Mostly clear understanding with some gaps.” → “Mostly clear, with one gap.”",
        "Clarity of writing — title: “Clarity” → “Clarity of writing”",
        "Sources: added",
        "Reflection depth: removed",
    ]
    assert versions.diff_lines(a, a) == []


def test_rollback_is_a_new_version_and_drafts_keep_the_version_they_were_scored_under(conn):
    c = f.course(conn)
    v1 = c["rubric_id"]
    sub = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    v2, n2 = catalogue.save_rubric_version(conn, _edited(c["rubric"], l3="Excellent."), actor=ADMIN)
    did = f.draft(conn, sub, {k: 2 for k in c["rubric"].keys}, rubric=courses.get_rubric(conn, v2))
    rows = versions.versions(conn, v1, actor=ADMIN)
    assert [(r["version"], r["restores"]) for r in rows] == [(1, None), (2, None)]
    assert rows[0]["assignments"] == 1 and rows[1]["drafts"] == 1
    assert versions.compare(conn, v1, v2, actor=ADMIN) == [
        "Concept understanding — level 3: “Accurate and nuanced understanding, with connections between concepts.” "
        "→ “Excellent.”"]
    with pytest.raises(ConflictError, match="Version 2 was saved meanwhile"):
        versions.rollback(conn, v1, latest=1, actor=ADMIN)
    with pytest.raises(ConflictError, match="newest already"):
        versions.rollback(conn, v2, latest=2, actor=ADMIN)
    v3, n3 = versions.rollback(conn, v1, latest=2, actor=ADMIN)
    assert (n2, n3) == (2, 3)
    assert courses.get_rubric(conn, v3).model_copy(update={"version": 1}) == courses.get_rubric(conn, v1)
    assert [(r["version"], r["restores"]) for r in versions.versions(conn, v3, actor=ADMIN)][-1] == (3, 1)
    assert conn.execute("SELECT rubric_id FROM drafts WHERE id = ?", [did]).fetchone()[0] == v2
    assert courses.get_assignment(conn, c["assignment_id"])["rubric_id"] == v1   # assignments keep theirs
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action = 'rollback'").fetchone()[0] == 1


@pytest.mark.parametrize("role", ["ta", "coordinator"])
def test_only_instructors_and_admins_roll_back(conn, role):
    c = f.course(conn)
    catalogue.save_rubric_version(conn, _edited(c["rubric"], l3="Excellent."), actor=ADMIN)
    with pytest.raises(Forbidden):
        versions.rollback(conn, c["rubric_id"], latest=2, actor=f.user(conn, "x", role, courses=[c["course_id"]]))


def test_an_uploaded_rubric_lists_every_problem_by_row(conn):
    data = default_rubric().model_dump(mode="json")
    data["criteria"][0]["levels"].pop("1")
    data["criteria"][2]["key"] = "clarity"
    data["criteria"][3]["levels"]["0"] = " "
    with pytest.raises(RubricError) as e:
        catalogue.save_rubric_version(conn, data, actor=ADMIN)
    msg = str(e.value)
    assert "Row 1 (concept_understanding): missing descriptors for levels [1] (levels run from 0 to 3" in msg
    assert "Row 4 (clarity): empty descriptor for level 0" in msg
    assert "repeated: clarity (rows 3 and 4)" in msg
    assert courses.list_rubrics(conn) == []


def _job(rubric):
    return Job(rubric=rubric, assignment={"title": "Week 1", "prompt": "Reflect.", "key_concepts": []}, text=RICH_TEXT)


def test_guidance_reaches_the_evaluators_prompt_and_changes_its_hash_and_cache_key(db_path):
    plain, guided = default_rubric(), _with_guidance(default_rubric())
    fake = ScriptedLLM().always("evaluator", lambda m, s: evaluation_for(s, score=2))
    llm = LoggedLLM(fake, db_path)
    evaluator.run(llm, _job(plain))
    evaluator.run(llm, _job(guided))
    first, second = fake.calls
    assert NOTE not in first.messages[0]["content"] and evaluator.NO_GUIDANCE in first.messages[0]["content"]
    assert f"real_world_application: {NOTE}" in second.messages[0]["content"]
    assert first.ctx.prompt_hash == evaluator.PROMPT.load().hash != second.ctx.prompt_hash
    import db

    conn = db.connect(db_path)
    keys = [r[0] for r in conn.execute("SELECT cache_key FROM llm_calls ORDER BY id")]
    assert len(keys) == 2 and keys[0] != keys[1]             # a guided rubric is never served the old answer


def test_guidance_never_reaches_a_students_export(conn):
    rubric = _with_guidance(default_rubric())
    c = f.course(conn, rubric=rubric)
    sub = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], external_id="s1"))
    f.draft(conn, sub, {k: 2 for k in rubric.keys}, rubric=rubric)
    actions.open_item(conn, sub, actor=ADMIN)
    actions.approve(conn, sub, version=1, actor=ADMIN)
    release.release(conn, c["assignment_id"], actor=ADMIN)
    assert courses.get_rubric(conn, c["rubric_id"]).criteria[1].guidance == NOTE
    for fmt in ("csv", "canvas", "zip"):
        data = export.export(conn, c["course_id"], c["assignment_id"], fmt=fmt, actor=ADMIN).data
        if fmt == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                data = b"".join(zf.read(n) for n in zf.namelist())
        assert b"GRADER-ONLY" not in data, fmt


def test_guidance_reaches_only_the_scoring_calls_of_a_drafted_item(conn, db_path):
    """The comment a student reads is written without the notes for graders (the Aggregator, the
    Coach and the Reviser never see them)."""
    from assess_script import good_llm
    from core import pipeline

    rubric = _with_guidance(default_rubric())
    c = f.course(conn, rubric=rubric)
    sub = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm()
    pipeline.assess_one(db_path, sub, llm=llm)
    seen = {call.role for call in llm.calls if any(NOTE in m["content"] for m in call.messages)}
    assert seen == {"evaluator"}
    assert {"aggregator", "coach"} <= {call.role for call in llm.calls}
