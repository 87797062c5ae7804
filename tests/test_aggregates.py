"""db.aggregates: the dashboards' counts kept up to date equal the counts computed from scratch,
after any sequence of edits (a property test), and writes the dashboards do not read leave
their cache alone."""
from __future__ import annotations

import random

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agg_oracle
import db as dbmod
import factories as f
from dashboard_data import KEYS, review, scores
from db import aggregates, analytics, dumps
from db.analytics import Scope
from core.accounts.access import Actor

REFERENCES = ("auto", "expert", "blind", "teacher", "rater:r1", "rater:r2")
OPS = ("draft", "expert", "unexpert", "blind", "unblind", "review", "unreview", "release", "attrs", "week",
       "offline_draft", "failed_draft", "refresh", "settle", "unsettle")


def _world(conn):
    """Two courses (three assignments), eight students with attributes, one submission each per
    assignment of their course, most with an AI draft."""
    a = f.course(conn, "A", weeks=2)
    b = f.course(conn, "B")
    subs = []
    for c, n in ((a, 5), (b, 3)):
        for i in range(n):
            attrs = {"section": "AB"[i % 2], **({"ell": "yes"} if i % 3 else {})}
            st_ = f.student(conn, c["course_id"], attributes=attrs)
            for aid in c["assignment_ids"]:
                sid = f.submission(conn, aid, st_, text=" ".join(["word"] * (40 + 30 * i)) + f" {aid}")
                if i != 4:
                    did = f.draft(conn, sid, scores(i % 4))
                    if i % 2 == 0:
                        f.reference(conn, sid, scores((i + 1) % 4), rater="r1")
                    if i % 3 == 1:
                        f.blind(conn, sid, scores(i % 3))
                    if i in (1, 2):
                        review(conn, sid, did, scores(3 - i), status="approved", comment="Changed.",
                               reasons=["tone"])
                subs.append(sid)
    return a, b, subs


