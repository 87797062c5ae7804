"""Core's refusals and labels for the evals in Swedish and Russian: a refusal of core/evals is a
Message that reads as the same English on the command line and in the reader's language on a
page; the configurations' names, the cases' statuses, the roles' prompts and the pedagogy judge's
trust rule are translated on the AI quality page, while what a person chose (a variant's name)
stays as it was written."""
from __future__ import annotations

import json

import pytest

import factories as f
from assess_script import RICH_TEXT
from core import prompts
from core.accounts.access import Actor
from core.cli import main
from core.errors import ConfigError, FairMarkError, GateError
from core.evals import cases, gate, pairwise, saved
from core.evals import config as ai_config
from core.judging import judges
from core.language.interface import Interface
from db import comparisons as cmp_db

SV, RU, EN = Interface("sv"), Interface("ru"), Interface("en")
ADMIN = Actor("Admin A", role="admin")


def test_a_refused_trust_threshold_is_said_in_swedish_and_russian(conn):
    with pytest.raises(GateError) as refused:
        pairwise.set_trust_threshold(conn, 1.5, actor=ADMIN)
    assert str(refused.value) == "The agreement threshold must be between 0.5 (chance) and 1.0"   # the CLI's
    assert SV.said(refused.value) == "Tröskeln för överensstämmelse måste ligga mellan 0.5 (slump) och 1.0"
    assert RU.said(refused.value) == "Порог согласия должен быть от 0.5 (случайность) до 1.0"
    assert pairwise.trust_threshold(conn) == pairwise.DEFAULT_TRUST   # nothing was saved


def test_a_gate_override_without_a_reason_is_refused_in_russian(conn):
    defn = ai_config.current("openai")
    with pytest.raises(GateError) as refused:
        gate.override(conn, ai_config.config_hash(defn), actor=ADMIN, reason="because", definition=defn)
    assert str(refused.value).startswith("Say why this configuration may run without passing its eval cases")
    assert RU.said(refused.value).startswith("Объясните, почему эта конфигурация может работать")
    with pytest.raises(FairMarkError) as unknown:
        gate.override(conn, "0123456789abcdef", actor=ADMIN, reason="a reason long enough")
    assert str(unknown.value) == "No AI configuration '0123456789abcdef' has been used yet"
    assert SV.said(unknown.value) == "Ingen AI-konfiguration '0123456789abcdef' har använts ännu"


def test_a_variant_that_is_not_there_names_the_folder_and_says_none_yet_in_swedish(tmp_path):
    with pytest.raises(ConfigError) as refused:
        ai_config.load_variant("warmer", root=tmp_path)
    assert str(refused.value) == f"No variant folder {tmp_path / 'warmer'}; variants: none yet"
    assert SV.said(refused.value) == f"Ingen variantmapp {tmp_path / 'warmer'}; varianter: inga ännu"
    with pytest.raises(ConfigError) as bad:
        ai_config.load_variant("no such/name!", root=tmp_path)
    assert RU.said(bad.value) == "'no such/name!' — недопустимое имя варианта (буквы, цифры, - _ .)"


def test_a_variant_with_a_prompt_for_no_role_lists_the_roles_in_russian(tmp_path):
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "nobody.md").write_text("Hello.")
    with pytest.raises(ConfigError) as refused:
        ai_config.load_variant("odd", root=tmp_path)
    said = RU.said(refused.value)
    assert said.startswith(f"{tmp_path / 'odd' / 'nobody.md'}: нет роли агента 'nobody'; файлы промптов варианта")
    assert "pedagogy" in said and str(refused.value).endswith(")")


def test_a_suite_with_a_case_id_used_twice_says_both_lines_in_russian(tmp_path):
    line = json.dumps({"id": "A1", "dimension": "level", "input": {"reflection": "r"}, "requirement": "abc"})
    (tmp_path / "x.jsonl").write_text(line + "\n" + line + "\n")
    with pytest.raises(ConfigError) as refused:
        cases.load_suite(tmp_path)
    assert str(refused.value) == "x.jsonl line 2: case id 'A1' is already used (x.jsonl line 1)"
    assert RU.said(refused.value) == ("x.jsonl, строка 2: идентификатор примера 'A1' уже занят "
                                      "(x.jsonl, строка 1)")
    with pytest.raises(ConfigError) as empty:
        cases.load_suite(tmp_path / "nothing")
    assert SV.said(empty.value) == f"Inga testfall: {tmp_path / 'nothing'} har inga *.jsonl-filer"


