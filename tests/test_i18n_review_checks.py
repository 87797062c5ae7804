"""A draft's checks in the reader's language: every label and detail of core/checks.py, the draft
rules (core/evals/rules.py), the answer key's check (core/leakage.py) and the course language's
(core/language/detect.py) is a Message. It reads as the same English (the command line, the JSON,
a stored draft); a draft keeps each label's and detail's form beside it, so the review item and
`review show` say them in Swedish or Russian; an older draft's English labels are read back by
exact match and its English details shown as they are. A language's name inside a sentence is in
lower case in Swedish and Russian."""
from __future__ import annotations

import json
from types import SimpleNamespace as NS

import factories
from assess_script import GOOD_COMMENT, RICH_TEXT, good_llm
from core import checks, leakage, pipeline
from core.accounts.access import Actor
from core.cli import main
from core.evals import rules
from core.language import detect
from core.language.interface import Interface, Message
from core.signoff import review_view
from db import drafts

SV, RU = Interface("sv"), Interface("ru")
ADMIN = Actor("test", role="admin")
SWEDISH = ("Den här veckan lärde jag mig hur språkmodeller fungerar och varför de ibland hittar på saker som "
           "inte stämmer med verkligheten, och det var konstigt att se.")
BAD = "Good work. Your text is lazy."     # no actions, no question, a discouraging word


def _by_name(results: list[dict]) -> dict:
    return {c["name"]: c for c in results}


def test_the_comment_checks_read_as_their_english_and_are_said_in_swedish_and_russian():
    found = _by_name(checks.comment_checks(BAD, "x", target_grade=8, context=checks.DraftContext()))
    english = {k: (c["label"], c["detail"]) for k, c in found.items()}
    assert english["word_count"] == ("At most 120 words", "6 words")            # as before, byte for byte
    assert english["actions"] == ("2-3 concrete actions", "0 numbered or bulleted action(s) found")
    assert english["question"] == ("Asks at least one question", "0 question mark(s)")
    assert english["lexicon"] == ("No person-directed or discouraging phrases", 'found: "lazy"')
    assert english["evidence"] == ("Evidence quotes occur in the submission", "all evidence found")
    assert english["readability"][0] == "Reads at grade 8 ±2"
    assert all(isinstance(c["label"], Message) and isinstance(c["detail"], Message) for c in found.values())
    assert {k: (SV.said(c["label"]), SV.said(c["detail"])) for k, c in found.items()
            if k in ("word_count", "actions", "question", "lexicon")} == {
        "word_count": ("Högst 120 ord", "6 ord"),
        "actions": ("2–3 konkreta åtgärder", "0 numrerade eller punktade åtgärder hittades"),
        "question": ("Ställer minst en fråga", "0 frågetecken"),
        "lexicon": ("Inga personriktade eller nedslående formuleringar", 'hittade: "lazy"')}
    assert RU.said(found["readability"]["label"]) == "Читаемость: 8 класс ±2"
    assert RU.said(found["question"]["detail"]) == "0 вопросительных знаков"
    assert json.loads(json.dumps(english)) == {k: list(v) for k, v in english.items()}   # the JSON: its English


def test_the_counts_take_russian_plural_forms():
    def actions(n):
        return checks.check_actions("Next: " + ", ".join(f"({i}) step" for i in range(1, n + 1)) + ".")["detail"]

    assert [RU.said(actions(n)) for n in (1, 2, 5)] == [
        "найден 1 пронумерованный или маркированный шаг", "найдено 2 пронумерованных или маркированных шага",
        "найдено 5 пронумерованных или маркированных шагов"]
    assert [RU.said(checks.check_word_count(" ".join(["слово"] * n), "ru")["detail"]) for n in (1, 3, 121)] == [
        "1 слово", "3 слова", "121 слово"]
    assert RU.said(checks.check_word_count("x")["label"]) == "Не больше 120 слов"


def test_a_readability_detail_in_swedish_and_quotes_that_are_not_in_the_text():
    hard = checks.check_readability("Kunskapsutvecklingsprocessernas komplexitetsdimensioner manifesterades "
                                    "genomgripande organisationsövergripande.", 3, "sv")
    assert not hard["passed"] and hard["label"] == "Reads at LIX 0-30 (very easy) for grade 3"
    assert SV.said(hard["label"]) == "Läsbarhet: LIX 0-30 (mycket lätt) för årskurs 3"
    assert SV.said(hard["detail"]).endswith(": svårare än målet; använd kortare meningar och kortare ord")
    english = checks.check_readability("Use longer words.", 12)
    assert english["detail"] == "grade -1.9: simpler than the target 12 — fine unless far below" or \
        english["detail"].startswith("below grade 1 (very short sentences): simpler than the target 12")
    assert SV.said(english["detail"]).startswith("under årskurs 1 (mycket korta meningar): enklare än målet årskurs 12")
    quotes = checks.check_comment_quotes('You wrote "the moon is cheese" here.', "I wrote about tokens.")
    assert quotes["detail"] == 'not in the submission: "the moon is cheese"'
    assert RU.said(quotes["detail"]) == 'нет в работе: "the moon is cheese"'