def _apply(conn, op: str, sid: int, rng: random.Random, ctx: dict) -> None:
    lvl = lambda: [rng.randint(0, 3) for _ in KEYS]   # noqa: E731
    if op == "draft":
        f.draft(conn, sid, scores(lvl()))
    elif op == "offline_draft":
        f.draft(conn, sid, scores(lvl()), is_offline=True)
    elif op == "failed_draft":
        did = f.draft(conn, sid, scores(lvl()), status="failed")
        conn.execute("UPDATE drafts SET scores = '{}' WHERE id = ?", [did])
    elif op == "expert":
        rater = rng.choice(["r1", "r2"])
        conn.execute("DELETE FROM reference_scores WHERE submission_id = ? AND rater = ?", [sid, rater])
        f.reference(conn, sid, scores([rng.choice([0, 1, 1.5, 2, 3]) for _ in KEYS]), rater=rater)
    elif op == "unexpert":
        conn.execute("DELETE FROM reference_scores WHERE submission_id = ? AND criterion = ?", [sid, rng.choice(KEYS)])
    elif op == "blind":
        conn.execute("DELETE FROM calibration_scores WHERE submission_id = ?", [sid])
        f.blind(conn, sid, scores(lvl()))
    elif op == "unblind":
        conn.execute("DELETE FROM calibration_scores WHERE submission_id = ?", [sid])
    elif op in ("settle", "unsettle"):   # the moderator's final score (core.moderation.marking.settle)
        conn.execute("DELETE FROM moderation_settlements WHERE submission_id = ?", [sid])
        if op == "settle":
            conn.execute("INSERT INTO moderation_settlements (submission_id, criterion, first_score, second_score, "
                         "score, note, settled_by, settled_at) VALUES (?, ?, 0, 3, ?, 'n', 'm', 'now')",
                         [sid, rng.choice(KEYS), rng.randint(0, 3)])
    elif op in ("review", "unreview", "release"):
        did = conn.execute("SELECT current_draft_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
        if op == "unreview":
            conn.execute("DELETE FROM reviews WHERE submission_id = ?", [sid])
        elif op == "release":
            conn.execute("UPDATE submissions SET status = 'released' WHERE id = ?", [sid])
        elif did is not None:
            conn.execute("DELETE FROM reviews WHERE submission_id = ?", [sid])
            review(conn, sid, did, scores(lvl()), status=rng.choice(["approved", "approved", "rejected", "in_review"]),
                   comment=rng.choice([None, "Changed.", "Rewritten by the teacher."]),
                   reasons=rng.sample(["too_harsh", "generic", "tone"], rng.randint(0, 2)))
            ctx["clock"] += 1
            conn.execute("UPDATE reviews SET approved_in_bulk = ?, updated_at = ? WHERE submission_id = ?",
                         [int(rng.random() < 0.25), f"2026-01-01T00:00:{ctx['clock']:02d}", sid])
    elif op == "attrs":
        student = conn.execute("SELECT student_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
        conn.execute("UPDATE students SET attributes = ? WHERE id = ?",
                     [dumps(rng.choice([{}, {"section": "C"}, {"section": "A", "ell": ""}, {"gender": "x"}])), student])
    elif op == "week":
        aid = conn.execute("SELECT assignment_id FROM submissions WHERE id = ?", [sid]).fetchone()[0]
        conn.execute("UPDATE assignments SET week = ? WHERE id = ?", [rng.choice([None, 1, 7]), aid])
    elif op == "refresh":
        aggregates.refresh(conn, chunk=rng.choice([1, 3, 500]))


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    for c in df.columns:
        if c not in ("ai", "reference", "teacher", "n"):
            df[c] = df[c].astype(str)
    keys = [c for c in df.columns if c != "n"]
    return df.groupby(keys, as_index=False)["n"].sum().sort_values(keys).reset_index(drop=True) if len(df) else \
        df.reset_index(drop=True)


def _same(got: pd.DataFrame, want: pd.DataFrame, what: str) -> None:
    got, want = _sorted(got), _sorted(want[list(got.columns)] if len(want) else want.reindex(columns=got.columns))
    assert got.to_dict("records") == want.to_dict("records"), what


def _check(conn, a, b, scopes=None, references=REFERENCES) -> None:
    scopes = scopes or [Scope("all"), Scope("course", a["course_id"]), Scope("course", b["course_id"]),
                        *(Scope("assignment", c["course_id"], aid) for c in (a, b) for aid in c["assignment_ids"])]
    by = ("week", "version", "word_count", "student", "source")
    base = ["rubric_id", "criterion", "source"]
    for scope in scopes:
        for ref in references:
            raw = agg_oracle.pair_counts(conn, scope, ref, by, True)   # one scan, every dimension
            _same(analytics.pair_counts(conn, scope, reference=ref, by=by, attributes=True, expand=False), raw,
                  f"pairs {scope} {ref}")
            for dim in ("", "week", "version", "word_count"):
                cols = base + ([dim] if dim else []) + ["ai", "reference", "n"]
                want = raw.groupby(cols[:-1], as_index=False)["n"].sum() if len(raw) else raw.reindex(columns=cols)
                _same(analytics.cell_counts(conn, scope, reference=ref, dim=dim)[cols], want,
                      f"cells {scope} {ref} {dim!r}")
            cols = [*base, "attribute", "group", "ai", "reference", "n"]
            expanded = analytics.expand_attributes(raw) if len(raw) else pd.DataFrame(columns=cols)
            want = expanded.groupby(cols[:-1], as_index=False)["n"].sum() if len(expanded) else expanded[cols]
            _same(analytics.cell_counts(conn, scope, reference=ref, dim="attribute")[cols], want,
                  f"attribute cells {scope} {ref}")
        got, want = analytics.edit_counts(conn, scope), agg_oracle.edit_counts(conn, scope)
        for part in ("outcomes", "changes", "reason_codes"):
            _same(got[part], want[part], f"edits {part} {scope}")
        assert got["bulk_approved"] == want["bulk_approved"]
        assert sorted(got["comment_pairs"]) == sorted(want["comment_pairs"])
        assert analytics.raters(conn, scope) == sorted(
            {r for r in ("r1", "r2") if len(agg_oracle.pair_counts(conn, scope, f"rater:{r}", (), False))})


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 10_000)), min_size=1, max_size=25),
       seed=st.integers(0, 2**16))
