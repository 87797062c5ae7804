"""The labels core gives the pages, in the reader's language: the agents' names and duties
(core/agents/registry.py) on Settings' model fields, the review item's tabs and the offline
draft's "not run" note. The command line and exports keep the English."""
from __future__ import annotations

import factories as f
from core.agents import registry
from shown import plain

SCORES = {"concept_understanding": 3, "real_world_application": 2, "reflection_depth": 3, "clarity": 3}


def _page(app_test, page, locale, **state):
    at = app_test(page)
    at.context = {"locale": locale}
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _review(app_test, conn, locale, **draft):
    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Elev Ett"),
                       text="Jag lärde mig att temperaturen styr hur slumpmässiga svaren blir.")
    f.draft(conn, sid, SCORES, **draft)
    return _page(app_test, "pages/review.py", locale, course_id=c["course_id"], assignment_id=c["assignment_id"],
                 review_item=sid)


def test_the_agents_on_settings_model_fields_in_swedish_and_russian(app_test):
    at = _page(app_test, "pages/settings.py", "sv-SE")
    assert at.text_input(key="llm_model_evaluator").label == "Bedömare (bedömer varje kriterium)"
    assert at.text_input(key="llm_model_rubric_builder").label.startswith("Skapa bedömningsmatris (gör ett utkast")
    at = _page(app_test, "pages/settings.py", "ru-RU")
    assert at.text_input(key="llm_model_equity").label == "Контролёр непредвзятости (ищет в заметках предвзятые формулировки)"
    assert at.text_input(key="llm_model_reviewer").label == "Рецензент (сверяет комментарий с баллами)"
    # The English stays the registry's own text (the command line, the call log, exports).
    assert registry.get("evaluator").label == "Evaluator" and registry.get("evaluator").duty == "scores each criterion"
    assert registry.labels()["reviewer"] == "Reflexion Reviewer"


def test_the_review_items_tabs_and_the_judges_not_run_in_swedish(app_test, conn):
    at = _review(app_test, conn, "sv-SE", is_offline=True)
    tabs = [tab.label for tab in at.tabs]
    assert "Bedömare" in tabs and "Kommentarsgranskare" in tabs and "Evaluator" not in tabs, tabs
    captions = [plain(x.value) for x in at.caption]
    assert any("Förankringsgranskare, Pedagogikgranskare" in x for x in captions), captions


def test_the_review_items_tabs_in_russian(app_test, conn):
    at = _review(app_test, conn, "ru-RU")
    tabs = [tab.label for tab in at.tabs]
    assert "Оценщик" in tabs and "Рецензент" in tabs, tabs


# --- the release gates (core/signoff/release.py, core/moderation/sample.py) ---------------------
def _release_page_with_one_waiting(app_test, conn, locale):
    from core.accounts.access import Actor
    from core.signoff import actions

    c = f.course(conn)
    ids = []
    for i in range(3):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text=f"text {i}")
        f.draft(conn, sid, SCORES, status="needs_attention" if i == 2 else "drafted")
        ids.append(sid)
    actions.open_item(conn, ids[0], actor=Actor("ann", role="admin"))
    actions.approve(conn, ids[0], version=1, actor=Actor("ann", role="admin"))
    at = _page(app_test, "pages/release.py", locale, course_id=c["course_id"], assignment_id=c["assignment_id"])
    return c, [plain(m.value) for m in at.markdown if m.value.startswith((":green[", ":red["))]


def test_the_release_gates_in_swedish(app_test, conn):
    c, gates = _release_page_with_one_waiting(app_test, conn, "sv-SE")
    assert any("Inget arbete som behöver uppmärksamhet är ogranskat" in g
               and "1 arbete som behöver uppmärksamhet väntar fortfarande på ett beslut" in g for g in gates), gates
    assert any("Stickprovet för godkännande i ett svep är kontrollerat" in g
               and "inga godkännanden i ett svep i den här publiceringen" in g for g in gates), gates


