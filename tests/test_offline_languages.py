"""The offline baseline in a Swedish and a Russian course (issue 30): its comment, the Coach's
questions, the Reviser's added question and the equity flag's words are in the course's language,
on the default rubric in that language, and the comment passes the comment checks in it; the
English comment is the one it always was."""
import json

import pytest

import factories
from assess_script import RICH_TEXT
from core import checks, pipeline
from core.accounts.access import Actor
from core.courses import catalogue
from core.language import detect
from core.llm import LoggedLLM
from core.offline import heuristics, wording
from core.offline.provider import OfflineLLM
from core.rubric import default_rubric
from db import drafts

ADMIN = Actor("test", role="admin")
REFLECTIONS = {
    "sv": ("Den här veckan lärde jag mig hur en stor språkmodell förutsäger nästa ord utifrån sammanhanget. "
           "Temperaturen styr hur slumpmässiga svaren blir, och ett högre värde gjorde texterna mer kreativa men "
           "mindre pålitliga. På jobbet använde jag en chattbot för att skriva mejl till kunder och kontrollerade "
           "sedan varje uppgift själv.\n\nJag undrar hur snedvridningar hamnar i träningsdata, eftersom data kan "
           "spegla gamla föreställningar om människor. Jag är inte säker på att vi kan lita på verktygen vid "
           "rekrytering utan att en människa granskar varje resultat. Därför ska jag testa samma instruktion "
           "flera gånger och jämföra svaren innan jag litar på dem. Kursen hjälpte mig att se systemens gränser, "
           "till exempel när de hittar på fakta eller källor."),
    "ru": ("На этой неделе я узнал, как большая языковая модель предсказывает следующее слово по контексту. "
           "Температура определяет, насколько случайны ответы, и при высоком значении тексты были креативнее, "
           "но менее надёжны. На работе я использовал чат-бота, чтобы писать письма клиентам, а потом сам "
           "проверял каждый факт.\n\nМне интересно, как предвзятость попадает в обучающие данные, ведь данные "
           "могут отражать старые представления о людях. Я не уверен, что можно доверять этим инструментам при "
           "найме без человека, который проверяет каждый результат. Поэтому я буду проверять одну и ту же "
           "инструкцию несколько раз и сравнивать ответы, прежде чем на них полагаться. Курс помог мне увидеть "
           "пределы этих систем, например когда они придумывают факты или источники."),
}
CONCEPTS = {"sv": ["språkmodell", "temperatur", "träningsdata"], "ru": ["языковая модель", "температур", "данные"]}


def _draft(conn, db_path, language: str, text: str) -> dict:
    """A reflection in a course in `language` on that language's default rubric, drafted offline
    through the real pipeline and role registry."""
    rubric = default_rubric(language)
    c = factories.course(conn, f"Course in {language}", rubric=rubric)
    catalogue.set_language(conn, c["course_id"], language, actor=ADMIN)
    conn.execute("UPDATE assignments SET key_concepts = ? WHERE id = ?",
                 [json.dumps(CONCEPTS.get(language, [])), c["assignment_id"]])
    sub = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), text)
    return drafts.get_draft(conn, pipeline.assess_one(db_path, sub, llm=LoggedLLM(OfflineLLM(), db_path)))


@pytest.mark.parametrize("language", ["sv", "ru"])
def test_a_reflection_drafted_offline_gets_its_comment_in_the_course_language(conn, db_path, language):
    text = REFLECTIONS[language]
    d = _draft(conn, db_path, language, text)
    comment = d["comment"]
    assert d["status"] == "drafted" and d["provider"] == "offline", (d["status"], d["attention_reasons"])
    assert detect.detect(comment) == language, comment
    # The rubric's words are the course's: a strength named by its translated title.
    titles = [c.title.lower() for c in default_rubric(language).criteria]
    assert any(t in comment for t in titles), comment
    # Every comment check passes in the language (readability by its own formula at the
    # assignment's target grade 10, words and sentences split its way, its praise words first).
    results = checks.comment_checks(comment, text, target_grade=10, language=language)
    assert [r["name"] for r in results if not r["passed"]] == [], results
    assert checks.words(comment, language) <= checks.MAX_WORDS
    assert 2 <= checks.action_items(comment, language) <= 3
    assert checks.check_strengths_first(comment, language)["passed"]
    # The Coach's questions are the language's, and the comment carries one of them.
    questions = d["outputs"]["coach"]["questions"]
    assert questions and all(q in wording.of(language).questions.values() for q in questions)
    assert any(q in comment for q in questions)


