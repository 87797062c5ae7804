"""An eval check's detail in Swedish and Russian: the free rules (core/evals/rules.py), the judges'
checks of the runner and the checks built the same way on a draft (core/checks.py) give their
detail as a Message. It reads as the same English on the command line, in the JSON and in the
report; the eval run's report and a draft's checks keep its form beside it (`detail_said`), so the
AI quality page and `review show`'s checks say it in the reader's language, while a report or a
draft stored before keeps its English."""
from __future__ import annotations

import json
from types import SimpleNamespace as NS

import factories
from assess_script import RICH_TEXT, good_llm
from core import checks, pipeline
from core.accounts.access import Actor
from core.checks import DraftContext
from core.cli import main
from core.evals import rules, views
from core.language import SUPPORTED
from core.language import detect
from core.language import readability as reading
from core.language.interface import Interface, Message
from core.signoff import review_view
from db import drafts
from db import evals as evals_db

SV, RU = Interface("sv"), Interface("ru")
INPUT = NS(reflection="I read about attention in transformers.", source="", question="", level=8, answer_key=None,
           language="en")
ADMIN = Actor("test", role="admin")


def test_the_rules_details_read_as_english_and_are_said_in_swedish_and_russian():
    ok, detail = rules.specifics("Vaswani introduced attention in 2017.", INPUT, NS())
    assert not ok and detail == "not in the student’s text, the source or the question: Vaswani, 2017"
    assert isinstance(detail, Message)
    assert SV.said(detail) == "finns inte i studentens text, källan eller frågan: Vaswani, 2017"
    assert RU.said(detail) == "нет ни в тексте студента, ни в источнике, ни в вопросе: Vaswani, 2017"
    ok, detail = rules.no_terms("Your taxonomy is clear.", INPUT, NS(terms=["taxonomy"]))
    assert (detail, SV.said(detail), RU.said(detail)) == ('uses "taxonomy"', 'använder "taxonomy"',
                                                          'использует "taxonomy"')
    ok, detail = rules.next_step("Good work. Keep it up.", INPUT, NS())
    assert detail == "neither a question nor a concrete next step"
    assert SV.said(detail) == "varken en fråga eller ett konkret nästa steg"
    ok, detail = rules.history("Last week you planned to add an example.", NS(previous=""), NS())
    assert RU.said(detail) == 'ссылается на прежний отзыв, которого студент не получал: "Last week you planned"'


def test_the_counts_in_a_detail_take_russian_plural_forms():
    def longest(n):
        return rules.sentence_length(" ".join(["word"] * n) + ".", INPUT, NS(max=20))[1]

    assert [longest(n) for n in (1, 3)] == ["longest sentence 1 word (at most 20)",
                                            "longest sentence 3 words (at most 20)"]
    assert [RU.said(longest(n)) for n in (1, 3, 5, 21)] == [
        "самое длинное предложение — 1 слово (не больше 20)", "самое длинное предложение — 3 слова (не больше 20)",
        "самое длинное предложение — 5 слов (не больше 20)", "самое длинное предложение — 21 слово (не больше 20)"]
    assert SV.said(longest(1)) == "längsta meningen har 1 ord (högst 20)"
    steps = rules.next_step("Next: (1) add an example, (2) proofread.", INPUT, NS())[1]
    assert steps == "2 numbered step(s)"
    assert (SV.said(steps), RU.said(steps)) == ("2 numrerade steg", "2 нумерованных шага")


def test_a_swedish_readability_detail_and_a_wrong_language_are_said_with_their_names():
    ok, detail = rules.readability("Det här är en kort mening. Den är lätt att läsa.", NS(level=8, language="sv"), NS())
    found = reading.assess("Det här är en kort mening. Den är lätt att läsa.", 8.0, "sv")
    assert detail == f"{reading.shown(found['value'], 'sv')} (target {reading.target_shown(8.0, 'sv')})"
    assert SV.said(detail) == f"LIX {found['value']:g} (mycket lätt) (mål: LIX 30-40 (lätt) för årskurs 8)"
    assert RU.said(detail).endswith("(цель: LIX 30-40 (легко) для 8 класса)")
    swedish = ("Den här veckan lärde jag mig hur språkmodeller fungerar och varför de ibland hittar på saker som "
               "inte stämmer med verkligheten, och det var konstigt att se.")
    ok, detail = rules.in_language(swedish, NS(language="ru"), NS())
    assert not ok and detail == "written in Swedish, not Russian"
    assert (SV.said(detail), RU.said(detail)) == ("språk: svenska, inte ryska", "язык: шведский, а не русский")
    # every language the detector names is one the rules can say
    assert {detect.name_of(c) for c in (*SUPPORTED, *detect.OTHERS, None)} <= set(rules.LANGUAGE_NAMES)
    assert {b for _, b in reading.LIX_BANDS} | {b for _, b, _ in reading.FLESCH_BANDS} == set(rules.BAND_NAMES)


