"""core.charts: every builder, checked on fig.data and fig.layout."""
import math

import numpy as np
import pandas as pd
import pytest

from core import charts, metrics
from core.metrics import pair_counts


def test_confusion_heatmap_shows_every_level_with_counts():
    cm = metrics.confusion(pair_counts([0, 1, 1], [0, 1, 3]), 0, 3)
    fig = charts.confusion_heatmap(cm, "clarity")
    (hm,) = fig.data
    assert hm.type == "heatmap"
    assert list(hm.x) == ["0", "1", "2", "3"] and list(hm.y) == ["0", "1", "2", "3"]
    assert np.asarray(hm.z).sum() == 3 and np.asarray(hm.z)[1][3] == 1
    assert fig.layout.title.text == "clarity"
    assert fig.layout.xaxis.title.text == "Reference score" and fig.layout.yaxis.title.text == "AI score"


def test_scatter_keeps_every_point_when_small_and_caps_when_large():
    cells = pd.DataFrame({"ai": [1.0, 2.0], "reference": [1.0, 3.0], "n": [30, 10]})
    fig = charts.agreement_scatter(cells, 0, 3, seed=1)
    points, diagonal = fig.data
    assert len(points.x) == 40 and diagonal.mode == "lines" and list(diagonal.x) == [0, 3]
    assert np.all(np.abs(np.asarray(points.y) - np.round(points.y)) <= 0.15)  # jitter stays within ±0.15
    big = pd.DataFrame({"ai": [1.0, 2.0], "reference": [1.0, 3.0], "n": [75_000, 25_000]})
    fig = charts.agreement_scatter(big, 0, 3, cap=1000)
    assert len(fig.data[0].x) == 1000 and "showing 1000 of 100000" in fig.layout.title.text
    # same seed, same picture
    assert list(charts.agreement_scatter(cells, 0, 3, seed=1).data[0].x) == list(points.x)


def test_trend_chart_has_mae_and_qwk_on_two_axes():
    frame = pd.DataFrame({"week": ["1", "2"], "n": [10, 12], "mae": [0.5, 0.4], "qwk": [0.6, 0.7]})
    fig = charts.trend_chart(frame, "week", title="By week")
    mae, qwk = fig.data
    assert mae.name == "MAE" and list(mae.y) == [0.5, 0.4] and list(mae.customdata) == [10, 12]
    assert qwk.yaxis == "y2" and fig.layout.yaxis2.overlaying == "y"


def test_trend_chart_weeks_are_whole_numbers_and_qwk_keeps_its_own_range():
    """Issue 21 item 6: a QWK axis from −0.732 to 0.768 and week ticks 1, 1.5, 2."""
    frame = pd.DataFrame({"week": ["1", "2", "3"], "n": [10, 12, 9], "mae": [0.5, 0.4, 0.3], "qwk": [0.6, 0.7, 0.8]})
    fig = charts.trend_chart(frame, "week", title="By week")
    assert list(fig.data[0].x) == [1, 2, 3]
    assert list(fig.layout.xaxis.tickvals) == [1, 2, 3] and list(fig.layout.xaxis.ticktext) == ["1", "2", "3"]
    qwk_axis = fig.layout.yaxis2
    assert qwk_axis.autorange is False and qwk_axis.range[0] <= -1 and qwk_axis.range[1] >= 1
    assert list(qwk_axis.tickvals) == [-1, -0.5, 0, 0.5, 1]
    assert fig.layout.yaxis.rangemode == "tozero"
    versions = pd.DataFrame({"version": ["gpt-4o · v1", "2"], "n": [5, 6], "mae": [0.5, 0.4], "qwk": [0.1, 0.2]})
    assert charts.trend_chart(versions, "version").layout.xaxis.type == "category"


def test_band_chart_has_ci_error_bars_and_n_in_labels():
    rep = metrics.band_report(pair_counts([2, 2, 1, 3, 2, 3, 0, 1] * 4, [0, 1, 1, 3, 2, 2, 0, 1] * 4), 0, 3,
                              n_boot=200)
    frame = charts.band_frame(rep)
    assert frame["band"].tolist() == ["low", "high"] and frame["n"].sum() == 32
    fig = charts.band_chart(frame)
    mae, bias = fig.data
    assert mae.type == "bar" and "n=" in mae.x[0] and "0–1" in mae.x[0]
    low = frame.iloc[0]
    assert mae.error_y.array[0] == pytest.approx(low["mae_hi"] - low["mae"])
    assert mae.error_y.arrayminus[0] == pytest.approx(low["mae"] - low["mae_lo"])
    assert bias.name.startswith("bias")


def test_band_chart_draws_no_error_bar_when_the_ci_is_unavailable():
    rep = metrics.band_report(pair_counts([3, 2], [0, 2]), 0, 3, n_boot=50)
    frame = charts.band_frame(rep)
    assert frame["mae_lo"].isna().all()
    fig = charts.band_chart(frame)
    assert fig.data[0].error_y.visible is False


