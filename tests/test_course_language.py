"""A language per course (issue 30): stored on the course, set from the command line and the
Settings page, read by the pipeline; the language flag means "not in the course's language"."""
import json

import pytest

import factories
from assess_script import good_llm
from core import checks, pipeline
from core.accounts.access import Actor
from core.cli import main
from core.courses import catalogue
from core.errors import ConfigError
from core.language import course as course_language
from core.language import detect
from db import courses, drafts

ADMIN = Actor("test", role="admin")
SWEDISH = ("Den här veckan lärde jag mig hur stora språkmodeller fungerar. De förutsäger nästa ord utifrån "
           "mönster i träningsdata. Temperaturen styr hur slumpmässigt svaret blir, och på jobbet vill jag "
           "använda en låg temperatur för faktatexter. Min fråga är hur man kalibrerar detta, och varför "
           "modellen ibland hittar på källor som inte finns. Det vill jag undersöka nästa vecka.")
RUSSIAN = ("На этой неделе я узнал, что такое большие языковые модели. Они обучаются на огромных данных из "
           "интернета и предсказывают следующее слово. Я также узнал про температуру, которая контролирует "
           "случайность ответа. На работе я хочу использовать низкую температуру для фактов. Мой открытый "
           "вопрос: как точно калибровать параметры и почему модель иногда придумывает источники?")
ENGLISH = ("This week I learned how large language models work. They predict the next word from patterns in "
           "their training data. The temperature controls how random the answer is, and at work I want to use "
           "a low temperature for factual texts. My question is how to calibrate this, and why the model "
           "sometimes makes up sources that do not exist. I will look into that next week.")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1])


def test_a_course_is_in_english_until_set(conn):
    c = factories.course(conn)
    assert course_language.of_course(conn, c["course_id"], actor=ADMIN) == "en"
    assert courses.get_course(conn, c["course_id"])["language"] == "en"


def test_course_set_language_prints_json_and_audits(capsys, conn):
    c = factories.course(conn, name="Kurs")
    code, out = run(capsys, "course", "set", "--course", "Kurs", "--language", "SV")
    assert code == 0
    assert out == {"command": "course set", "course": "Kurs", "language": "sv", "changed": {"language": "sv"}}
    assert course_language.of_course(conn, c["course_id"], actor=ADMIN) == "sv"
    row = conn.execute("SELECT before, after FROM audit_log WHERE entity = 'courses' AND action = 'edit'").fetchone()
    assert json.loads(row[0]) == {"language": "en"} and json.loads(row[1]) == {"language": "sv"}
    code, again = run(capsys, "course", "set", "--course", "Kurs", "--language", "sv")
    assert code == 0 and again["changed"] == {}


@pytest.mark.parametrize("bad", ["de", "swedish", " "])
def test_an_unsupported_language_is_refused_naming_the_supported_ones(capsys, conn, bad):
    c = factories.course(conn, name="Kurs")
    code, out = run(capsys, "course", "set", "--course", "Kurs", "--language", bad)
    assert code == 2
    assert "en (English)" in out["error"] and "sv (Swedish)" in out["error"] and "ru (Russian)" in out["error"]
    assert courses.get_course(conn, c["course_id"])["language"] == "en"
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE entity = 'courses'").fetchone()[0] == 0


def test_editing_a_course_with_a_bad_language_changes_nothing(conn):
    c = factories.course(conn, name="Kurs")
    with pytest.raises(ConfigError, match="Choose one of"):
        catalogue.edit_course(conn, c["course_id"], name="Renamed", description="d", language="xx", actor=ADMIN)
    assert courses.get_course(conn, c["course_id"])["name"] == "Kurs"