def _eval_run(conn, capsys) -> tuple[dict, dict]:
    """A real offline eval run, stored by the command line: (its JSON, the stored row)."""
    assert main(["evals", "run", "--provider", "offline"]) == 0
    printed = json.loads(capsys.readouterr().out)
    row = evals_db.latest_eval_run(conn, evals_db.eval_runs(conn)[0]["config_hash"])
    return printed, row


def _check(report: dict, case: str, check: str) -> dict:
    return next(c for r in report["results"] if r["id"] == case for c in r["checks"] if c["check"] == check)


def test_a_stored_eval_run_keeps_each_details_form_and_the_page_read_says_it(conn, capsys):
    printed, row = _eval_run(conn, capsys)
    stored = _check(row["report"], "G2", "rule:specifics")
    assert stored["detail"] == "not in the student’s text, the source or the question: Ashish, Vaswani, Google, 2017"
    assert _check(printed, "G2", "rule:specifics")["detail"] == stored["detail"]      # the JSON: its English
    assert not [c for r in printed["results"] for c in r["checks"] if "detail_said" in c]   # the JSON as before
    assert stored["detail_said"]["msgid"] == "not in the student’s text, the source or the question: {found}"
    rows = [c for r in row["report"]["results"] for c in r["checks"]]
    assert rows and all("detail_said" in c for c in rows)
    again = views.said_report(row["report"])
    detail = _check(again, "G2", "rule:specifics")["detail"]
    assert isinstance(detail, Message) and detail == stored["detail"]
    assert SV.said(detail) == "finns inte i studentens text, källan eller frågan: Ashish, Vaswani, Google, 2017"
    n1 = _check(again, "N1", "rule:sentence_length")["detail"]
    assert RU.said(n1) == "самое длинное предложение — 20 слов (не больше 14)"
    offline = _check(again, "G1", "judge:grounding")["detail"]
    assert offline == "not run: offline baseline — no LLM"
    assert SV.said(offline) == "kördes inte: offline-bas – ingen språkmodell"


def _old(report: dict) -> dict:
    """The report as a run stored before the details were Messages: English only."""
    return {**report, "results": [{**r, "checks": [{k: v for k, v in c.items() if k != "detail_said"}
                                                   for c in r["checks"]]} for r in report["results"]]}


def test_an_old_report_without_the_form_still_shows_its_english(conn, capsys):
    _, row = _eval_run(conn, capsys)
    evals_db.save_eval_run(conn, row["config_hash"], _old(row["report"]), suite=row["suite"], created_by="earlier")
    old = evals_db.latest_eval_run(conn, row["config_hash"])
    assert old["id"] != row["id"] and "detail_said" not in _check(old["report"], "G2", "rule:specifics")
    detail = _check(views.said_report(old["report"]), "G2", "rule:specifics")["detail"]
    assert not isinstance(detail, Message)
    assert SV.said(detail) == "not in the student’s text, the source or the question: Ashish, Vaswani, Google, 2017"


def _page_in_swedish(app_test, monkeypatch):
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")
    at = app_test("pages/ai_quality.py")
    at.context = {"locale": "sv-SE"}
    at.run()
    assert not at.exception, at.exception
    report = next(d.value for d in at.dataframe if "fall" in d.value.columns and "kontroller" in d.value.columns)
    return dict(zip(report["fall"], report["kontroller"]))


