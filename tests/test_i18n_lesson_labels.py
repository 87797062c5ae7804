"""The labels and fixed sentences core gives the lesson pages (core/lessons: tiers, verdicts,
archetypes, the rubric's dimensions, Stage 1 checks, the fixed tier reasons and notes) read in the
teacher's language; the command line and the stored review keep the English."""
from __future__ import annotations

from core.lessons import heuristics, review, rubric, signoff, spec, tiers
from db import lessons as lessons_db
from lesson_helpers import add_lesson, lesson_page as _page
from shown import plain


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


# --- the blind comparison (core/evals/pairwise.py) -------------------------------------------------
def _variant(tmp_path, monkeypatch):
    from core import prompts
    from core.evals import config as ai_config
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)


def test_the_compare_page_in_russian_asks_its_two_questions_in_russian(conn, app_test, tmp_path, monkeypatch):
    import factories as f
    from assess_script import RICH_TEXT
    from core.accounts.access import Actor
    from core.evals import pairwise
    from db import comparisons as cmp_db
    _variant(tmp_path, monkeypatch)
    c = f.course(conn)
    for i in range(2):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=2, provider="openai",
                          actor=Actor("C", role="admin"))
    for pair in cmp_db.pairs(conn, cid):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": "A."}, draft_b={"comment": "B."}, judge_a=None,
                           judge_b=None, judge_choice=None)
    pair = pairwise.next_pair(conn, cid, actor=Actor("test-admin", role="admin"))
    pair["id"] = pair["pair_id"]
    conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", [cmp_db.get(conn, cid)["run_id"]])
    at = _page(app_test, "pages/compare.py", "ru-RU", c["course_id"])
    assert at.radio(key=f"cmp_level_{pair['id']}").label == (
        "Какой комментарий лучше соответствует уровню этого учащегося (язык и глубина)?")
    assert at.radio(key=f"cmp_pedagogy_{pair['id']}").label.startswith("Какой комментарий лучше учит")
    assert pairwise.DIMENSIONS["level"] == "Which comment fits this student's level better (language and depth)?"


def test_the_ai_quality_page_in_swedish_says_the_offline_notice_and_the_judges_trust(conn, app_test, tmp_path,
                                                                                     monkeypatch):
    import factories as f
    _variant(tmp_path, monkeypatch)
    c = f.course(conn)
    at = _page(app_test, "pages/ai_quality.py", "sv-SE", c["course_id"])
    infos = [i.value for i in at.info]
    assert any(x.startswith("Inget att jämföra: offline-basen (ingen språkmodell)") for x in infos), infos
    assert any("lärarna har inte bedömt någon blind jämförelse än" in x.value for x in at.caption)


def test_the_comparisons_sentences_keep_their_english_and_read_in_russian():
    from core.evals import pairwise
    from core.language.interface import Interface, Message
    ru = Interface("ru")
    assert pairwise.skipped_note(0) == ""
    assert pairwise.skipped_note(1) == ("1 pair was skipped: both configurations wrote the same comment, so there "
                                        "was nothing to choose.")
    assert [ru.said(pairwise.skipped_note(n)).split(":")[0] for n in (1, 3, 5)] == [
        "1 пара пропущена", "3 пары пропущены", "5 пар пропущено"]
    why = Message("agreement {agreement} with the teachers on {count} choices in comparison {comparison}: {reason}",
                  agreement="90%", count=20, comparison=4, reason=Message("no choices yet"))
    assert why == "agreement 90% with the teachers on 20 choices in comparison 4: no choices yet"
    assert ru.said(why).endswith(": выборов пока нет")   # a Message inside a Message is translated too


# --- the eval gate (core/evals/gate.py) ------------------------------------------------------------
def test_the_gates_state_and_message_in_russian_on_the_ai_quality_page(conn, app_test):
    import factories as f
    c = f.course(conn)
    at = _page(app_test, "pages/ai_quality.py", "ru-RU", c["course_id"])
    boxes = [plain(i.value) for i in at.info]
    assert any("офлайн-базовая модель — не конфигурация ИИ. У офлайн-базовой модели (без LLM) нет конфигурации ИИ"
               in x for x in boxes), boxes


def test_the_gates_message_keeps_its_english_and_reads_in_swedish(conn):
    from core.evals import config as ai_config
    from core.evals import gate
    from core.language.interface import Interface
    defn = {"provider": "openai", "roles": {}}
    s = gate.status(conn, ai_config.config_hash(defn), "openai", definition=defn)
    assert s["label"] == "not evaluated yet"
    assert s["message"] == ("This configuration has not been evaluated against the eval cases. Run `python -m core "
                            "evals run` with this configuration (a real endpoint runs the judges); or an admin can "
                            "override the gate on the Settings page, with a reason (audited).")
    assert Interface("sv").said(s["message"]).startswith(
        "Den här konfigurationen har inte utvärderats mot testfallen. Kör `python -m core evals run`")


