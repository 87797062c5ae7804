"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m012_judging(conn: Database) -> None:
    """Issue 14 (seed 001's cascade on the scores):
    - llm_calls.tier: which tier of the judge cascade a scoring call belonged to (1 the first
      judge and its self-consistency samples, 2 the consensus step; NULL for other roles), so
      the Costs page can show calls and dollars per tier;
    - llm_calls.score_probs: the score labels' probabilities from the call's logprobs (JSON
      {field path: {label: p}}), so an answer served from the cache keeps its confidence;
    - drafts.judging: how the scores were judged (JSON: tier, per-criterion distribution,
      expected score and entropy, unsure criteria, vetoes, notes; core.judging.scoring);
    - judge_agreement: the agreement rule's mark on an assignment's judge agreement (Krippendorff's alpha
      per criterion over the items with two or more votes), written after each run."""
    conn.execute("ALTER TABLE llm_calls ADD COLUMN tier INTEGER")
    conn.execute("ALTER TABLE llm_calls ADD COLUMN score_probs TEXT")
    conn.execute("ALTER TABLE drafts ADD COLUMN judging TEXT NOT NULL DEFAULT '{}'")
    conn.execute(
        "CREATE TABLE judge_agreement ("
        " assignment_id INTEGER PRIMARY KEY REFERENCES assignments(id),"
        " verdict TEXT NOT NULL,"                  # fine | flagged | poor | not_enough_votes
        " alpha TEXT NOT NULL DEFAULT '{}',"       # JSON: criterion -> alpha (null: not computable)
        " items INTEGER NOT NULL DEFAULT 0,"       # items with two or more votes
        " sent_to_teacher INTEGER NOT NULL DEFAULT 0,"
        " computed_at TEXT NOT NULL)")
    # The dashboards' cache (m004) is invalidated by every write they read, these tables included.
    for table in ("judge_votes", "judge_agreement"):
        for op in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(f"CREATE TRIGGER analytics_bump_{table}_{op.lower()} AFTER {op} ON {table} "
                         f"BEGIN UPDATE analytics_version SET version = version + 1 WHERE id = 1; END")
