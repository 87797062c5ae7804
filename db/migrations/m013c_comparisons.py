"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m013c_comparisons(conn: Database) -> None:
    """Issue 16: blind pairwise comparison of two AI configurations. A pair is one submission
    drafted by A and by B; `b_on_left` is drawn at random when the pair is made, so teachers
    never learn which side is which. One choice per teacher, pair and dimension."""
    conn.execute(
        "CREATE TABLE comparisons ("
        " id INTEGER PRIMARY KEY,"
        " course_id INTEGER NOT NULL REFERENCES courses(id),"
        " assignment_id INTEGER REFERENCES assignments(id),"
        " config_a TEXT NOT NULL REFERENCES ai_configs(hash),"
        " config_b TEXT NOT NULL REFERENCES ai_configs(hash),"
        " variant_b TEXT NOT NULL DEFAULT '',"
        " sample_size INTEGER NOT NULL,"
        " seed INTEGER NOT NULL,"
        " status TEXT NOT NULL DEFAULT 'drafting',"   # drafting | ready | failed
        " error TEXT,"
        " created_by TEXT NOT NULL DEFAULT '',"
        " created_at TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE comparison_pairs ("
        " id INTEGER PRIMARY KEY,"
        " comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id),"
        " stratum TEXT NOT NULL,"                  # low | high | undrafted: the sample's strata
        " position INTEGER NOT NULL,"              # the order teachers see the pairs in
        " b_on_left INTEGER NOT NULL,"
        " comment_a TEXT, comment_b TEXT,"
        " draft_a TEXT, draft_b TEXT,"             # JSON: the drafts (outputs, checks), never shown as A/B
        " judge_a TEXT, judge_b TEXT,"             # JSON: the pedagogy judge on each comment
        " judge_choice TEXT,"                      # A | B | tie | NULL (not run)
        " error TEXT,"
        " UNIQUE (comparison_id, submission_id))")
    conn.execute(
        "CREATE TABLE pair_choices ("
        " id INTEGER PRIMARY KEY,"
        " pair_id INTEGER NOT NULL REFERENCES comparison_pairs(id),"
        " comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
        " teacher TEXT NOT NULL,"
        " dimension TEXT NOT NULL,"                # level | pedagogy
        " choice TEXT NOT NULL,"                   # A | B | tie (translated from left/right on save)
        " created_at TEXT NOT NULL,"
        " UNIQUE (pair_id, teacher, dimension))")
    conn.execute("CREATE INDEX idx_pair_choices_comparison ON pair_choices (comparison_id, teacher)")