def test_the_settings_page_sets_the_course_language(app_test, conn):
    c = factories.course(conn, name="Kurs")
    at = app_test("pages/settings.py").run()
    assert not at.exception
    picker = at.selectbox(key=f"course_language_{c['course_id']}")
    assert picker.value == "en" and picker.options == ["English", "Swedish (Svenska)", "Russian (Русский)"]
    picker.set_value("ru")
    next(b for b in at.button if b.label == "Save course").click().run()
    assert not at.exception
    assert courses.get_course(conn, c["course_id"])["language"] == "ru"
    assert at.selectbox(key=f"course_language_{c['course_id']}").value == "ru"


@pytest.mark.parametrize("language, text", [("en", ENGLISH), ("sv", SWEDISH), ("ru", RUSSIAN)])
def test_a_reflection_in_the_course_language_is_not_flagged_and_the_others_are(language, text):
    assert "non_english" not in checks.submission_flags(text, language)
    for other in {"en", "sv", "ru"} - {language}:
        assert "non_english" in checks.submission_flags(text, other)


# A Russian reflection on AI work writes its terms in English: it is still Russian.
RUSSIAN_WITH_TERMS = ("На этой неделе я изучал prompt engineering и fine-tuning для large language models. Я понял, "
                      "что chain of thought помогает, но hallucinations остаются проблемой в production, особенно "
                      "для RAG pipelines.")


def test_a_russian_reflection_full_of_english_terms_is_read_as_russian():
    assert "non_english" not in checks.submission_flags(RUSSIAN_WITH_TERMS, "ru")   # not a false flag
    assert "non_english" in checks.submission_flags(RUSSIAN_WITH_TERMS, "en")       # nor a miss
    assert "looks like Russian" in detect.check(RUSSIAN_WITH_TERMS, "en")["detail"]
    # An English reflection quoting a Russian title stays English
    quoting = ("This week I read the article \"Как работают языковые модели\" and learned that tokens are pieces "
               "of words. My takeaway is that I should check the output of the model before I use it at work.")
    assert "non_english" not in checks.submission_flags(quoting, "en")


def test_the_language_check_names_what_it_found_and_the_course_language():
    found = detect.check(ENGLISH, "sv")
    assert not found["passed"] and found["label"] == "Written in Swedish"
    assert "looks like English, not Swedish" in found["detail"]
    assert detect.check("Hej, jag heter Anna.", "en")["passed"]        # too short to tell
    german = ("Diese Woche habe ich gelernt, wie große Sprachmodelle funktionieren. Sie sagen das nächste Wort "
              "voraus, und die Temperatur steuert, wie zufällig die Antwort ist. Meine Frage ist, wie man das "
              "kalibriert.")
    assert "German" in detect.check(german, "sv")["detail"]


def _swedish_course(conn, text):
    c = factories.course(conn)
    catalogue.set_language(conn, c["course_id"], "sv", actor=ADMIN)
    sid = factories.student(conn, c["course_id"])
    return factories.submission(conn, c["assignment_id"], sid, text)


def test_a_swedish_reflection_in_a_swedish_course_goes_through_unflagged(conn, db_path):
    sub = _swedish_course(conn, SWEDISH + " " + SWEDISH)
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=good_llm()))
    assert "non_english" not in d["flags"]
    assert next(c for c in d["checks"] if c["name"] == "non_english")["label"] == "Written in Swedish"


def test_an_english_reflection_in_a_swedish_course_goes_to_a_teacher(conn, db_path):
    sub = _swedish_course(conn, ENGLISH + " " + ENGLISH)
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=good_llm()))
    assert "non_english" in d["flags"] and d["status"] == "needs_attention"
    assert any("Not in the course's language (Swedish)" in r for r in d["attention_reasons"])


def test_the_pipeline_item_carries_the_course_language(conn):
    sub = _swedish_course(conn, SWEDISH)
    item = pipeline.item_for(conn, sub, offline=True)
    job, _ = pipeline.masked_job(item, pipeline.Ids(submission_id=sub))
    assert item["language"] == "sv" and job.language == "sv"


