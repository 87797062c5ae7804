"""Synthetic FairMark databases, built fast (bulk inserts, one transaction).

`build(path, n, layout=...)` makes N submissions, each with an AI draft, four expert reference
scores and five logged LLM calls; about half have a teacher review (most approved, some
edited, some released). Two layouts:

- "courses" (realistic growth): a database grows by more courses, not by one giant
  assignment. Courses of 28 students x 12 weekly assignments (336 reflections, the seed's
  course) are added until N is reached (the last course is partial).
- "worst": one course, four weekly assignments of N/4 submissions each (the worst case for
  the per-assignment pages).

`build_uploaded(path, n)` makes N submissions waiting for the pipeline (bench.pipeline).
"""
from __future__ import annotations

import hashlib
import random

import db as dbmod
from core.signoff import triage
from core.agents import registry
from core.rubric import default_rubric
from db import aggregates, courses, dumps

WORDS = ("model temperature prompt bias data example work question learn context token "
         "evaluate fairness output student reflection idea test").split()
LAYOUTS = ("courses", "worst")
COURSE_STUDENTS, COURSE_WEEKS = 28, 12
VERSION = 3     # bump when the generated data change (bench/out/ caches are keyed by it)


def plan(n: int, layout: str) -> list[dict]:
    """Courses as {"students": k, "assignments": [submissions per assignment]}."""
    if layout == "worst":
        per = [n // 4 + (1 if w < n % 4 else 0) for w in range(4)]
        return [{"students": max(1, (n + 3) // 4), "assignments": per}]
    if layout != "courses":
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    out, left = [], n
    while left > 0:
        per = []
        while left > 0 and len(per) < COURSE_WEEKS:
            per.append(min(COURSE_STUDENTS, left))
            left -= per[-1]
        out.append({"students": max(per), "assignments": per})
    return out


def build(path: str, n: int, *, layout: str = "courses", seed: int = 0) -> dict:
    """Returns {"courses": [{"course_id", "assignment_ids"}], "n", "layout"}."""
    rng = random.Random(seed)
    conn = dbmod.connect(path)
    rubric = default_rubric()
    keys = rubric.keys
    rid = courses.save_rubric(conn, rubric)
    c = conn.conn
    made = []
    subs, drafts, refs, reviews, calls, rel_items = [], [], [], [], [], []
    sid = student_id = 0
    with conn.atomic():
        for ci, course in enumerate(plan(n, layout), start=1):
            cid = courses.ensure_course(conn, f"Synthetic course {ci} ({layout}, {n})", is_synthetic=True)
            aids = [courses.ensure_assignment(conn, cid, f"Week {w}", rubric_id=rid, week=w,
                                              key_concepts=["temperature", "bias"])
                    for w in range(1, len(course["assignments"]) + 1)]
            first_student = student_id + 1
            c.executemany(
                "INSERT INTO students (id, course_id, external_id, name, email, pseudonym, attributes) "
                "VALUES (?,?,?,?,?,?,?)",
                [(first_student + i, cid, f"c{ci}s{i:06d}", f"Student {ci}-{i}", f"c{ci}s{i}@example.edu",
                  f"Student-{first_student + i:07d}",
                  dumps({"section": "AB"[i % 2], "ell": "yes" if i % 5 == 0 else "no"}))
                 for i in range(course["students"])])
            student_id += course["students"]
            run_id = conn.execute("INSERT INTO runs (course_id, provider, status, total) VALUES (?, 'openai', 'done', ?)",
                                  [cid, sum(course["assignments"])]).lastrowid
            releases = {}
            for aid, count in zip(aids, course["assignments"]):
                for i in range(count):
                    sid += 1
                    _submission(rng, rubric, keys, rid, run_id, aid, first_student + i, sid,
                                subs, drafts, refs, reviews, calls, rel_items, releases, conn)
            made.append({"course_id": cid, "assignment_ids": aids})
        c.executemany("INSERT INTO submissions (id, assignment_id, student_id, text, text_hash, word_count, status, "
                      "current_draft_id, priority) VALUES (?,?,?,?,?,?,?,?,?)", subs)
        c.executemany("INSERT INTO drafts (id, submission_id, run_id, rubric_id, provider, scores, total, outputs, "
                      "comment, checks, verdict, flags, status) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", drafts)
        c.executemany("INSERT INTO reference_scores (submission_id, rater, criterion, score) VALUES (?,?,?,?)", refs)
        c.executemany("INSERT INTO reviews (submission_id, draft_id, version, scores, comment, status, edited, "
                      "reason_codes, updated_by, approved_by) VALUES (?,?,?,?,?,?,?,?,?,?)", reviews)
        c.executemany("INSERT INTO llm_calls (run_id, submission_id, agent, model, prompt_name, prompt_hash, input_hash, "
                      "temperature, cache_key, response, tokens_in, tokens_out, tokens_cached, latency_ms, cost_usd, "
                      "status, cache_hit) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", calls)
        c.executemany("INSERT INTO release_items (release_id, submission_id, review_version, scores, comment) "
                      "VALUES (?,?,?,?,?)", rel_items)
    # The dashboards' kept counts (db.aggregates), as a running app has them: counted once here.
    aggregates.refresh(conn)
    conn.execute("ANALYZE")
    conn.close()
    return {"courses": made, "n": n, "layout": layout}


def _submission(rng, rubric, keys, rid, run_id, aid, student, sid, subs, drafts, refs, reviews, calls,
                rel_items, releases, conn) -> None:
    length = rng.choice((40, 80, 150, 250, 400))
    text = " ".join(rng.choice(WORDS) for _ in range(length)) + f" #{sid}"
    ref = {k: rng.randint(0, 3) for k in keys}
    ai = {k: min(3, max(0, v + rng.choice((-1, 0, 0, 0, 1)) + (1 if v <= 1 and rng.random() < .3 else 0)))
          for k, v in ref.items()}
    flags = ["short_text"] if length < 100 else []
    dstatus = "needs_attention" if flags and rng.random() < .5 else "drafted"
    r = rng.random()
    status = dstatus
    if r < 0.35:
        status = "approved"
    elif r < 0.5:
        status = "released"
    prio = triage.priority(status, ai, rubric, confidence=rng.random())
    subs.append((sid, aid, student, text, hashlib.sha256(text.encode()).hexdigest(), length, status, sid, prio))
    evaluation = {k: {"score": v, "reasoning": "Synthetic reasoning.", "areas_for_improvement": ["Add detail."],
                      "evidence_quote": text.split()[0]} for k, v in ai.items()}
    outputs = {"evaluator": evaluation, "reviewer": {"verdict": "CONFIDENT", "fixes": [], "explanation": ""}}
    drafts.append((sid, sid, run_id, rid, "openai", dumps(ai), rubric.total(ai), dumps(outputs),
                   "Synthetic comment. (1) Add an example. (2) Proofread. What will you try next?",
                   dumps([{"name": "word_count", "label": "Word count", "passed": True, "detail": "12 words",
                           "severity": "fail"}]), "CONFIDENT", dumps(flags), dstatus))
    for k, v in ref.items():
        refs.append((sid, "expert", k, v))
    if status in ("approved", "released"):
        final = dict(ai)
        edited = rng.random() < 0.3
        if edited:
            k = rng.choice(keys)
            final[k] = ref[k]
        reviews.append((sid, sid, 1, dumps(final), "Synthetic comment.", "approved", int(edited),
                        dumps(["too_harsh"] if edited else []), "bench", "bench"))
        if status == "released":
            if aid not in releases:
                releases[aid] = conn.execute(
                    "INSERT INTO releases (assignment_id, released_by, n_items) VALUES (?, 'bench', 0)", [aid]).lastrowid
            rel_items.append((releases[aid], sid, 1, dumps(final), "Synthetic comment."))
    for a in (r.name for r in registry.roles() if r.stage != "revise"):  # one call per agent
        tin, tout = rng.randint(500, 900), rng.randint(60, 200)
        calls.append((run_id, sid, a, "gpt-4o-mini", a, "h" + a, f"in{sid}{a}", 0.3, f"k{sid}{a}", "{}",
                      tin, tout, 0, rng.uniform(300, 2000), (tin * 0.15 + tout * 0.6) / 1e6, "ok", 0))


# --- submissions waiting for the pipeline (bench.pipeline) ---------------------------------
SENTENCES = (
    "This week I learned how a large language model predicts the next token from the context it is given.",
    "Temperature changes how random the answers are, and a higher value made the drafts more creative but less reliable.",
    "For example, at work I used a chatbot to draft emails to customers and then checked every fact by hand.",
    "I wonder how bias enters the training data, because the data may reflect old assumptions about people.",
    "I am not sure we can trust these tools for hiring decisions without a person reviewing each result.",
    "Therefore I will test the same prompt several times and compare the results before I rely on it.",
    "Tokens still confuse me a little, especially when a long word is split into several pieces.",
    "The course helped me see the limits of these systems, such as when they invent facts or sources.",
    "In my team we now write down which prompt produced which answer so that we can repeat a good result.",
    "My manager asked whether the model could summarise reports, and I explained why a human should read them too.",
    "Evaluating the output with a short checklist made my own work more careful and more consistent.",
    "I realised that fairness is not only about the model but also about how people use its answers.",
)


def reflection(rng: random.Random, i: int, min_words: int = 110) -> str:
    """A plausible reflection of at least `min_words` words, unique per `i` (no injection, no code)."""
    picked, n = [], 0
    order = list(SENTENCES)
    rng.shuffle(order)
    for s in order:
        picked.append(s)
        n += len(s.split())
        if n >= min_words:
            break
    picked.append(f"This is reflection number {i} of the synthetic course.")
    return " ".join(picked)


def build_uploaded(path: str, n: int, *, seed: int = 0) -> dict:
    """One course, one assignment, `n` students with one uploaded submission each (>= 110 words,
    no injection, no code, so no submission flag sends an item to a teacher)."""
    rng = random.Random(seed)
    conn = dbmod.connect(path)
    rubric = default_rubric()
    rid = courses.save_rubric(conn, rubric)
    with conn.atomic():
        cid = courses.ensure_course(conn, f"Throughput course ({n})", is_synthetic=True)
        aid = courses.ensure_assignment(conn, cid, "Week 1", rubric_id=rid, week=1,
                                        prompt="Reflect on what you learned about language models this week.",
                                        key_concepts=["large language model", "temperature", "bias"])
        conn.conn.executemany(
            "INSERT INTO students (id, course_id, external_id, name, email, pseudonym, attributes) VALUES (?,?,?,?,?,?,?)",
            [(i + 1, cid, f"s{i:06d}", f"Student Name {i}", f"s{i}@example.edu", f"Student-{i:06d}", "{}")
             for i in range(n)])
        rows = []
        for i in range(n):
            text = reflection(rng, i)
            rows.append((i + 1, aid, i + 1, text, hashlib.sha256(text.encode()).hexdigest(), len(text.split())))
        conn.conn.executemany("INSERT INTO submissions (id, assignment_id, student_id, text, text_hash, word_count) "
                              "VALUES (?,?,?,?,?,?)", rows)
    conn.close()
    return {"course_id": cid, "assignment_id": aid, "submission_ids": [r[0] for r in rows]}
