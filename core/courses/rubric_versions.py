"""A rubric's versions (the rubrics rows of one name), the difference between any two, and
rollback.

Rows are never changed: a rollback is a new version with the chosen version's content (marked
as restoring it), so drafts and reviews scored under any version keep their meaning, and
assignments keep the version they use until a teacher picks another. Reading is for everyone
signed in; rollback is an instructor's or admin's ("upload").

>>> a = parse_rubric({"name": "R", "scale_min": 0, "scale_max": 1, "criteria": [
...     {"key": "clarity", "title": "Clarity", "levels": {0: "Unclear", 1: "Clear"}}]})
>>> b = parse_rubric({"name": "R", "scale_min": 0, "scale_max": 1, "criteria": [
...     {"key": "clarity", "title": "Clarity", "levels": {0: "Hard to follow", 1: "Clear"},
...      "guidance": "Ignore spelling."},
...     {"key": "depth", "title": "Depth", "levels": {0: "Thin", 1: "Deep"}}]})
>>> for line in diff_lines(a, b): print(line)
Clarity — notes for graders: (none) → “Ignore spelling.”
Clarity — level 0: “Unclear” → “Hard to follow”
Depth: added
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.errors import ConflictError, NotFound
from core.language.interface import N_, Message
from core.rubric import Rubric, parse_rubric  # noqa: F401  (the doctest reads parse_rubric)
from db import audit, courses, write_transaction
from db import rubric_drafts as store

# A difference names the part that changed in these words (N_: a page translates them).
_RUBRIC_FIELDS = (("name", N_("name")), ("description", N_("description")))
_FIELDS = (("title", N_("title")), ("description", N_("what it looks at")), ("guidance", N_("notes for graders")),
           ("weight", N_("weight")), ("veto_below", N_("fails below")), ("improvement_hint", N_("advice when weak")))
# "Depth: added": a criterion added or removed as a whole
_WHOLE = {"added": N_("{criterion}: added"), "removed": N_("{criterion}: removed"), "changed": N_("{criterion}: changed")}


def _q(value) -> Message:
    return Message("(none)") if value in (None, "") else Message("“{value}”", value=value)


def diff(a: Rubric, b: Rubric) -> list[dict]:
    """What changed from a to b, criterion by criterion, level by level: [{criterion (title),
    part ("" for the rubric, else a field or "level N"), before, after, kind (added | removed |
    changed)}]: the rubric's own fields, then b's criteria in order (fields, then levels from the
    top), then a's removed criteria."""
    out: list[dict] = []
    for field, label in _RUBRIC_FIELDS:
        if getattr(a, field) != getattr(b, field):
            out.append({"criterion": "", "part": Message(label), "before": getattr(a, field), "after": getattr(b, field),
                        "kind": "changed"})
    if (a.scale_min, a.scale_max) != (b.scale_min, b.scale_max):
        out.append({"criterion": "", "part": Message("scale"), "before": f"{a.scale_min}–{a.scale_max}",
                    "after": f"{b.scale_min}–{b.scale_max}", "kind": "changed"})
    old = {c.key: c for c in a.criteria}
    for c in b.criteria:
        was = old.pop(c.key, None)
        if was is None:
            out.append({"criterion": c.title, "part": "", "before": None, "after": None, "kind": "added"})
            continue
        for field, label in _FIELDS:
            if getattr(was, field) != getattr(c, field):
                out.append({"criterion": c.title, "part": Message(label), "before": getattr(was, field),
                            "after": getattr(c, field), "kind": "changed"})
        for lvl in sorted(set(was.levels) | set(c.levels), reverse=True):
            before, after = was.levels.get(lvl), c.levels.get(lvl)
            if before != after:
                out.append({"criterion": c.title, "part": Message("level {level}", level=lvl), "before": before,
                            "after": after,
                            "kind": "added" if before is None else "removed" if after is None else "changed"})
    out += [{"criterion": c.title, "part": "", "before": None, "after": None, "kind": "removed"}
            for c in old.values()]
    return out


def diff_lines(a: Rubric, b: Rubric) -> list[Message]:
    """The difference in plain sentences, one per change ([] when the two are the same): Messages,
    which a page shows in the reader's language (the rubric's own text stays as it was written)."""
    lines = []
    for d in diff(a, b):
        before, after = _q(d["before"]), _q(d["after"])
        if not d["part"] and d["criterion"]:
            lines.append(Message(_WHOLE[d["kind"]], criterion=d["criterion"]))
        elif d["criterion"]:
            lines.append(Message("{criterion} — {part}: {before} → {after}", criterion=d["criterion"], part=d["part"],
                                 before=before, after=after))
        else:
            lines.append(Message("{part}: {before} → {after}", part=d["part"], before=before, after=after))
    return lines


def versions(conn, rubric_id: int, *, actor: Actor) -> list[dict]:
    """Every version of this rubric's name, oldest first: {id, version, created_at, restores
    (the version a rollback brought back, else None), assignments, drafts (how many use it)}."""
    access.require(actor, "read")
    return versions_of(conn, rubric_id)


def versions_of(conn, rubric_id: int) -> list[dict]:
    """`versions` for a view that checked the actor (core.courses.rubric_builder.rubrics_tab)."""
    name = courses.get_rubric(conn, rubric_id).name
    return [{**row, **store.in_use(conn, row["id"])} for row in store.versions(conn, name)]


def compare(conn, rubric_a: int, rubric_b: int, *, actor: Actor) -> list[str]:
    """The difference between two stored versions, in plain sentences."""
    access.require(actor, "read")
    return diff_lines(courses.get_rubric(conn, rubric_a), courses.get_rubric(conn, rubric_b))


def rollback(conn, rubric_id: int, *, latest: int, actor: Actor) -> tuple[int, int]:
    """Make the content of version `rubric_id` the newest version of its rubric; returns (new
    rubric id, its version). `latest` is the newest version the teacher saw: another version
    saved meanwhile is refused (ConflictError), and nothing is written."""
    access.require(actor, "upload")
    old = courses.get_rubric(conn, rubric_id)
    with write_transaction(conn):
        rows = store.versions(conn, old.name)
        if not rows:
            raise NotFound(Message("rubric {id} does not exist", id=rubric_id))
        newest = rows[-1]
        if newest["version"] != latest:
            raise ConflictError(Message("Version {version} was saved meanwhile; look at the versions again before you "
                                        "roll back.", version=newest["version"]))
        if newest["id"] == rubric_id:
            raise ConflictError(Message("Version {version} is the newest already: there is nothing to roll back.",
                                        version=old.version))
        version = newest["version"] + 1
        stored = old.model_copy(update={"version": version})
        new_id = store.add_version(conn, stored.to_json(), name=old.name, version=version,
                                   content_hash=old.model_copy(update={"version": 1}).content_hash,
                                   restores=old.version)
        audit(conn, actor=actor, action="rollback", entity="rubrics", entity_id=new_id,
              before={"version": newest["version"]}, after={"version": version, "restores": old.version})
    return new_id, version