@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_kept_counts_equal_the_counts_from_scratch_after_any_edits(tmp_path_factory, steps, seed):
    path = tmp_path_factory.mktemp("agg") / "agg.db"
    conn = dbmod.connect(path)
    try:
        a, b, subs = _world(conn)
        rng, ctx = random.Random(seed), {"clock": 0}
        aggregates.refresh(conn)
        for op, pick in steps:
            # Most edits hit a few submissions, so they build on each other.
            _apply(conn, op, subs[pick % (len(subs) if pick % 3 == 0 else 4)], rng, ctx)
        _check(conn, a, b, [Scope("all"), Scope("course", a["course_id"]),
                            Scope("assignment", a["course_id"], a["assignment_ids"][0])],
               ("auto", "expert", "teacher", "rater:r2"))
        assert aggregates.dirty_count(conn) == 0
    finally:
        conn.close()
        dbmod.forget_migrated(path)


def test_every_submission_starts_dirty_and_one_refresh_counts_them(conn):
    a, b, subs = _world(conn)
    assert aggregates.dirty_count(conn) == len(subs)
    assert aggregates.refresh(conn, chunk=4) == len(subs)
    assert aggregates.dirty_count(conn) == 0 and aggregates.refresh(conn) == 0
    _check(conn, a, b)


def test_a_refresh_that_read_an_older_state_leaves_the_newer_change_dirty(conn, monkeypatch):
    a, _, subs = _world(conn)
    aggregates.refresh(conn)
    sid = subs[0]
    f.draft(conn, sid, scores(3))
    real = aggregates._contributions

    def meanwhile(c, ids):   # another connection writes between our read and our write
        out = real(c, ids)
        other = dbmod.connect(dbmod.file_of(conn))
        f.reference(other, sid, scores(0), rater="r2")
        other.close()
        return out

    monkeypatch.setattr(aggregates, "_contributions", meanwhile)
    aggregates.refresh(conn)
    monkeypatch.setattr(aggregates, "_contributions", real)
    assert aggregates.dirty_count(conn) == 1        # the expert score came after our read
    aggregates.refresh(conn)
    _check(conn, a, f.course(conn, "B"))


def test_writes_the_dashboards_do_not_read_keep_their_cache(conn, monkeypatch):
    from core import reports
    from dashboard_data import call, item

    c = f.course(conn)
    sid, _ = item(conn, c, 2, expert=1)
    scope = Scope("all")
    first = reports.agreement_view(conn, scope, actor=Actor("test", role="admin"))
    before = aggregates.version(conn)
    call(conn, sid, "evaluator", 0.001)                      # the call log
    run = conn.execute("INSERT INTO runs (course_id, provider) VALUES (?, 'offline')", [c["course_id"]]).lastrowid
    conn.execute("UPDATE runs SET heartbeat_at = 'now' WHERE id = ?", [run])    # a run's heartbeat
    conn.execute("UPDATE submissions SET priority = 1 WHERE id = ?", [sid])     # the queue's order
    assert aggregates.version(conn) == before
    monkeypatch.setattr(analytics, "_pair_counts", lambda *a, **k: pytest.fail("recomputed"))
    monkeypatch.setattr(analytics, "_cell_counts", lambda *a, **k: pytest.fail("recomputed"))
    assert reports.agreement_view(conn, scope, actor=Actor("test", role="admin"))["headline"].equals(first["headline"])
    assert reports.costs_view(conn, scope, actor=Actor("test", role="admin"))["summary"]["calls"] == 1     # the Costs page sees the new call


