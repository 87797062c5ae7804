"""Costs: tokens, money and time per agent, run, submission and course (issue #5)."""
import streamlit as st

from core import charts, reports
from pages import _common
from pages import _dashboard as ui

st.title("Costs")
conn = _common.get_db()
scope = ui.current_scope()
ui.scope_caption(scope)
data = ui.read_or_stop(lambda: reports.costs_page(conn, scope, actor=_common.actor()))  # the page's one read
view = ui.shown(data)
if view is not None:
    s, per = view["summary"], view["per_submission"]
    cols = st.columns(5)
    cols[0].metric("Total cost", f"${s['cost_usd']:.4f}")
    ref = s["seed_cost_per_reflection"]
    cols[1].metric("Per reflection", f"${ui.num(s['cost_per_submission'], 5)}",
                   delta=f"{ui.num(s['cost_per_submission'] - ref, 5)} vs the published study's ${ref:.4f}",
                   delta_color="inverse",
                   help=f"Compared with the published multi-agent study (Zhang & Luo 2025): ${ref:.4f} per "
                        "reflection.")
    cols[2].metric("LLM calls", int(s["calls"]), help=f"{int(s['errors'])} failed")
    cols[3].metric("Cache hits", f"{s['cache_hit_rate']:.0%}", help=f"{int(s['cache_hits'])} calls served from cache")
    cols[4].metric("Time per reflection", f"{ui.num(per['mean_latency_s'], 1)} s",
                   help="Sum of call latencies per submission (calls may run in parallel).")
    ui.chart(charts.cost_per_submission_chart(view["by_run"]), view["by_run"], "cost_per_reflection_by_run")
    st.caption(f"Dashed line: the published multi-agent study (Zhang & Luo 2025), ${ref:.4f} per reflection. "
               "\"Regenerate (outside runs)\" counts calls made outside an assessment run, such as regenerating "
               "one draft on the Review page. Lesson review, blind comparisons and eval runs are not counted "
               "here: they are shown apart at the end.")
    left, right = st.columns(2)
    with left:
        ui.chart(charts.bar_chart(view["by_agent"], "agent", "cost_usd", title="Cost by agent", y_title="USD"),
                 view["by_agent"], "cost_by_agent")
        ui.chart(charts.bar_chart(view["by_agent"], "agent", "mean_latency_ms", title="Mean latency by agent",
                                  y_title="ms"), view["by_agent"], "latency_by_agent")
    with right:
        ui.chart(charts.bar_chart(view["by_agent"], "agent", "tokens", title="Tokens by agent"), view["by_agent"],
                 "tokens_by_agent")
        ui.chart(charts.bar_chart(view["by_course"], "course", "cost_usd", title="Cost by course", y_title="USD"),
                 view["by_course"], "cost_by_course")
    st.caption(f"Per reflection: mean ${ui.num(per['mean_cost'], 5)}, median ${ui.num(per['median_cost'], 5)}, "
               f"95th percentile ${ui.num(per['p95_cost'], 5)} over {per['n']} reflections.")
    ui.table(view["by_model"], "cost_by_model")

    tiers = view["tiers"]
    st.subheader("Judge cascade: calls and dollars per tier")
    if not tiers["available"]:
        st.caption(tiers["message"])
    else:
        cols = st.columns(3)
        cols[0].metric("Judge calls per item", ui.num(tiers["calls_per_item"], 2),
                       help=f"{tiers['calls']} scoring calls for {tiers['items']} judged items.")
        cols[1].metric("Blanket 3× voting would have made", f"{tiers['blanket_calls']} calls",
                       delta=f"{tiers['saving_calls']:.0%} fewer with the cascade", delta_color="off")
        cols[2].metric("Blanket 3× voting would have cost", f"${tiers['blanket_cost_usd']:.4f}",
                       delta=f"${tiers['cost_usd']:.4f} with the cascade", delta_color="off",
                       help="Three judges on every judged item: the first judge's mean paid call plus twice the "
                            "consensus judges' mean (the first judge's where none was called).")
        ui.table(tiers["by_tier"], "judge_calls_by_tier", "judge calls by tier")

apart = data.get("apart")
if apart is not None and len(apart):
    st.subheader("Other work, counted apart")
    st.caption("Calls that did not assess reflections: they are in no figure above (not per reflection, not in "
               "the judge cascade).")
    ui.table(apart, "cost_of_other_work", "cost of other work")