def test_saving_an_eval_case_without_a_reason_is_refused_in_swedish(conn):
    from test_saved_cases import _item

    sid = _item(conn)
    with pytest.raises(FairMarkError) as refused:
        saved.build_case(conn, sid, dimension="leakage", reason="no", actor=ADMIN)
    assert SV.said(refused.value) == "Skriv vad AI:ns kommentar gjorde fel (skälet blir testfallets krav)"
    with pytest.raises(FairMarkError) as wrong:
        saved.build_case(conn, sid, dimension="style", reason="It was wrong.", actor=ADMIN)
    assert str(wrong.value) == "Choose what went wrong: one of leakage, grounding, level, pedagogy"
    assert RU.said(wrong.value) == "Выберите, что пошло не так: одно из leakage, grounding, level, pedagogy"


def test_the_trust_rule_takes_russian_plural_forms():
    def why(n):
        return RU.said(judges.trust_reason(agreement=0.9, ci_low=0.8, n=n, threshold=0.8))

    assert [why(n) for n in (1, 3, 5, 11, 0)] == [
        "только 1 выбор преподавателей (нужно не меньше 20)", "только 3 выбора преподавателей (нужно не меньше 20)",
        "только 5 выборов преподавателей (нужно не меньше 20)", "только 11 выборов преподавателей (нужно не меньше 20)",
        "только 0 выборов преподавателей (нужно не меньше 20)"]
    below = judges.trust_reason(agreement=0.9, ci_low=None, n=30, threshold=0.8)
    assert below == "the lower bound of its agreement's 95 % interval (unknown) is not above the threshold 80%"
    assert SV.said(below) == ("den nedre gränsen för överensstämmelsens 95 %-intervall (okänt) ligger inte över "
                              "tröskeln 80%")


def test_a_configuration_is_named_in_swedish_but_its_variant_keeps_its_name():
    defn = {"provider": "openai", "roles": {"a": {"model": "gpt-4o-mini", "temperature": 0.3}}}
    named = ai_config.name(defn, variant="frågor", first_used_at="2026-03-01T10:00:00Z")
    assert named == "openai gpt-4o-mini at temperature 0.3, prompts of the variant “frågor”, first used 2026-03-01 10:00 UTC"
    assert SV.said(named) == ("openai gpt-4o-mini med temperatur 0.3, prompter från varianten ”frågor”, "
                              "först använd 2026-03-01 10:00 UTC")
    assert RU.said(ai_config.name({"provider": "offline"})) == "офлайн-базовая модель"
    assert json.dumps({"name": named}, ensure_ascii=False) == json.dumps({"name": str(named)}, ensure_ascii=False)


