"""PostgreSQL as FairMark's database (several app hosts on one database), not yet accepted by the app:
db.location refuses a postgresql:// FAIRMARK_DB until it is ready; `pytest --postgresql` turns it on
for the database tests (tests/conftest_postgres.py).

connection.py: sqlite_utils' Database calls that FairMark makes, over psycopg 3 (imported only there,
so SQLite needs no psycopg); dialect.py: SQLite's SQL said in PostgreSQL's; compat.py: SQLite's
functions defined in the database; schema.py: the baseline at the head migration, from SQLite's.
"""
