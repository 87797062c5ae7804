"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m017b_llm_batches(conn: Database) -> None:
    """Issue 18: batch mode. Each batch a run submitted to the endpoint's /v1/batches (its id,
    input file, status and output files), and per request the hash of the chat request it
    carried and, once the batch completed, the answer line. A run resumed after a restart waits
    for its batches still running instead of paying for their requests again, and takes the
    answers of completed ones from here; the call log then records them as usual."""
    conn.execute(
        "CREATE TABLE llm_batches ("
        " id INTEGER PRIMARY KEY,"
        " run_id INTEGER REFERENCES runs(id),"
        " batch_id TEXT NOT NULL UNIQUE,"          # the endpoint's id
        " input_file_id TEXT NOT NULL,"
        " status TEXT NOT NULL,"                   # validating | in_progress | ... | completed | failed | expired
        " requests INTEGER NOT NULL,"
        " output_file_id TEXT, error_file_id TEXT, error TEXT,"
        " created_at TEXT NOT NULL,"
        " finished_at TEXT)")
    conn.execute("CREATE INDEX idx_llm_batches_open ON llm_batches (status)")
    conn.execute(
        "CREATE TABLE llm_batch_requests ("
        " batch INTEGER NOT NULL REFERENCES llm_batches(id),"
        " custom_id TEXT NOT NULL,"
        " request_hash TEXT NOT NULL,"             # sha256 of the chat request (model, messages, format, ...)
        " status_code INTEGER,"                    # of the answer line, once the batch completed
        " response TEXT,"                          # the answer line (JSON)
        " PRIMARY KEY (batch, custom_id))")
    conn.execute("CREATE INDEX idx_llm_batch_requests_hash ON llm_batch_requests (request_hash, status_code)")
