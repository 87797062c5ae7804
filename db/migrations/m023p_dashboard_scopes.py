"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m023p_dashboard_scopes(conn: Database) -> None:
    """Issue 23 (scale since sign-in): what keeps a dashboard's cost flat for every role.

    - agg_groups: the courses of each group scope of agg_cells ('g<hash>', db.aggregates.
      ensure_group): a user's granted courses summed once and kept up to date by the refresh,
      so "all courses" for a coordinator granted 250 courses reads one scope's rows, not 250;
    - the newest submissions two or more versions scored, in every course (judge_view), by an
      index walk instead of a scan of agg_subs;
    - the students with a teacher's score (anchored_view), per course or looked up student by
      student, from an index of those pairs only."""
    conn.execute("CREATE TABLE agg_groups (scope TEXT NOT NULL, course_id INTEGER NOT NULL, "
                 "PRIMARY KEY (scope, course_id)) WITHOUT ROWID")
    conn.execute("CREATE INDEX idx_agg_groups_course ON agg_groups (course_id, scope)")
    conn.execute("CREATE INDEX idx_agg_subs_versions_all ON agg_subs (submission_id) WHERE multi_version = 1")
    conn.execute("CREATE INDEX idx_agg_pairs_teacher ON agg_pairs (student_id, rubric_id) WHERE teacher IS NOT NULL")
    conn.execute("CREATE INDEX idx_agg_pairs_teacher_course ON agg_pairs (course_id, rubric_id, student_id) "
                 "WHERE teacher IS NOT NULL")
