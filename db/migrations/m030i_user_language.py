"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m030i_user_language(conn: Database) -> None:
    """The teachers' own languages: the language a user reads the interface in. NULL (every
    existing user): the browser's language. core.language names the codes; core checks them."""
    conn.execute("ALTER TABLE users ADD COLUMN language TEXT")