def test_figures_without_intervals_equal_the_full_view(conn):
    from core import reports
    from dashboard_data import mixed_course

    c, _ = mixed_course(conn)
    for scope in (Scope("all"), Scope("course", c["course_id"]), Scope("assignment", c["course_id"],
                                                                        c["assignment_ids"][1])):
        full, figures = reports.agreement_view(conn, scope, actor=Actor("test", role="admin")), reports.agreement_view(conn, scope, intervals=False, actor=Actor("test", role="admin"))
        cols = ["criterion", "title", "n", "mae", "bias", "qwk", "exact", "adjacent"]
        assert full["headline"][cols].equals(figures["headline"][cols])
        assert full["sources"] == figures["sources"]
        for name in ("by_week", "by_version"):
            shared = [c_ for c_ in figures[name].columns]
            pd.testing.assert_frame_equal(full[name][shared], figures[name], check_dtype=False)
        for k in full["confusion"]:
            assert full["confusion"][k].equals(figures["confusion"][k])
        full, figures = reports.fairness_view(conn, scope, actor=Actor("test", role="admin")), reports.fairness_view(conn, scope, intervals=False, actor=Actor("test", role="admin"))
        assert figures["bands"]["delta_mae"] == pytest.approx(full["bands"]["delta_mae"])
        assert set(figures["groups"]) == set(full["groups"])
        for attr, g in full["groups"].items():
            for name, block in g["by_group"].items():
                assert figures["groups"][attr]["by_group"][name]["mae"] == pytest.approx(block["mae"])
        assert figures["length"]["pearson"] == pytest.approx(full["length"]["pearson"])
        assert figures["length_cells"].sort_values(["word_count", "ai", "reference"]).reset_index(drop=True).equals(
            full["length_cells"].sort_values(["word_count", "ai", "reference"]).reset_index(drop=True))


def test_the_readiness_banner_stays_cached_while_other_drafts_of_its_assignment_change(conn, monkeypatch):
    from core.calibration import readiness

    a, _, subs = _world(conn)
    aid = a["assignment_ids"][0]
    first = readiness.readiness(conn, aid, actor=Actor("test", role="admin"))
    calibrated = {r[0] for r in conn.execute("SELECT submission_id FROM calibration_scores")}
    other = next(s for s in subs if s not in calibrated and
                 conn.execute("SELECT assignment_id FROM submissions WHERE id = ?", [s]).fetchone()[0] == aid)
    f.draft(conn, other, scores(3))                     # a run drafts an item nobody scored blind
    monkeypatch.setattr(readiness, "_readiness", lambda *a, **k: pytest.fail("recomputed"))
    assert readiness.readiness(conn, aid, actor=Actor("test", role="admin")) == first
    f.blind(conn, other, scores(0))                     # the item is scored blind: a calibration pair more
    monkeypatch.undo()
    assert readiness.readiness(conn, aid, actor=Actor("test", role="admin"))["students"] == first["students"] + 1
    monkeypatch.setattr(readiness, "_readiness", lambda *a, **k: {"recomputed": True})
    f.draft(conn, other, scores(1))                     # the AI's score of a blind-scored item changes
    assert readiness.readiness(conn, aid, actor=Actor("test", role="admin")) == {"recomputed": True}


def test_queue_group_counts_kept_by_triggers_equal_a_count_from_scratch(conn):
    from db import queue
    from db.calibration import BLIND_PENDING

    a, _, subs = _world(conn)
    aid = a["assignment_ids"][0]
    rng = random.Random(3)
    mine = [s for s in subs if conn.execute("SELECT assignment_id FROM submissions WHERE id = ?", [s]).fetchone()[0]
            == aid]
    for sid in mine[:3]:   # calibration items: hidden (and left out) until scored blind
        conn.execute("INSERT INTO calibration_items (assignment_id, submission_id, stratum, drawn_by, drawn_at) "
                     "VALUES (?, ?, 'x', 't', 'now')", [aid, sid])
    f.blind(conn, mine[0], scores(1))
    for _ in range(40):
        sid = rng.choice(subs)
        conn.execute("UPDATE submissions SET priority = ? WHERE id = ?", [rng.randint(0, 9), sid])
    conn.execute("DELETE FROM drafts WHERE submission_id = ?", [mine[-1]])
    conn.execute("DELETE FROM submissions WHERE id = ?", [mine[-1]])
    scratch = dict(conn.execute(f"SELECT priority, COUNT(*) FROM submissions s WHERE assignment_id = ? AND NOT "
                                f"{BLIND_PENDING} GROUP BY priority", [aid]).fetchall())
    assert queue.group_counts(conn, aid) == scratch and sum(scratch.values()) == len(mine) - 1 - 1   # mine[2] hidden


