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
from core.rubric import Rubric, parse_rubric  # noqa: F401  (the doctest reads parse_rubric)
from db import audit, courses, write_transaction
from db import rubric_drafts as store

_FIELDS = (("title", "title"), ("description", "what it looks at"), ("guidance", "notes for graders"),
           ("weight", "weight"), ("veto_below", "fails below"), ("improvement_hint", "advice when weak"))


def _q(value) -> str:
    return "(none)" if value in (None, "") else f"“{value}”"


def diff(a: Rubric, b: Rubric) -> list[dict]:
    """What changed from a to b, criterion by criterion, level by level: [{criterion (title),
    part ("" for the rubric, else a field or "level N"), before, after, kind (added | removed |
    changed)}]: the rubric's own fields, then b's criteria in order (fields, then levels from the
    top), then a's removed criteria."""
    out: list[dict] = []
    for field, label in (("name", "name"), ("description", "description")):
        if getattr(a, field) != getattr(b, field):
            out.append({"criterion": "", "part": label, "before": getattr(a, field), "after": getattr(b, field),
                        "kind": "changed"})
    if (a.scale_min, a.scale_max) != (b.scale_min, b.scale_max):
        out.append({"criterion": "", "part": "scale", "before": f"{a.scale_min}–{a.scale_max}",
                    "after": f"{b.scale_min}–{b.scale_max}", "kind": "changed"})
    old = {c.key: c for c in a.criteria}
    for c in b.criteria:
        was = old.pop(c.key, None)
        if was is None:
            out.append({"criterion": c.title, "part": "", "before": None, "after": None, "kind": "added"})
            continue
        for field, label in _FIELDS:
            if getattr(was, field) != getattr(c, field):
                out.append({"criterion": c.title, "part": label, "before": getattr(was, field),
                            "after": getattr(c, field), "kind": "changed"})
        for lvl in sorted(set(was.levels) | set(c.levels), reverse=True):
            before, after = was.levels.get(lvl), c.levels.get(lvl)
            if before != after:
                out.append({"criterion": c.title, "part": f"level {lvl}", "before": before, "after": after,
                            "kind": "added" if before is None else "removed" if after is None else "changed"})
    out += [{"criterion": c.title, "part": "", "before": None, "after": None, "kind": "removed"}
            for c in old.values()]
    return out


def diff_lines(a: Rubric, b: Rubric) -> list[str]:
    """The difference in plain sentences, one per change ([] when the two are the same)."""
    lines = []
    for d in diff(a, b):
        head = d["criterion"] + (f" — {d['part']}" if d["criterion"] and d["part"] else d["part"])
        if not d["part"] and d["criterion"]:
            lines.append(f"{d['criterion']}: {d['kind']}")
        else:
            lines.append(f"{head}: {_q(d['before'])} → {_q(d['after'])}")
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
            raise NotFound(f"rubric {rubric_id} does not exist")
        newest = rows[-1]
        if newest["version"] != latest:
            raise ConflictError(f"Version {newest['version']} was saved meanwhile; look at the versions again "
                                "before you roll back.")
        if newest["id"] == rubric_id:
            raise ConflictError(f"Version {old.version} is the newest already: there is nothing to roll back.")
        version = newest["version"] + 1
        stored = old.model_copy(update={"version": version})
        new_id = store.add_version(conn, stored.to_json(), name=old.name, version=version,
                                   content_hash=old.model_copy(update={"version": 1}).content_hash,
                                   restores=old.version)
        audit(conn, actor=actor, action="rollback", entity="rubrics", entity_id=new_id,
              before={"version": newest["version"]}, after={"version": version, "restores": old.version})
    return new_id, version

