"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m007_draft_outputs(conn: Database) -> None:
    """Issue #9: each agent role's answer in one JSON column keyed by role (core.agents.registry),
    so a new role needs no migration. The four per-role columns are folded in and dropped; a
    role whose column was empty ('{}': it failed or never ran) is left out."""
    conn.execute("ALTER TABLE drafts ADD COLUMN outputs TEXT NOT NULL DEFAULT '{}'")
    conn.execute("""
        UPDATE drafts SET outputs = COALESCE((
            SELECT json_group_object(role, json(answer)) FROM (
                SELECT 'evaluator' AS role, evaluation AS answer UNION ALL SELECT 'equity', equity
                UNION ALL SELECT 'coach', coach UNION ALL SELECT 'reviewer', reviewer)
            WHERE answer NOT IN ('', '{}')), '{}')""")
    for column in ("evaluation", "equity", "coach", "reviewer"):
        conn.execute(f"ALTER TABLE drafts DROP COLUMN {column}")
