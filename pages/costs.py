"""Costs: tokens, money and time per agent, run, submission and course (issue #5)."""
import streamlit as st

from core import charts, reports
from core.reports.costs import OUTSIDE_RUNS
from pages import _common
from pages import _dashboard as ui
from pages._i18n import here, said, t, tn

st.title(t("Costs"))
conn = _common.get_db()
scope = ui.current_scope()
ui.scope_caption(scope)
data = ui.read_or_stop(lambda: reports.costs_page(conn, scope, actor=_common.actor()))  # the page's one read
view = ui.shown(data)


def _run(run) -> str:
    """A run as core names it ("run 12", or its label for calls outside runs), in this session's language."""
    if run == OUTSIDE_RUNS:
        return t(run)
    number = str(run).removeprefix("run ")
    return t("run {number}", number=number) if number.isdigit() else str(run)


def _named(frame, column: str = "what"):
    """A table whose `column` holds core's labels (N_), shown in this session's language."""
    return frame.assign(**{column: frame[column].map(t)}) if column in frame.columns else frame


if view is not None:
    s, per = view["summary"], view["per_submission"]
    cols = st.columns(5)
    cols[0].metric(t("Total cost"), f"${s['cost_usd']:.4f}")
    ref = s["seed_cost_per_reflection"]
    cols[1].metric(t("Per reflection"), f"${ui.num(s['cost_per_submission'], 5)}",
                   delta=t("{difference} vs the published study's {cost}",
                           difference=ui.num(s["cost_per_submission"] - ref, 5), cost=f"${ref:.4f}"),
                   delta_color="inverse",
                   help=t("Compared with the published multi-agent study (Zhang & Luo 2025): {cost} per reflection.",
                          cost=f"${ref:.4f}"))
    cols[2].metric(t("LLM calls"), int(s["calls"]), help=tn("{count} failed", "{count} failed", int(s["errors"])))
    cols[3].metric(t("Cache hits"), f"{s['cache_hit_rate']:.0%}",
                   help=tn("{count} call served from cache", "{count} calls served from cache", int(s["cache_hits"])))
    cols[4].metric(t("Time per reflection"), t("{seconds} s", seconds=ui.num(per["mean_latency_s"], 1)),
                   help=t("Sum of call latencies per submission (calls may run in parallel)."))
    by_run = view["by_run"].assign(run=view["by_run"]["run"].map(_run))
    ui.chart(charts.cost_per_submission_chart(by_run, interface=here()), by_run, "cost_per_reflection_by_run")
    st.caption(t("Dashed line: the published multi-agent study (Zhang & Luo 2025), {cost} per reflection. "
                 "\"Regenerate (outside runs)\" counts calls made outside an assessment run, such as regenerating "
                 "one draft on the Review page. Lesson review, blind comparisons and eval runs are not counted "
                 "here: they are shown apart at the end.", cost=f"${ref:.4f}"))
    left, right = st.columns(2)
    with left:
        ui.chart(charts.bar_chart(view["by_agent"], "agent", "cost_usd", title=t("Cost by agent"), y_title="USD"),
                 view["by_agent"], "cost_by_agent")
        ui.chart(charts.bar_chart(view["by_agent"], "agent", "mean_latency_ms", title=t("Mean latency by agent"),
                                  y_title=t("ms")), view["by_agent"], "latency_by_agent")
    with right:
        ui.chart(charts.bar_chart(view["by_agent"], "agent", "tokens", title=t("Tokens by agent")), view["by_agent"],
                 "tokens_by_agent")
        ui.chart(charts.bar_chart(view["by_course"], "course", "cost_usd", title=t("Cost by course"), y_title="USD"),
                 view["by_course"], "cost_by_course")
    st.caption(tn("Per reflection: mean {mean}, median {median}, 95th percentile {p95} over {count} reflections.",
                  "Per reflection: mean {mean}, median {median}, 95th percentile {p95} over {count} reflections.",
                  per["n"], mean=f"${ui.num(per['mean_cost'], 5)}", median=f"${ui.num(per['median_cost'], 5)}",
                  p95=f"${ui.num(per['p95_cost'], 5)}"))
    ui.table(view["by_model"], key="cost_by_model")

    tiers = view["tiers"]
    st.subheader(t("Judge cascade: calls and dollars per tier"))
    if not tiers["available"]:
        st.caption(said(tiers["message"]))
    else:
        cols = st.columns(3)
        cols[0].metric(t("Judge calls per item"), ui.num(tiers["calls_per_item"], 2),
                       help=tn("{calls} scoring calls for {count} judged items.",
                               "{calls} scoring calls for {count} judged items.", tiers["items"], calls=tiers["calls"]))
        cols[1].metric(t("Blanket 3× voting would have made"),
                       tn("{count} calls", "{count} calls", tiers["blanket_calls"]),
                       delta=t("{share} fewer with the cascade", share=f"{tiers['saving_calls']:.0%}"),
                       delta_color="off")
        cols[2].metric(t("Blanket 3× voting would have cost"), f"${tiers['blanket_cost_usd']:.4f}",
                       delta=t("{cost} with the cascade", cost=f"${tiers['cost_usd']:.4f}"), delta_color="off",
                       help=t("Three judges on every judged item: the first judge's mean paid call plus twice the "
                              "consensus judges' mean (the first judge's where none was called)."))
        ui.table(_named(tiers["by_tier"]), key="judge_calls_by_tier")   # its download button is named from the key

apart = data.get("apart")
if apart is not None and len(apart):
    st.subheader(t("Other work, counted apart"))
    st.caption(t("Calls that did not assess reflections: they are in no figure above (not per reflection, not in "
                 "the judge cascade)."))
    ui.table(_named(apart), key="cost_of_other_work")
