"""Bulk approval: the confident drafts of an assignment are approved together, but only after
the teacher opened a stratified sample of them (at least one per predicted band).

Which drafts qualify is one SQL statement (db.samples); the rules around it are here: the band
cut, which check severities block, the sample size per band, and the gates of `bulk_approve`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from sqlite_utils import Database

from core.accounts import access
from core.signoff import triage
from core.accounts.access import Actor
from core.calibration import readiness
from core.calibration.draw import BANDS
from core.errors import ConflictError, GateError
from core.language.interface import Message
from core.rubric import Rubric
from core.signoff import eligibility as eligibility_rules
from core.signoff.actions import writing
from db import audit, calibration, courses, now, samples, submissions

# Checks that, when not passed, keep a draft out of bulk approval. "info" results are advisory.
BLOCKING_SEVERITIES = eligibility_rules.BLOCKING_SEVERITIES
SAMPLE_FRACTION, SAMPLE_MAX_PER_BAND = 0.1, 5


def eligibility(rubric: Rubric, *, lifted: tuple[str, ...] = (), blocked_bands: tuple[str, ...] = ()
                ) -> samples.Eligibility:
    """The band of a candidate is the predicted band of its draft's mean score."""
    divisor = 1.0 if any(c.weight for c in rubric.criteria) else float(len(rubric.criteria))
    return samples.Eligibility(divisor, rubric.band_cut, BLOCKING_SEVERITIES, lifted, blocked_bands)


def held_back(conn: Database, assignment_id: int, *, actor: Actor) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(codes of drafts.held_back the assignment lifts, bands its readiness holds back). The
    offline baseline's drafts (`offline_only`) qualify once the assignment is ready on the
    baseline's own blind agreement; the band gap of the readiness bar holds its worse band back."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return held_back_by(conn, assignment_id, readiness.readiness(conn, assignment_id, actor=actor))