def test_the_ai_quality_page_shows_a_checks_detail_in_swedish(conn, app_test, capsys, monkeypatch):
    _eval_run(conn, capsys)
    shown = _page_in_swedish(app_test, monkeypatch)
    assert shown["G1"].startswith("rule:specifics godkänd: inga namn, årtal eller tal utan stöd")
    assert "rule:sentence_length misslyckades: längsta meningen har 20 ord (högst 14)" in shown["N1"]
    assert 'rule:no_terms misslyckades: använder "concept"' in shown["N1"]
    every = " ".join(shown.values())
    assert "no unsupported name" not in every and "longest sentence" not in every and "not run:" not in every


def test_the_ai_quality_page_shows_an_old_reports_details_in_english(conn, app_test, capsys, monkeypatch):
    _, row = _eval_run(conn, capsys)
    evals_db.save_eval_run(conn, row["config_hash"], _old(row["report"]), suite=row["suite"], created_by="earlier")
    shown = _page_in_swedish(app_test, monkeypatch)
    assert shown["G1"].startswith("rule:specifics godkänd: no unsupported name, year or number")   # as it was stored


# --- the same rules on a real draft (issue 22 point 7) -----------------------------------------
GOOD = ("You explain temperature clearly and give a concrete example from work. "
        "Next: (1) connect temperature to bias, (2) add one question you still have. What would you test first?")


def _draft(conn, db_path) -> tuple[int, dict]:
    """A drafted item whose comment drops the Coach's question (a warning with a detail)."""
    c = factories.course(conn)
    sid = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm()
    llm.script("aggregator", {"comment": GOOD.replace("What would you test first?", "Any questions?")})
    return sid, drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))


def test_a_drafts_checks_keep_the_details_form_and_review_show_says_it(conn, db_path, capsys):
    sid, draft = _draft(conn, db_path)
    kept = {c["name"]: c for c in draft["checks"]}
    assert kept["coach_question"]["detail"].startswith("none of the Coach's questions is in the comment: ")
    assert kept["coach_question"]["detail_said"]["msgid"] == "none of the Coach's questions is in the comment: {questions}"
    assert kept["next_step"]["detail_said"]["msgid"] == "asks a question"
    assert kept["word_count"]["detail_said"]["msgid"] == "{count} word"    # every detail is a Message now
    shown = {c["name"]: c for c in review_view.review_show(conn, sid, actor=ADMIN, opening=False)["checks"]}
    assert set(shown["coach_question"]) == {"name", "label", "passed", "severity", "detail"}
    coach = shown["coach_question"]["detail"]
    assert isinstance(coach, Message) and coach == kept["coach_question"]["detail"]
    assert SV.said(coach).startswith("ingen av coachens frågor finns i kommentaren: \"")
    assert RU.said(shown["next_step"]["detail"]) == "задаёт вопрос"
    assert main(["review", "show", str(sid)]) == 0          # the command line: the same English
    printed = {c["name"]: c for c in json.loads(capsys.readouterr().out.strip().splitlines()[-1])["checks"]}
    assert printed["coach_question"]["detail"] == kept["coach_question"]["detail"]
    assert set(printed["coach_question"]) == {"name", "label", "passed", "severity", "detail"}


def test_a_draft_stored_before_the_forms_shows_its_english(conn, db_path):
    sid, draft = _draft(conn, db_path)
    english = [{k: v for k, v in c.items() if k != "detail_said"} for c in draft["checks"]]
    conn.execute("UPDATE drafts SET checks = ? WHERE id = ?", [json.dumps(english), draft["id"]])
    shown = {c["name"]: c for c in review_view.review_show(conn, sid, actor=ADMIN, opening=False)["checks"]}
    coach = shown["coach_question"]["detail"]
    assert not isinstance(coach, Message) and SV.said(coach) == coach
    assert coach.startswith("none of the Coach's questions is in the comment: ")


def test_strengths_first_and_the_coachs_question_on_a_draft_are_said_in_swedish():
    context = DraftContext(coach_questions=("What would you test first?",))
    found = {c["name"]: c for c in checks.comment_checks("Your reflection is missing an example. What now?", "x",
                                                         context=context)}
    first = found["strengths_first"]["detail"]
    assert first == 'the first sentence names no strength: "Your reflection is missing an example."'
    assert SV.said(first) == 'första meningen nämner ingen styrka: "Your reflection is missing an example."'
    carried = checks.check_coach_question("So: what would you test first?", ("What would you test first?",))
    assert carried["passed"] and RU.said(carried["detail"]) == 'содержит "What would you test first?"'
