"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m013a_answer_keys(conn: Database) -> None:
    """Issue 16: an assignment's answer key as the leakage rule needs it (core.leakage): its kind
    (number | text; NULL with an answer_key set means "infer": a plain number is numeric), the
    relative tolerance of a numeric key (NULL: 1 %), and the source or lesson text the grounding
    judge checks the feedback against. Each draft records the AI configuration that wrote it."""
    conn.execute("ALTER TABLE assignments ADD COLUMN answer_kind TEXT")
    conn.execute("ALTER TABLE assignments ADD COLUMN answer_tolerance REAL")
    conn.execute("ALTER TABLE assignments ADD COLUMN source_text TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE drafts ADD COLUMN ai_config TEXT")   # ai_configs.hash
