"""The calibration set of an assignment: a stratified draw of items to score blind.

Strata are the AI's predicted band (the mean of its criterion scores, low or high on the
rubric's band cut), the length (shorter or longer half of the assignment's reflections) and,
when students have group attributes, one attribute's groups. Every stratum present gets at
least one item while the size allows, the rest goes by stratum size (largest remainder);
within a stratum items are spread over ids by a multiplicative hash (deterministic, not
"the first n"). Only drafted items no teacher has opened can be drawn: a teacher who has seen
the AI's draft cannot score it blind any more.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.errors import GateError
from core.language.interface import N_, Message
from core.signoff.actions import writing
from db import calibration, courses, loads, now

DEFAULT_SIZE = 16
MAX_SIZE = 200


@dataclass
class SetState:
    items: list[dict]        # the set: {submission_id, stratum, external_id, name, word_count, raters, ...};
                             # the stratum without the AI's band until the reader scored the item (`seen_by`)
    pending: int             # items nobody has scored blind yet (their AI draft is hidden)
    scored: int              # items with at least one blind score
    double_scored: int       # items two or more teachers scored (the human ceiling)
    available: int           # items that could still be drawn


BANDS = (N_("low band"), N_("high band"))
HALVES = (N_("shorter half"), N_("longer half"))   # a stratum's parts a page translates (`t`)


def seen_by(item: dict, actor: Actor) -> dict:
    """One item of the set as `actor` may see it: the stratum names the AI's predicted band, so
    until this teacher saved their blind score it leaves the band out (length and group stay).

    >>> seen_by({"stratum": "low band · shorter half", "raters": "bob"}, Actor("ann", role="admin"))["stratum"]
    'shorter half'
    >>> seen_by({"stratum": "low band · shorter half", "raters": "ann, bob"}, Actor("ann", role="admin"))["stratum"]
    'low band · shorter half'
    """
    if str(actor) in (item["raters"] or "").split(", "):
        return item
    band, _, rest = (item["stratum"] or "").partition(" · ")
    return {**item, "stratum": rest} if band in BANDS else item


def state(conn: Database, assignment_id: int, *, actor: Actor) -> SetState:
    """The set as `actor` may see it: nothing the AI produced for an item they have not scored."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return state_of(conn, assignment_id, actor)


def state_of(conn: Database, assignment_id: int, actor: Actor) -> SetState:
    """`state` for a caller that has checked the actor (a page's view)."""
    rows = [seen_by(r, actor) for r in calibration.items(conn, assignment_id)]
    raters = [len(r["raters"].split(", ")) if r["raters"] else 0 for r in rows]
    return SetState(rows, sum(1 for k in raters if k == 0), sum(1 for k in raters if k),
                    sum(1 for k in raters if k >= 2), len(calibration.pool(conn, assignment_id)))


def strata(conn: Database, assignment_id: int, group_by: str | None = None, *, actor: Actor) -> dict[str, list[tuple[int, int]]]:
    """The drawable items by stratum: {"low band · shorter half · ell: yes": [(submission_id, draft_id)]}."""
    access.check(conn, actor, "assess", assignment=assignment_id)
    rubric = courses.assignment_rubric(conn, assignment_id)
    rows = calibration.pool(conn, assignment_id)
    if not rows:
        return {}
    median = statistics.median(r["word_count"] for r in rows)
    out: dict[str, list[tuple[int, int]]] = {}
    for r in rows:
        scores = loads(r["scores"], {}) or {}
        mean = sum(scores.values()) / len(scores) if scores else rubric.scale_min
        parts = [BANDS[0] if rubric.low_band(mean) else BANDS[1],
                 HALVES[0] if r["word_count"] <= median else HALVES[1]]
        if group_by:
            value = (loads(r["attributes"], {}) or {}).get(group_by)
            parts.append(f"{group_by}: {value if value not in (None, '') else '(not recorded)'}")
        out.setdefault(" · ".join(parts), []).append((r["submission_id"], r["draft_id"]))
    return dict(sorted(out.items()))


def allocate(sizes: dict[str, int], budget: int) -> dict[str, int]:
    """Items per stratum: one each while the budget allows (largest strata first), then the
    rest in proportion to size (largest remainder), never more than a stratum has.

    >>> allocate({"a": 10, "b": 5, "c": 1}, 8)
    {'a': 5, 'b': 2, 'c': 1}
    >>> allocate({"a": 10, "b": 5, "c": 1}, 2)
    {'a': 1, 'b': 1, 'c': 0}
    """
    order = sorted(sizes, key=lambda k: (-sizes[k], k))
    take = {k: 0 for k in sizes}
    for k in order[:budget]:
        take[k] = 1
    left = budget - sum(take.values())
    while left > 0:
        room = {k: sizes[k] - take[k] for k in sizes if sizes[k] > take[k]}
        if not room:
            break
        total = sum(room.values())
        shares = {k: left * v / total for k, v in room.items()}
        add = {k: min(room[k], math.floor(x)) for k, x in shares.items()}
        if not any(add.values()):  # fewer items left than strata with room: largest remainders
            for k in sorted(room, key=lambda k: (-(shares[k] - math.floor(shares[k])), -room[k], k))[:left]:
                add[k] = 1
        for k, v in add.items():
            take[k] += v
        left = budget - sum(take.values())
    return take


def _spread(items: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted(items, key=lambda x: ((x[0] * 2654435761) % 4294967296, x[0]))


def draw(conn: Database, assignment_id: int, *, size: int = DEFAULT_SIZE, group_by: str | None = None,
         actor: Actor) -> SetState:
    """Grow the assignment's calibration set to `size` items (items already drawn stay)."""
    access.check(conn, actor, "assess", assignment=assignment_id)
    if not 1 <= int(size) <= MAX_SIZE:
        raise GateError(Message("the calibration set size must be between 1 and {max}, not {size}", max=MAX_SIZE, size=size))
    with writing(conn):
        have = len(calibration.items(conn, assignment_id))
        need = int(size) - have
        if need > 0:
            by_stratum = strata(conn, assignment_id, group_by, actor=actor)
            if not by_stratum and not have:
                raise GateError(Message("nothing to draw: the calibration set needs drafted reflections no teacher "
                                        "has opened yet. Run Assess first (or upload scores declared as calibration)"))
            take = allocate({k: len(v) for k, v in by_stratum.items()}, need)
            picked = [(sid, did, k) for k, n in take.items() for sid, did in _spread(by_stratum[k])[:n]]
            if picked:
                calibration.add_items(conn, assignment_id, picked, actor=actor, at=now())
    return state(conn, assignment_id, actor=actor)


def skip(conn: Database, assignment_id: int, submission_id: int, *, actor: Actor) -> None:
    """Take a not-yet-scored item out of the set (e.g. the teacher knows the student's work
    too well to score it blind); its draft becomes visible again."""
    access.check(conn, actor, "calibrate", assignment=assignment_id, submission=submission_id)
    with writing(conn):
        if not calibration.remove_item(conn, assignment_id, submission_id, actor=actor):
            raise GateError(Message("submission {id} is not a pending item of this calibration set (already scored "
                                    "blind, or not in the set)", id=submission_id))
