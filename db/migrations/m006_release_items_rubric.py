"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m006_release_items_rubric(conn: Database) -> None:
    """The rubric a released version was scored under, so a later rubric switch on the
    assignment never changes released totals. NULL (released before this column): exports fall
    back to the assignment's rubric."""
    conn.execute("ALTER TABLE release_items ADD COLUMN rubric_id INTEGER REFERENCES rubrics(id)")
