"""PostgreSQL as FairMark's database (several app hosts on one database): used when FAIRMARK_DB or
--db is a postgresql:// URL (db.location); SQLite stays the default. `pytest --postgresql` runs the
database tests on it (tests/conftest_postgres.py).

connection.py: sqlite_utils' Database calls that FairMark makes, over psycopg 3 (imported only there,
so SQLite needs no psycopg); dialect.py: SQLite's SQL said in PostgreSQL's; compat.py: SQLite's
functions defined in the database; schema.py: the baseline at the head migration, from SQLite's;
tools.py: backup and restore with pg_dump and pg_restore; migrate.py: a SQLite database copied into
an empty PostgreSQL one (`python -m core data migrate-to URL`).
"""
