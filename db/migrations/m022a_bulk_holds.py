"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m022a_bulk_holds(conn: Database) -> None:
    """Issue 22: why a draft may not be approved in bulk, decided once when it is stored
    (core.signoff.eligibility): drafts.held_back, a JSON list of {code, text, criteria}. The
    bulk query (db.samples) reads it in SQL, so it stays one statement at any size.

    Drafts stored before this are held back on what their record still says: LLM judges'
    votes that differ from the final score, an unsure or unknown confidence, a veto, the
    offline baseline (which has no confidence per item)."""
    conn.execute("ALTER TABLE drafts ADD COLUMN held_back TEXT NOT NULL DEFAULT '[]'")
    conn.execute("""
        UPDATE drafts SET held_back = (SELECT json_group_array(json_object('code', code, 'text', text,
                                                                       'criteria', json('[]')))
          FROM (SELECT 'votes_split' AS code, 'The judges gave different scores: check them before approving.' AS text
                WHERE EXISTS (SELECT 1 FROM judge_votes v WHERE v.subject = 'submission' AND v.draft_id = drafts.id
                              AND v.tier >= 1 AND v.score <> json_extract(drafts.scores, '$.' || v.criterion))
                UNION ALL SELECT 'unsure', 'The AI was not sure of its scores and no other judge settled them.'
                WHERE drafts.is_offline = 0 AND (drafts.judging IN ('', '{}')
                      OR json_array_length(json_extract(drafts.judging, '$.unsure')) > 0
                      OR json_extract(drafts.judging, '$.route') IN
                         ('low_confidence', 'confidence_unknown', 'judges_failed', 'judges_disagree'))
                UNION ALL SELECT 'veto', 'A criterion scored below the rubric''s veto level.'
                WHERE json_array_length(json_extract(drafts.judging, '$.vetoed')) > 0
                UNION ALL SELECT 'offline_only', 'Drafted by the offline baseline, which says nothing about how sure '
                       || 'it is of one item: it can be approved in bulk only once the baseline''s own blind agreement '
                       || 'on this assignment clears the readiness bar.'
                WHERE drafts.is_offline = 1))""")
