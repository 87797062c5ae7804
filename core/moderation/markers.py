"""Markers: who marks which item (by section or at random, per assignment) and each marker's
figures against the consensus (rules in core.moderation's docstring)."""
from __future__ import annotations

import random

import pandas as pd
from sqlite_utils import Database

from core import metrics
from core.accounts import access
from core.accounts.access import Actor
from core.errors import FairMarkError, Forbidden, GateError
from core.language.interface import N_, Message
from core.signoff.actions import writing
from db import courses, now
from db import moderation as mod_db

HOW = ("section", "random")
SECTION = "section"       # the student attribute "by section" reads
N_BOOT = 1000


def assign(conn: Database, assignment_id: int, *, how: str, markers=None, seed: int = 0, actor: Actor) -> dict:
    """Assign every item of the assignment to a marker, replacing any earlier assignment.
    "section": `markers` maps each section (the students' "section" attribute) to a marker;
    "random": `markers` lists the markers (default: the course's instructors and teaching
    assistants), dealt in turn over the items in a seeded random order. {"assigned": {marker: n}}."""
    course_id = access.check(conn, actor, "moderate", assignment=assignment_id)
    if how not in HOW:
        raise FairMarkError(Message("assign markers by section or at random, not {how!r}", how=how))
    known = set(mod_db.course_markers(conn, course_id))
    items = mod_db.assignable(conn, assignment_id)
    if how == "section":
        plan = dict(markers or {})
        sections = {str(i["attributes"].get(SECTION, "")) for i in items}
        missing = sorted(s for s in sections if s not in plan)
        if missing:
            raise GateError(Message("give a marker for every section; none for: {sections}", sections=Message.joined(
                ", ", [s or Message("(no section)") for s in missing])))
        pairs = [(i["submission_id"], plan[str(i["attributes"].get(SECTION, ""))]) for i in items]
    else:
        names = list(markers or sorted(known))
        if not names:
            raise GateError(Message("no markers: grant instructors or teaching assistants this course first (Users "
                                    "page)"))
        order = [i["submission_id"] for i in items]
        random.Random(seed).shuffle(order)
        pairs = [(sid, names[k % len(names)]) for k, sid in enumerate(order)]
    strangers = sorted({m for _, m in pairs} - known)
    if strangers:
        raise GateError(Message("not a marker of this course: {names} (markers are the instructors and teaching "
                                "assistants granted the course)", names=", ".join(strangers)))
    with writing(conn):
        mod_db.assign_markers(conn, assignment_id, pairs, how, actor=actor, at=now())
    counts: dict[str, int] = {}
    for _, m in pairs:
        counts[m] = counts.get(m, 0) + 1
    return {"assigned": dict(sorted(counts.items()))}


def marks_of(row: dict) -> tuple[dict, dict, dict | None] | None:
    """(first mark, second mark, settled final or None) of a twice-marked item (as marked, before
    a settlement changed the review)."""
    if row["settled"]:
        s = row["settled"]
        return ({k: v["first"] for k, v in s.items()}, {k: v["second"] for k, v in s.items()},
                {k: v["score"] for k, v in s.items()})
    if row["first_scores"] and row["second_scores"]:
        return row["first_scores"], row["second_scores"], None
    return None


# The interval's two ends when it spans both sides ((lower end below 0, upper end below 0) -> words).
_SPANS = {(True, False): N_("95 % interval from {lo} lower to {hi} higher"),
          (True, True): N_("95 % interval from {lo} lower to {hi} lower"),
          (False, False): N_("95 % interval from {lo} higher to {hi} higher"),
          (False, True): N_("95 % interval from {lo} higher to {hi} lower")}


