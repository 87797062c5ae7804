"""The calibration sentences core builds (core/calibration: readiness, the bar, what is missing,
offsets, the band gap, the hidden draft's notice, the strata) read as their English text on the
command line and in core (str), and a page shows them in Swedish or Russian (AppTest)."""
from __future__ import annotations

import pytest

from core.accounts.access import Actor
from core.calibration import NOT_CALIBRATED, band_gap, blind, draw, offset, readiness
from core.errors import GateError
from core.language.interface import Interface
from core.signoff import actions
from db import calibration
from test_calibration import blind_all, course_with_drafts

SV, RU = Interface("sv"), Interface("ru")
ANN = Actor("ann", role="admin")


def _plain(elements) -> list[str]:
    """What the reader sees of the page's texts (the escapes of escape_markdown left out)."""
    return [str(e.value).replace("\\", "") for e in elements]


def _old_block(r: dict, todo: str) -> str:
    """bulk_block's English as it was built before it became a Message (byte for byte)."""
    missing = "; ".join(f"{row['title']}: {', '.join(row['reasons'])}" for row in r["criteria"] if not row["ready"])
    return (f"Bulk approval is off: {NOT_CALIBRATED} ({missing or 'no blind scores yet'}). {todo} on the Calibrate "
            "page, or approve items one by one.")


def test_the_bar_reads_english_and_is_said_in_swedish_and_russian():
    bar = readiness.Bar().text()
    assert bar == ("at least 16 students scored blind, QWK ≥ 0.60 with the lower end of its 95% interval ≥ 0.30, "
                   "and |bias| ≤ 0.30")
    assert SV.said(bar) == ("minst 16 blint bedömda studenter, QWK ≥ 0.60 med den nedre gränsen för dess 95 %-intervall "
                            "≥ 0.30, och |systematisk avvikelse| ≤ 0.30")
    assert RU.said(bar).startswith("студентов, оценённых вслепую, не меньше 16, QWK ≥ 0.60")


def test_readiness_what_is_missing_offsets_and_bulk_block_in_three_languages(conn):
    c, sids = course_with_drafts(conn, 20, ai=lambda i: min(3, i % 3 + 1))
    aid = c["assignment_id"]
    r = readiness.readiness(conn, aid, actor=ANN)
    assert r["message"] == ("AI not yet calibrated for this assignment: no blind scores yet. Draw a calibration set "
                            "and score it blind.")
    assert SV.said(r["message"]).startswith("AI:n är ännu inte kalibrerad för den här uppgiften: inga blinda")
    block = readiness.bulk_block(conn, aid, actor=ANN)
    assert block == _old_block(r, "Draw a calibration set and score it blind")
    assert RU.said(block).startswith("Массовое утверждение отключено: ИИ ещё не откалиброван для этого задания (")
    assert "оценено вслепую: 0 из 16, QWK пока не измерить, интервала QWK пока нет, смещение пока не измерить" \
        in RU.said(block)

    blind_all(conn, c, sids, score=lambda i: i % 3)          # the AI is one level high
    r = readiness.readiness(conn, aid, actor=ANN)
    bar = readiness.Bar().text()
    assert r["message"].startswith(f"AI not yet calibrated for this assignment: 20 students scored blind so far; the "
                                   f"bar is {bar}.")
    assert SV.said(r["message"]).startswith("AI:n är ännu inte kalibrerad för den här uppgiften: 20 studenter har "
                                            "bedömts blint hittills; ribban är minst 16 blint bedömda studenter")
    assert "пока вслепую оценены 20 студентов; порог: студентов, оценённых вслепую, не меньше 16" in RU.said(r["message"])
    reasons = r["criteria"][0]["reasons"]
    assert "bias +1.00 beyond ±0.30" in reasons
    assert "systematisk avvikelse +1.00 utanför ±0.30" in map(SV.said, reasons)
    assert readiness.bulk_block(conn, aid, actor=ANN) == _old_block(
        r, "Every item of the calibration set is scored: add items to it (a larger set size) and score them blind")
    assert SV.said(readiness.bulk_block(conn, aid, actor=ANN)).endswith(
        "lägg till fler (en större uppsättning) och bedöm dem blint på sidan Kalibrering, eller godkänn arbetena ett "
        "i taget.")

    found = offset.offsets(conn, aid, actor=ANN)[0]
    b = found
    way = "higher" if b["bias"] > 0 else "lower"
    assert found["message"] == (f"On this assignment the AI scored {abs(b['bias']):.1f} {way} than your blind scores on "
                                f"{b['band']}-band work (blind scores {b['range']}; {b['students']} students, 95% "
                                f"interval {b['ci'][0]:+.1f} to {b['ci'][1]:+.1f}). Nothing is corrected "
                                "automatically: check this draft's scores with that in mind.")
    assert SV.said(found["message"]).startswith("På den här uppgiften gav AI:n 1.0 högre poäng än dina blinda "
                                                "bedömningar på arbeten på låg nivå")
    assert RU.said(found["message"]).startswith("В этом задании на работах низкого уровня ИИ ставил баллы на 1.0 выше")


