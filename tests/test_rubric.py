"""Rubric validation and versioning: good rubrics load, each invalid one is refused by name."""
from pathlib import Path

import pytest

import factories as f
from core.courses import catalogue
from core.errors import RubricError
from core.rubric import default_rubric, load_rubric_file, parse_rubric
from db import courses
from core.accounts.access import Actor

ROOT = Path(__file__).resolve().parent.parent


def _good() -> dict:
    return default_rubric().model_dump(mode="json")


def test_default_rubric_is_the_seed_reflection_rubric():
    r = default_rubric()
    assert (r.scale_min, r.scale_max) == (0, 3)
    assert r.keys == ["concept_understanding", "real_world_application", "reflection_depth", "clarity"]
    assert r.criterion("clarity").levels[3] == "Clear structure, polished writing."
    assert r.low_band(1) and not r.low_band(2)


def test_ellipse_rubric_loads_with_six_criteria_on_1_to_5():
    r = load_rubric_file(ROOT / "data" / "rubrics" / "ellipse.yaml")
    assert r.keys == ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
    assert r.levels == [1, 2, 3, 4, 5]
    assert all(set(c.levels) == {1, 2, 3, 4, 5} for c in r.criteria)
    assert r.validate_scores(dict.fromkeys(r.keys, 5)) == dict.fromkeys(r.keys, 5)


def _mutate(change):
    data = _good()
    change(data)
    return data


INVALID = [
    ("scale max below min", lambda d: d.update(scale_max=0), "scale_max (0) must be greater than scale_min"),
    ("no criteria", lambda d: d.update(criteria=[]), "at least one criterion"),
    ("duplicate key", lambda d: d["criteria"][1].update(key="clarity"), "repeated: clarity"),
    ("missing level", lambda d: d["criteria"][0]["levels"].pop("2"), "missing descriptors for levels [2]"),
    ("level outside scale", lambda d: d["criteria"][0]["levels"].update({"7": "x"}), "outside the scale 0-3"),
    ("empty descriptor", lambda d: d["criteria"][3]["levels"].update({"1": "  "}), "empty descriptor"),
    ("bad key", lambda d: d["criteria"][0].update(key="Concept Understanding"), "must be lower-case"),
    ("empty title", lambda d: d["criteria"][0].update(title=" "), "title must not be empty"),
    ("negative weight", lambda d: d["criteria"][0].update(weight=-1), "weight"),
    ("veto outside scale", lambda d: d["criteria"][0].update(veto_below=9), "veto_below 9"),
    ("unknown field", lambda d: d.update(colour="red"), "colour"),
    ("missing name", lambda d: d.pop("name"), "name"),
]


@pytest.mark.parametrize("label,change,message", INVALID, ids=[i[0] for i in INVALID])
def test_invalid_rubric_is_rejected_with_a_message_naming_the_problem(label, change, message):
    with pytest.raises(RubricError) as e:
        parse_rubric(_mutate(change))
    assert message in str(e.value)


def test_broken_yaml_and_non_mapping_are_rejected():
    with pytest.raises(RubricError, match="neither valid JSON nor YAML"):
        parse_rubric("name: [unclosed")
    with pytest.raises(RubricError, match="must be a mapping"):
        parse_rubric("- just\n- a list\n")


def test_rubric_table_round_trip_and_edit_errors():
    r = default_rubric()
    rows = catalogue.rubric_to_rows(r)
    assert catalogue.rows_to_rubric(r, rows) == r
    rows[0]["level_2"] = ""
    with pytest.raises(RubricError, match="empty descriptor"):
        catalogue.rows_to_rubric(r, rows)
    rows = catalogue.rubric_to_rows(r)
    rows[1]["key"] = None
    with pytest.raises(RubricError, match="Row 2: the criterion key is empty"):
        catalogue.rows_to_rubric(r, rows)


def test_editing_a_rubric_makes_a_new_version_and_old_drafts_keep_theirs(conn):
    c = f.course(conn)
    sid = f.student(conn, c["course_id"])
    sub = f.submission(conn, c["assignment_id"], sid)
    did = f.draft(conn, sub, {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 1,
                            "clarity": 3})
    old = courses.get_rubric(conn, c["rubric_id"])
    rows = catalogue.rubric_to_rows(old)
    rows[3]["level_3"] = "Clear structure, polished writing, and headings where they help."
    new_id, version = catalogue.save_rubric_version(conn, catalogue.rows_to_rubric(old, rows), actor=Actor("admin", role="admin"))
    assert new_id != c["rubric_id"] and version == 2
    assert courses.get_rubric(conn, c["rubric_id"]) == old  # the old version is untouched
    assert conn.execute("SELECT rubric_id FROM drafts WHERE id = ?", [did]).fetchone()[0] == c["rubric_id"]
    same_id, same_version = catalogue.save_rubric_version(conn, catalogue.rows_to_rubric(old, rows), actor=Actor("admin", role="admin"))
    assert (same_id, same_version) == (new_id, 2)
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'rubrics'").fetchone()[0] == 1


def test_uploaded_rubric_text_is_validated_before_saving(conn):
    before = conn.execute("SELECT COUNT(*) FROM rubrics").fetchone()[0]
    with pytest.raises(RubricError, match="scale_max"):
        catalogue.save_rubric_version(conn, b"name: x\nscale_min: 3\nscale_max: 1\ncriteria: []\n", actor=Actor("a", role="admin"))
    assert conn.execute("SELECT COUNT(*) FROM rubrics").fetchone()[0] == before
    rid, version = catalogue.save_rubric_version(
        conn, (ROOT / "data" / "rubrics" / "ellipse.yaml").read_bytes(), actor=Actor("a", role="admin"))
    assert version == 1 and courses.get_rubric(conn, rid).scale_max == 5


def test_validation_messages_count_criteria_from_one_and_start_with_a_capital():
    with pytest.raises(RubricError) as e:
        parse_rubric(_mutate(lambda d: d["criteria"][1].update(key="Bad Key")))
    msg = str(e.value)
    assert msg.startswith("Invalid rubric: criterion 2 (key): ") and "criteria.1" not in msg
