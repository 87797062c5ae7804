"""Queries behind the Agreement, Fairness and Costs dashboards: SQL and the counts it returns.

SQL does the heavy lifting: each query turns the submissions in scope into a small table of
counts — one row per distinct (criterion, ai, reference[, week, model version, group, word
count]) — and `core.reports` computes every figure and bootstrap CI from those counts. So a
page costs one scan of the data plus a fixed amount of arithmetic, at 100 or 100,000
submissions.

Which scores are compared:
- AI = the draft's own scores before any teacher edit: the draft the teacher's review started
  from, else the submission's current draft.
- reference, per (submission, criterion), by `reference` — honest references first:
  "auto"    uploaded expert scores where present (mean of the raters), else the moderator's settled
            score (core.moderation), else blind calibration scores (mean of the raters, given blind);
  "expert"  uploaded expert scores only (mean of the raters);
  "rater:NAME" one uploaded rater;
  "blind"   blind calibration scores only (Calibrate page, or uploads declared as calibration);
  "teacher" teachers' final scores given AFTER SEEING THE AI DRAFT (review approved one by one,
            or the submission released), shown apart and labelled so: anchored on the AI.
  Bulk approvals are never a reference: they copy the AI's scores.
- `student` (a dimension) names each pair's student, so intervals can resample students.
Scope: "assignment" (one assignment), "course" (one course) or "all" (every course).
"""
from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import dataclass

import pandas as pd
from sqlite_utils import Database

from db import aggregates, file_of, loads
from db.aggregates import NOT_RECORDED, OFFLINE_VERSION, VERSION_SQL  # noqa: F401  (this module's API)

REFERENCE_CHOICES = ("auto", "expert", "blind", "teacher")
COMMENT_SAMPLE = 300  # edited comments compared for edit distance (newest first)
JUDGE_SAMPLE = 2000  # newest submissions scored by two or more model/prompt versions


@dataclass(frozen=True)
class Scope:
    kind: str = "all"  # assignment | course | all
    course_id: int | None = None
    assignment_id: int | None = None
    courses: tuple[int, ...] | None = None  # "all" limited to these (a user's granted courses)

    def where(self, sub: str = "s", asg: str = "a") -> tuple[str, list]:
        """The scope as one SQL condition (a user's granted courses: one IN list, no check per row)."""
        return self._condition(f"{sub}.assignment_id", f"{asg}.course_id")

    def agg_where(self, prefix: str = "") -> tuple[str, list]:
        """The scope over db.aggregates' per-submission rows (their course_id, assignment_id)."""
        return self._condition(f"{prefix}assignment_id", f"{prefix}course_id")

    def _condition(self, assignment: str, course: str) -> tuple[str, list]:
        if self.kind == "assignment":
            return (f"{assignment} = ?", [self.assignment_id]) if self.assignment_id else ("1 = 0", [])
        if self.kind == "course":
            return (f"{course} = ?", [self.course_id]) if self.course_id else ("1 = 0", [])
        if self.courses is not None:
            return (f"{course} IN ({', '.join('?' * len(self.courses))})", list(self.courses)) \
                if self.courses else ("1 = 0", [])
        return "1 = 1", []   # conditions, not integers: PostgreSQL takes no integer for AND

    @property
    def cell_keys(self) -> list[str]:
        """The agg_cells scopes whose sum is this scope: "all" limited to a user's granted courses
        is that course's rows, or the group of those courses (db.aggregates.ensure_group, made by
        `fresh_version`), never the all-courses row, which counts the others too."""
        if self.kind == "all" and self.courses is not None:
            if len(set(self.courses)) > 1:
                return [aggregates.group_key(self.courses)]
            return [f"c{c}" for c in set(self.courses)]
        return [] if self.key is None else [self.key]

    @property
    def key(self) -> str | None:
        """The scope's rows in agg_cells ('all', 'c<course>', 'a<assignment>'); None: nothing chosen."""
        if self.kind == "assignment":
            return f"a{self.assignment_id}" if self.assignment_id else None
        if self.kind == "course":
            return f"c{self.course_id}" if self.course_id else None
        return "all"


def _check_reference(reference: str) -> None:
    if reference in REFERENCE_CHOICES or (reference.startswith("rater:") and reference.removeprefix("rater:")):
        return
    raise ValueError(f"reference must be one of {REFERENCE_CHOICES} or 'rater:NAME', not {reference!r}")


