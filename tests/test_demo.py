"""The synthetic demo course: labelled, complete, covering every band, and idempotent."""
import hashlib
import importlib.util
import json
import re
import statistics
from collections import Counter

from core import demo
from core.rubric import default_rubric
from db import courses, submissions
from core.accounts.access import Actor


def _fingerprint(conn) -> str:
    """Hash of every row the demo writes (ids included), so any change at all is caught."""
    h = hashlib.sha256()
    for table in ("courses", "rubrics", "assignments", "students", "submissions", "reference_scores", "audit_log"):
        for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
            h.update(repr(row).encode())
    return h.hexdigest()


def test_demo_loads_a_labelled_synthetic_course(conn):
    summary = demo.load_demo(conn, actor=Actor("test", role="admin"))
    assert summary["created"] is True
    assert (summary["assignments"], summary["students"], summary["submissions"]) == (4, 28, 112)
    course = courses.get_course(conn, summary["course_id"])
    assert course["is_synthetic"] == 1 and "SYNTHETIC" in course["description"]
    for a in courses.list_assignments(conn, course["id"]):
        assert a["prompt"] and len(a["key_concepts"]) >= 4 and a["target_grade"] > 0 and a["week"] in (1, 2, 3, 4)


def test_loading_twice_changes_nothing(conn):
    first = demo.load_demo(conn, actor=Actor("test", role="admin"))
    counts, fingerprint = submissions.table_counts(conn), _fingerprint(conn)
    second = demo.load_demo(conn, actor=Actor("test", role="admin"))
    assert second["created"] is False and second["course_id"] == first["course_id"]
    assert submissions.table_counts(conn) == counts
    assert _fingerprint(conn) == fingerprint


def test_every_band_on_every_criterion_has_expert_scores(conn):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    rubric = default_rubric()
    n = conn.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
    for key in rubric.keys:
        levels = {r[0] for r in conn.execute(
            "SELECT DISTINCT score FROM reference_scores WHERE rater = 'expert' AND criterion = ?", [key])}
        assert levels == {0, 1, 2, 3}, key
        assert conn.execute("SELECT COUNT(*) FROM reference_scores WHERE rater='expert' AND criterion=?",
                          [key]).fetchone()[0] == n


def test_demo_includes_the_hard_cases(conn):
    demo.load_demo(conn, actor=Actor("test", role="admin"))
    texts = [r[0] for r in conn.execute("SELECT text FROM submissions")]
    assert any("client.chat.completions.create" in t for t in texts)  # code
    injection = [t for t in texts if "ignore the rubric" in t.lower()]
    assert len(injection) == 1
    scores = dict(conn.execute("SELECT criterion, score FROM reference_scores r JOIN submissions s "
                             "ON s.id = r.submission_id WHERE s.text = ?", [injection[0]]).fetchall())
    assert max(scores.values()) <= 1  # the expert did not fall for it


def test_group_attributes_and_pseudonyms(conn):
    summary = demo.load_demo(conn, actor=Actor("test", role="admin"))
    students = courses.list_students(conn, summary["course_id"])
    sections = {s["attributes"].get("section") for s in students}
    ell = [s["attributes"].get("ell") for s in students]
    assert {"A", "B"} <= sections and ell.count("yes") >= 4 and ell.count("no") >= 4
    assert len({s["pseudonym"] for s in students}) == len(students)
    assert all(s["name"].split()[0] not in s["pseudonym"] for s in students)


def test_home_button_loads_the_demo_once(app_test, conn):
    at = app_test().run()
    next(b for b in at.button if b.label == "Load demo course").click().run()
    assert not at.exception
    assert submissions.table_counts(conn)["submissions"] == 112
    assert not any(b.label == "Load demo course" for b in at.button)  # the course exists now
    assert "Loaded the demo course: 112 reflections from 28 students over 4 weeks." in at.success[0].value


def test_home_offers_the_swedish_demo_course_with_its_swedish_rubric(app_test, conn, monkeypatch):
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")   # AppTest formats widgets outside the run
    at = app_test()
    at.context = {"locale": "sv-SE"}
    at.run()
    button = at.button(key="home_demo_sv")
    assert button.label == "Ladda den svenska demokursen"
    button.click().run()
    assert not at.exception, at.exception
    assert submissions.table_counts(conn)["submissions"] == 4
    assert "4 reflektioner" in at.success[0].value
    course = conn.execute("SELECT id, language FROM courses").fetchone()
    assert course[1] == "sv"
    rubric = conn.execute("SELECT r.definition FROM assignments a JOIN rubrics r ON r.id = a.rubric_id "
                          "WHERE a.course_id = ?", [course[0]]).fetchone()[0]
    assert json.loads(rubric)["criteria"][0]["title"] == "Begreppsförståelse"


CONTENT = ("concept_understanding", "real_world_application", "reflection_depth")


def _words(text: str) -> int:
    return len(text.split())


def test_few_reflections_are_short_and_length_is_not_quality():
    refl = demo.demo_data()["reflections"]
    words = [_words(r["text"]) for r in refl]
    short = [r for r in refl if _words(r["text"]) < 100]
    assert 0.10 <= len(short) / len(refl) <= 0.20  # real weekly reflections are rarely under 100 words
    assert all(120 <= n <= 350 for n in words if n >= 100)
    assert 180 <= statistics.median(words) <= 220
    # short but excellent (brevity is not shallowness) ...
    assert sum(1 for r in short if r["scores"]["concept_understanding"] == 3 and r["scores"]["clarity"] == 3) >= 3
    # ... and long but weak (length is not depth)
    assert sum(1 for r in refl if sum(r["scores"][c] for c in CONTENT) <= 3 and _words(r["text"]) >= 200) >= 5


def test_every_criterion_has_every_level_in_the_file():
    refl = demo.demo_data()["reflections"]
    for key in default_rubric().keys:
        counts = Counter(r["scores"][key] for r in refl)
        assert sorted(counts) == [0, 1, 2, 3] and min(counts.values()) >= 3, (key, counts)


def test_texts_are_not_cloned_from_one_template():
    seen = Counter()
    for r in demo.demo_data()["reflections"]:
        sentences = {s.strip().lower() for s in re.split(r"(?<=[.!?])\s+|\n+", r["text"])}
        seen.update(s for s in sentences if len(s.split()) >= 6)
    assert max(seen.values()) <= 4, seen.most_common(3)
    assert sum(1 for n in seen.values() if n > 1) / len(seen) < 0.2


def test_ell_students_are_not_scored_lower_on_content():
    data = demo.demo_data()
    ell = {s["student_id"]: s["attributes"].get("ell") for s in data["students"]}
    by_group = {g: [r["scores"] for r in data["reflections"] if ell[r["student_id"]] == g] for g in ("yes", "no")}
    mean = {g: {k: statistics.mean(s[k] for s in rows) for k in rows[0]} for g, rows in by_group.items()}
    for key in CONTENT:
        assert abs(mean["yes"][key] - mean["no"][key]) < 0.25, key
    assert mean["no"]["clarity"] - 0.5 < mean["yes"]["clarity"] <= mean["no"]["clarity"]


def test_generator_reproduces_the_file():
    spec = importlib.util.spec_from_file_location("demo_generate", demo.DEMO_FILE.parent / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert json.dumps(generate.build(), indent=1, ensure_ascii=False) + "\n" == \
        demo.DEMO_FILE.read_text(encoding="utf-8")
