"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m030a_course_language(conn: Database) -> None:
    """Issue 30: the language of a course's reflections and of its feedback, an ISO 639-1 code
    (core.language.SUPPORTED). Every course before it assessed English: 'en', the default."""
    conn.execute("ALTER TABLE courses ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")