def test_the_english_comment_is_unchanged(conn, db_path):
    rubric = default_rubric()
    concepts = ["large language model", "temperature", "bias"]
    ev = heuristics.evaluate(RICH_TEXT, rubric, concepts)
    questions = heuristics.coach_questions(RICH_TEXT, concepts)
    assert heuristics.compose_comment(rubric, ev, questions, 10) == (
        "Your reflection shows strength in concept understanding and real-world application. To build on it, your "
        "next steps are: (1) Organise your reflection into short paragraphs, one idea each, and proofread it; (2) Add "
        "one sentence on what you will do differently because of this topic. What helped you most to understand this "
        "week's topic, and how will you use that next time?")
    assert heuristics.compose_comment(rubric, ev, questions, 6, acted="yes") == (
        "Your reflection shows strength in concept understanding and real-world application. This week you acted on "
        "last week's next step. Next steps: (1) Organise your reflection into short paragraphs, one idea each, and "
        "proofread it. (2) Add one sentence on what you will do differently because of this topic. What helped you "
        "most to understand this week's topic, and how will you use that next time?")
    # The same through the pipeline in an English course (the default rubric, language "en").
    d = _draft(conn, db_path, "en", RICH_TEXT)
    assert d["comment"].startswith("Your reflection shows strength in") and detect.detect(d["comment"]) == "en"


@pytest.mark.parametrize("language,grades", [("sv", (3, 7, 10, 12)), ("ru", (8, 10, 12, 14))])
def test_the_layout_reads_at_the_target_level_by_the_language_formula(language, grades):
    rubric = default_rubric(language)
    for scores in ([2, 1, 1, 2], [0, 1, 0, 1], [3, 3, 2, 1]):
        ev = {c.key: {"score": s, "areas_for_improvement": [c.improvement_hint]} for c, s in zip(rubric.criteria, scores)}
        for grade in grades:
            for acted in (None, "yes", "partly"):
                comment = heuristics.compose_comment(rubric, ev, [], grade, acted=acted, language=language)
                found = checks.check_readability(comment, grade, language)
                assert found["passed"], (grade, found["detail"], comment)
                assert checks.check_strengths_first(comment, language)["passed"], comment
                assert checks.check_actions(comment, language)["passed"], comment
                assert detect.detect(comment) == language, comment


@pytest.mark.parametrize("language", ["sv", "ru"])
def test_last_weeks_step_is_said_in_the_language_and_counts_as_follow_through(language):
    from types import SimpleNamespace

    from core.evals import rules

    rubric = default_rubric(language)
    ev = {c.key: {"score": 2, "areas_for_improvement": [c.improvement_hint]} for c in rubric.criteria}
    ev["clarity"]["score"] = 1
    comment = heuristics.compose_comment(rubric, ev, [], 10, acted="yes", language=language)
    assert wording.of(language).follow_through["yes"] in comment
    passed, detail = rules.follow_through(comment, SimpleNamespace(language=language),
                                          SimpleNamespace(language=language))
    assert passed, detail


@pytest.mark.parametrize("language,notes,phrase", [("sv", "Eleven är slarvig.", "slarvig"),
                                                   ("ru", "Ученик ленивый.", "ленивый")])
def test_the_reviser_and_the_equity_flag_speak_the_course_language(language, notes, phrase):
    revised = heuristics.revise("En text utan fråga." if language == "sv" else "Текст без вопроса.", [], language)
    assert revised.endswith(wording.of(language).questions["process"])
    flags = heuristics.equity_flags(notes, language)["flags"]
    assert [f["phrase"] for f in flags] == [phrase]
    assert detect.detect(flags[0]["why"]) == language and detect.detect(flags[0]["rewrite"]) == language


def test_the_default_rubric_per_language_has_the_same_criteria_and_the_swedish_demo_gets_its_own(conn):
    from core import demo
    from db import courses

    english = default_rubric()
    for language in ("sv", "ru"):
        r = default_rubric(language)
        assert r.name != english.name and (r.scale_min, r.scale_max) == (english.scale_min, english.scale_max)
        assert [(c.key, c.signal, sorted(c.levels)) for c in r.criteria] == [
            (c.key, c.signal, sorted(c.levels)) for c in english.criteria]
        assert all(detect.detect(c.improvement_hint) == language for c in r.criteria)
    out = demo.load_demo(conn, actor=ADMIN, language="sv")
    (assignment,) = courses.list_assignments(conn, out["course_id"])
    assert courses.get_rubric(conn, assignment["rubric_id"]).name == default_rubric("sv").name
    assert default_rubric("en") == english


def test_a_new_assignment_on_upload_defaults_to_the_rubric_in_the_course_language(app_test, conn):
    from core import demo

    demo.load_demo(conn, actor=ADMIN, language="sv")
    at = app_test("pages/upload.py").run()
    assert not at.exception, at.exception
    at.selectbox(key="up_assignment").set_value(-1).run()
    assert at.selectbox(key="up_rubric").value == "file:reflection.sv.yaml"
