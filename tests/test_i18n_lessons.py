"""The Lessons and Lesson pages, the Agreement page's lesson section and the Compare page in
the teacher's language (AppTest, the browser's language; the offline baseline or a scripted judge
stored beforehand: no LLM call in a page). What core names there (tier labels, verdicts, checks,
the offline baseline's label, the comparison's questions) is still English."""
import factories as f
from assess_script import RICH_TEXT
from core import prompts
from core.accounts.access import Actor
from core.evals import config as ai_config
from core.evals import pairwise
from core.lessons import review
from db import comparisons as cmp_db
from db import lessons as lessons_db
from fake_llm import ScriptedLLM
from lesson_helpers import ONE_JUDGE, add_lesson, issue, verdict

HOOK = "The water did not disappear."


def _page(app_test, path, locale, course_id=None, lesson=None):
    at = app_test(path)
    at.context = {"locale": locale}
    if course_id is not None:
        at.session_state["course_id"] = course_id
    if lesson is not None:
        at.query_params["lesson"] = str(lesson)
    return at.run()


def _columns(at) -> list[str]:
    return [str(c) for df in at.dataframe for c in df.value.columns]


# --- the Lesson page -----------------------------------------------------------------------------
def test_the_lesson_page_in_swedish_offers_the_fix_and_says_it_was_accepted(app_test, conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.7, 0.2, [issue("engagement_tone", HOOK, location="The water cycle",
                                                                   fix="Open with a question.")]),
                verdict(0.9, 0.9, 0.8, 0.85))
    fake.script("lesson_fixer", {"text": "Imagine a puddle that vanishes before lunch. Where did it go?",
                                 "summary": "hook"})
    review.review_lesson(db_path, lid, fake)
    at = _page(app_test, "pages/lesson_review.py", "sv-SE", lessons_db.get(conn, lid)["course_id"], lid)
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Lektion"]
    assert {"Lektionens text", "Föreslagna ändringar", "Godkännande"} <= {h.value for h in at.subheader}
    assert at.selectbox(key="lesson_pick").label == "Lektion (i köordning)"
    assert {"Status", "Viktad poäng", "Poäng i steg 1"} <= {m.label for m in at.metric}
    assert {"allvarlighetsgrad", "citat", "finns i texten", "föreslagen ändring"} <= set(_columns(at))
    assert "Proposed fixes" not in [h.value for h in at.subheader]
    at = next(b for b in at.button if b.label == "Godta").click().run()
    assert not at.exception, at.exception
    assert "Ändringen från runda 1 godtogs." in [s.value for s in at.success]


def test_the_lesson_page_in_russian_after_an_offline_review(app_test, conn, db_path):
    lid = add_lesson(conn)
    review.review_lesson(db_path, lid, None)                  # the offline baseline
    at = _page(app_test, "pages/lesson_review.py", "ru-RU", lessons_db.get(conn, lid)["course_id"], lid)
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Занятие"]
    assert "Текст занятия" in [h.value for h in at.subheader]
    assert any(c.value.startswith("Исправления не предложены: их пишет языковая модель") for c in at.caption)
    assert {"проверка", "результат", "подробности"} <= set(_columns(at))
    assert "Журнал действий" in [e.label for e in at.expander]
    assert "Утвердить занятие" in [b.label for b in at.button]


# --- the Lessons page ----------------------------------------------------------------------------
def test_the_lessons_page_in_swedish_loads_the_demo_and_offers_the_review(app_test, conn):
    at = _page(app_test, "pages/lessons.py", "sv-SE")
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Lektioner"]
    assert "Ingen kurs än: ladda upp lektioner ovan (eller läs in demolektionerna)." in [i.value for i in at.info]
    assert "Ladda upp lektioner" in [e.label for e in at.expander]
    at = next(b for b in at.button if b.label == "Läs in demolektionerna (syntetiska)").click().run()
    assert not at.exception, at.exception
    assert any(s.value.startswith("8 demolektioner lästes in i") for s in at.success)
    assert "Starta granskningen (8 lektioner)" in [b.label for b in at.button]
    assert {"Granskning", "Kön", "Kostnad"} <= {h.value for h in at.subheader}
    assert {"Ej granskade", "Anrop", "Per lektion", "Per 20 lektioner"} <= {m.label for m in at.metric}
    assert at.radio(key="lessons_provider").label == "Granskare"