def test_the_waiting_items_and_the_band_gap_in_swedish(conn):
    c, sids = course_with_drafts(conn, 6)
    aid = c["assignment_id"]
    draw.draw(conn, aid, size=2, actor=ANN)
    r = readiness.readiness(conn, aid, actor=ANN)
    block = readiness.bulk_block(conn, aid, actor=ANN)
    assert block == _old_block(r, "Score the 2 items of the calibration set still waiting")
    assert SV.said(block).endswith("Bedöm de 2 arbeten i kalibreringsuppsättningen som fortfarande väntar på sidan "
                                   "Kalibrering, eller godkänn arbetena ett i taget.")
    gap = r["band_gap"]["text"]
    assert gap == ("Not measurable yet: it needs blind scores in both the low and the high band (the bar: ΔMAE "
                   "under 0.30).")
    assert SV.said(gap) == ("Går inte att mäta ännu: det behövs blinda bedömningar på både låg och hög nivå (ribban: "
                            "ΔMAE under 0.30).")


def test_band_gap_held_back_reads_english_and_russian():
    import pandas as pd

    rows = [(s, "x", a, r) for s in range(40) for a, r in ([(0, 1)] if s % 2 else [(3, 3)])]
    t = pd.DataFrame(rows, columns=["student", "criterion", "ai", "reference"]).assign(n=1)
    g = band_gap.band_gap(t, 0, 3, cut=1, max_gap=0.3, n_boot=200)
    assert g["text"].startswith("ΔMAE (low band − high band) +1.00, 95% interval ")
    assert g["text"].endswith(", on 40 students' blind scores: the error may be up to 1.00 larger for weaker students "
                              "(low band), above the bar of 0.30. Drafts the AI put in the low band are not approved "
                              "in bulk.")
    assert RU.said(g["text"]).startswith("ΔMAE (низкий уровень − высокий уровень) +1.00, 95% интервал от ")
    assert "Черновики, которые ИИ отнёс к низкому уровню, не утверждаются массово." in RU.said(g["text"])


def test_a_hidden_draft_refusal_reads_english_and_swedish(conn):
    c, sids = course_with_drafts(conn, 3)
    draw.draw(conn, c["assignment_id"], size=1, actor=ANN)
    pending = calibration.items(conn, c["assignment_id"])[0]["submission_id"]
    with pytest.raises(GateError) as e:
        actions.open_item(conn, pending, actor=ANN)
    assert str(e.value) == blind.HIDDEN == ("This reflection is in the calibration set: score it blind on the Calibrate "
                                            "page first. Its AI draft stays hidden until a blind score is saved.")
    assert SV.said(e.value).startswith("Den här reflektionen ingår i kalibreringsuppsättningen")


def _calibrate_page(app_test, c, locale):
    at = app_test("pages/calibrate.py", user="ann")
    at.context = {"locale": locale}
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def test_the_calibrate_page_shows_readiness_reasons_offsets_and_strata_in_swedish(app_test, conn):
    c, sids = course_with_drafts(conn, 22, ai=lambda i: min(3, i % 3 + 1))
    blind_all(conn, c, sids[:20], score=lambda i: i % 3)     # the AI is one level high
    draw.draw(conn, c["assignment_id"], size=22, actor=ANN)   # two more, drawn by stratum, not scored yet
    at = _calibrate_page(app_test, c, "sv-SE")
    assert not at.exception, at.exception
    warnings = _plain(at.warning)
    assert any(w.startswith("AI:n är ännu inte kalibrerad för den här uppgiften: 20 studenter har bedömts blint") and
               "ribban är minst 16 blint bedömda studenter" in w for w in warnings), warnings
    assert any(i.startswith("På den här uppgiften gav AI:n 1.0 högre poäng") for i in _plain(at.info))
    table = next(d.value for d in at.dataframe if "Vad som saknas" in d.value.columns)
    assert "systematisk avvikelse +1.00 utanför ±0.30" in table["Vad som saknas"].iloc[0]
    captions = _plain(at.caption)
    assert any("kortare hälften" in x or "längre hälften" in x for x in captions), captions
    assert not any("shorter half" in x or "longer half" in x or "AI not yet" in x for x in captions + warnings)
    assert any("Ribban (sätts av en administratör under Inställningar): minst 16 blint bedömda" in x for x in captions)