@pytest.mark.parametrize("language, name", [("sv", "Swedish"), ("ru", "Russian"), ("en", "English")])
def test_every_agent_is_told_the_course_language(conn, db_path, language, name):
    c = factories.course(conn)
    catalogue.set_language(conn, c["course_id"], language, actor=ADMIN)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), ENGLISH)
    llm = good_llm()
    pipeline.assess_one(db_path, sub, llm=llm)
    roles = {call.role for call in llm.calls}
    assert roles >= {"evaluator", "equity", "coach", "aggregator", "reviewer", "grounding", "pedagogy"}
    for call in llm.calls:
        system = call.messages[0]["content"]
        assert f"the student wrote in {name} and the feedback is in {name}" in system, call.role
        assert f"write everything you return in {name}" in system, call.role
        assert call.ctx.inputs["language"] == language


def test_the_offline_baseline_scores_a_swedish_and_a_russian_text_and_says_which_signals_it_used():
    from core.offline import features, heuristics
    from core.rubric import default_rubric

    rubric = default_rubric()
    for language, text, name in (("sv", SWEDISH, "Swedish"), ("ru", RUSSIAN, "Russian")):
        dense = features.dense(text, "", ["temperatur"], language)
        assert dense["length"] > 3 and dense["lexical_variety"] > 3 and dense["sentences"] > 1
        assert all(dense[k] == 0 for k in features.ENGLISH_ONLY)     # no English word list on it
        out = heuristics.evaluate(text, rubric, ["temperatur"], language=language)
        for key in rubric.keys:
            assert "Spelling not checked" in out[key]["reasoning"]
            assert rubric.scale_min <= out[key]["score"] <= rubric.scale_max
    assert "no Swedish word list" in features.signals_note("sv")
    assert features.signals_note("en") == ""
    assert "Spelling not checked" not in heuristics.evaluate(ENGLISH, rubric, [])["clarity"]["reasoning"]


def test_a_cyrillic_text_is_read_as_words_not_as_nothing():
    from core.offline import features

    english_reading = features.dense(RUSSIAN, "", [])              # the English features see no word
    assert english_reading["lexical_variety"] == 0
    assert features.dense(RUSSIAN, "", [], "ru")["lexical_variety"] > 3


def test_the_offline_pipeline_drafts_a_russian_course_with_the_signals_said(conn, db_path):
    from core.llm import make_llm

    c = factories.course(conn)
    catalogue.set_language(conn, c["course_id"], "ru", actor=ADMIN)
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RUSSIAN * 2)
    d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=make_llm("offline", db_path)))
    assert d["status"] in ("drafted", "needs_attention") and "non_english" not in d["flags"]
    assert all("Spelling not checked" in v["reasoning"] for k, v in d["outputs"]["evaluator"].items()
               if k in c["rubric"].keys)


def test_the_eval_suite_has_swedish_and_russian_cases_for_every_dimension():
    from core.evals import DIMENSIONS, cases

    suite = cases.load_suite()
    for language in ("sv", "ru"):
        mine = [c for c in suite.cases if c.input.language == language]
        assert {c.dimension for c in mine} == set(DIMENSIONS)
        for dim in DIMENSIONS:
            of_dim = [c for c in mine if c.dimension == dim]
            assert any(c.comment is None for c in of_dim)                   # the AI drafts in the language
            assert any(c.expect == "fail" for c in of_dim)                  # and a bad comment is caught
        for c in mine:
            assert "non_english" not in checks.submission_flags(c.input.reflection, language)


def test_the_in_language_rule_catches_feedback_in_another_language():
    from core.evals import cases, rules

    inp = cases.CaseInput(reflection=SWEDISH, language="sv")
    assert rules.in_language("Du beskriver tydligt hur du testade temperaturen. Vad vill du prova härnäst?",
                             inp, None)[0]
    ok, detail = rules.in_language("You describe clearly how you tested the temperature. What will you try next?",
                                   inp, None)
    assert not ok and detail == "written in English, not Swedish"


