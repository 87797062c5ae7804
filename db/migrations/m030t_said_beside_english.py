"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m030t_said_beside_english(conn: Database) -> None:
    """FairMark's own sentences in the form a page shows in the reader's language (the JSON of
    core.language.interface.stored) beside their English: a draft's attention reasons
    (`drafts.attention_said`, a list parallel to `attention_reasons`, an item None for a reason
    given as plain text) and why a run stopped (`runs.error_said`, beside `runs.error`). NULL: a
    record from before; its English is shown as it is (or read back by its template)."""
    conn.execute("ALTER TABLE drafts ADD COLUMN attention_said TEXT")
    conn.execute("ALTER TABLE runs ADD COLUMN error_said TEXT")
