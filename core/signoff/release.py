"""Release: the gates an assignment must pass, then every approved, unreleased item is released
and its review version locked (db.releases.lock_approved); then their grades go to the LMS
when the assignment is linked to one (core.lti.grades.post_released)."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlite_utils import Database

from core.accounts import access
from core.signoff import triage
from core.accounts.access import Actor
from core.errors import ConflictError, GateError
from core.language.interface import N_, Message
from core.lti import grades
from core.moderation import sample as moderation_sample
from core.signoff import anchored_notes
from core.signoff.actions import writing
from core.signoff.bulk import sample_state, sample_state_of
from core.students import links as student_links
from db import appeals, audit, courses, exports, now, releases, submissions
from db import users as users_db

log = logging.getLogger(__name__)


@dataclass
class Gate:
    name: str      # marked with N_: a page shows t(name)
    ok: bool
    detail: str    # a core.language.interface.Message: a page shows said(detail)


SAMPLE_GATE = N_("Bulk-approval sample checked")


def release_gates(conn: Database, assignment_id: int, *, actor: Actor) -> list[Gate]:
    """The conditions a release must meet. Having nothing approved to release is not a gate
    that failed (right after a release there is simply nothing left): `release` refuses it and
    the page says so plainly."""
    access.check(conn, actor, "read", assignment=assignment_id)
    return gates_of(conn, assignment_id, lambda: sample_state(conn, assignment_id, actor=actor))


def gates_of(conn: Database, assignment_id: int, sampled=None) -> list[Gate]:
    """`release_gates` for a caller that has checked the actor (a page's view); `sampled` gives
    the bulk-approval sample's state (default core.signoff.bulk.sample_state_of)."""
    ov = releases.release_overview(conn, assignment_id)
    gates = [
        Gate(N_("No item needing attention left unreviewed"), ov.needs_attention == 0,
             Message("all items that needed attention were approved or rejected") if ov.needs_attention == 0
             else Message.plural("{count} item(s) needing attention still wait for a decision",
                                 "{count} item(s) needing attention still wait for a decision", ov.needs_attention)),
    ]
    if ov.bulk_approved_unreleased:
        state = sampled() if sampled else sample_state_of(conn, assignment_id)
        ok = bool(state.sample) and not state.unopened
        gates.append(Gate(SAMPLE_GATE, ok, Message.plural(
            "{sampled} sampled item(s) opened before {count} bulk approval(s)",
            "{sampled} sampled item(s) opened before {count} bulk approval(s)", ov.bulk_approved_unreleased,
            sampled=len(state.sample)) if ok else Message.plural(
            "{count} sampled item(s) not opened", "{count} sampled item(s) not opened", len(state.unopened))))
    else:
        gates.append(Gate(SAMPLE_GATE, True, Message("no bulk approvals in this release")))
    gates += [Gate(*g) for g in moderation_sample.release_gate(conn, assignment_id)]   # none without a sample
    return gates


def release_page(conn: Database, assignment_id: int, *, actor: Actor, include_approved: bool = False) -> dict:
    """What the Release page shows, read with one check of the actor: {"assignment", "may" (the
    actions the actor may do in the course), "overview" (db.releases.release_overview), "gates",
    "exportable" (items an export holds; `include_approved`: approved ones not released yet too),
    "history" (the releases), "people" (display names), "lms" (grades sent to the LMS and those
    waiting, core.lti.grades.release_view_of; None when the assignment sends none)}. Releasing and exporting check on their own."""
    course_id = access.check(conn, actor, "read", assignment=assignment_id)
    return {"assignment": courses.get_assignment(conn, assignment_id), "may": access.allowed(actor, course_id),
            "overview": releases.release_overview(conn, assignment_id), "gates": gates_of(conn, assignment_id),
            "exportable": exports.exportable_count(conn, assignment_id, include_approved=include_approved),
            "history": releases.releases_of(conn, assignment_id), "people": users_db.display_names(conn),
            "lms": grades.release_view_of(conn, assignment_id, names=access.sees_names(actor, course_id))}


def release(conn: Database, assignment_id: int, *, actor: Actor, note: str = "", expected: int | None = None,
            only: list[int] | None = None, base_url: str | None = None) -> dict:
    """Release every approved, unreleased item of the assignment and lock those versions.
    `expected` is the number the teacher saw on the button: if it changed meanwhile (a colleague
    approved or reopened an item) nothing is released. `only`: release just these submissions
    (an appeal's changed score, core.appeals), through the same gates. A release that carries an
    appeal's change marks it (the student then sees the outcome); an item whose appeal is still
    open stays first in the review queue. In the same transaction each released item gets a
    fresh private link for its student (core.students.links; `base_url`: the address the links
    start with, else FAIRMARK_PUBLIC_URL): "links" in the result is the only time their tokens
    exist in plain, so the caller hands them to this release's exports and the LMS. The item's
    earlier links and their students' sessions keep working (the student who appealed sees the
    outcome with the link they have); only a fresh mint on request revokes them."""
    access.check(conn, actor, "release", assignment=assignment_id)
    with writing(conn):
        waiting = releases.release_overview(conn, assignment_id).approved_unreleased
        if only is not None:
            waiting = releases.approved_among(conn, assignment_id, only)
        if not waiting:
            raise GateError(Message("nothing to release: no approved item waits for release (approve items on the "
                                    "Review page first)"))
        if expected is not None and expected != waiting:
            raise ConflictError(Message("the number of approved items changed from {expected} to {now} since the "
                                        "page was shown; nothing was released. Check the list and release again.",
                                        expected=expected, now=waiting))
        failed = [g for g in release_gates(conn, assignment_id, actor=actor) if not g.ok]
        if failed:
            raise GateError(Message("release refused: {gates}", gates=Message.joined("; ", [
                Message.joined(" — ", [Message(g.name), g.detail]) for g in failed])))
        at = now()
        rel_id, ids = releases.lock_approved(conn, assignment_id, actor=actor, at=at, note=note, only=only)
        submissions.set_status_many(conn, ids, "released", triage.RELEASED)
        submissions.set_status_many(conn, appeals.open_among(conn, ids), "released", triage.APPEALS)
        appeals.mark_released(conn, ids, rel_id)
        anchored_notes.lock(conn, rel_id, ids)   # the kept notes on the text, as released
        audit(conn, actor=actor, action="release", entity="releases", entity_id=rel_id,
              after={"assignment_id": assignment_id, "n_items": len(ids)}, reason=note)
        minted = student_links.mint_in(conn, assignment_id, ids, actor=actor, from_release=rel_id, base=base_url)
    urls = {m["submission_id"]: m["url"] for m in minted}
    return {"release_id": rel_id, "n_items": len(ids), "released_at": at, "links": minted,
            "lms": _to_lms(conn, assignment_id, ids, actor, urls)}


def _to_lms(conn: Database, assignment_id: int, ids: list[int], actor: Actor, urls: dict) -> dict:
    """The released items' grades to the LMS, after the release committed: what could not be
    sent waits for its retry (core.lti.grades) and never undoes the release."""
    try:
        return grades.post_released(conn, assignment_id, ids, actor=actor, links=urls)
    except Exception as e:  # noqa: BLE001  (the release stands whatever the passback does)
        log.exception("grade passback after release of assignment %s", assignment_id)
        return {"linked": True, "error": f"the grades could not be sent to the LMS ({e}); the release stands"}