def _interval_words(bias: float, ci) -> str:
    if ci is None:
        return Message("no interval yet")
    lo, hi = ci
    if bias < 0 and hi <= 0:
        return Message("95 % interval {lo}–{hi}", lo=f"{-hi:.1f}", hi=f"{-lo:.1f}")
    if bias >= 0 and lo >= 0:
        return Message("95 % interval {lo}–{hi}", lo=f"{lo:.1f}", hi=f"{hi:.1f}")
    return Message(_SPANS[lo < 0, hi < 0], lo=f"{abs(lo):.1f}", hi=f"{abs(hi):.1f}")


def sentence(title: str, bias: float, ci, students: int) -> str:
    """A marker's severity on one criterion in a teacher's words (a Message: a page translates it).

    >>> sentence("Reflection depth", -0.4, [-0.6, -0.2], 38)
    'marks Reflection depth 0.4 lower than the consensus, 95 % interval 0.2–0.6, on 38 students'
    """
    if round(bias, 1) == 0:
        how = Message("the same as the consensus on average")
    elif bias < 0:
        how = Message("{difference} lower than the consensus", difference=f"{abs(bias):.1f}")
    else:
        how = Message("{difference} higher than the consensus", difference=f"{abs(bias):.1f}")
    return Message.plural("marks {title} {how}, {interval}, on {count} student",
                          "marks {title} {how}, {interval}, on {count} students", students,
                          title=title, how=how, interval=_interval_words(bias, ci))


def _severity(rows: list[tuple], rubric_titles: dict, lo_hi: dict, seed: int) -> list[dict]:
    """rows: (criterion, rubric_id, student, mine, consensus) -> per criterion figures."""
    out = []
    frame = pd.DataFrame(rows, columns=["criterion", "rubric_id", "student", "ai", "reference"])
    for crit, part in frame.groupby("criterion", sort=True):
        lo, hi = lo_hi[int(part["rubric_id"].iloc[0])]
        table = metrics.pair_counts(part["ai"], part["reference"], keys={"student": part["student"]})
        a = metrics.agreement(table, lo, hi)
        ci = metrics.agreement_cis(table, lo, hi, n_boot=N_BOOT, seed=seed, which=("bias",))["bias"]
        students = int(part["student"].nunique())
        title = rubric_titles.get(crit, crit)
        out.append({"criterion": crit, "title": title, "difference": a["bias"], "interval": ci, "n": a["n"],
                    "students": students, "text": sentence(title, a["bias"], ci, students)})
    return out


def _edits(rows: list[dict], lo_hi: dict, seed: int) -> dict:
    """How often a marker changed the AI's scores, in which direction, and their agreement with it
    (the share of criterion scores equal to the AI's, with an interval that resamples students)."""
    raised = lowered = changed = 0
    pairs = []
    for r in rows:
        diffs = [r["mine"][k] - r["ai"][k] for k in r["mine"] if isinstance(r["ai"].get(k), (int, float))]
        raised += sum(d > 0 for d in diffs)
        lowered += sum(d < 0 for d in diffs)
        changed += any(diffs)
        pairs += [(r["ai"][k], r["mine"][k], r["student_id"], r["rubric_id"]) for k in r["mine"] if k in r["ai"]]
    exact = ci = None
    students = len({p[2] for p in pairs})
    if pairs:
        exact = sum(a == m for a, m, _, _ in pairs) / len(pairs)
        lo = min(lo_hi[p[3]][0] for p in pairs if p[3] in lo_hi) if any(p[3] in lo_hi for p in pairs) else 0
        hi = max(lo_hi[p[3]][1] for p in pairs if p[3] in lo_hi) if any(p[3] in lo_hi for p in pairs) else 3
        table = metrics.pair_counts(pd.Series([p[0] for p in pairs]), pd.Series([p[1] for p in pairs]),
                                    keys={"student": pd.Series([p[2] for p in pairs])})
        ci = metrics.agreement_cis(table, lo, hi, n_boot=N_BOOT, seed=seed, which=("exact",))["exact"]
    return {"items": len(rows), "changed": changed, "raised": raised, "lowered": lowered, "exact_with_ai": exact,
            "exact_interval": ci, "students": students, "text": _edits_text(len(rows), changed, raised, lowered,
                                                                              exact, ci, students)}