DIMENSIONS = ("week", "version", "word_count", "student")   # pair_counts' `by`, besides "source"


# --- a cache of aggregate queries, valid while the data do not change ------------------------
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()
_CACHE_MAX = 64


def data_version(conn: Database) -> int:
    """Bumped by triggers on writes to the tables the dashboards read (migration m004; since
    m017a no longer by the call log and the runs)."""
    return conn.execute("SELECT version FROM analytics_version WHERE id = 1").fetchone()[0]


def fresh_version(conn: Database, scope: Scope | None = None) -> int:
    """Refresh the kept-up-to-date counts (db.aggregates) and return their version (of `scope`
    when given): the cache key of every view built from them, so only a change to what they
    count (in that scope) makes a view recompute."""
    aggregates.refresh(conn)
    if scope is not None and scope.cell_keys[:1] == [aggregates.group_key(scope.courses or ())]:
        aggregates.ensure_group(conn, scope.courses)
    return aggregates.version(conn, None if scope is None else (scope.key or "none"))


def costs_version(conn: Database) -> tuple[int, int]:
    """The Costs page's cache key: the data version and the call log's (m017a)."""
    return data_version(conn), aggregates.calls_version(conn)


def blind_version(conn: Database, assignment_id: int) -> tuple:
    """What the readiness gate and the offsets read, fingerprinted: the assignment's pairs that
    have a blind score (AI score, blind mean, student) and its blind scores by rater. The
    assignment's other drafts (a run writing there) leave it unchanged, so the banner above
    the review queue stays cached while a run goes on. Call after `fresh_version`."""
    pairs = conn.execute("SELECT COUNT(*), TOTAL(ai * 7 + blind * 13 + student_id * 3 + submission_id), "
                         "TOTAL(ai * blind), MAX(submission_id) FROM agg_pairs "
                         "WHERE assignment_id = ? AND blind IS NOT NULL", [assignment_id]).fetchone()
    raters = conn.execute("SELECT COUNT(*), TOTAL(cs.id * 3 + cs.score), MAX(cs.id) FROM calibration_scores cs "
                          "JOIN submissions s ON s.id = cs.submission_id WHERE s.assignment_id = ?",
                          [assignment_id]).fetchone()
    return (*pairs, *raters)


def memo(conn: Database, key: tuple, compute, *, version=None):
    """Result of `compute()` cached per (database file, version, key); in-memory DBs are not cached.

    `version` is a number saying the data behind `key` are unchanged (default: data_version);
    views built from db.aggregates pass `fresh_version(conn)`. The dashboards' reports
    (core.reports) cache what they derive here too, so a rerun on unchanged data neither scans
    nor recomputes.
    """
    path = file_of(conn) or ""
    if not path:
        return compute()
    full = (path, data_version(conn) if version is None else version, key)
    with _cache_lock:
        if full in _cache:
            _cache.move_to_end(full)
            return copy.deepcopy(_cache[full])  # callers may modify what they get
    value = compute()
    with _cache_lock:
        _cache[full] = value
        while len(_cache) > _CACHE_MAX:
            _cache.popitem(last=False)
    return copy.deepcopy(value)


def cached(conn: Database, key: tuple, version) -> bool:
    """Is `key` cached under `version` (what memo would answer without computing)?"""
    path = file_of(conn) or ""
    with _cache_lock:
        return bool(path) and (path, version, key) in _cache


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


# --- per-pair counts (with students): what the intervals resample -----------------------------
def pair_counts(conn: Database, scope: Scope, *, reference: str = "auto", by: tuple[str, ...] = (),
                attributes: bool = False, expand: bool = True) -> pd.DataFrame:
    """Counts of (rubric_id, criterion, *by, [attribute, group], ai, reference) in scope, from
    the kept-up-to-date pairs (db.aggregates), grouped in SQL.

    `by` may hold "week", "version", "word_count", "student" and "source" (expert | blind |
    teacher). With `attributes=True` each pair appears once per student attribute (columns
    `attribute`, `group`; "(not recorded)" for students without it). With `expand=False` the raw
    attributes JSON stays one column (`attributes`), to be expanded later with
    `expand_attributes`. It reads one row per pair in scope: the intervals need students;
    figures and point estimates read `cell_counts` instead. Cached until the counts change.
    """
    _check_reference(reference)
    for name in by:
        if name not in DIMENSIONS and name != "source":
            raise ValueError(f"unknown dimension {name!r}; choose from {sorted([*DIMENSIONS, 'source'])}")
    table = memo(conn, ("pairs", scope, reference, tuple(by), attributes),
                 lambda: _pair_counts(conn, scope, reference, tuple(by), attributes),
                 version=fresh_version(conn, scope))
    return expand_attributes(table) if attributes and expand else table


