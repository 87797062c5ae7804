"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m022f_llm_calls_answer_logprobs(conn: Database) -> None:
    """Issue 22 (one meaning of "unsure"): llm_calls.answer_logprobs keeps an answer's own token
    logprobs with the raw text they align to (JSON {raw, tokens}), for schemas whose confidence
    is read from them (the lesson judge), so a cached answer keeps the first answer's confidence
    instead of becoming "unknown"."""
    conn.execute("ALTER TABLE llm_calls ADD COLUMN answer_logprobs TEXT")
