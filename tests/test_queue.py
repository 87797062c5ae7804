"""The review queue (db.queue): order, filters, pages, neighbours, the index."""
from __future__ import annotations

import factories as f
from core.signoff import triage
from core.signoff import actions
from db import queue
from signoff_items import HIGH, LOW, course, make_item  # noqa: F401  (course: a fixture)
from core.accounts.access import Actor


def test_queue_order_filters_pagination_and_neighbours(conn, course):
    aid = course["assignment_id"]
    rest = make_item(conn, course, HIGH, text="alpha text")
    low = make_item(conn, course, LOW, text="beta text")
    attention = make_item(conn, course, HIGH, status="needs_attention", text="gamma text", flags=["injection"])
    unsure = make_item(conn, course, HIGH, confidence=0.2, text="delta text")
    f.submission(conn, aid, f.student(conn, course["course_id"]), text="not drafted")
    page = queue.queue(conn, aid)
    assert [r["id"] for r in page["rows"]] == [attention, unsure, low, rest]
    assert queue.group_counts(conn, aid) == {0: 1, 1: 1, 2: 1, 3: 1, 9: 1}
    assert [r["id"] for r in queue.queue(conn, aid, queue.QueueFilter(search="BETA"))["rows"]] == [low]
    assert [r["id"] for r in queue.queue(conn, aid, queue.QueueFilter(flag="injection"))["rows"]] == [attention]
    assert [r["id"] for r in queue.queue(conn, aid, queue.QueueFilter(criterion="clarity", score=1))["rows"]] == [low]
    p0 = queue.queue(conn, aid, page_size=3)
    p1 = queue.queue(conn, aid, page=1, page_size=3)
    assert p0["has_next"] and not p1["has_next"] and [r["id"] for r in p1["rows"]] == [rest]
    assert queue.neighbour(conn, aid, (triage.UNSURE, unsure)) == low
    assert queue.neighbour(conn, aid, (triage.UNSURE, unsure), forward=False) == attention
    # The teacher edits (score filter uses their version) and approves: order follows priority.
    actions.open_item(conn, low, actor=Actor("ann", role="admin"))
    actions.approve(conn, low, version=1, actor=Actor("ann", role="admin"))
    assert [r["id"] for r in queue.queue(conn, aid)["rows"]][-1] == low
    assert queue.neighbour(conn, aid, (triage.LOW_BAND, low)) == rest
    assert [r["id"] for r in queue.queue(conn, aid, queue.QueueFilter(statuses=("approved",)))["rows"]] == [low]


def test_queue_uses_the_queue_index(conn, course):
    where, args = queue.QueueFilter().where()
    postgres = hasattr(conn, "url")   # PostgreSQL's EXPLAIN says a sort as Sort, SQLite's as a temp B-tree
    plan = " ".join(str(r[-1]) for r in conn.execute(
        f"{'EXPLAIN' if postgres else 'EXPLAIN QUERY PLAN'} SELECT s.id {queue._QUEUE_FROM} WHERE {where} "
        "ORDER BY s.priority, s.id LIMIT 25", [course["assignment_id"], *args]).fetchall())
    assert "idx_submissions_queue" in plan and ("Sort" if postgres else "TEMP B-TREE") not in plan