def _pair_counts(conn, scope, reference, by, attributes) -> pd.DataFrame:
    if reference == "auto":
        ref_sql, source_sql = "COALESCE(expert, moderated, blind)", ("CASE WHEN expert IS NOT NULL THEN 'expert' WHEN "
                                                                     "moderated IS NOT NULL THEN 'moderated' ELSE 'blind' END")
    elif reference.startswith("rater:"):
        ref_sql, source_sql = "json_extract(raters, '$.\"' || ? || '\"')", "'expert'"
    else:
        ref_sql, source_sql = reference, f"'{reference}'"
    args = [reference.removeprefix("rater:")] if reference.startswith("rater:") else []
    columns = {"week": "week", "version": "version", "word_count": "word_count", "student": "student_id",
               "source": source_sql}
    names = ["rubric_id", "criterion", *by, *(["attributes"] if attributes else [])]
    select = ["rubric_id", "criterion", *(f"{columns[b]} AS {b}" for b in by), *(["attributes"] if attributes else [])]
    key = scope.key
    where, scope_args = scope.agg_where()
    keys = ", ".join(str(i + 1) for i in range(len(names) + 2))
    sql = (f"SELECT {', '.join(select)}, ai, {ref_sql} AS reference, COUNT(*) AS n FROM agg_pairs "
           f"WHERE {where if key else '1 = 0'} AND {ref_sql} IS NOT NULL GROUP BY {keys} ORDER BY {keys}")
    rows = conn.execute(sql, [*args, *scope_args, *args]).fetchall() if key else []
    df = pd.DataFrame(rows, columns=[*names, "ai", "reference", "n"])
    df["ai"] = df["ai"].astype(float)
    df["reference"] = df["reference"].astype(float)
    return df