def test_the_release_gates_in_russian_and_the_english_kept(app_test, conn):
    from core.accounts.access import Actor
    from core.signoff import release

    c, gates = _release_page_with_one_waiting(app_test, conn, "ru-RU")
    assert any("Не осталось непроверенных работ, требующих внимания" in g
               and "1 работа, требующая внимания, ещё ждёт решения" in g for g in gates), gates
    # The command line, the refusal and the tests read the English gate as before.
    ours = {g.name: g for g in release.release_gates(conn, c["assignment_id"], actor=Actor("t", role="admin"))}
    gate = ours["No item needing attention left unreviewed"]
    assert str(gate.detail) == "1 item(s) needing attention still wait for a decision" and not gate.ok


def test_the_moderation_gate_translates_each_held_item():
    from core.language.interface import Interface, Message
    from core.moderation import sample

    row = {"second_scores": None, "second_marker": "Bo", "first_scores": {}, "settled": None}
    why = sample.waiting(row)
    held = Message.joined("; ", [Message("submission {id} {why}", id=7, why=why),
                                 Message("submission {id} {why}", id=8, why=why)])
    assert held == "submission 7 waits for its second mark (by Bo); submission 8 waits for its second mark (by Bo)"
    assert Interface("sv").said(held) == ("inlämning 7 väntar på sin andra bedömning (av Bo); "
                                          "inlämning 8 väntar på sin andra bedömning (av Bo)")
    assert Interface("ru").said(held).startswith("работа 7 ждёт повторной проверки (Bo); работа 8")


def test_the_estimates_source_on_assess_in_swedish_and_russian(conn):
    from core import estimate
    from core.language.interface import Interface

    c = f.course(conn)
    f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    source = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())["cascade"]["source"]
    assert source == "expected"   # the English, as the command line and the JSON read it
    assert Interface("sv").said(source) == "förväntat" and Interface("ru").said(source) == "ожидаемое значение"
    measured = estimate.Message.plural("measured on {count} judged items", "measured on {count} judged items", 21)
    assert Interface("ru").said(measured) == "измерено на 21 проверенной работе"


# --- the course languages and the offline signals (Settings) -----------------------------------
def test_the_course_languages_on_settings_in_swedish_and_russian(app_test, conn):
    from core.language import course as course_language

    c = f.course(conn, name="Kurs")
    at = _page(app_test, "pages/settings.py", "sv-SE")
    picker = at.selectbox(key=f"course_language_{c['course_id']}")
    assert picker.options == ["Engelska (English)", "Svenska", "Ryska (Русский)"]
    at = _page(app_test, "pages/settings.py", "ru-RU")
    picker = at.selectbox(key=f"course_language_{c['course_id']}")
    assert picker.options == ["Английский (English)", "Шведский (Svenska)", "Русский"]
    assert [course_language.label(code) for code in course_language.choices()] == [
        "English", "Swedish (Svenska)", "Russian (Русский)"]   # the command line's names


def test_the_offline_signals_names_in_swedish_and_russian():
    from core.language.interface import Interface
    from core.rubric import SIGNAL_LABELS, SIGNALS

    assert all(SIGNAL_LABELS[s] == s for s in SIGNALS)   # the stored value reads as itself in English
    sv, ru = Interface("sv"), Interface("ru")
    assert [sv(SIGNAL_LABELS[s]) for s in ("spelling", "overall")] == ["stavning", "helhet"]
    assert [ru(SIGNAL_LABELS[s]) for s in ("grammar", "vocabulary")] == ["грамматика", "словарный запас"]


# --- what a deletion removed (core/data_care.py, Settings' Data tab) ---------------------------
def test_what_a_deletion_removed_in_swedish_and_russian():
    from core import data_care
    from core.language.interface import Interface

    words = data_care.deleted_words({"submissions": 1, "drafts": 1, "llm_calls": 5, "students": 1},
                                    leave_out=("students",))
    assert words == "1 reflection, 1 AI draft, 5 language model calls"   # the English as before
    assert Interface("sv").said(words) == "1 reflektion, 1 AI-utkast, 5 anrop till språkmodellen"
    assert Interface("ru").said(words) == "1 рефлексия, 1 черновик ИИ, 5 вызовов языковой модели"
    assert Interface("ru").said(data_care.deleted_words({"submissions": 3})) == "3 рефлексии"
    nothing = data_care.deleted_words({})
    assert nothing == "nothing else" and Interface("sv").said(nothing) == "inget annat"