def test_the_command_line_says_the_refusal_and_the_gate_in_english(conn, capsys):
    assert main(["evals", "status", "--provider", "offline", "--variant", "no such!"]) == 2
    said = capsys.readouterr()
    assert "'no such!' is not a variant name (letters, digits, - _ .)" in said.err
    assert json.loads(said.out)["error"] == "'no such!' is not a variant name (letters, digits, - _ .)"
    assert main(["evals", "status", "--provider", "offline"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["message"] == "The offline baseline (no LLM) has no AI configuration to evaluate."


def _page_in(app_test, monkeypatch, code: str):
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: code)
    at = app_test("pages/ai_quality.py")
    at.context = {"locale": {"sv": "sv-SE", "ru": "ru-RU"}[code]}
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_ai_quality_page_shows_the_cases_statuses_and_the_configuration_in_swedish(conn, app_test, capsys,
                                                                                      monkeypatch):
    assert main(["evals", "run", "--provider", "offline"]) == 0
    capsys.readouterr()
    at = _page_in(app_test, monkeypatch, "sv")
    report = next(d.value for d in at.dataframe if "fall" in d.value.columns and "kontroller" in d.value.columns)
    assert {"godkänd", "kördes inte"} <= set(report["status"]), set(report["status"])
    assert not {"passed", "not_run", "failed"} & set(report["status"])
    assert set(report["kommentar"]) <= {"given i testfallet", "skriven av agenterna"}
    checks = " ".join(report["kontroller"])
    assert "rule:leakage godkänd:" in checks or "rule:specifics godkänd:" in checks   # the suite's check names
    assert " passed:" not in checks and " not_run:" not in checks
    runs = next(d.value for d in at.dataframe if "testsvitens version" in d.value.columns)
    assert set(runs["inställning"]) == {"offline-basen"}
    box = [i.value.replace("\\", "") for i in at.info]
    assert any(b.startswith("AI-konfiguration (offline-basen): ") for b in box), box
    roles = next(d.value for d in at.dataframe if "roll" in d.value.columns and "prompt" in d.value.columns)
    assert set(roles["prompt"]) == {"som levererad"}


def test_the_trust_rule_and_a_comparisons_status_on_the_page_in_russian(conn, app_test, tmp_path, monkeypatch):
    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    c = f.course(conn)
    for i in range(3):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=3, provider="openai",
                          actor=ADMIN)
    for pair in cmp_db.pairs(conn, cid):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": "A wrote this."}, draft_b={"comment": "B wrote that."},
                           judge_a=None, judge_b=None, judge_choice="A")
    conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", [cmp_db.get(conn, cid)["run_id"]])
    while (pair := pairwise.next_pair(conn, cid, actor=Actor("Ms T", role="admin"))) is not None:
        pairwise.choose(conn, pair["pair_id"], level="left", pedagogy="tie", actor=Actor("Ms T", role="admin"))
    trust = pairwise.judge_trust(conn)
    assert "only 3 teacher choices (at least 20 are needed)" in trust["why"]   # English for the command line
    at = _page_in(app_test, monkeypatch, "ru")
    assert any("только 3 выбора преподавателей (нужно не меньше 20)" in cap.value for cap in at.caption), [
        cap.value for cap in at.caption]
    table = next(d.value for d in at.dataframe if "сравнение" in d.value.columns)
    assert list(table["статус"]) == ["готово"] and list(table["B (вариант)"]) == ["plainer"]


def test_the_compare_pages_refusal_is_said_in_swedish(conn, app_test, tmp_path, monkeypatch):
    """pages/compare.py keeps the refusal's Message (pairwise.choose's) and shows it with show_error:
    a Swedish teacher who saves a pair without both choices reads it in Swedish, not in English."""
    from pages import _i18n

    root = tmp_path / "variants"
    (root / "plainer").mkdir(parents=True)
    (root / "plainer" / "coach.md").write_text((prompts.PROMPT_DIR / "coach.md").read_text() + "\nBe brief.")
    monkeypatch.setattr(ai_config, "VARIANTS_DIR", root)
    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")   # the button's callback runs outside the script
    c = f.course(conn)
    for i in range(2):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + str(i))
    cid = pairwise.create(conn, course_id=c["course_id"], variant_b="plainer", sample_size=2, provider="openai",
                          actor=ADMIN)
    for pair in cmp_db.pairs(conn, cid):
        cmp_db.save_drafts(conn, pair["id"], draft_a={"comment": "A wrote this."}, draft_b={"comment": "B wrote that."},
                           judge_a=None, judge_b=None, judge_choice=None)
    conn.execute("UPDATE runs SET status = 'done' WHERE id = ?", [cmp_db.get(conn, cid)["run_id"]])
    at = app_test("pages/compare.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"] = c["course_id"]
    at.run()
    assert not at.exception, at.exception
    pid = pairwise.next_pair(conn, cid, actor=Actor("test-admin", role="admin"))["pair_id"]
    at.radio(key=f"cmp_level_{pid}").set_value("left")      # the pedagogy question left unanswered
    at = next(b for b in at.button if b.label == "Spara och gå till nästa par").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert errors == ["Välj vänster, lika eller höger för båda frågorna"], errors
    assert "Choose left, equal or right for both questions" not in " ".join(errors)
    assert cmp_db.progress(conn, cid, "test-admin")["judged"] == 0     # nothing was saved