def test_the_submission_checks_and_the_answer_key_in_swedish():
    found = _by_name(checks.submission_checks("Short text.\nprint(1);\nx = 2;", "sv"))
    assert (found["short_text"]["label"], found["short_text"]["detail"]) == (
        "At least 100 words", "6 words: short texts are a known weak spot (brevity can pass for clarity)")
    assert SV.said(found["short_text"]["label"]) == "Minst 100 ord"
    assert SV.said(found["code"]["detail"]) == "innehåller kod eller formler, en känd svag punkt för AI:n"
    assert (found["non_english"]["label"], SV.said(found["non_english"]["label"])) == ("Written in Swedish",
                                                                                     "Skriven på svenska")
    leak = leakage.check("So w becomes 3.", leakage.AnswerKey("number", "3"))[0]
    assert leak["label"] == "Does not give the answer away" and SV.said(leak["label"]) == "Avslöjar inte svaret"
    assert SV.said(leak["detail"]).startswith('kommentaren anger "3", svaret som studenten själv ska komma fram till')


def test_a_languages_name_inside_a_sentence_is_lower_case_in_swedish_and_russian():
    ok, detail = rules.in_language(SWEDISH, NS(language="ru"), NS())
    assert not ok and detail == "written in Swedish, not Russian"
    assert (SV.said(detail), RU.said(detail)) == ("språk: svenska, inte ryska", "язык: шведский, а не русский")
    wrong = detect.check(SWEDISH, "ru")
    assert wrong["label"] == "Written in Russian" and wrong["detail"].startswith("looks like Swedish, not Russian (")
    assert RU.said(wrong["label"]) == "Язык работы: русский"
    assert RU.said(wrong["detail"]).startswith("похоже, язык: шведский, а не русский (язык курса)")
    assert SV("Swedish") == "Svenska"          # the name alone (a label) stays capitalised
    assert SV.said(rules.in_language(SWEDISH, NS(language="sv"), NS())[1]) == "språk: svenska"


# --- a real draft ----------------------------------------------------------------------------
def _draft(conn, db_path) -> tuple[int, dict]:
    """A drafted item whose first comment fails checks (revised once) and whose last drops the Coach's question."""
    c = factories.course(conn)
    sid = factories.submission(conn, c["assignment_id"], factories.student(conn, c["course_id"]), RICH_TEXT)
    llm = good_llm()
    llm.script("aggregator", {"comment": BAD})
    llm.always("reviser", {"comment": GOOD_COMMENT.replace("What would you test first?", "Any questions?")})
    return sid, drafts.get_draft(conn, pipeline.assess_one(db_path, sid, llm=llm))


def test_a_drafts_checks_keep_their_labels_forms_and_review_show_says_them(conn, db_path, capsys):
    sid, draft = _draft(conn, db_path)
    kept = _by_name(draft["checks"])
    assert kept["word_count"]["label"] == "At most 120 words" and kept["short_text"]["label"] == "At least 100 words"
    assert kept["word_count"]["label_said"]["msgid"] == "At most {count} word"
    assert kept["next_step"]["label_said"]["msgid"] == "Ends with a question or a next step"
    assert kept["word_count"]["detail_said"]["msgid"] == "{count} word"
    assert all("label_said" in c and "detail_said" in c for c in draft["checks"])
    assert draft["revisions"][1]["failed_checks"] == ["actions", "question", "lexicon", "next_step"]   # sent back once
    shown = _by_name(review_view.review_show(conn, sid, actor=ADMIN, opening=False)["checks"])
    assert set(shown["word_count"]) == {"name", "label", "passed", "severity", "detail"}
    assert SV.said(shown["word_count"]["label"]) == "Högst 120 ord"
    assert RU.said(shown["next_step"]["label"]) == "Заканчивается вопросом или следующим шагом"
    assert RU.said(shown["evidence"]["detail"]) == "все обоснования найдены"
    assert main(["review", "show", str(sid)]) == 0          # the command line: the same English
    printed = _by_name(json.loads(capsys.readouterr().out.strip().splitlines()[-1])["checks"])
    assert {k: (c["label"], c["detail"]) for k, c in printed.items()} == {
        k: (c["label"], c["detail"]) for k, c in kept.items()}


def _old(conn, draft: dict) -> None:
    """The draft as one stored before the forms: English labels and details only."""
    english = [{k: v for k, v in c.items() if k not in ("label_said", "detail_said")} for c in draft["checks"]]
    conn.execute("UPDATE drafts SET checks = ? WHERE id = ?", [json.dumps(english), draft["id"]])