def held_back_by(conn: Database, assignment_id: int, r: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`held_back` from the assignment's readiness `r`, for a caller that has checked the actor."""
    lifted = (eligibility_rules.OFFLINE_ONLY,) if r["ready"] and calibration.blind_scored_by_offline(
        conn, assignment_id) else ()
    return lifted, tuple(b for b in [r.get("held_back_band")] if b)


def _rule(conn: Database, assignment_id: int, actor: Actor) -> samples.Eligibility:
    lifted, bands = held_back(conn, assignment_id, actor=actor)
    return eligibility(courses.assignment_rubric(conn, assignment_id), lifted=lifted, blocked_bands=bands)


def _rule_by(conn: Database, assignment_id: int, held: tuple) -> samples.Eligibility:
    """The bulk-approval rule from `held_back_by`'s (lifted, bands)."""
    lifted, bands = held
    return eligibility(courses.assignment_rubric(conn, assignment_id), lifted=lifted, blocked_bands=bands)


def _sample_target(n: int) -> int:
    return min(n, max(1, min(SAMPLE_MAX_PER_BAND, math.ceil(n * SAMPLE_FRACTION))))


@dataclass
class SampleState:
    candidates: int
    by_band: dict          # band -> number of candidates
    sample: list           # [{submission_id, band, draft_id, opened_at, student_name}]
    missing: dict          # band -> how many more sampled items it needs
    unopened: list         # submission ids in the sample not opened yet
    # Sampled submissions whose draft changed since drawing (redo run, regenerate): no longer
    # part of the sample; draw_sample replaces them.
    stale: list = field(default_factory=list)

    @property
    def checked(self) -> bool:
        return self.candidates > 0 and not self.missing and not self.unopened


def sample_state(conn: Database, assignment_id: int, *, actor: Actor) -> SampleState:
    access.check(conn, actor, "read", assignment=assignment_id)
    return _sample_state_by(conn, assignment_id, _rule(conn, assignment_id, actor))


def sample_state_of(conn: Database, assignment_id: int) -> SampleState:
    """`sample_state` for a caller that has checked the actor (a page's view)."""
    return _sample_state_by(conn, assignment_id, _rule_by(conn, assignment_id, held_back_by(
        conn, assignment_id, readiness.current(conn, assignment_id))))


def _sample_state_by(conn: Database, assignment_id: int, rule: samples.Eligibility) -> SampleState:
    """`sample_state` under `rule`, for a caller that has checked the actor."""
    by_band = samples.candidates_by_band(conn, assignment_id, rule)
    # A row counts only while the sampled draft is still current (`live`).
    rows = samples.sample_rows(conn, assignment_id)
    sample = [{k: v for k, v in row.items() if k != "live"} for row in rows if row["live"]]
    stale = [row["submission_id"] for row in rows if not row["live"]]
    if rows and samples.drafted_since_draw(conn, assignment_id, rule):
        # Candidates drafted after the sample was drawn (a redo run, a regenerate) were never
        # represented in it: the batch changed, so the whole sample must be drawn again.
        stale = [row["submission_id"] for row in rows]
        sample = []
    have = {}
    for row in sample:
        have[row["band"]] = have.get(row["band"], 0) + 1
    missing = {band: _sample_target(n) - have.get(band, 0) for band, n in by_band.items()
               if _sample_target(n) > have.get(band, 0)}
    unopened = [r["submission_id"] for r in sample if not r["opened_at"]]
    return SampleState(sum(by_band.values()), by_band, sample, missing, unopened, stale)


def draw_sample(conn: Database, assignment_id: int, *, actor: Actor) -> SampleState:
    """Add items to the stratified sample until every band present among the bulk-approval
    candidates has its share (at least one). Already drawn items stay while their draft is
    current: the sample is stable; items with a new draft since (stale) are dropped and replaced."""
    access.check(conn, actor, "bulk_approve", assignment=assignment_id)
    with writing(conn):
        state = sample_state(conn, assignment_id, actor=actor)
        rule = _rule(conn, assignment_id, actor)
        if state.stale:
            samples.drop_from_sample(conn, assignment_id, state.stale)
        drawn = {}
        for band, need in state.missing.items():
            picked = samples.pick(conn, assignment_id, rule, band, need)
            samples.add_to_sample(conn, assignment_id, band, picked, actor=actor, at=now())
            drawn[band] = [i for i, _ in picked]
        if drawn or state.stale:
            audit(conn, actor=actor, action="draw_sample", entity="review_samples", entity_id=assignment_id,
                  before={"stale": state.stale} if state.stale else None, after=drawn,
                  reason="stratified sample for bulk approval"
                         + ("; items with a new draft since they were drawn were replaced" if state.stale else ""))
        return sample_state(conn, assignment_id, actor=actor)


def _band(code: str):
    """"low band" / "high band" as the calibration's strata name them (core.calibration.draw.BANDS)."""
    named = {band.split()[0]: band for band in BANDS}
    return Message(named[code]) if code in named else f"{code} band"


def bulk_approve(conn: Database, assignment_id: int, *, expected: int, actor: Actor) -> int:
    """Approve every bulk candidate at once, after the sample was opened, on an assignment where
    the AI cleared the calibration bar. `expected` is the count the teacher confirmed; if the
    set changed meanwhile nothing is approved."""
    access.check(conn, actor, "bulk_approve", assignment=assignment_id)
    with writing(conn):
        readiness.require_ready(conn, assignment_id, actor=actor)  # below the calibration bar, bulk approval is off
        state = sample_state(conn, assignment_id, actor=actor)
        if state.candidates == 0:
            raise GateError(Message("no items qualify for bulk approval (judges agreed and were sure, no failed check, "
                                    "no flag, not edited; each item on the Review page says what holds it back)"))
        if state.missing:
            raise GateError(Message("draw the sample first: every band needs at least one sampled item (missing: "
                                    "{bands})", bands=Message.joined(", ", [Message.joined("", [_band(b), f" ({n})"])
                                                            for b, n in state.missing.items()])))
        if state.unopened:
            raise GateError(Message.plural(
                "open the sampled items first: {count} of {sample} not opened yet (submissions {ids})",
                "open the sampled items first: {count} of {sample} not opened yet (submissions {ids})",
                len(state.unopened), sample=len(state.sample), ids=", ".join(map(str, state.unopened))))
        if state.candidates != expected:
            raise ConflictError(Message("the number of items changed from {expected} to {now} since you confirmed; "
                                        "nothing was approved. Check and confirm again.", expected=expected,
                                        now=state.candidates))
        ids = samples.approve_candidates(
            conn, assignment_id, _rule(conn, assignment_id, actor), actor=actor, at=now(),
            reason=f"bulk approval of {expected} items after a stratified sample of {len(state.sample)}")
        submissions.set_status_many(conn, ids, "approved", triage.APPROVED)
    return len(ids)
