"""Moderation blindness where the first review missed it: every public core read that shows an
item's first mark or the AI's draft refuses (or leaves out) an item its second marker has not
marked yet (issue 28: the second marker sees neither until they commit)."""
from __future__ import annotations

import factories as f
from core.export import released
from core.moderation import marking
from test_moderation import HIGH, _first_marked, m  # noqa: F401  (the fixture)


def _blind_item(conn, m, who="ivy"):
    drawn = _first_marked(conn, m)
    return next(i["submission_id"] for i in drawn if i["second_marker"] == who)


def test_an_export_of_approved_items_leaves_out_those_the_actor_still_marks_blind(conn, m):
    sid = _blind_item(conn, m)
    ivy = m["ivy"]
    mine = {r["submission_id"] for r in released.export_items(conn, m["c"]["course_id"], m["aid"],
                                                              include_approved=True, actor=ivy)}
    assert sid not in mine and mine                                  # the others' approved items are there
    other = f.user(conn, "ivy2", "instructor", courses=[m["c"]["course_id"]])
    assert sid in {r["submission_id"] for r in released.export_items(conn, m["c"]["course_id"], m["aid"],
                                                                     include_approved=True, actor=other)}
    marking.mark(conn, sid, HIGH, actor=ivy)
    assert sid in {r["submission_id"] for r in released.export_items(conn, m["c"]["course_id"], m["aid"],
                                                                     include_approved=True, actor=ivy)}