def test_the_calibrate_page_in_russian_says_nothing_is_calibrated_yet(app_test, conn):
    c, _ = course_with_drafts(conn, 4)
    at = _calibrate_page(app_test, c, "ru-RU")
    assert not at.exception, at.exception
    assert ("ИИ ещё не откалиброван для этого задания: слепых оценок пока нет. Сформируйте калибровочный набор и "
            "оцените его вслепую.") in _plain(at.warning)


def test_the_review_queue_says_not_calibrated_and_why_bulk_is_off_in_swedish(app_test, conn, monkeypatch):
    c, _ = course_with_drafts(conn, 4)
    monkeypatch.setattr("pages._i18n.browser_language", lambda: "sv")
    at = app_test("pages/review.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    assert any(w.startswith("**AI:n är ännu inte kalibrerad för den här uppgiften.**") for w in _plain(at.warning))
    at.toggle(key="rq_bulk").set_value(True).run()
    assert not at.exception, at.exception
    assert any(i.startswith("Godkännande i ett svep är avstängt: AI:n är ännu inte kalibrerad") and
               "Dra en kalibreringsuppsättning och bedöm den blint på sidan Kalibrering" in i for i in _plain(at.info))


def test_the_settings_default_bar_is_russian(app_test, conn):
    at = app_test("pages/settings.py", user="admin")
    at.context = {"locale": "ru-RU"}
    at.run()
    assert not at.exception, at.exception
    assert "По умолчанию: студентов, оценённых вслепую, не меньше 16, QWK ≥ 0.60, нижняя граница его 95% интервала " \
           "≥ 0.30, и |смещение| ≤ 0.30." in [x.value for x in at.caption]
    assert any("«ИИ ещё не откалиброван для этого задания»" in x.value or "ИИ ещё не откалиброван" in x.value
               for x in at.caption)


def test_the_moderation_sample_names_the_ai_band_in_swedish(app_test, conn):
    from test_i18n_calibration import _moderation

    _, at = _moderation(app_test, conn, "sv-SE")
    assert not at.exception, at.exception
    sample = next(d.value for d in at.dataframe if "Andra bedömaren" in d.value.columns)
    bands = set(sample.iloc[:, 1])
    assert bands and bands <= {"låg nivå", "hög nivå"}, bands


def test_the_group_gap_reads_english_and_swedish(conn):
    from test_bulk_eligibility import test_the_group_gap_is_reported_where_students_have_groups as seeded_gap

    seeded_gap(conn)   # its own checks of the English, on this test's database
    aid = conn.execute("select max(id) from assignments").fetchone()[0]
    g = readiness.readiness(conn, aid, actor=ANN)["group_gaps"][0]
    old_span = f", 95% interval {g['ci'][0]:+.2f} to {g['ci'][1]:+.2f}" if g["ci"] else ", no interval yet"
    assert g["text"] == (f"section: MAE {g['mae_gap']:.2f} higher for A than for B{old_span}"
                         + (", above the bar of 0.30." if g["over_bar"] else ", under the bar of 0.30."))
    assert SV.said(g["text"]).startswith("section: MAE 1.00 högre för A än för B, ")


def test_the_calibration_refusals_read_english_and_russian(conn):
    c, sids = course_with_drafts(conn, 2)
    with pytest.raises(GateError) as e:
        draw.draw(conn, c["assignment_id"], size=0, actor=ANN)
    assert str(e.value) == "the calibration set size must be between 1 and 200, not 0"
    assert RU.said(e.value) == "размер калибровочного набора должен быть от 1 до 200, а не 0"
    with pytest.raises(GateError) as e:
        draw.skip(conn, c["assignment_id"], sids[0], actor=ANN)
    assert str(e.value) == (f"submission {sids[0]} is not a pending item of this calibration set (already scored "
                            "blind, or not in the set)")
    assert SV.said(e.value).startswith(f"inlämning {sids[0]} är inte ett väntande arbete")
    with pytest.raises(Exception) as e:
        readiness.Bar(qwk_min=0.5, qwk_ci_low_min=0.6).checked()
    assert str(e.value) == "the QWK interval's lower bound cannot be required above the QWK itself (0.6 > 0.5)"
    assert SV.said(e.value) == "QWK-intervallets nedre gräns kan inte krävas högre än själva QWK (0.6 > 0.5)"
