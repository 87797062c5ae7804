"""Dashboard test data: submissions with AI drafts, expert and teacher scores, reviews and LLM calls."""
import pandas as pd

import factories as f
from db import dumps

KEYS = ["concept_understanding", "real_world_application", "reflection_depth", "clarity"]


def scores(v):
    return {k: v for k in KEYS} if isinstance(v, int) else dict(zip(KEYS, v))


def review(conn, sid, did, teacher, status="approved", comment=None, reasons=()):
    conn.execute("INSERT INTO reviews (submission_id, draft_id, scores, comment, status, edited, reason_codes) "
               "VALUES (?,?,?,?,?,?,?)",
               [sid, did, dumps(teacher), comment if comment is not None else
                conn.execute("SELECT comment FROM drafts WHERE id = ?", [did]).fetchone()[0], status, 0,
                dumps(list(reasons))])


def item(conn, c, ai, *, expert=None, teacher=None, status="approved", attrs=None, words=150, assignment=0,
         rater="expert", blind=None, bulk=False):
    st = f.student(conn, c["course_id"], attributes=attrs)
    sid = f.submission(conn, c["assignment_ids"][assignment], st, text=" ".join(["word"] * words) + f" {st}")
    did = f.draft(conn, sid, scores(ai))
    if expert is not None:
        f.reference(conn, sid, scores(expert), rater=rater)
    if blind is not None:
        f.blind(conn, sid, scores(blind))
    if teacher is not None:
        review(conn, sid, did, scores(teacher), status=status)
        if bulk:
            conn.execute("UPDATE reviews SET approved_in_bulk = 1 WHERE submission_id = ?", [sid])
    return sid, did


def mixed_course(conn):
    c = f.course(conn, weeks=2)
    rows = []
    plan = [  # ai, expert, attrs, words
        (3, 1, {"ell": "yes", "section": "A"}, 60), (2, 0, {"ell": "yes", "section": "A"}, 80),
        (2, 2, {"ell": "no", "section": "B"}, 150), (3, 3, {"ell": "no", "section": "A"}, 200),
        (1, 1, {"ell": "no"}, 120), (0, 2, {"section": "B"}, 90), (2, 3, {"ell": "yes", "section": "B"}, 300),
    ] * 3
    for i, (ai, ref, attrs, words) in enumerate(plan):
        sid, _ = item(conn, c, ai, expert=ref, attrs=attrs, words=words, assignment=i % 2)
        student = conn.execute("SELECT student_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
        rows += [{"ai": ai, "reference": ref, "words": words, "student": str(student),
                  **{f"a_{k}": v for k, v in attrs.items()}}] * 4
    return c, pd.DataFrame(rows)


def call(conn, sid, agent, cost, *, run=None, cache=False, latency=1000.0, model="gpt-4o-mini"):
    conn.execute("INSERT INTO llm_calls (run_id, submission_id, agent, model, prompt_name, prompt_hash, input_hash, "
               "temperature, cache_key, tokens_in, tokens_out, latency_ms, cost_usd, status, cache_hit) "
               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
               [run, sid, agent, model, agent, "h", "i", 0.3, "k", 100, 50, latency, cost,
                "cache_hit" if cache else "ok", int(cache)])
