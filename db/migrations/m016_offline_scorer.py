"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m016_offline_scorer(conn: Database) -> None:
    """Issue 15: the learned offline scorer.
    - offline_models: every trained version per assignment, stored with the data it was trained
      on (`training`: submission, criterion, score and source of every score it learned from;
      `data_hash` of them), the teacher's options at the time, the cross-validated agreement of
      the model and of word count alone (`agreement`), and the model itself (`model`: a numpy
      .npz of numbers and words, never a pickle). A version with too few scores for a criterion
      keeps the heuristic there, calibrated on the scores that exist (`calibration`).
    - offline_scorer_options: per assignment, the teacher's choices (the minimum of scores per
      criterion, whether teachers' one-by-one approvals and edits count, whether assignments of
      the course that share the rubric pool their scores)."""
    conn.execute(
        "CREATE TABLE offline_models ("
        " id INTEGER PRIMARY KEY,"
        " assignment_id INTEGER NOT NULL REFERENCES assignments(id),"
        " rubric_id INTEGER NOT NULL REFERENCES rubrics(id),"
        " version INTEGER NOT NULL,"               # 1, 2, ... per assignment
        " options TEXT NOT NULL DEFAULT '{}',"     # JSON: min_per_criterion, use_edits, pool
        " training TEXT NOT NULL DEFAULT '[]',"    # JSON: [{submission_id, assignment_id, criterion, score, source}]
        " data_hash TEXT NOT NULL,"                # of options + training: same data, same model
        " criteria TEXT NOT NULL DEFAULT '{}',"    # JSON: criterion -> {kind: learned | calibrated | heuristic, scores}
        " agreement TEXT NOT NULL DEFAULT '{}',"   # JSON: criterion -> cross-validated figures, model and word count
        " calibration TEXT NOT NULL DEFAULT '{}',"  # JSON: criterion -> the heuristic's cut points
        " model BLOB,"                             # core.offline.model.Model.to_bytes (NULL: no criterion learned)
        " seconds REAL NOT NULL DEFAULT 0,"        # training time
        " trained_by TEXT NOT NULL,"
        " trained_at TEXT NOT NULL,"
        " UNIQUE (assignment_id, version))")
    conn.execute(
        "CREATE TABLE offline_scorer_options ("
        " assignment_id INTEGER PRIMARY KEY REFERENCES assignments(id),"
        " min_per_criterion INTEGER NOT NULL,"
        " use_edits INTEGER NOT NULL DEFAULT 0,"
        " pool INTEGER NOT NULL DEFAULT 0,"
        " updated_by TEXT NOT NULL,"
        " updated_at TEXT NOT NULL)")
