"""One migration, recorded in the database by its name: never rename or edit it once released."""
import json

from sqlite_utils import Database


def m018a_comparison_runs(conn: Database) -> None:
    """Drafting a blind comparison is a run (core.runs.engine, runs.kind 'comparisons'), so it
    resumes after a restart and its calls carry the run (costs apart from the reflections).
    `comparisons.run_id` links the two; the run's items are the comparison's pairs. A comparison
    still drafting before this migration had no worker left: it gets a stopped run to resume."""
    conn.execute("ALTER TABLE comparisons ADD COLUMN run_id INTEGER REFERENCES runs(id)")
    stuck = list(conn.query(
        "SELECT c.id, c.course_id, c.assignment_id, c.created_by, c.config_a, c.config_b, c.variant_b, "
        "COALESCE(ac.provider, 'openai') AS provider, "
        "(SELECT COUNT(*) FROM comparison_pairs p WHERE p.comparison_id = c.id) AS total "
        "FROM comparisons c LEFT JOIN ai_configs ac ON ac.hash = c.config_a WHERE c.status = 'drafting'"))
    for c in stuck:
        config = {"comparison_id": c["id"], "config_a": c["config_a"], "config_b": c["config_b"],
                  "variant_b": c["variant_b"], "concurrency": 4}
        run_id = conn.execute(
            "INSERT INTO runs (course_id, assignment_id, provider, config, status, total, error, created_by, kind) "
            "VALUES (?, ?, ?, ?, 'failed', ?, 'stopped: interrupted (drafting had no worker after a restart); "
            "resume it', ?, 'comparisons')",
            [c["course_id"], c["assignment_id"], c["provider"], json.dumps(config), c["total"],
             c["created_by"]]).lastrowid
        conn.execute("UPDATE comparisons SET run_id = ? WHERE id = ?", [run_id, c["id"]])