def test_an_eval_case_is_drafted_in_its_language():
    import eval_script
    from core.evals import cases, runner

    case = next(c for c in cases.load_suite().cases if c.id == "SV-P3")
    llm = eval_script.compliant_llm()
    result = runner.evaluate_case(case, llm)
    assert result["status"] == "passed" and "Nästa steg" in result["comment"]
    assert all("the student wrote in Swedish" in call.messages[0]["content"] for call in llm.calls)


def test_the_swedish_demo_course_loads_in_swedish_once(capsys, conn):
    code, out = run(capsys, "demo", "--language", "sv")
    assert code == 0 and out["created"] and out["language"] == "sv" and out["submissions"] == 4
    course = courses.get_course(conn, out["course_id"])
    assert course["language"] == "sv" and course["is_synthetic"] == 1
    texts = [r[0] for r in conn.execute("SELECT text FROM submissions")]
    assert len(texts) == 4 and all(detect.detect(t) == "sv" for t in texts)
    code, again = run(capsys, "demo", "--language", "sv")
    assert code == 0 and not again["created"]
    code, bad = run(capsys, "demo", "--language", "ru")
    assert code == 2 and "sv (Swedish)" in bad["error"]


def test_the_swedish_demo_course_drafts_offline_without_a_language_flag(conn, db_path):
    from core import demo
    from core.llm import make_llm

    out = demo.load_demo(conn, actor=ADMIN, language="sv")
    subs = [r[0] for r in conn.execute("SELECT id FROM submissions")]
    for sub in subs:
        d = drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=make_llm("offline", db_path)))
        assert "non_english" not in d["flags"], d["checks"]
        assert out["course_id"] and d["scores"]


def test_the_language_bench_measures_each_group_without_the_shared_folder(tmp_path, monkeypatch):
    from bench import language as bench

    (tmp_path / "seeds").mkdir()
    (tmp_path / "seeds" / "003_1ddbebecef107979.txt").write_text(SWEDISH + "\n\n" + "kort", encoding="utf-8")
    (tmp_path / "seeds" / "000_c3d140cf4d60b508.txt").write_text(RUSSIAN, encoding="utf-8")
    monkeypatch.setattr(bench, "SHARED", tmp_path)
    out = bench.run(essays=0)
    assert out["texts"] == 2                                      # "kort" is too short to judge
    assert out["groups"]["sv prose"] == {"texts": 1, "detected": {"sv": 1}}
    assert out["flag_right"]["ru text, sv course"] == {"right": 1, "of": 1, "share": 1.0}
    monkeypatch.setattr(bench, "SHARED", tmp_path / "none")
    assert "error" in bench.run(essays=0)


def test_the_language_runs_bench_drafts_both_languages_in_them(capsys):
    from bench import language_runs

    out = language_runs.main(["--n", "2"])
    for language in ("sv", "ru"):
        scripted, offline = out[f"{language} scripted"], out[f"{language} offline"]
        assert scripted["drafts"] == offline["drafts"] == 2
        assert scripted["flagged_not_in_course_language"] == offline["flagged_not_in_course_language"] == 0
        assert scripted["calls_whose_prompt_names_the_language"] == 1.0
        assert scripted["comments_in_course_language"] == 1.0
        assert offline["offline_note_on_every_criterion"] == 2


def test_courses_made_before_the_language_migration_read_as_english(tmp_path):
    import sqlite3

    from sqlite_utils import Database

    from db.schema import migrations

    conn = Database(sqlite3.connect(tmp_path / "old.db"))
    migrations.apply(conn, stop_before="m030a_course_language")
    conn.execute("INSERT INTO courses (name) VALUES ('Before')")
    conn.conn.commit()
    migrations.apply(conn)
    assert conn.execute("SELECT language FROM courses").fetchone()[0] == "en"
    conn.close()