def test_an_older_drafts_english_labels_are_read_back_and_its_details_shown_as_they_are(conn, db_path):
    sid, draft = _draft(conn, db_path)
    _old(conn, draft)
    shown = _by_name(review_view.review_show(conn, sid, actor=ADMIN, opening=False)["checks"])
    assert {k: (c["label"], c["detail"]) for k, c in shown.items()} == {
        k: (c["label"], c["detail"]) for k, c in _by_name(draft["checks"]).items()}
    assert isinstance(shown["word_count"]["label"], Message)           # by exact match with the checks' labels
    assert SV.said(shown["word_count"]["label"]) == "Högst 120 ord"
    assert SV.said(shown["non_english"]["label"]) == "Skriven på engelska"
    coach = shown["coach_question"]["detail"]
    assert not isinstance(coach, Message) and SV.said(coach) == coach   # an English detail as it was stored
    assert rules.label_of("A label no check gives") == "A label no check gives"


# --- the review item, through the real page --------------------------------------------------
def _page(app_test, monkeypatch, conn, sid: int, locale: str):
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: locale.split("-")[0])
    row = conn.execute("SELECT a.id, a.course_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id "
                       "WHERE s.id = ?", [sid]).fetchone()
    at = app_test("pages/review.py")
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = row[1], row[0]
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception, at.exception
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]).replace("\\", "")   # unescaped


ENGLISH_LEFT = ("At most", "concrete actions", "Asks at least", "Reads at", "Quotes occur", "Evidence quotes",
                "discouraging", "Opens with", "Coach's questions", "Ends with", "No sentence over", "No name, year",
                "jargon", "earlier feedback", "question mark", "numbered or bulleted", "none of the Coach",
                "Failed checks")


def test_the_review_item_shows_the_checks_in_swedish(conn, db_path, app_test, monkeypatch):
    sid, _ = _draft(conn, db_path)
    shown = _page(app_test, monkeypatch, conn, sid, "sv-SE")
    # the live checks of the teacher's version: labels, and a warning's detail under them
    assert ":green-badge[:material/check: Högst 120 ord (godkänd)]" in shown
    assert "Läsnivå: årskurs 10 ±2: årskurs 6.7: enklare än målet årskurs 10 – bra, så länge det inte är långt under" \
        in shown
    # the stored draft's: the first round's failed checks, by their labels' forms
    assert ("Underkända kontroller: 2–3 konkreta åtgärder, Ställer minst en fråga, Inga personriktade eller "
            "nedslående formuleringar, Slutar med en fråga eller ett nästa steg") in shown
    assert [w for w in ENGLISH_LEFT if w in shown] == []


def test_the_review_item_shows_the_checks_in_russian(conn, db_path, app_test, monkeypatch):
    sid, _ = _draft(conn, db_path)
    shown = _page(app_test, monkeypatch, conn, sid, "ru-RU")
    assert ":green-badge[:material/check: Не больше 120 слов (пройдено)]" in shown
    assert "Читаемость: 10 класс ±2: уровень 6.7 класса: проще цели (10 класс) — это нормально, если не намного ниже" \
        in shown
    assert ("Непройденные проверки: 2–3 конкретных шага, Задаёт хотя бы один вопрос, Нет выпадов в адрес личности и "
            "обескураживающих фраз, Заканчивается вопросом или следующим шагом") in shown
    assert [w for w in ENGLISH_LEFT if w in shown] == []


def test_an_older_draft_on_the_review_item_still_shows(conn, db_path, app_test, monkeypatch):
    sid, draft = _draft(conn, db_path)
    _old(conn, draft)
    shown = _page(app_test, monkeypatch, conn, sid, "sv-SE")
    assert ("Underkända kontroller: 2–3 konkreta åtgärder, Ställer minst en fråga, Inga personriktade eller "
            "nedslående formuleringar, Slutar med en fråga eller ett nästa steg") in shown   # by their English
    assert [w for w in ENGLISH_LEFT if w in shown] == []



def test_a_reader_without_names_gets_the_checks_in_swedish_even_when_the_name_is_a_template_word():
    """The review item hides a student's name from a coordinator without the name grant in every string
    of the draft; a check's stored form is FairMark's template with the student's text in its
    values, so only the values are hidden ("{count} words" stays a template for a student called
    Count), and a form that no longer reads as the English beside it shows the English."""
    from core.courses.browse import _masker
    hide = _masker(Actor("co", role="coordinator", courses={1: False}), 1, "Anna Count", "", "Student-0001")
    kept = hide(rules.with_forms([checks.check_word_count("one two three")]))
    assert kept[0]["detail_said"]["msgid"] == "{count} word"
    again = rules.said(kept)[0]
    assert again["detail"] == "3 words" and SV.said(again["detail"]) == "3 ord"
    # A form that says something else than its English (names put back since): the English wins.
    mismatched = {**kept[0], "detail": "4 words"}
    assert rules.said([mismatched])[0]["detail"] == "4 words"
    assert not isinstance(rules.said([mismatched])[0]["detail"], Message)
    broken = {**kept[0], "detail_said": {"msgid": "{Student-0001} words", "plural": None, "count": None,
                                         "values": {"x": 1}}}
    assert rules.said([broken])[0]["detail"] == "3 words"     # a form this code cannot read: the English