def _edits_text(items: int, changed: int, raised: int, lowered: int, exact, ci, students: int) -> str:
    """The edits' sentence, a Message (its parts too: a page translates them)."""
    if not items:
        return Message("has approved no item one by one yet")
    if exact is None:
        same = ""
    elif ci:
        same = Message.plural("; same score as the AI on {share} of criteria (95 % interval {lo}–{hi}, on {count} "
                              "student)",
                              "; same score as the AI on {share} of criteria (95 % interval {lo}–{hi}, on {count} "
                              "students)", students, share=f"{exact:.0%}", lo=f"{ci[0]:.0%}", hi=f"{ci[1]:.0%}")
    else:
        same = Message.plural("; same score as the AI on {share} of criteria (on {count} student; no interval: too "
                              "few students or no variation between them)",
                              "; same score as the AI on {share} of criteria (on {count} students; no interval: too "
                              "few students or no variation between them)", students, share=f"{exact:.0%}")
    return Message.plural("changes the AI's scores on {changed} of {count} item approved one by one (raised {raised}, "
                          "lowered {lowered} criterion scores){same}",
                          "changes the AI's scores on {changed} of {count} items approved one by one (raised "
                          "{raised}, lowered {lowered} criterion scores){same}", items, changed=changed,
                          raised=raised, lowered=lowered, same=same)


def figures(conn: Database, course_id: int, *, marker: str | None = None, seed: int = 0, actor: Actor) -> dict:
    """Each marker's figures in the course: {"markers": [{marker, severity [{criterion, title,
    difference (mine - consensus), interval, n, students, text}], edits {items, changed, raised,
    lowered, exact_with_ai, text}}]}. Coordinators and admins see every marker (or `marker`);
    anyone else only their own: asking for another marker's figures is refused."""
    access.check(conn, actor, "read", course=course_id)
    moderator = "moderate" in access.allowed(actor, course_id)
    if not moderator:
        if marker not in (None, str(actor)):
            raise Forbidden(Message("You may see only your own marking figures; a coordinator sees every marker's."))
        marker = str(actor)
    items = mod_db.course_items(conn, course_id)
    rubrics = {rid: courses.get_rubric(conn, rid) for rid in {r["rubric_id"] for r in items}}
    # A settlement rewrote the review: the marker's own mark is the first mark it kept.
    as_marked = {r["submission_id"]: {k: v["first"] for k, v in r["settled"].items()} for r in items if r["settled"]}
    edits = [{**e, "mine": {**e["mine"], **as_marked.get(e["submission_id"], {})}}
             for e in mod_db.marker_edits(conn, course_id)]
    for rid in {e["rubric_id"] for e in edits} - set(rubrics):
        rubrics[rid] = courses.get_rubric(conn, rid)
    titles = {c.key: c.title for r in rubrics.values() for c in r.criteria}
    lo_hi = {rid: (r.scale_min, r.scale_max) for rid, r in rubrics.items()}
    per: dict[str, list[tuple]] = {}
    for row in items:
        marks = marks_of(row)
        if marks is None:
            continue
        first, second, settled = marks
        for who, mine, other in ((row["first_marker"], first, second), (row["second_marker"], second, first)):
            if not who:
                continue
            consensus = settled or other
            per.setdefault(who, []).extend((k, row["rubric_id"], row["student_id"], v, consensus[k])
                                           for k, v in mine.items() if k in consensus)
    names = sorted(set(per) | {e["marker"] for e in edits} | set(mod_db.course_markers(conn, course_id)))
    if marker is not None:
        names = [marker]
    out = []
    for name in names:
        rows = per.get(name, [])
        out.append({"marker": name, "severity": _severity(rows, titles, lo_hi, seed) if rows else [],
                    "edits": _edits([e for e in edits if e["marker"] == name], lo_hi, seed)})
    return {"markers": out}

