"""The moderation sample of an assignment: the draw, its state, the marks that differ and the
release gate (rules in core.moderation's docstring)."""
from __future__ import annotations

import math
import random

from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.calibration.draw import BANDS, allocate
from core.errors import GateError
from core.language.interface import N_, Message
from core.moderation import TOLERANCE
from core.signoff.actions import writing
from db import courses, loads, now
from db import moderation as mod_db

MAX_SIZE = 500
NO_FIRST = "no first marker yet"


def _target(size, share, have: int, pool: int) -> int:
    if (size is None) == (share is None):
        raise GateError(Message("give the sample's size or its share of the assignment (one of them, not both)"))
    if size is not None:
        if not 1 <= int(size) <= MAX_SIZE:
            raise GateError(Message("the moderation sample's size must be between 1 and {limit}, not {size}",
                                    limit=MAX_SIZE, size=size))
        return int(size)
    if not 0 < float(share) <= 1:
        raise GateError(Message("the share must be more than 0 and at most 1 (0.1 is one item in ten), not {share}",
                                share=share))
    return max(1, math.ceil(float(share) * (have + pool)))


def _stratum(rubric, row: dict) -> str:
    scores = loads(row["scores"], {}) or {}
    mean = sum(scores.values()) / len(scores) if scores else rubric.scale_min
    first = f"first marker {row['first_marker']}" if row["first_marker"] else NO_FIRST
    return f"{BANDS[0] if rubric.low_band(mean) else BANDS[1]} · {first}"


def draw(conn: Database, assignment_id: int, *, size: int | None = None, share: float | None = None, seed: int = 0,
         actor: Actor) -> dict:
    """Grow the assignment's moderation sample to `size` items (or `share` of its items; items
    already drawn stay) and give each a second marker. {"sample": [{submission_id, stratum,
    second_marker}]}: the whole sample, in drawing order."""
    course_id = access.check(conn, actor, "moderate", assignment=assignment_id)
    rubric = courses.assignment_rubric(conn, assignment_id)
    with writing(conn):
        have, pool = mod_db.items(conn, assignment_id), mod_db.drawable(conn, assignment_id)
        need = _target(size, share, len(have), len(pool)) - len(have)
        if need > 0:
            if not pool:
                raise GateError(Message("nothing to draw: the sample needs items the AI has drafted that are not "
                                        "released yet. Run Assess first"))
            markers = mod_db.course_markers(conn, course_id)
            by_stratum: dict[str, list[dict]] = {}
            for row in pool:
                by_stratum.setdefault(_stratum(rubric, row), []).append(row)
            take = allocate({k: len(v) for k, v in sorted(by_stratum.items())}, need)
            rng = random.Random(seed)
            picked = [row for k in sorted(take) for row in rng.sample(by_stratum[k], take[k])]
            load = {m: sum(1 for h in have if h["second_marker"] == m) for m in markers}
            rows = []
            for row in picked:
                second = _second_marker(load, row["first_marker"], rng)
                if second is None:
                    raise GateError(Message("no second marker for an item first marked by {marker}: grant another "
                                            "instructor or teaching assistant this course (Users page); nothing was "
                                            "drawn", marker=row["first_marker"] or Message("nobody yet")))
                load[second] += 1
                rows.append((row["submission_id"], _stratum(rubric, row), row["first_marker"], second))
            mod_db.add_items(conn, assignment_id, rows, actor=actor, at=now())
    return {"sample": [{"submission_id": i["submission_id"], "stratum": i["stratum"],
                        "second_marker": i["second_marker"]} for i in mod_db.items(conn, assignment_id)]}


def _second_marker(load: dict[str, int], first: str | None, rng: random.Random) -> str | None:
    """The least-loaded marker who is not the first marker (ties drawn with the seed)."""
    free = [m for m in load if m != first]
    if not free:
        return None
    least = min(load[m] for m in free)
    return rng.choice(sorted(m for m in free if load[m] == least))


def withdraw(conn: Database, submission_id: int, *, actor: Actor) -> None:
    """Take an item out of the sample before its second mark (its second marker left, or knows
    the student's work too well): its release no longer waits for it."""
    access.check(conn, actor, "moderate", submission=submission_id)
    with writing(conn):
        if not mod_db.remove_item(conn, submission_id, actor=actor):
            raise GateError(Message("submission {id} is not an item of a moderation sample waiting for its second "
                                    "mark (already marked, or not drawn)", id=submission_id))


def differs(first: dict | None, second: dict | None) -> bool:
    """Whether two marks need the moderator: some criterion more than TOLERANCE levels apart.

    >>> differs({"a": 1, "b": 3}, {"a": 2, "b": 3}), differs({"a": 1}, {"a": 3}), differs(None, {"a": 3})
    (False, True, False)
    """
    if not first or not second:
        return False
    return any(abs(first[k] - second[k]) > TOLERANCE for k in second if k in first)


def state_of(rows: list[dict]) -> dict:
    """{"drawn", "marked" (second mark committed), "differing" (both marks, more than a level
    apart somewhere, or settled), "settled"} of sample rows (db.moderation.items)."""
    differing = [r for r in rows if r["settled"] or differs(r["first_scores"], r["second_scores"])]
    return {"drawn": len(rows), "marked": sum(1 for r in rows if r["second_scores"]),
            "differing": len(differing), "settled": sum(1 for r in differing if r["settled"])}


def status(conn: Database, assignment_id: int, *, actor: Actor) -> dict:
    """The sample's counts: {"drawn", "marked", "differing", "settled"} (no marks, no names)."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return state_of(mod_db.items(conn, assignment_id))


def waiting(row: dict) -> str | None:
    """Why an approved item of the sample may not be released yet, or None."""
    if not row["second_scores"]:
        return Message("waits for its second mark (by {marker})", marker=row["second_marker"])
    if differs(row["first_scores"], row["second_scores"]) and not row["settled"]:
        return Message("its two marks differ by more than a level: it waits for the moderator's settlement")
    # Before its first release only: later changes (an appeal's) go out as any change does.
    settled = row["settled"] or {}
    if not row["released_before"] and any((row["first_scores"] or {}).get(k) != v["score"] for k, v in settled.items()):
        return Message("was changed after the moderator's settlement: it waits until its scores are the settled "
                       "ones again (the moderator's final scores are the ones released)")
    return None


def release_gate(conn: Database, assignment_id: int) -> list[tuple[str, bool, str]]:
    """The release gate (core.signoff.release.gates_of): every approved, unreleased item of the
    sample has its second mark and, where the marks differ, its settlement. [(name, ok, detail)],
    empty when the assignment has no moderation sample."""
    rows = mod_db.items(conn, assignment_id)
    if not rows:
        return []
    held = [(r["submission_id"], why) for r in rows
            if r["review_status"] == "approved" and r["status"] == "approved" and (why := waiting(r))]
    name = N_("Moderation sample marked and settled")
    if not held:
        return [(name, True, Message("every moderated item about to be released is marked twice and settled where "
                                     "needed"))]
    return [(name, False, Message.joined("; ", [Message("submission {id} {why}", id=sid, why=why)
                                                for sid, why in held]))]
