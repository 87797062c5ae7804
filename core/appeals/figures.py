"""Appeal and upheld rates for the Agreement and Fairness pages: per assignment, by score band
and by student group, each a share with its 95 % Wilson interval that says what it is measured
against. The appeal rate counts released results (one per student and assignment) with at least
one appeal; the upheld rate counts decided appeals whose score was changed. Appealed items are a
selected sample: these rates are the only figures they feed (never an agreement reference)."""
from __future__ import annotations

from collections import defaultdict

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.language.interface import Message
from core.metrics.proportion import share
from db import appeals, courses
from db.aggregates import NOT_RECORDED
from db.analytics import Scope

NO_RELEASE = Message("no released feedback yet")   # Messages: a page says them in the reader's language
NO_DECISION = Message("no appeal decided yet")


def _rates(rows: list[dict], unit: str) -> dict:
    """`unit`: what one row is, in the singular ("student", "released result")."""
    appealed = sum(1 for r in rows if r["appeals"])
    decided, changed = sum(r["decided"] for r in rows), sum(r["changed"] for r in rows)
    return {"released": len(rows), "appealed": appealed, "decided": decided, "upheld": changed,
            "appeal_rate": share(appealed, len(rows), unit, "appealed", empty=NO_RELEASE),
            "upheld_rate": share(changed, decided, "decided appeal", "upheld", empty=NO_DECISION)}


def appeal_rates(conn: Database, scope: Scope, *, actor: Actor) -> dict:
    """`rates_in` of a dashboard scope the actor may see."""
    return rates_in(conn, access.scope_for(conn, actor, scope))


def rates_in(conn: Database, scope: Scope) -> dict:
    """{"any" (an appeal exists in scope), "unit" (what the band and group rates count, singular),
    "by_assignment" [{assignment_id, title, week,
    released, appealed, decided, upheld, appeal_rate, upheld_rate}], "by_band" {low, high: the same
    rates}, "by_group" {attribute: [{group, ...rates}]}}. A rate is core.metrics.proportion.share.
    Bands are the released score's (the first release, before any appeal), cut as the rubric's
    low band; groups are the students' uploaded attributes, as on the Fairness page."""
    rows = appeals.rate_rows(conn, scope)
    rubrics: dict[int, object] = {}
    per_assignment: dict[int, list] = defaultdict(list)
    bands: dict[str, list] = {"low": [], "high": []}
    groups: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        per_assignment[r["assignment_id"]].append(r)
        rubric = rubrics.get(r["rubric_id"]) or rubrics.setdefault(r["rubric_id"], courses.get_rubric(conn, r["rubric_id"]))
        values = [v for k, v in r["scores"].items() if k in rubric.keys and isinstance(v, (int, float))]
        if values:
            bands["low" if rubric.low_band(sum(values) / len(values)) else "high"].append(r)
        for name, value in (r["attributes"] if isinstance(r["attributes"], dict) else {}).items():
            groups[str(name)][NOT_RECORDED if value in (None, "") else str(value)].append(r)
    unit = "student" if len(per_assignment) <= 1 else "released result"
    return {
        "any": any(r["appeals"] for r in rows), "unit": unit,
        "by_assignment": [{"assignment_id": aid, "title": part[0]["title"], "week": part[0]["week"],
                           **_rates(part, "student")} for aid, part in per_assignment.items()],
        "by_band": {band: _rates(part, unit) for band, part in bands.items()},
        "by_group": {attr: [{"group": g, **_rates(part, unit)} for g, part in sorted(by.items())]
                     for attr, by in sorted(groups.items())},
    }
