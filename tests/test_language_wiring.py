"""The course's language reaches every check that reads text in it (issue 30): the Review page's
live checks, the offline Reviser and Equity Monitor, the pipeline's evidence and draft checks."""
import factories
from assess_script import good_llm
from core import pipeline
from core.accounts.access import Actor
from core.agents import equity, reviser
from core.courses import catalogue
from core.signoff import actions, review_view
from db import drafts

ADMIN = Actor("test", role="admin")
SWEDISH = ("Den här veckan lärde jag mig hur stora språkmodeller fungerar. De förutsäger nästa ord utifrån "
           "mönster i träningsdata. Temperaturen styr hur slumpmässigt svaret blir, och på jobbet vill jag "
           "använda en låg temperatur för faktatexter. Min fråga är hur man kalibrerar detta.")


def _course(conn, language, text=SWEDISH):
    c = factories.course(conn)
    catalogue.set_language(conn, c["course_id"], language, actor=ADMIN)
    sid = factories.student(conn, c["course_id"])
    return c, factories.submission(conn, c["assignment_id"], sid, text)


def test_the_review_item_carries_the_course_language_for_its_live_checks(conn, db_path):
    c, sub = _course(conn, "sv")
    pipeline.assess_one(db_path, sub, llm=good_llm())
    page = review_view.review_page(conn, c["assignment_id"], actor=ADMIN, item=sub)
    assert page["item"]["language"] == "sv"


def test_the_live_checks_read_a_swedish_comment_as_swedish():
    comment = "Du är så lat i den här texten."
    english = {c["name"]: c["passed"] for c in actions.comment_checks(comment)}
    swedish = {c["name"]: c["passed"] for c in actions.comment_checks(comment, language="sv")}
    assert english["lexicon"] and not swedish["lexicon"]


def test_the_offline_reviser_drops_a_discouraging_swedish_phrase_in_a_swedish_course():
    out = reviser.offline({"comment": "Bra början, men det är helt enkelt slarvigt. Vad vill du prova?",
                           "fixes": [], "language": "sv"})["comment"]
    assert "helt enkelt" not in out and "slarvig" not in out.lower()


def test_the_offline_equity_monitor_flags_a_russian_phrase_in_a_russian_course():
    flags = equity.offline({"notes": "Ученик ленивый, это очевидно.", "language": "ru"})["flags"]
    assert {f["phrase"] for f in flags} >= {"ленивый", "очевидно"}
