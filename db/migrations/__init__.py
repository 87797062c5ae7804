"""Schema migrations for the whole data model (see docs/contracts.md).

One module per migration, named as the migration it holds. Each is applied once, inside a
transaction, and recorded by that name in `_sqlite_migrations`: a database made by an older
release migrates on from the names it lists, so a released migration is never renamed or
edited. A change to the data model adds a new module and appends its name to ORDER.

JSON columns hold small documents (scores by criterion, check results, agent outputs);
everything a query filters or sorts on is a real column with an index.
"""
import importlib

from sqlite_utils.migrations import Migrations

# The order migrations apply in: an empty database runs them all, an older one the ones it lacks.
# Appended as they were written, so not sorted by name (m015a_accounts came after m018b).
ORDER = (
    "m001_initial",
    "m002_review_sample",
    "m003_llm_calls_note_mode",
    "m004_metrics_data_version",
    "m005_review_samples_draft",
    "m006_release_items_rubric",
    "m007_draft_outputs",
    "m008_judge_votes",
    "m009_run_worker",
    "m010_run_active_time",
    "m011_calibration",
    "m012_judging",
    "m013a_answer_keys",
    "m013b_ai_configs",
    "m013c_comparisons",
    "m013d_next_steps",
    "m014a_lesson_runs",
    "m014b_lessons",
    "m016_offline_scorer",
    "m017a_aggregates",
    "m017b_llm_batches",
    "m017c_queue_counts",
    "m018a_comparison_runs",
    "m018b_run_items",
    "m015a_accounts",
    "m022a_bulk_holds",
    "m022f_llm_calls_answer_logprobs",
    "m023p_dashboard_scopes",
    "m025c_signin_codes",
    "m026a_appeal_deadline",
    "m025a_lti_launch",
    "m025b_lti_grades",
    "m026b_student_links",
    "m026c_appeals",
    "m027a_rubric_builder",
    "m027b_comment_bank",
    "m028a_moderation",
    "m030a_course_language",
    "m030i_user_language",
    "m027c_anchored_notes",
    "m030s_run_item_error_said",
    "m030t_said_beside_english",
)

migrations = Migrations("fairmark")
for _name in ORDER:
    # Registered under the function's name, which is the module's: the name the database records.
    migrations()(getattr(importlib.import_module(f"{__name__}.{_name}"), _name))