def expand_attributes(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (attribute, group) from the raw attributes JSON; missing -> "(not recorded)"."""
    parsed = {raw: loads(raw, {}) or {} for raw in df["attributes"].unique()}
    parsed = {raw: (d if isinstance(d, dict) else {}) for raw, d in parsed.items()}
    names = sorted({k for d in parsed.values() for k in d})
    parts = []
    for name in names:
        value = {raw: (NOT_RECORDED if d.get(name) in (None, "") else str(d[name])) for raw, d in parsed.items()}
        parts.append(df.assign(attribute=name, group=df["attributes"].map(value)).drop(columns="attributes"))
    cols = [c for c in df.columns if c != "attributes"]
    if not parts:
        return pd.DataFrame(columns=[*cols[:-3], "attribute", "group", *cols[-3:]])
    out = pd.concat(parts, ignore_index=True)
    keys = [c for c in out.columns if c != "n"]
    return out.groupby(keys, as_index=False, sort=True)["n"].sum()


# --- summed counts per scope: what figures and point estimates read ---------------------------
CELL_DIMS = ("", "week", "version", "word_count", "attribute")


def cell_counts(conn: Database, scope: Scope, *, reference: str = "auto", dim: str = "") -> pd.DataFrame:
    """Counts of (rubric_id, criterion, source, [dim], ai, reference) in scope, read from the
    summed counts (db.aggregates): the table read does not grow with the submissions.

    `dim` "" (none), "week", "version", "word_count" (an int column) or "attribute" (columns
    `attribute`, `group`, with "(not recorded)" for the pairs of students without it, as
    `pair_counts(..., attributes=True)`). Cached until the counts change.
    """
    _check_reference(reference)
    if dim not in CELL_DIMS:
        raise ValueError(f"unknown dimension {dim!r}; choose from {CELL_DIMS}")
    return memo(conn, ("cells", scope, reference, dim), lambda: _cell_counts(conn, scope, reference, dim),
                version=fresh_version(conn, scope))


def _cells(conn: Database, scope: Scope, ref: str, dim_sql: str, dim_args: list) -> list:
    keys = scope.cell_keys
    if not keys:
        return []
    cols = "rubric_id, criterion, source, dim, value, ai, reference"
    return conn.execute(
        f"SELECT {cols}, SUM(n) FROM agg_cells WHERE scope IN ({', '.join('?' * len(keys))}) AND ref = ? "
        f"AND {dim_sql} GROUP BY {cols} ORDER BY {cols}", [*keys, ref, *dim_args]).fetchall()


def _cell_counts(conn: Database, scope: Scope, reference: str, dim: str) -> pd.DataFrame:
    cols = ["rubric_id", "criterion", "source", "dim", "value", "ai", "reference", "n"]
    if dim != "attribute":
        df = pd.DataFrame(_cells(conn, scope, reference, "dim = ?", [dim]), columns=cols)
        df = df.drop(columns="dim").rename(columns={"value": dim}) if dim else df.drop(columns=["dim", "value"])
        if dim == "word_count":
            df["word_count"] = df["word_count"].astype(int)
        return df
    base = pd.DataFrame(_cells(conn, scope, reference, "dim = ''", []), columns=cols).drop(columns=["dim", "value"])
    found = pd.DataFrame(_cells(conn, scope, reference, "dim LIKE 'attr:%'", []), columns=cols)
    found["attribute"] = found["dim"].str.removeprefix("attr:")
    keys = ["rubric_id", "criterion", "source", "ai", "reference"]
    parts = [found.rename(columns={"value": "group"})[[*keys[:3], "attribute", "group", *keys[3:], "n"]]]
    # Pairs of students without the attribute are counted nowhere under it: base minus the rest.
    for name, part in found.groupby("attribute", sort=True):
        rest = base.merge(part.groupby(keys, as_index=False)["n"].sum(), on=keys, how="left", suffixes=("", "_x"))
        rest["n"] = rest["n"] - rest["n_x"].fillna(0).astype(int)
        rest = rest[rest["n"] > 0].drop(columns="n_x").assign(attribute=name, group=NOT_RECORDED)
        parts.append(rest[[*keys[:3], "attribute", "group", *keys[3:], "n"]])
    out = pd.concat(parts, ignore_index=True) if len(found) else parts[0].iloc[0:0]
    group_keys = [*keys[:3], "attribute", "group", *keys[3:]]
    return out.groupby(group_keys, as_index=False, sort=True)["n"].sum()


def student_count(conn: Database, scope: Scope, reference: str, rubric_ids: set[int]) -> int:
    """How many students have a pair with this reference in scope (on these rubrics): one
    indexed pass over the scope's pairs, no Python loop."""
    _check_reference(reference)
    if scope.key is None or not rubric_ids or reference not in ("expert", "blind", "teacher", "auto"):
        return 0
    ref = "COALESCE(expert, moderated, blind)" if reference == "auto" else reference
    where, args = scope.agg_where()
    ids = sorted(int(r) for r in rubric_ids)
    rubrics = f"rubric_id IN ({', '.join('?' * len(ids))})"
    if scope.kind == "all" and scope.courses is None and reference == "teacher":  # each student looked up (m023p)
        return conn.execute(f"SELECT COUNT(*) FROM students st WHERE EXISTS (SELECT 1 FROM agg_pairs WHERE "
                            f"student_id = st.id AND teacher IS NOT NULL AND {rubrics})", ids).fetchone()[0]
    return conn.execute(f"SELECT COUNT(DISTINCT student_id) FROM agg_pairs WHERE {where} AND {ref} IS NOT NULL "
                        f"AND {rubrics}", [*args, *ids]).fetchone()[0]


def raters(conn: Database, scope: Scope) -> list[str]:
    """The uploaded raters whose scores are paired with an AI score in scope (from the counts)."""
    keys = scope.cell_keys
    if not keys:
        return []
    fresh_version(conn, scope)
    return [r[0].removeprefix("rater:") for r in conn.execute(
        f"SELECT DISTINCT ref FROM agg_cells WHERE scope IN ({', '.join('?' * len(keys))}) AND ref > 'rater:' "
        "AND ref < 'rater;' ORDER BY ref", keys)]


def rubric_ids(conn: Database, scope: Scope) -> list[int]:
    """Ids of the rubrics used by the assignments in scope, in id order."""
    where, args = scope.where(sub="a", asg="a")
    where = where.replace("a.assignment_id", "a.id")
    sql = f"SELECT DISTINCT a.rubric_id FROM assignments a WHERE {where} ORDER BY a.rubric_id"
    return [r[0] for r in conn.execute(sql, args)]


def attributes(conn: Database, scope: Scope) -> list[str]:
    """Student attribute names (section, ell, ...) present in the scope."""
    where, args = scope.where()
    return [r[0] for r in conn.execute(
        f"SELECT DISTINCT j.key FROM students st CROSS JOIN json_each(st.attributes) j WHERE st.id IN ("
        f"SELECT s.student_id FROM submissions s JOIN assignments a ON a.id = s.assignment_id WHERE {where}) "
        f"ORDER BY j.key", args)]


# --- edit analytics ---------------------------------------------------------------------------
def edit_counts(conn: Database, scope: Scope) -> dict:
    """What teachers changed in reviews they decided one by one (approved/rejected), as counts.

    Bulk approvals are left out (they copy the AI's draft: counting them as "approved
    unchanged" would flatter it) and only counted, in "bulk_approved".
    {"outcomes": (status, scores_changed, comment_changed, n), "changes": (criterion, ai,
    teacher, n) for approved reviews, "comment_pairs": [(draft comment, final comment)] of the
    newest COMMENT_SAMPLE edited comments, "reason_codes": (code, n), "bulk_approved": int}.
    Read from the kept-up-to-date counts (db.aggregates): constant in the number of submissions.
    """
    fresh_version(conn, scope)
    rows = _cells(conn, scope, "edit", "dim IN ('outcome', 'change', 'reason')", [])
    outcome, changes, codes = [], [], []
    for _, criterion, _, dim, value, ai, teacher, n in rows:
        if dim == "outcome":
            status, bulk, scores_changed, comment_changed = value.split("|")
            outcome.append((status, int(bulk), int(scores_changed), int(comment_changed), n))
        elif dim == "change":
            changes.append((criterion, ai, teacher, n))
        else:
            codes.append((value, n))
    decided = pd.DataFrame(outcome, columns=["status", "bulk", "scores_changed", "comment_changed", "n"])
    bulk = int(decided.loc[(decided["bulk"] == 1) & (decided["status"] == "approved"), "n"].sum())
    outcomes = decided[decided["bulk"] == 0].drop(columns="bulk").reset_index(drop=True)
    return {"outcomes": outcomes, "changes": pd.DataFrame(changes, columns=["criterion", "ai", "teacher", "n"]),
            "comment_pairs": _comment_pairs(conn, scope), "reason_codes": pd.DataFrame(codes, columns=["code", "n"]),
            "bulk_approved": bulk}


def _comment_pairs(conn: Database, scope: Scope) -> list[tuple[str, str]]:
    """The newest COMMENT_SAMPLE comments teachers changed (decisions one by one): an index walk."""
    if scope.key is None:
        return []
    where, args = scope.agg_where("x.")
    return [tuple(r) for r in conn.execute(
        "SELECT d.comment, r.comment FROM agg_subs x JOIN reviews r ON r.submission_id = x.submission_id "
        "JOIN submissions s ON s.id = x.submission_id JOIN drafts d ON d.id = COALESCE(r.draft_id, s.current_draft_id) "
        f"WHERE {where} AND x.comment_edited_at IS NOT NULL "
        f"ORDER BY x.comment_edited_at DESC LIMIT {COMMENT_SAMPLE}", args).fetchall()]


# --- judges: agreement between models / prompt versions ------------------------------------
def judge_scores(conn: Database, scope: Scope) -> pd.DataFrame:
    """(submission_id, version, criterion, score): each model/prompt version's latest successful
    draft per submission, over the newest JUDGE_SAMPLE submissions that two or more versions scored."""
    # db.aggregates flags the submissions two or more versions scored: an index walk, not a scan.
    fresh_version(conn)
    where, args = scope.agg_where("x.")
    if scope.key is None:
        return pd.DataFrame(columns=["submission_id", "version", "criterion", "score"])
    rows = conn.execute(f"""
        WITH shared AS (
            SELECT x.submission_id FROM agg_subs x WHERE x.multi_version = 1 AND {where}
            ORDER BY x.submission_id DESC LIMIT {JUDGE_SAMPLE}
        ), v AS (
            SELECT d.submission_id, {VERSION_SQL} AS version, d.scores, d.id
            FROM drafts d WHERE d.submission_id IN (SELECT submission_id FROM shared) AND d.status != 'failed'
        )
        SELECT submission_id, version, scores FROM v WHERE id IN (SELECT MAX(id) FROM v GROUP BY submission_id, version)
        """, args).fetchall()
    return pd.DataFrame([(sid, ver, k, v) for sid, ver, sc in rows for k, v in (loads(sc, {}) or {}).items()],
                        columns=["submission_id", "version", "criterion", "score"])