# --- the reasons an item is held back from bulk approval (core/signoff/eligibility.py) -----------
STORED_SPLIT = {"code": "votes_split", "criteria": ["reflection_depth"],
                "text": "The two judges gave 1 and 3 for Reflection depth; the draft says 3. Check this score before "
                        "approving."}


def test_a_stored_hold_back_reason_reads_in_swedish_on_the_item(app_test, conn):
    import json

    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name="Ann Lee"))
    did = f.draft(conn, sid, SCORES)
    conn.execute("UPDATE drafts SET held_back = ? WHERE id = ?", [json.dumps([STORED_SPLIT]), did])
    at = _page(app_test, "pages/review.py", "sv-SE", course_id=c["course_id"], assignment_id=c["assignment_id"],
               review_item=sid)
    box = "\n".join(plain(i.value) for i in at.info)
    assert ("De två granskarna gav 1 och 3 för Reflection depth; utkastet säger 3. Kontrollera poängen innan du "
            "godkänner.") in box, box
    # What is stored stays English (the command line prints it; the bulk query reads it).
    stored = json.loads(conn.execute("SELECT held_back FROM drafts WHERE id = ?", [did]).fetchone()[0])
    assert stored == [STORED_SPLIT]


def test_the_hold_back_reasons_english_is_unchanged_and_reads_back_translated():
    from core.language.interface import Interface
    from core.rubric import default_rubric
    from core.signoff import eligibility

    r = default_rubric()
    k = r.keys[0]
    votes = [{"criterion": k, "judge": "a", "tier": 1, "score": 1.0}, {"criterion": k, "judge": "b", "tier": 2,
                                                                      "score": 3.0}]
    draft = {"scores": {**dict.fromkeys(r.keys, 2), k: 1}, "judging": {"route": "confident", "unsure": r.keys[1:3]},
             "checks": [{"name": "length", "label": "Length", "passed": False, "severity": "fail"}],
             "flags": ["injection"]}
    reasons = eligibility.hold_reasons(draft, votes, r)
    title = r.criterion(k).title
    titles = [r.criterion(x).title for x in r.keys[1:3]]
    assert [x["text"] for x in reasons] == [
        f"The two judges gave 1 and 3 for {title}; the draft says 1. Check this score before approving.",
        f"The AI was not sure of its score for {titles[0]} and {titles[1]}; no other judge settled it.",
        "A check failed: Length.",
        "The text seems to give the AI instructions: check the scores were not steered."]
    ru = Interface("ru")
    stored = [{**x, "text": str(x["text"])} for x in reasons]   # as read back from drafts.held_back
    shown = [ru.said(eligibility.text_of(x, r)) for x in stored]
    assert shown[0] == (f"Проверяющие (двое) поставили 1 и 3 по критерию «{title}»; в черновике 1. Проверьте этот "
                        "балл перед утверждением.")
    assert shown[1] == f"ИИ не был уверен в своём балле по {titles[0]} и {titles[1]}; ни один другой проверяющий этого не решил."
    assert shown[3].startswith("Похоже, текст даёт ИИ указания")
    assert [ru.said(eligibility.text_of(x, r)) for x in reasons] == shown   # fresh ones are Messages already
    unknown = {"code": "veto", "text": "An older wording.", "criteria": []}
    assert eligibility.text_of(unknown) == "An older wording."   # shown as stored
    now = eligibility.reasons_now([], status="drafted", band="low", blocked_bands=("low",), edited=True)
    assert [Interface("sv").said(x["text"]) for x in now] == [
        "En lärare har redigerat det här utkastet.",
        "AI:ns fel är större för svagare studenter (låg nivå) än gränsen för beredskap tillåter, så utkast på den "
        "nivån behöver en lärares blick."]