def test_group_chart_greys_small_groups_and_marks_overall():
    t = pair_counts([1, 2, 3, 0] * 6 + [1], [1, 2, 2, 1] * 6 + [3], keys={"group": ["a", "a", "b", "b"] * 6 + ["c"]})
    rep = metrics.group_report(t, 0, 3, n_boot=100)
    frame = charts.group_frame(rep)
    fig = charts.group_chart(frame, overall=rep["overall"]["mae"])
    (bars,) = fig.data
    assert [x.split("<br>")[0] for x in bars.x] == ["a", "b", "c"]
    colors = list(bars.marker.color)
    assert colors[2] != colors[0]  # c (n=1) is grey
    assert len(fig.layout.shapes) == 1 and fig.layout.shapes[0].y0 == pytest.approx(rep["overall"]["mae"])


def test_length_chart_bins_and_marks_the_threshold():
    cells = pd.DataFrame({"word_count": [10, 40, 130, 260], "ai": [3, 2, 2, 1], "reference": [1, 2, 2, 2],
                          "n": [2, 2, 3, 1]})
    frame = charts.length_frame(cells, bin_words=50)
    assert frame["words_from"].tolist() == [0.0, 100.0, 250.0]
    assert frame["mean_error"].tolist() == [1.0, 0.0, -1.0]
    fig = charts.length_chart(frame, short_words=100)
    assert list(fig.data[0].x) == [0.0, 100.0, 250.0]
    xs = [s.x0 for s in fig.layout.shapes if s.x0 is not None and s.x0 == s.x1]
    assert 100 in xs


def test_edit_chart_stacks_raised_lowered_kept():
    bc = pd.DataFrame({"criterion": ["a", "b"], "n": [10, 5], "changed": [3, 0], "up": [1, 0], "down": [2, 0]})
    fig = charts.edit_chart(bc)
    assert [t.name for t in fig.data] == ["raised", "lowered", "kept"]
    assert list(fig.data[2].y) == [7, 5] and fig.layout.barmode == "stack"


def test_cost_charts_and_the_seed_reference_line():
    by_run = pd.DataFrame({"run": ["run 1", "run 2"], "cost_per_submission": [0.001, 0.002]})
    fig = charts.cost_per_submission_chart(by_run)
    assert list(fig.data[0].y) == [0.001, 0.002]
    (line,) = fig.layout.shapes
    assert line.y0 == pytest.approx(0.0015) and line.y1 == pytest.approx(0.0015)
    assert "0.0015" in fig.layout.annotations[0].text and "Zhang & Luo 2025" in fig.layout.annotations[0].text
    fig = charts.bar_chart(pd.DataFrame({"agent": ["coach", "evaluator"], "cost_usd": [1, 2]}), "agent",
                           "cost_usd", title="Cost by agent")
    assert list(fig.data[0].x) == ["coach", "evaluator"] and fig.layout.title.text == "Cost by agent"


def test_group_frame_handles_missing_ci():
    rep = {"by_group": {"x": {"n": 1, "mae": 0.5, "mae_ci": None, "warning": "small"}}}
    frame = charts.group_frame(rep)
    assert math.isnan(frame.loc[0, "mae_lo"]) and frame.loc[0, "warning"] == "small"


def test_student_progress_chart_draws_a_single_week_with_titles_and_the_rubric_scale():
    from core.rubric import default_rubric

    rubric = default_rubric()
    one = [{"week": 1, "scores": dict.fromkeys(rubric.keys, 2)}]
    fig = charts.student_progress_chart(one, rubric)
    assert [t.name for t in fig.data] == [c.title for c in rubric.criteria]
    assert "Real-world application" in [t.name for t in fig.data]
    assert all(t.mode == "lines+markers" and list(t.x) == [1] and list(t.y) == [2] for t in fig.data)
    assert list(fig.layout.xaxis.tickvals) == [1] and list(fig.layout.xaxis.ticktext) == ["1"]
    lo, hi = min(rubric.levels), max(rubric.levels)
    y0, y1 = fig.layout.yaxis.range
    assert y0 <= lo and y1 >= hi and y1 - y0 <= hi - lo + 0.5
    assert list(fig.layout.yaxis.tickvals) == list(rubric.levels)


def test_student_progress_chart_averages_a_week_and_orders_weeks():
    from core.rubric import default_rubric

    rubric = default_rubric()
    rows = [{"week": 1, "scores": {"clarity": 1}}, {"week": 1, "scores": {"clarity": 2}},
            {"week": 3, "scores": {"clarity": 3}}]
    (clarity,) = charts.student_progress_chart(rows, rubric).data
    assert clarity.name == "Clarity" and list(clarity.x) == [1, 3] and list(clarity.y) == [1.5, 3.0]


def test_user_names_are_shown_literally_not_as_plotly_html():
    """Issue 11 item 7's sibling: Plotly reads <b>, <a href> and <br> in labels and titles."""
    import pandas as pd

    from core import charts

    fig = charts.bar_chart(pd.DataFrame({"course": ["<b>Bold</b> & co"], "cost_usd": [1.0]}), "course", "cost_usd",
                           title="Cost by <a href='https://evil.example'>course</a>")
    assert list(fig.data[0].x) == ["&lt;b&gt;Bold&lt;/b&gt; &amp; co"]
    assert "<a" not in fig.layout.title.text
    frame = pd.DataFrame({"group": ["<i>x</i>"], "n": [3], "mae": [0.5], "mae_lo": [0.1], "mae_hi": [0.9],
                          "warning": [""]})
    assert charts.group_chart(frame).data[0].x[0].startswith("&lt;i&gt;x&lt;/i&gt;<br>")