def test_a_large_scope_shows_its_figures_at_once_and_its_intervals_when_ready(conn, monkeypatch):
    import time as _time

    from core import reports
    from core.reports import later
    from dashboard_data import mixed_course

    c, _ = mixed_course(conn)
    scope = Scope("course", c["course_id"])
    monkeypatch.setattr(later, "INLINE_PAIRS", 0)     # every scope counts as large
    first = reports.agreement_view(conn, scope, wait=False, actor=Actor("test", role="admin"))
    assert later.pending(first) and "students" not in first["headline"].columns
    whole = None
    for _ in range(200):
        whole = reports.agreement_view(conn, scope, wait=False, actor=Actor("test", role="admin"))
        if not later.pending(whole):
            break
        _time.sleep(0.05)
    assert not later.pending(whole) and whole["headline"].equals(reports.agreement_view(conn, scope, actor=Actor("test", role="admin"))["headline"])
    fair = reports.fairness_view(conn, scope, wait=False, actor=Actor("test", role="admin"))
    for _ in range(200):
        if not later.pending(fair):
            break
        _time.sleep(0.05)
        fair = reports.fairness_view(conn, scope, wait=False, actor=Actor("test", role="admin"))
    assert fair["students"] == reports.fairness_view(conn, scope, actor=Actor("test", role="admin"))["students"] > 0


def _third_course(conn, name: str = "C"):
    """A course no one in these tests is granted, with expert-scored drafts of its own."""
    c = f.course(conn, name)
    subs = []
    for i in range(3):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], attributes={"section": "C"}),
                           text=" ".join(["word"] * (50 + 20 * i)))
        f.draft(conn, sid, scores(i))
        f.reference(conn, sid, scores(3 - i), rater="r1")
        subs.append(sid)
    return c, subs


def test_a_users_granted_courses_are_one_scope_kept_up_to_date_by_every_refresh(conn):
    a, b, subs = _world(conn)
    c, others = _third_course(conn)
    granted = Scope("all", courses=(a["course_id"], b["course_id"]))
    # Two of five courses are summed; four of five are all courses minus the fifth.
    d, more = _third_course(conn, "D")
    e, most = _third_course(conn, "E")
    others += more + most
    most_courses = Scope("all", courses=(a["course_id"], b["course_id"], c["course_id"], d["course_id"]))
    _check(conn, a, b, [most_courses], ("auto", "teacher"))
    # Several courses read one group scope of the summed counts; one course reads its own rows.
    assert granted.cell_keys == [aggregates.group_key([b["course_id"], a["course_id"]])]
    assert Scope("all", courses=(b["course_id"],)).cell_keys == [f"c{b['course_id']}"]
    _check(conn, a, b, [granted], ("auto", "teacher"))      # the first read makes the group
    assert sorted(r[0] for r in conn.execute("SELECT course_id FROM agg_groups WHERE scope = ?",
                                             granted.cell_keys)) == sorted([a["course_id"], b["course_id"]])
    # Edits in every course after the group was made: it follows its own courses' only.
    rng, ctx = random.Random(5), {"clock": 0}
    for i, sid in enumerate(subs + others):
        _apply(conn, ("draft", "expert", "review", "attrs", "blind", "unreview")[i % 6], sid, rng, ctx)
    _check(conn, a, b, [granted, most_courses], REFERENCES)
    assert aggregates.dirty_count(conn) == 0


def test_groups_no_users_grants_make_any_more_are_dropped(conn):
    from core import reports

    a, b, _ = _world(conn)
    c, _ = _third_course(conn)
    cora = f.user(conn, "cora", "coordinator", courses=[a["course_id"], b["course_id"]])
    reports.agreement_view(conn, Scope("all"), intervals=False, actor=cora)
    first = aggregates.group_key([a["course_id"], b["course_id"]])
    assert {r[0] for r in conn.execute("SELECT DISTINCT scope FROM agg_groups")} == {first}
    from core.accounts import identity as accounts

    accounts.revoke(conn, cora.user_id, course_id=b["course_id"], actor=Actor("test", role="admin"))
    cora = f.user(conn, "cora", "coordinator", courses=[c["course_id"]])
    reports.agreement_view(conn, Scope("all"), intervals=False, actor=cora)
    now = aggregates.group_key([a["course_id"], c["course_id"]])
    assert {r[0] for r in conn.execute("SELECT DISTINCT scope FROM agg_groups")} == {now}
    assert conn.execute("SELECT COUNT(*) FROM agg_cells WHERE scope = ?", [first]).fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM agg_cells WHERE scope = ?", [now]).fetchone()[0] > 0
