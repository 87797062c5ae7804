"""bench.load on a tiny size: real teacher sessions at Streamlit's websocket protocol against a
real server while a run writes (no timing assertions: the figures come from `python -m bench.load`)."""
import pytest
import json

from bench import load


@pytest.mark.slow   # two small databases, one after the other: about a minute on a busy machine
def test_the_load_benchmark_approves_through_real_sessions_on_both_databases_and_finds_every_approval(capsys):
    out = load.main(["--users", "2", "--items", "2", "--think", "0", "--run", "30", "--latency", "0.01",
                     "--databases", "sqlite,postgresql"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == out
    assert set(out) == {"sqlite", "postgresql"}
    for database, result in out.items():
        level = result["2"]
        # Each teacher: open, approve (a changed score with a reason), back to the queue, per item.
        assert level["actions"] == 2 * 2 * 3 and level["errors"] == 0, (database, level["error_samples"])
        assert level["lost_edits"] == 0 and level["locked"] == 0 and level["server_cpu_s_per_action"] > 0
        assert result["run"]["drafts_written"] > 0 and result["run"]["calls_logged"] > 0
        assert result["run"]["database"] == database


def test_an_unknown_database_is_refused_with_what_is_offered(capsys):
    with pytest.raises(SystemExit):
        load.main(["--databases", "sqlite,mysql"])
    assert "sqlite, postgresql" in capsys.readouterr().err


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
