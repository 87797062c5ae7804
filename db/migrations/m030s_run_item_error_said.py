"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m030s_run_item_error_said(conn: Database) -> None:
    """Why a run item failed, in the form a page shows in the reader's language (the JSON of
    core.language.interface.stored) beside its English (`error`). NULL: an item from before, or
    one with no error; its English is shown as it is."""
    conn.execute("ALTER TABLE run_items ADD COLUMN error_said TEXT")
