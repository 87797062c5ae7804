"""The charts' words composed with values in Swedish and Russian: the bands' and groups' tick
labels, each bar's and point's hover text, a line's label with a number (core/charts.py, said in
the `interface` the page gives), and the offline scorer's summary on Calibrate (which scorer each
criterion uses and why). Core and the command line keep reading English; numbers keep a decimal
point in every language."""
from __future__ import annotations

import json
import re

import pandas as pd

from core import charts
from core.language.interface import Interface
from core.offline import crossval, scorer
from shown import plain
from test_pages_dashboards import _fill


def _page(app_test, conn, monkeypatch, page, locale):
    from pages import _i18n

    monkeypatch.setattr(_i18n, "browser_language", lambda: locale.split("-")[0])
    c = _fill(conn)
    at = app_test(page)
    at.context = {"locale": locale}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.session_state["scope"] = "course"
    at.run()
    assert not at.exception, at.exception
    return at


def _specs(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _band_chart(specs: list[dict]) -> dict:
    """The figure whose x axis is the reference score's band (its title translated on the page)."""
    return next(s for s in specs if s["layout"]["xaxis"]["title"]["text"] == "Referenspoängens nivå")


def test_the_fairness_charts_ticks_and_hover_in_swedish(app_test, conn, monkeypatch):
    at = _page(app_test, conn, monkeypatch, "pages/fairness.py", "sv-SE")
    specs = _specs(at)
    mae, bias = _band_chart(specs)["data"]
    # The ticks name the bands as the warnings do, in Swedish, with their range and n.
    assert [x.split("<br>")[0] for x in mae["x"]] == ["Låg nivå (0–1)", "Hög nivå (2–3)"]
    assert all(re.fullmatch(r"n=\d+", x.split("<br>")[1]) for x in mae["x"])
    # Each bar's hover: the band, its statistic (the legend's Swedish name), value and 95% CI with a decimal point.
    assert mae["hoverinfo"] == "text" and bias["name"] == "systematiskt fel (AI − referens)"
    assert re.fullmatch(r"Låg nivå \(0–1\), n=\d+<br>MAE: \d\.\d\d, 95 % KI \[\d\.\d\d, \d\.\d\d\]", mae["hovertext"][0])
    assert bias["hovertext"][1].startswith("Hög nivå (2–3), n=")
    assert "<br>systematiskt fel (AI − referens): " in bias["hovertext"][1]
    # The groups' ticks and hover count students in Swedish; the length chart's hover and threshold too.
    groups = next(s for s in specs if s["layout"]["xaxis"]["title"]["text"].startswith("Grupp"))["data"][0]
    assert all(re.fullmatch(r"\w+<br>n=\d+, \d+ studenter", x) for x in groups["x"]), groups["x"]
    assert all(", 95 % KI [" in h or h.endswith("saknas") for h in groups["hovertext"])
    length = next(s for s in specs if s["layout"]["xaxis"]["title"]["text"] == "Antal ord (intervallets början)")
    assert length["data"][0]["hovertemplate"] == "%{x}+ ord: medelfel %{y:.2f} (n=%{customdata})<extra></extra>"
    assert {"100 ord", "alla studenter"} <= {a["text"] for s in specs for a in s["layout"].get("annotations", [])}
    # Nothing composed stays English.
    text = json.dumps(specs, ensure_ascii=False)
    for english in ("Low band", "High band", "low (", " students", " words", "95% CI", "mean error "):
        assert english not in text, english


def test_the_agreement_charts_hover_in_russian(app_test, conn, monkeypatch):
    at = _page(app_test, conn, monkeypatch, "pages/agreement.py", "ru-RU")
    templates = {t.get("hovertemplate") for s in _specs(at) for t in s["data"]}
    assert "ИИ %{y}, эталон %{x}: %{z}<extra></extra>" in templates          # the confusion matrix
    assert "эталон %{x:.1f}, ИИ %{y:.1f}<extra></extra>" in templates        # the scatter
    assert not any(t and "reference" in t for t in templates)


def test_the_charts_read_english_without_an_interface_and_translate_with_one():
    frame = pd.DataFrame([{"band": "low", "range": "0–1.5", "n": 3, "mae": 1.0, "mae_lo": 0.5, "mae_hi": 1.5,
                           "bias": 0.25, "bias_lo": float("nan"), "bias_hi": float("nan")}])
    english = charts.band_chart(frame)
    assert english.data[0].x[0] == "Low band (0–1.5)<br>n=3"
    assert english.data[0].hovertext[0] == "Low band (0–1.5), n=3<br>MAE: 1.00, 95% CI [0.50, 1.50]"
    assert english.data[1].hovertext[0] == "Low band (0–1.5), n=3<br>bias (AI − reference): 0.25, 95% CI unavailable"
    russian = charts.band_chart(frame, interface=Interface("ru"))
    assert russian.data[0].x[0] == "Низкий уровень (0–1.5)<br>n=3"   # the range keeps its decimal point
    assert russian.data[1].hovertext[0] == ("Низкий уровень (0–1.5), n=3<br>смещение (ИИ − эталон): 0.25, "
                                            "95 % ДИ недоступен")
    groups = pd.DataFrame({"group": ["A", "B"], "n": [5, 21], "students": [1, 21], "mae": [0.5, 0.25],
                           "mae_lo": [0.1, 0.1], "mae_hi": [0.9, 0.4], "warning": ["", ""]})
    assert list(charts.group_chart(groups, interface=Interface("ru")).data[0].x) == [
        "A<br>n=5, 1 студент", "B<br>n=21, 21 студент"]                  # Russian's plural forms
    cost = charts.cost_per_submission_chart(pd.DataFrame({"run": ["1"], "cost_per_submission": [0.001]}),
                                            interface=Interface("sv"))
    assert cost.layout.annotations[0].text == "publicerad studie (Zhang & Luo 2025): $0.0015"


def test_the_students_chart_speaks_the_pages_language():
    from core.rubric import default_rubric

    rubric = default_rubric()
    fig = charts.student_progress_chart([{"week": 1, "scores": dict.fromkeys(rubric.keys, 2)}], rubric,
                                        interface=Interface("sv"))
    assert fig.layout.xaxis.title.text == "Vecka" and fig.layout.yaxis.title.text == "Poäng"
    assert fig.data[0].hovertemplate.endswith("<br>vecka %{x}: %{y:g}<extra></extra>")
    assert charts.student_progress_chart([{"week": 1, "scores": {}}], rubric).layout.xaxis.title.text == "Week"


def test_why_the_offline_scorer_scores_so_reads_english_and_translates():
    row = {"method": "blend", "weight": 0.7, "model": {"n": 21, "qwk": 0.5}, "word_count": {"n": 21, "qwk": 0.4},
           "blend": {"n": 21, "qwk": 0.625}}
    said = crossval.scored_by(row)
    assert said == ("Scored by the learned model blended with word count (70% model, 30% word count): the blend agreed "
                    "better with your scores than either alone (QWK 0.62 vs 0.50 for the model and 0.40 for word count, "
                    "leave-one-out on 21 scores).")
    assert Interface("ru").said(said).endswith("(QWK 0.62 против 0.50 у модели и 0.40 у числа слов, скользящий "
                                               "контроль на 21 оценке).")
    assert Interface("sv").said(said).startswith("Bedöms av den inlärda modellen blandad med ordantal (70 % modell, "
                                                 "30 % ordantal)")
    assert Interface("sv")(scorer.KINDS["calibrated"]) == "heuristik, kalibrerad på några få poäng"


def test_calibrate_says_which_scorer_each_criterion_uses_in_swedish(app_test, conn, monkeypatch):
    from pages import _i18n
    from test_offline_switch import course_scored_by, length_teacher

    monkeypatch.setattr(_i18n, "browser_language", lambda: "sv")
    c, _, _ = course_scored_by(conn, length_teacher)
    s = scorer.current(conn, c["assignment_id"])
    at = app_test("pages/calibrate.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["assignment_id"]
    at.run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "Bedöms av" in d.value.columns)
    assert set(table["Bedöms av"]) == {"inlärd från lärarens poäng"}
    assert set(table["Bedömer med"]) == {"ordantal"}
    shown = [plain(x.value) for x in at.caption]
    english = s.scored_by("cohesion")
    assert english.startswith("Scored by word count")                # core (and a draft's reasoning) keep English
    why = next(x for x in shown if x.startswith("Cohesion: "))
    assert why.startswith("Cohesion: Bedöms av ordantal: det stämde bättre överens med dina poäng än den inlärda "
                          "modellen (QWK ") and why.endswith("leave-one-out-korsvalidering på 60 poäng).")
    assert re.search(r"QWK \d\.\d\d mot \d\.\d\d", why)