def test_the_lessons_queue_in_russian_after_an_offline_review(app_test, conn, db_path):
    from core.lessons import demo, runs

    admin = Actor("test", role="admin")
    cid = demo.load_demo(conn, actor=admin)["course_id"]
    runs.execute(db_path, runs.create(conn, course_id=cid, provider="offline", actor=admin), actor=admin)
    at = _page(app_test, "pages/lessons.py", "ru-RU", cid)
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Занятия"]
    assert {"Проверка", "Очередь", "Стоимость"} <= {h.value for h in at.subheader}
    assert {"Утверждено", "Не проверено", "Вызовы", "На занятие"} <= {m.label for m in at.metric}
    assert at.radio(key="lessons_provider").label == "Проверяющий"
    assert at.radio(key="lessons_provider").options[-1].endswith(": только проверки этапа 1")
    assert any(c.value.startswith("Каждое занятие нужно утвердить перед экспортом.") for c in at.caption)
    assert "По занятиям, из журнала вызовов" in [e.label for e in at.expander]


# --- the Agreement page's lesson section -------------------------------------------------------------
def test_the_agreement_pages_lesson_section_in_swedish(app_test, conn, db_path):
    """The section is in Swedish (the rest of the Agreement page is not converted yet)."""
    from core.lessons import demo, runs

    admin = Actor("test", role="admin")
    cid = demo.load_demo(conn, actor=admin)["course_id"]
    runs.execute(db_path, runs.create(conn, course_id=cid, provider="offline", actor=admin), actor=admin)
    at = app_test("pages/agreement.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"] = cid
    at.session_state["scope"] = "course"
    at.run()
    assert not at.exception, at.exception
    assert "Lektioner: granskarens och människornas omdömen" in [h.value for h in at.subheader]
    metric = next(m for m in at.metric if m.label == "Samstämmighet med experten")
    assert metric.value.endswith("%") and "omdömen om" in metric.help
    assert any("n = 8 lektioner (intervallet bygger på omsampling av lektioner)" in c.value for c in at.caption)
    assert any(c.value.startswith("Hittade inplanterade problem:") for c in at.caption)


# --- the Compare page ----------------------------------------------------------------------------
def _comparison(conn, tmp_path, monkeypatch, comments):
    """A course with a comparison of a variant whose first pairs are drafted by hand."""
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(len(comments)):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=len(comments),
                          provider="openai", actor=Actor("C", role="admin"))
    for pair, (a, b) in zip(cmp_db.pairs(conn, cid), comments):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": a}, draft_b={"comment": b}, judge_a=None,
                           judge_b=None, judge_choice=None)
    conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", [cmp_db.get(conn, cid)["run_id"]])
    return c, cid


def test_the_compare_page_in_swedish_from_the_first_pair_to_the_results(conn, app_test, tmp_path, monkeypatch):
    c, cid = _comparison(conn, tmp_path, monkeypatch, [("A wrote this.", "B wrote that."), ("A again.", "B again.")])
    at = _page(app_test, "pages/compare.py", "sv-SE", c["course_id"])
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Blind jämförelse"]
    assert at.selectbox(key="cmp_pick").label == "Jämförelse"
    assert at.get("progress")[0].proto.text == "0 av 2 par bedömda"
    assert "Par 1 av 2" in [h.value for h in at.subheader]
    assert {"**Svar 1**", "**Svar 2**"} <= {m.value for m in at.markdown}
    for _ in range(2):
        pid = pairwise.next_pair(conn, cid, actor=Actor("test-admin", role="admin"))["pair_id"]
        assert at.radio(key=f"cmp_level_{pid}").options == ["Svar 1", "Lika bra", "Svar 2"]
        at.radio(key=f"cmp_level_{pid}").set_value("left")
        at.radio(key=f"cmp_pedagogy_{pid}").set_value("tie")
        at = next(b for b in at.button if b.label == "Spara och gå till nästa par").click().run()
        assert not at.exception, at.exception
    assert "Du har bedömt alla 2 par. Tack." in [s.value for s in at.success]
    assert "Resultat: hur ofta konfiguration B var bättre" in [h.value for h in at.subheader]
    assert [m.label for m in at.metric] == ["Passar nivån: B:s vinstandel", "Pedagogik: B:s vinstandel"]
    assert {"lärare", "val", "B:s vinstandel"} <= set(_columns(at))


def test_the_compare_page_in_russian_with_nothing_to_judge(conn, app_test):
    c = f.course(conn)
    at = _page(app_test, "pages/compare.py", "ru-RU", c["course_id"])
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Слепое сравнение"]
    assert [i.value for i in at.info] == [
        "В этом курсе пока нет сравнений для оценки. Координатор запускает сравнение на странице «Качество ИИ»."]
