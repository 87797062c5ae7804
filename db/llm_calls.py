"""The LLM call log, the response cache, the price table and the admin's LLM overrides.

One `llm_calls` row per call (status ok | cache_hit | error). The cache serves the newest
`ok` row with the same cache key (index idx_llm_calls_cache on (cache_key, status)).
Aggregates for the Costs page are SQL, grouped per agent or per run.
"""
from __future__ import annotations

import math
import re

from sqlite_utils import Database

import db as dbmod
from db.errors import ConfigError
from db.message import Message

_CALL_COLUMNS = ("run_id", "submission_id", "lesson_id", "rubric_draft_id", "agent", "model", "prompt_name", "prompt_hash",
                 "input_hash", "temperature", "cache_key", "response", "tokens_in", "tokens_out",
                 "tokens_cached", "latency_ms", "cost_usd", "status", "cache_hit", "error",
                 "request_id", "attempts", "note", "response_mode", "tier", "score_probs", "answer_logprobs")
STATUSES = ("ok", "cache_hit", "error")


# --- call log and cache -----------------------------------------------------------------
def insert_call(conn: Database, **fields) -> int:
    """Append one call to the log; returns its id. Unknown fields are a programming error."""
    unknown = set(fields) - set(_CALL_COLUMNS)
    if unknown:
        raise ValueError(f"llm_calls has no column(s) {sorted(unknown)}")
    if fields.get("status") not in STATUSES:
        raise ValueError(f"llm_calls.status must be one of {STATUSES}, not {fields.get('status')!r}")
    fields.setdefault("note", "")
    cols = list(fields)
    with conn.atomic():
        cur = conn.execute(f"INSERT INTO llm_calls ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                         [fields[c] for c in cols])
    return cur.lastrowid


def cached_response(conn: Database, cache_key: str) -> dict | None:
    """The newest successful answer for this cache key: {id, response, score_probs, answer_logprobs}
    or None (score_probs: the score labels' probabilities from the original call's logprobs;
    answer_logprobs: {raw, tokens}, the answer's own token logprobs where they were kept)."""
    row = conn.execute("SELECT id, response, score_probs, answer_logprobs FROM llm_calls WHERE cache_key = ? AND status = 'ok' "
                     "AND response IS NOT NULL ORDER BY id DESC LIMIT 1", [cache_key]).fetchone()
    return None if row is None else {"id": row[0], "response": row[1], "score_probs": dbmod.loads(row[2], None),
                                     "answer_logprobs": dbmod.loads(row[3], None)}


# --- prices -----------------------------------------------------------------------------
PRICE_FIELDS = ("input_per_mtok", "cached_input_per_mtok", "output_per_mtok")


def cost_usd(price: dict, tokens_in: int, tokens_out: int, tokens_cached: int = 0) -> float:
    """Dollars for one call; prices are per million tokens; cached input tokens (part of
    tokens_in) are billed at the cached rate."""
    cached = min(tokens_cached or 0, tokens_in or 0)
    return ((tokens_in - cached) * price["input_per_mtok"]
            + cached * (price.get("cached_input_per_mtok") or 0)
            + tokens_out * price["output_per_mtok"]) / 1_000_000


def list_prices(conn: Database) -> list[dict]:
    return list(conn.query("SELECT model, input_per_mtok, cached_input_per_mtok, output_per_mtok "
                         "FROM prices ORDER BY model"))


def get_price(conn: Database, model: str) -> dict | None:
    rows = list(conn.query("SELECT * FROM prices WHERE model = ?", [model]))
    return rows[0] if rows else None


def _clean_price(i: int, row: dict) -> dict:
    model = str(row.get("model") or "").strip()
    if not model:
        raise ConfigError(Message("Price row {row}: the model name is empty. Enter the model's exact name.", row=i))
    out = {"model": model}
    for f in PRICE_FIELDS:
        v = row.get(f)
        if v is None or (isinstance(v, float) and math.isnan(v)) or v == "":
            v = 0.0 if f == "cached_input_per_mtok" else None
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise ConfigError(Message("Price row {row} ({model}): {field} must be a number of dollars per million "
                                      "tokens, not {value!r}.", row=i, model=model, field=f, value=row.get(f))) from None
        if v < 0 or math.isnan(v):
            raise ConfigError(Message("Price row {row} ({model}): {field} cannot be negative.", row=i, model=model,
                                      field=f))
        out[f] = v
    return out


def save_price(conn: Database, model: str, input_per_mtok: float, output_per_mtok: float,
               cached_input_per_mtok: float = 0.0) -> None:
    row = _clean_price(1, {"model": model, "input_per_mtok": input_per_mtok,
                           "output_per_mtok": output_per_mtok,
                           "cached_input_per_mtok": cached_input_per_mtok})
    with conn.atomic():
        conn.execute("INSERT OR REPLACE INTO prices (model, input_per_mtok, cached_input_per_mtok, "
                   "output_per_mtok) VALUES (?, ?, ?, ?)", [row["model"], *(row[f] for f in PRICE_FIELDS)])


def replace_prices(conn: Database, rows: list[dict], *, actor: str = "admin") -> int:
    """Replace the whole price table (the Settings page's editor). Every row is validated first,
    so a bad row changes nothing. Audited. Returns the number of prices."""
    clean = [_clean_price(i, r) for i, r in enumerate(rows, start=1)
             if any(r.get(k) not in (None, "") for k in ("model", *PRICE_FIELDS))]
    seen: set[str] = set()
    for i, r in enumerate(clean, start=1):
        if r["model"] in seen:
            raise ConfigError(Message("Price row {row}: model '{model}' is listed twice. Keep one row.", row=i,
                                      model=r["model"]))
        seen.add(r["model"])
    before = list_prices(conn)
    with conn.atomic():
        conn.execute("DELETE FROM prices")
        for r in clean:
            conn.execute("INSERT INTO prices (model, input_per_mtok, cached_input_per_mtok, output_per_mtok) "
                       "VALUES (?, ?, ?, ?)", [r["model"], *(r[f] for f in PRICE_FIELDS)])
        dbmod.audit(conn, actor=actor, action="edit_prices", entity="prices", before=before, after=clean)
    return len(clean)


def unpriced_models(conn: Database) -> list[str]:
    """Models that were called but have no price (their cost shows as 0)."""
    return [r["model"] for r in conn.query(
        "SELECT DISTINCT c.model FROM llm_calls c LEFT JOIN prices p ON p.model = c.model "
        "WHERE p.model IS NULL AND c.status != 'cache_hit' ORDER BY c.model")]


# --- aggregates (Costs page) ------------------------------------------------------------
_AGG = ("COUNT(*) AS calls, "
        "SUM(c.status = 'cache_hit') AS cache_hits, "
        "SUM(c.status = 'error') AS errors, "
        "COALESCE(SUM(c.tokens_in), 0) AS tokens_in, "
        "COALESCE(SUM(c.tokens_out), 0) AS tokens_out, "
        "COALESCE(SUM(c.tokens_cached), 0) AS tokens_cached, "
        "COALESCE(SUM(c.cost_usd), 0) AS cost_usd, "
        "AVG(CASE WHEN c.status = 'ok' THEN c.latency_ms END) AS avg_latency_ms, "
        "MAX(CASE WHEN c.status = 'ok' THEN c.latency_ms END) AS max_latency_ms, "
        "COALESCE(SUM(c.attempts), 0) AS attempts")


def _scope(run_id, course_id, assignment_id) -> tuple[str, list]:
    where, args = [], []
    if run_id is not None:
        where.append("c.run_id = ?")
        args.append(run_id)
    if course_id is not None:
        where.append("c.run_id IN (SELECT id FROM runs WHERE course_id = ?)")
        args.append(course_id)
    if assignment_id is not None:
        where.append("c.run_id IN (SELECT id FROM runs WHERE assignment_id = ?)")
        args.append(assignment_id)
    return (" WHERE " + " AND ".join(where) if where else ""), args


def totals(conn: Database, *, run_id: int | None = None, course_id: int | None = None,
           assignment_id: int | None = None) -> dict:
    """One row of totals: calls, cache_hits, errors, tokens_in/out/cached, cost_usd, latency."""
    where, args = _scope(run_id, course_id, assignment_id)
    return dict(next(iter(conn.query(f"SELECT {_AGG} FROM llm_calls c{where}", args))))


def totals_by_agent(conn: Database, *, run_id: int | None = None, course_id: int | None = None,
                    assignment_id: int | None = None) -> list[dict]:
    where, args = _scope(run_id, course_id, assignment_id)
    return list(conn.query(f"SELECT c.agent, c.model, {_AGG} FROM llm_calls c{where} "
                         "GROUP BY c.agent, c.model ORDER BY cost_usd DESC, c.agent", args))


def totals_by_run(conn: Database, *, course_id: int | None = None,
                  assignment_id: int | None = None) -> list[dict]:
    where, args = _scope(None, course_id, assignment_id)
    where = (where + " AND" if where else " WHERE") + " c.run_id IS NOT NULL"
    return list(conn.query(
        f"SELECT c.run_id, COUNT(DISTINCT c.submission_id) AS submissions, {_AGG}, "
        "MIN(c.created_at) AS first_call_at, MAX(c.created_at) AS last_call_at "
        f"FROM llm_calls c{where} GROUP BY c.run_id ORDER BY c.run_id DESC", args))


# --- admin overrides (Settings page) ----------------------------------------------------
def cascade_calls(conn: Database, *, exclude_model: str) -> dict[str, int]:
    """The judge cascade on the reflections so far (calls of reflection runs and Regenerate):
    judged items (a first Evaluator call at temperature 0, tier 1), their self-consistency
    samples (tier 1 at another temperature) and consensus judge calls (tier 2), cache hits
    included, failed calls and `exclude_model` (the offline baseline) not: {items, samples,
    judge_calls}."""
    row = conn.execute(
        "SELECT COUNT(DISTINCT CASE WHEN c.tier = 1 AND c.temperature = 0 "
        "THEN COALESCE(c.run_id, 0) || '-' || c.submission_id END), "
        "COALESCE(SUM(c.tier = 1 AND c.temperature != 0), 0), COALESCE(SUM(c.tier = 2), 0) "
        "FROM llm_calls c LEFT JOIN runs ru ON ru.id = c.run_id WHERE c.tier IS NOT NULL AND c.status != 'error' "
        "AND c.model != ? AND c.submission_id IS NOT NULL AND COALESCE(ru.kind, 'reflections') = 'reflections'",
        [exclude_model]).fetchone()
    return {"items": row[0], "samples": row[1], "judge_calls": row[2]}


LLM_OVERRIDES_KEY = "llm"
LAST_TEST_KEY = "llm_last_connection_test"
OVERRIDE_FIELDS = ("llm_model", "models", "temperature", "timeout_s", "max_retries", "concurrency")
JUDGING_KEY = "judging"
# The judge cascade's thresholds (core.judging.scoring): kind, lowest and highest allowed value.
CASCADE_LIMITS = {"cascade_min_confidence": (float, 0.5, 1.0), "cascade_ev_tolerance": (float, 0.0, 1.0),
                  "cascade_band_margin": (float, 0.0, 5.0), "cascade_samples": (int, 0, 8)}
CASCADE_LABELS = {"cascade_min_confidence": Message("the lowest probability of a confident score"),
                  "cascade_ev_tolerance": Message("how far the expected score may lie from it"),
                  "cascade_band_margin": Message("the distance from the band cut that counts as near"),
                  "cascade_samples": Message("self-consistency samples")}   # said in the reader's language
JUDGE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")


_get_setting, _set_setting = dbmod.get_setting, dbmod.set_setting


def get_llm_overrides(conn: Database) -> dict:
    return _get_setting(conn, LLM_OVERRIDES_KEY, {}) or {}


def save_llm_overrides(conn: Database, overrides: dict, *, actor: str = "admin") -> dict:
    """Store the admin's choices (models per role, limits). Never the key or the endpoint."""
    unknown = set(overrides) - set(OVERRIDE_FIELDS)
    if unknown:
        raise ConfigError(Message("Unknown LLM setting(s) {unknown}; allowed: {allowed}.", unknown=sorted(unknown),
                                  allowed=", ".join(OVERRIDE_FIELDS)))
    clean: dict = {}
    if overrides.get("models"):
        clean["models"] = {str(r): str(m).strip() for r, m in overrides["models"].items() if str(m or "").strip()}
    if str(overrides.get("llm_model") or "").strip():
        clean["llm_model"] = str(overrides["llm_model"]).strip()
    limits = {"temperature": (float, 0.0, 2.0), "timeout_s": (float, 1.0, 600.0),
              "max_retries": (int, 0, 10), "concurrency": (int, 1, 64)}
    clean.update(_numbers(overrides, limits))
    before = get_llm_overrides(conn)
    with conn.atomic():
        _set_setting(conn, LLM_OVERRIDES_KEY, clean)
        dbmod.audit(conn, actor=actor, action="edit_llm_settings", entity="app_settings",
                    before=before, after=clean)
    return clean


def _numbers(values: dict, limits: dict, labels: dict | None = None) -> dict:
    clean = {}
    for name, (kind, lo, hi) in limits.items():
        v = values.get(name)
        if v is None or v == "":
            continue
        label = (labels or {}).get(name, name)
        try:
            v = kind(v)
        except (TypeError, ValueError):
            raise ConfigError(Message("{label} must be a number between {lo} and {hi}, not {value!r}.", label=label,
                                      lo=lo, hi=hi, value=v)) from None
        if not lo <= v <= hi:
            raise ConfigError(Message("{label} must be between {lo} and {hi}, not {value}.", label=label, lo=lo, hi=hi,
                                      value=v))
        clean[name] = v
    return clean


def get_judging_overrides(conn: Database) -> dict:
    """The admin's judges and cascade thresholds (Settings -> Judges): {judges?, cascade_*?}."""
    return _get_setting(conn, JUDGING_KEY, {}) or {}


def save_judging_overrides(conn: Database, overrides: dict, *, actor: str = "admin") -> dict:
    """Store the judges ([] is a choice too: no judges, whatever the environment says) and the
    cascade's thresholds; never an endpoint or a key. A bad value changes nothing."""
    unknown = set(overrides) - {"judges", *CASCADE_LIMITS}
    if unknown:
        raise ConfigError(Message("Unknown judging setting(s) {unknown}.", unknown=sorted(unknown)))
    clean = _numbers(overrides, CASCADE_LIMITS, CASCADE_LABELS)
    if overrides.get("judges") is not None:
        clean["judges"] = clean_judges(overrides["judges"])
    before = get_judging_overrides(conn)
    with conn.atomic():
        _set_setting(conn, JUDGING_KEY, clean)
        dbmod.audit(conn, actor=actor, action="edit_judging_settings", entity="app_settings",
                    before=before, after=clean)
    return clean


def clean_judges(rows: list[dict]) -> list[dict]:
    """The judge models of the cascade's consensus step, validated: [{name, model, weight}].

    A judge's name picks its endpoint from the environment (FAIRMARK_JUDGE_<NAME>_BASE_URL /
    _API_KEY), so names must be distinct once upper-cased with '-' read as '_'. Blank rows
    (a data editor's empty last line) are ignored; any bad row refuses the whole list."""
    out, seen = [], {}
    for i, row in enumerate(rows or [], start=1):
        name = str(row.get("name") or "").strip()
        model = str(row.get("model") or "").strip()
        weight = row.get("weight")
        if not name and not model:
            continue
        if not JUDGE_NAME.match(name):
            raise ConfigError(Message("Judge row {row}: the name {name!r} must start with a letter and use only "
                                      "letters, digits, '-' or '_' (at most 32): it names the judge's environment "
                                      "variables.", row=i, name=name))
        if not model:
            raise ConfigError(Message("Judge row {row} ({name}): enter the judge's model name.", row=i, name=name))
        key = name.upper().replace("-", "_")
        if key in seen:
            raise ConfigError(Message("Judge row {row} ({name}): the name clashes with row {other} (both use "
                                      "FAIRMARK_JUDGE_{key}_*). Rename one.", row=i, name=name, other=seen[key],
                                      key=key))
        seen[key] = i
        try:
            weight = 1.0 if weight in (None, "") or (isinstance(weight, float) and math.isnan(weight)) else float(weight)
        except (TypeError, ValueError):
            raise ConfigError(Message("Judge row {row} ({name}): the weight must be a number, not {weight!r}.", row=i,
                                      name=name, weight=weight)) from None
        if not 0 < weight <= 10:
            raise ConfigError(Message("Judge row {row} ({name}): the weight must be above 0 and at most 10, not {weight}.",
                                      row=i, name=name, weight=weight))
        out.append({"name": name, "model": model, "weight": weight})
    return out


def get_last_connection_test(conn: Database) -> dict | None:
    return _get_setting(conn, LAST_TEST_KEY)


def save_last_connection_test(conn: Database, result: dict) -> None:
    with conn.atomic():
        _set_setting(conn, LAST_TEST_KEY, result)