def test_the_judges_issues_severity_and_dimension_in_russian(app_test, conn, db_path):
    from fake_llm import ScriptedLLM
    from lesson_helpers import ONE_JUDGE, issue, verdict
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.7, 0.2, [issue("engagement_tone", "The water did not disappear.",
                                                                   location="The water cycle")]),
                verdict(0.9, 0.9, 0.8, 0.85))
    fake.script("lesson_fixer", {"text": "Imagine a puddle that vanishes before lunch. Where did it go?",
                                 "summary": "hook"})
    review.review_lesson(db_path, lid, fake)
    at = _page(app_test, "pages/lesson_review.py", "ru-RU", lessons_db.get(conn, lid)["course_id"], lid)
    issues = next(d.value for d in at.dataframe if "серьёзность" in d.value.columns)
    assert list(issues["серьёзность"]) == ["серьёзная"]
    assert "Вовлечённость и тон" in set(issues.iloc[:, 2])   # the dimension: the rubric's name
    assert any(plain(c.value).startswith("Не настроена конечная точка completions с logprobs") for c in at.caption)
    record = lessons_db.review(conn, lessons_db.get(conn, lid)["current_review_id"])["record"]
    assert record["entropy"]["skipped"].startswith("No completions endpoint with prompt logprobs is configured")


def test_the_eval_cases_dimensions_are_named_for_the_pages():
    from core.evals import DIMENSION_LABELS
    from core.language.interface import Interface
    sv, ru = Interface("sv"), Interface("ru")
    assert [sv(DIMENSION_LABELS[d]) for d in ("leakage", "grounding")] == ["avslöjat svar", "stöd i texten"]
    assert ru(DIMENSION_LABELS["level"]) == "уровень" and DIMENSION_LABELS["leakage"] == "leakage"


def test_the_tier_reasons_with_values_read_in_swedish_and_stay_english_in_the_review(app_test, conn, db_path):
    lid = add_lesson(conn, b"# Rain\n\nIt rains.")   # too short: a clear Stage 1 failure, with the offline baseline
    review.review_lesson(db_path, lid, None)
    record = lessons_db.review(conn, lessons_db.get(conn, lid)["current_review_id"])["record"]
    assert record["tier_reasons"][0] == ("offline baseline — no LLM: only the Stage 1 checks ran; facts, alignment "
                                         "and engagement were not judged.")
    assert record["tier_reasons"][1].startswith("Stage 1: Length")
    at = _page(app_test, "pages/lesson_review.py", "sv-SE", lessons_db.get(conn, lid)["course_id"], lid)
    captions = [plain(c.value) for c in at.caption]
    assert any(c.endswith(": bara kontrollerna i steg 1 kördes; fakta, överensstämmelse och engagemang bedömdes "
                          "inte.") for c in captions), captions
    assert "Steg 1: Längd 250–4000 ord: 3 ord (för kort)" in captions, captions   # the check and its detail too


def test_a_reason_kept_in_its_form_reads_the_same_english():
    reasons = tiers.decide(tiers.Evidence(score=0.7, unsure=["clarity_structure"], fix_cost=6, first_cost=1)).reasons
    assert reasons == ["Score 0.70 is under 0.75 after the fixes.", "The judges could not agree on clarity & structure.",
                       "Fixing cost 6.0x the first judgment (limit 5x)."]
    from core.language.interface import Interface, reread, stored
    again = [reread(stored(r)) for r in reasons]
    assert again == reasons
    assert Interface("ru").said(again[1]) == "Проверяющие не пришли к согласию по ясности и структуре."


def test_a_lesson_reviews_forms_are_read_back_only_while_they_read_as_their_english():
    """The lesson page reads a review's kept forms through read_back: a form that says what its
    English says is a Message (said in Swedish); one that no longer does, or cannot be read, shows
    the English; a review stored before the forms shows its English."""
    from core.language.interface import Interface, Message, stored
    from core.lessons import view
    note = Message("No judge gave a verdict.")
    record = {"notes": [str(note), "a hand-edited note"], "notes_said": [stored(note), stored(note)],
              "rounds": [{"note": "changed", "note_said": {"msgid": "{x} broken", "plural": None, "count": None,
                                                           "values": {}}}]}
    said = view._said(record, None)
    assert isinstance(said["notes"][0], Message) and Interface("sv").said(said["notes"][0]) != str(note)
    assert said["notes"][1] == "a hand-edited note" and not isinstance(said["notes"][1], Message)
    assert said["rounds"][0]["note"] == "changed"
    assert view._said({"notes": ["old English"]}, None)["notes"] == ["old English"]
