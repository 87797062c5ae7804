"""The labels and fixed sentences core gives the lesson pages (core/lessons: tiers, verdicts,
archetypes, the rubric's dimensions, Stage 1 checks, the fixed tier reasons and notes) read in the
teacher's language; the command line and the stored review keep the English."""
from __future__ import annotations

from core.lessons import heuristics, review, rubric, signoff, spec, tiers
from db import lessons as lessons_db
from lesson_helpers import add_lesson
from shown import plain


def _page(app_test, path, locale, course_id, lesson=None):
    at = app_test(path)
    at.context = {"locale": locale}
    at.session_state["course_id"] = course_id
    if lesson is not None:
        at.query_params["lesson"] = str(lesson)
    at.run()
    assert not at.exception, at.exception
    return at


def _shown(at) -> list[str]:
    return [plain(str(getattr(e, "value", ""))) + " " + plain(str(getattr(e, "label", "")))
            for kind in ("markdown", "caption", "metric", "warning", "page_link") for e in getattr(at, kind)]


def test_the_lesson_page_in_swedish_names_its_tier_checks_verdicts_and_reasons(app_test, conn, db_path):
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)                  # the offline baseline: needs a full review
    at = _page(app_test, "pages/lesson_review.py", "sv-SE", lessons_db.get(conn, lid)["course_id"], lid)
    shown = _shown(at)
    assert any("Behöver en fullständig granskning" in x for x in shown), shown
    assert not any("Needs a full review" in x for x in shown)
    checks = next(d.value for d in at.dataframe if "kontroll" in d.value.columns)
    assert "Inledning, huvuddel och avslutning, med vägvisning" in set(checks["kontroll"])
    verdicts = next(r for r in at.radio if r.label.startswith("Ditt omdöme") or "publicer" in " ".join(r.options))
    assert list(verdicts.options) == ["Kan publiceras som den laddades upp", "Behövde ändras före publicering"]
    # The stored review and the command line keep the English.
    record = lessons_db.review(conn, lessons_db.get(conn, lid)["current_review_id"])["record"]
    assert any(c["label"] == "Introduction, body and conclusion, with signposting" for c in record["heuristics"])
    assert tiers.LABELS["needs_review"] == "Needs a full review"
    assert signoff.VERDICTS["publish"] == "Publishable as uploaded"


def test_the_lessons_page_in_russian_names_its_tiers_and_archetypes(app_test, conn, db_path):
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)
    at = _page(app_test, "pages/lessons.py", "ru-RU", lessons_db.get(conn, lid)["course_id"])
    labels = [m.label for m in at.metric]
    assert "Требует полной проверки" in labels and "Готово к публикации" in labels, labels
    assert any("Требует полной проверки" in link.label for link in at.get("page_link")), _shown(at)
    archetypes = next(s for s in at.selectbox if s.label == "Тип содержания")
    assert "разбор случая" in archetypes.options and "case_study" not in archetypes.options
    assert spec.ARCHETYPE_LABELS["case_study"] == "case study" and "case_study" in spec.ARCHETYPES


def test_the_english_stays_as_it_was():
    assert [d.label for d in rubric.DIMENSIONS] == ["Factual integrity", "Pedagogical alignment",
                                                    "Clarity & structure", "Engagement & tone"]
    d = tiers.decide(tiers.Evidence(score=None))
    assert d.reasons == ["No judge gave a verdict."]
    assert heuristics.N_ is not None
