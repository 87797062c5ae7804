"""UI helpers for calibration, shared by the Calibrate, Review and Home pages: the readiness
banner and table, systematic offsets, and the notice shown instead of a hidden draft. Each
draws what its page's view (one read in core) returned; none reads on its own."""
from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from core.calibration import NOT_CALIBRATED, blind, draw
from core.judging import judges
from core.text import escape_markdown
from pages import _common
from pages._i18n import N_, said, t, tn


def _ci(ci, digits: int = 2) -> str:
    return "—" if not ci else t("{low} to {high}", low=f"{ci[0]:.{digits}f}", high=f"{ci[1]:.{digits}f}")


def _num(x, digits: int = 2, sign: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def banner(r: dict, *, short: bool = False) -> dict:
    """The assignment's readiness `r` (core.calibration.readiness) in one line (a warning below
    the bar); returns it. `short`: the drafts' version ("AI not yet calibrated for this
    assignment", and why)."""
    if r["ready"]:
        st.caption(":material/verified: " + escape_markdown(said(r["message"])))
    elif short:
        st.warning(f"**{t(NOT_CALIBRATED)}.** " + tn("Treat its scores as a first guess: {count} students scored blind "
                                                 "so far (see Calibrate).", "Treat its scores as a first guess: "
                                                 "{count} students scored blind so far (see Calibrate).",
                                                 r["students"]), icon=":material/tune:")
    else:
        st.warning(escape_markdown(said(r["message"])), icon=":material/tune:")
    if not short and r.get("band_gap"):
        # The fairness part of the bar (issue 22): the band gap, and the group gaps where groups exist.
        gap = r["band_gap"]
        (st.warning if gap["held_back"] else st.caption)(escape_markdown(t("Band gap: {gap}", gap=said(gap["text"]))))
        for g in r.get("group_gaps") or []:
            (st.warning if g["over_bar"] else st.caption)(escape_markdown(t("Group gap, {gap}", gap=said(g["text"]))))
    if not short and (note := judges.one_family_note(_common.settings())):
        # The family rule (issue 22): judges of one family prefer their own family's writing.
        st.warning(escape_markdown(said(note)), icon=":material/diversity_3:")
    return r


def queue_notice(r: dict, waiting: int) -> None:
    """Above the review queue: readiness, and the calibration items it leaves out."""
    banner(r, short=True)
    if waiting:
        st.caption(tn("{count} item(s) of the calibration set wait for a blind score and are not in this queue: "
                      "their AI drafts stay hidden until they are scored on the Calibrate page.",
                      "{count} item(s) of the calibration set wait for a blind score and are not in this queue: "
                      "their AI drafts stay hidden until they are scored on the Calibrate page.", waiting))


def offsets(found: list[dict]) -> None:
    """Systematic offsets against the blind scores (core.calibration.offset), said plainly
    (never corrected)."""
    for o in found:
        st.info(escape_markdown(said(o["message"])), icon=":material/straighten:")


def hidden_notice() -> None:
    """For a calibration item nobody has scored blind: say why its draft is hidden, and where
    to go instead (the caller shows nothing of the draft)."""
    st.info(t(blind.HIDDEN), icon=":material/visibility_off:")
    st.page_link("pages/calibrate.py", label=t("Score it blind on Calibrate"), icon=":material/tune:")


def stratum(text: str) -> str:
    """A calibration or moderation stratum ("low band · shorter half · ell: yes") in the reader's
    language: core's parts translated (core.calibration.draw.BANDS, HALVES), a group's name and value as they are."""
    known = {*draw.BANDS, *draw.HALVES}
    return " · ".join(t(part) if part in known else part for part in (text or "").split(" · "))


def table(r: dict) -> pd.DataFrame:
    """The readiness per criterion as a teacher reads it."""
    rows = []
    for c in r["criteria"]:
        rows.append({
            t("Criterion"): c["title"], t("Students"): c["students"],
            t("QWK"): _num(c["qwk"]), t("QWK 95% CI"): _ci(c["qwk_ci"]),
            t("MAE"): _num(c["mae"]), t("MAE 95% CI"): _ci(c["mae_ci"]),
            t("Bias (AI − blind)"): _num(c["bias"], sign=True), t("Bias 95% CI"): _ci(c["bias_ci"]),
            t("ΔMAE (low − high band)"): _num(c["delta_mae"], sign=True),
            t("Human ceiling QWK"): _num(c["ceiling_qwk"]) + (
                " (" + tn("{count} double-scored", "{count} double-scored", c["ceiling_students"]) + ")"
                if c["ceiling_students"] else ""),
            t("Ready"): t("yes") if c["ready"] else t("no"),
            t("What is missing"): "; ".join(map(said, c["reasons"])) or "—",   # core's reasons (Messages)
            t("More students likely needed"): "—" if c["more_needed"] is None else str(c["more_needed"]),
        })
    return pd.DataFrame(rows)


STATUS = {"ready": N_("Ready"), "not_ready": N_("Not yet"), "no_calibration": N_("Not calibrated")}


def home(rows: list[dict]) -> None:
    """Home: which assignments the AI is calibrated for (core.calibration.readiness.course_overview),
    and how many more blind scores would likely make the interval decisive."""
    if not rows:
        return
    st.subheader(t("Calibration"))
    st.caption(t("Is the AI ready for bulk approval on each assignment? It must clear the bar on teachers' blind "
                 "scores (Calibrate page); below it, drafts say so and bulk approval is off."))
    st.dataframe(pd.DataFrame([{
        t("Assignment"): (t("Week {week}: ", week=r["week"]) if r["week"] is not None else "") + r["title"],
        t("AI ready"): t(STATUS[r["status"]]), t("Students scored blind"): r["students"],
        t("Waiting for a blind score"): r["pending"],
        t("More blind scores likely needed"): ("—" if r["ready"] else
                                               t("unknown") if r["more_needed"] is None else str(r["more_needed"])),
    } for r in rows]), hide_index=True, width="stretch")
