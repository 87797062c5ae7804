"""The AI/reference pairs a dashboard compares: the criteria in scope and one rubric scale.

db.analytics returns counts with each pair's rubric id; the rubrics themselves (scale, band
cut, criterion titles) come from `db.courses.get_rubric`.
"""
from __future__ import annotations

import pandas as pd
from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.language.interface import N_, Message
from db import analytics, courses

EMPTY_MESSAGE = N_("No reference scores yet — upload expert scores, or score a calibration set blind on the "
                   "Calibrate page.")
REFERENCE_LABELS = {
    "auto": N_("expert scores where uploaded, else the moderator's settled scores, else blind calibration scores"),
    "expert": N_("uploaded expert scores (mean of raters)"),
    "blind": N_("blind calibration scores (given before seeing the AI draft)"),
    "teacher": N_("teachers' approved scores, after seeing the AI draft (bulk approvals never count)"),
}


def reference_label(reference: str) -> str:
    """What a reference choice compares with, in a teacher's words (a Message: a page shows it
    in the reader's language; a reference no table names reads as it is)."""
    if reference.startswith("rater:"):
        return Message("expert rater {rater} only", rater=reference.removeprefix("rater:"))
    return Message(REFERENCE_LABELS[reference]) if reference in REFERENCE_LABELS else reference


def empty_message(reference: str) -> str:
    if reference == "teacher":
        return Message("No teacher-approved scores yet (approvals one by one; bulk approvals never count).")
    if reference == "blind":
        return Message("No blind calibration scores yet — score a calibration set on the Calibrate page.")
    return Message(EMPTY_MESSAGE)


def criteria(conn: Database, scope: analytics.Scope, *, actor: Actor) -> list[str]:
    """Criterion keys of the rubrics used by the assignments in scope, in rubric order."""
    return criteria_in(conn, access.scope_for(conn, actor, scope))


def criteria_in(conn: Database, scope: analytics.Scope) -> list[str]:
    """`criteria` of a scope access.scope_for has already checked."""
    keys: list[str] = []
    for rid in analytics.rubric_ids(conn, scope):
        keys += [k for k in courses.get_rubric(conn, rid).keys if k not in keys]
    return keys


def criterion_titles(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict[str, str]:
    """{criterion key: the rubric's title} for the rubrics in scope: what a page shows instead of a key."""
    return titles_in(conn, access.scope_for(conn, actor, scope))


def titles_in(conn: Database, scope: analytics.Scope) -> dict[str, str]:
    """`criterion_titles` of a scope access.scope_for has already checked."""
    return {c.key: c.title for rid in analytics.rubric_ids(conn, scope) for c in courses.get_rubric(conn, rid).criteria}


def titled(frame: pd.DataFrame, titles: dict[str, str], column: str = "criterion") -> pd.DataFrame:
    """The frame with its criterion keys shown as the rubric's titles (a key no rubric names, as
    words; "All criteria" and other labels unchanged).

    >>> titled(pd.DataFrame({"criterion": ["clarity", "old_key", "All criteria"]}), {"clarity": "Clarity"})
    ... # doctest: +NORMALIZE_WHITESPACE
          criterion
    0       Clarity
    1       Old key
    2  All criteria
    """
    if column not in frame.columns:
        return frame
    return frame.assign(**{column: frame[column].map(lambda k: title_of(titles, k))})


def title_of(titles: dict[str, str], key) -> str:
    key = str(key)
    return titles.get(key) or (key.replace("_", " ").capitalize() if "_" in key else key)


def pick_scale(conn: Database, table: pd.DataFrame) -> tuple[pd.DataFrame, dict, list[str]]:
    """Keep the pairs on the scale with the most pairs; say so when others exist.

    Kappa and bands only make sense on one scale, and a scope may mix rubrics. Returns (pairs
    on that scale, {"lo", "hi", "cut", "levels", "titles" {criterion: title}}, notes).
    """
    notes = []
    if table.empty:
        return table, {}, notes
    rubrics = {rid: courses.get_rubric(conn, int(rid)) for rid in table["rubric_id"].unique()}
    scale_of = {rid: (r.scale_min, r.scale_max) for rid, r in rubrics.items()}
    table = table.assign(_scale=table["rubric_id"].map(scale_of))
    sizes = table.groupby("_scale")["n"].sum().sort_values(ascending=False)
    chosen = sizes.index[0]
    if len(sizes) > 1:
        others = [Message.plural("{lo}–{hi} ({count} pairs)", "{lo}–{hi} ({count} pairs)", int(n), lo=lo, hi=hi)
                  for (lo, hi), n in sizes.iloc[1:].items()]
        notes.append(Message.plural("This scope mixes rubric scales; showing the {lo}–{hi} scale ({count} pairs). "
                                    "Not shown: {others} — pick one assignment to see them.",
                                    "This scope mixes rubric scales; showing the {lo}–{hi} scale ({count} pairs). "
                                    "Not shown: {others} — pick one assignment to see them.",
                                    int(sizes.iloc[0]), lo=chosen[0], hi=chosen[1], others=listed(others)))
    kept = table[table["_scale"] == chosen].drop(columns="_scale")
    rubric = next(r for rid, r in rubrics.items() if scale_of[rid] == chosen)
    info = {"lo": chosen[0], "hi": chosen[1], "cut": rubric.band_cut, "levels": rubric.levels,
            "titles": {c.key: c.title for r in rubrics.values() for c in r.criteria}}
    return kept.reset_index(drop=True), info, notes


def listed(messages: list) -> str:
    """Messages joined with ", ", as one Message a page translates part by part.

    >>> listed([Message("a"), Message("b"), Message("c")]), listed([Message("a")]).msgid
    ('a, b, c', 'a')
    """
    head, *rest = messages
    return Message("{first}, {rest}", first=head, rest=listed(rest)) if rest else head


def collapse(table: pd.DataFrame, keep: list[str]) -> pd.DataFrame:
    """Counts summed over every column but `keep`, ai and reference."""
    return table.groupby(keep + ["ai", "reference"], as_index=False, sort=False)["n"].sum()
