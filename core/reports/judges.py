"""The Agreement page's "Judges" section: the cascade's judge agreement per assignment and
criterion (core.judging.agreement), each judge against the teachers' blind calibration scores
and the uploaded expert scores, and the rule's mark on each assignment."""
from __future__ import annotations

from collections import Counter

import pandas as pd
from sqlite_utils import Database

from core.accounts import access
from core.accounts.access import Actor
from core.judging import agreement
from core.language.interface import Message
from db import analytics, votes

NO_BLIND = Message("No blind calibration scores in this scope yet (the Calibrate page): the judges' agreement with "
                   "the teachers' blind scores appears once there are some.")


def judge_agreement_view(conn: Database, scope: analytics.Scope, *, actor: Actor) -> dict:
    """{"available", "message", "alpha" (assignment x criterion: items, alpha, verdict), "judges"
    (per judge: votes and agreement with blind and expert scores), "marks" (the stored rule per
    assignment), "notes"}. Cached until the data change."""
    return judge_agreement_in(conn, access.scope_for(conn, actor, scope))


def judge_agreement_in(conn: Database, scope: analytics.Scope) -> dict:
    """`judge_agreement_view` of a scope access.scope_for has already checked."""
    def compute() -> dict:
        rows = votes.current(conn, scope)
        if not rows:
            return {"available": False, "message": Message("No judge votes yet: they are recorded when a language "
                                                           "model scores (not by the offline baseline).")}
        titles = {m["assignment_id"]: m["title"] for m in votes.agreement_marks(conn, scope)}
        table = []
        for aid in sorted({r["assignment_id"] for r in rows}):
            per = agreement.alpha_by_criterion([r for r in rows if r["assignment_id"] == aid])
            for criterion, a in per.items():
                table.append({"assignment": titles.get(aid, f"assignment {aid}"), "criterion": criterion,
                              "items": a["items"], "alpha": a["alpha"],
                              "verdict": agreement.VERDICTS[agreement.verdict(a["alpha"], a["items"])]})
        blind = votes.blind_scores(conn, scope)
        vs_blind = agreement.judges_vs_reference(rows, blind)
        vs_expert = agreement.judges_vs_reference(rows, votes.expert_scores(conn, scope))
        judges = []
        for judge in sorted({r["judge"] for r in rows}):
            b, e = vs_blind.get(judge, {}), vs_expert.get(judge, {})
            judges.append({"judge": judge, "votes": sum(r["judge"] == judge for r in rows),
                           "blind_n": b.get("n", 0), "blind_exact": b.get("exact"), "blind_mae": b.get("mae"),
                           "expert_n": e.get("n", 0), "expert_exact": e.get("exact"), "expert_mae": e.get("mae")})
        n_items = sum(n >= 2 for n in Counter((r["submission_id"], r["criterion"]) for r in rows).values())
        notes = [Message.plural("Krippendorff's alpha (ordinal) is computed on every item with two or more votes "
                                "({count} criterion scores here): the items the first judge could not settle alone, "
                                "so the hard ones.",
                                "Krippendorff's alpha (ordinal) is computed on every item with two or more votes "
                                "({count} criterion scores here): the items the first judge could not settle alone, "
                                "so the hard ones.", n_items)]
        if not blind:
            notes.append(NO_BLIND)
        return {"available": True, "message": "", "alpha": pd.DataFrame(table), "judges": pd.DataFrame(judges),
                "marks": votes.agreement_marks(conn, scope), "notes": notes}

    return analytics.memo(conn, ("judge_agreement", scope), compute)
