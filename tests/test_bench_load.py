"""bench.load on a tiny size: real teacher sessions at Streamlit's websocket protocol against a
real server while a run writes (no timing assertions: the figures come from `python -m bench.load`)."""
import pytest
import json

from bench import load


@pytest.mark.slow   # over 15 s on a busy machine (docs/testing.md)
def test_the_load_benchmark_approves_through_real_sessions_and_finds_every_approval(capsys):
    out = load.main(["--users", "2", "--items", "2", "--think", "0", "--run", "30", "--latency", "0.01"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == out
    level = out["2"]
    # Each teacher: open, approve (a changed score with a reason), back to the queue, per item.
    assert level["actions"] == 2 * 2 * 3 and level["errors"] == 0, level["error_samples"]
    assert level["lost_edits"] == 0 and level["locked"] == 0 and level["server_cpu_s_per_action"] > 0
    assert out["run"]["drafts_written"] > 0 and out["run"]["calls_logged"] > 0


def test_an_approval_the_page_confirmed_but_the_database_lacks_is_a_lost_edit(conn, db_path):
    import factories as f
    from dashboard_data import review, scores

    c = f.course(conn)
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    did = f.draft(conn, sid, scores(2))
    review(conn, sid, did, scores(1), status="approved")
    kept = {sid: {"clarity": 1}}
    assert load.lost_edits(str(db_path), kept) == []
    assert load.lost_edits(str(db_path), {sid: {"clarity": 3}}) == [sid]
    conn.execute("UPDATE reviews SET status = 'in_review' WHERE submission_id = ?", [sid])
    assert load.lost_edits(str(db_path), kept) == [sid]
