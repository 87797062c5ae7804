"""One settings object, read from the environment and `.streamlit/secrets.toml`.

Precedence: environment variable > secrets.toml > default. The API key is only
ever read here and is never written to the database or logs.

Judges (seed 001's consensus step, core.judging.scoring) are a list of {name, model, weight}
(`FAIRMARK_JUDGES` as JSON, or the Settings page). A judge's endpoint and key come only from
the environment or secrets, by its name: `FAIRMARK_JUDGE_<NAME>_BASE_URL` / `_API_KEY`
(`judge_endpoint`); without its own base URL a judge uses the main endpoint and key.
"""
from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

from pydantic import BaseModel, Field

from core.errors import ConfigError
from core.language.interface import Message
from core.judging.judges import FEEDBACK_JUDGES, family, other_family
from db import location

DEFAULT_DB = "fairmark.db"


def _secrets(path: Path | None = None) -> dict:
    path = path or Path(os.environ.get("FAIRMARK_SECRETS", ".streamlit/secrets.toml"))
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (FileNotFoundError, tomllib.TOMLDecodeError, IsADirectoryError):
        return {}
    # Accept both flat keys and a [fairmark] table.
    flat = {k: v for k, v in data.items() if not isinstance(v, dict)}
    flat.update(data.get("fairmark", {}))
    return {str(k).upper(): v for k, v in flat.items()}


class JudgeSpec(BaseModel):
    """A judge of the cascade's consensus step: a model (ideally of another family than the
    Evaluator's) and the weight of its vote."""
    name: str
    model: str
    weight: float = Field(default=1.0, gt=0)

    @property
    def env_name(self) -> str:
        """FAIRMARK_JUDGE_<this>_BASE_URL / _API_KEY."""
        return re.sub(r"[^A-Z0-9]", "_", self.name.upper())


class Settings(BaseModel):
    db_path: str = DEFAULT_DB
    llm_base_url: str | None = None
    llm_api_key: str | None = Field(default=None, repr=False)
    llm_model: str = "gpt-4o-mini"
    models: dict[str, str] = Field(default_factory=dict)  # per-role overrides
    temperature: float = 0.3
    timeout_s: float = 60.0
    max_retries: int = 3
    concurrency: int = 8
    # A run stops when an unknown model or an unreachable endpoint fails this many
    # submissions in a row (core.runs.guard); a refused key stops it at once.
    stop_after_faults: int = 3
    # Sign-in (core/accounts/identity.py): a session ends after this long without a click, and after
    # session_max_hours whatever happens; a name is locked after signin_lock_after failures in a row.
    session_idle_minutes: float = 60.0
    session_max_hours: float = 12.0
    signin_lock_after: int = 5
    signin_lock_minutes: float = 15.0
    # Seed 001's cascade on the scores (core.judging.scoring): the judges of the consensus step
    # and when the first judge's answer is confident enough to stand alone.
    judges: list[JudgeSpec] = Field(default_factory=list)
    cascade_min_confidence: float = 0.85   # every criterion's score at least this probable
    cascade_ev_tolerance: float = 0.3      # ... and its expected score this close to it
    cascade_band_margin: float = 0.3       # the expected mean score at least this far from the band cut
    cascade_samples: int = 2               # self-consistency samples where the model gives no logprobs
    # The readiness gate's band gap (core.calibration.band_gap): ΔMAE's upper 95% bound above this
    # holds the worse band's drafts back from bulk approval.
    max_band_gap: float = 0.30
    # Lesson review: a completions endpoint that echoes the prompt's token logprobs (llama.cpp's
    # server does), for the entropy of the lesson text. Unset: that check is skipped with a note.
    lesson_logprobs_base_url: str | None = None
    lesson_logprobs_model: str | None = None
    lesson_logprobs_api_key: str | None = Field(default=None, repr=False)
    # LTI 1.3 (core/lti): the secret that seals the tool's private signing keys in the database
    # (never stored there itself), and the address the LMS reaches FairMark at (the tool's URLs;
    # unset: taken from each request).
    lti_key_secret: str | None = Field(default=None, repr=False)
    public_url: str | None = None
    # The server sends the LMS grades whose next try has come this often (core.web.server; 0: never,
    # only releases, the Release page's button and `lti push` send them).
    lti_retry_minutes: float = 1.0

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)

    def model_for(self, role: str) -> str:
        """The role's own model, else the default. The judges of the comment (the Reviewer,
        grounding and pedagogy judges) follow every judge's family rule (core.judging.judges):
        without a model of their own they take a configured model of another family than the
        Aggregator's, which wrote the comment (a judge first, then another role's model)."""
        own = self.models.get(role)
        if own:
            return own
        if role in FEEDBACK_JUDGES:
            other = self._feedback_alternative()
            if other is not None:
                return other[1]
        return self.llm_model

    def _feedback_alternative(self) -> tuple[JudgeSpec | None, str] | None:
        writer = self.model_for("aggregator")
        if family(self.llm_model) != family(writer):
            return None          # the default is already of another family than the Aggregator's
        return other_family(writer, [*((j, j.model) for j in self.judges),
                                     *((None, m) for r, m in sorted(self.models.items()) if r not in FEEDBACK_JUDGES)])

    def feedback_judge(self, role: str) -> JudgeSpec | None:
        """The judge whose endpoint serves a comment judge's default model (None: the main one)."""
        if role not in FEEDBACK_JUDGES or self.models.get(role):
            return None
        other = self._feedback_alternative()
        return other[0] if other else None

    def reviewer_judge(self) -> JudgeSpec | None:
        return self.feedback_judge("reviewer")


_MODEL_PREFIX = "FAIRMARK_MODEL_"


def _prefixed(sec: dict) -> dict:
    """secrets.toml keys may omit the FAIRMARK_ prefix."""
    return {(k if k.startswith("FAIRMARK_") else f"FAIRMARK_{k}"): v for k, v in sec.items()}


def _reader(env: dict | None, secrets_path: Path | None):
    """get(NAME, default): FAIRMARK_NAME from the environment, else secrets.toml, else the default."""
    env = dict(os.environ if env is None else env)
    sec = _secrets(secrets_path)

    def get(name: str, default=None):
        key = f"FAIRMARK_{name}"
        if key in env and env[key] != "":
            return env[key]
        if key in sec:
            return sec[key]
        if name in sec:
            return sec[name]
        return default

    return env, sec, get


def db_location(env: dict | None = None, secrets_path: Path | None = None) -> str:
    """FAIRMARK_DB (default ./fairmark.db), checked: a ConfigError that says what is supported when
    it is not a file path (db.location). The app's start and every command check it first."""
    return location.check(_reader(env, secrets_path)[2]("DB", DEFAULT_DB), "FAIRMARK_DB")


def reach_database(path: str) -> None:
    """At the app's start: a PostgreSQL database is connected to once (and made FairMark's when it is
    empty), so one that cannot be reached stops the start with a ConfigError that says why (without
    the password); a SQLite file is made at the first visit, as before."""
    if location.is_postgresql(path):
        import db

        db.connect(path).close()


def load_settings(env: dict | None = None, secrets_path: Path | None = None) -> Settings:
    env, sec, get = _reader(env, secrets_path)

    api_key = get("LLM_API_KEY") or env.get("OPENAI_API_KEY") or sec.get("OPENAI_API_KEY")
    base_url = get("LLM_BASE_URL") or env.get("OPENAI_BASE_URL") or sec.get("OPENAI_BASE_URL")
    # A model per agent role: FAIRMARK_MODEL_<ROLE> for any role of core.agents.registry (read
    # generically, so a new role needs no change here).
    models = {key[len(_MODEL_PREFIX):].lower(): str(value) for key, value in {**_prefixed(sec), **env}.items()
              if key.startswith(_MODEL_PREFIX) and len(key) > len(_MODEL_PREFIX) and value not in ("", None)}
    return Settings(
        judges=_judges(get("JUDGES")),
        cascade_min_confidence=float(get("CASCADE_MIN_CONFIDENCE", 0.85)),
        cascade_ev_tolerance=float(get("CASCADE_EV_TOLERANCE", 0.3)),
        cascade_band_margin=float(get("CASCADE_BAND_MARGIN", 0.3)),
        cascade_samples=int(get("CASCADE_SAMPLES", 2)),
        max_band_gap=float(get("MAX_BAND_GAP", 0.30)),
        db_path=location.check(get("DB", DEFAULT_DB), "FAIRMARK_DB"),
        llm_base_url=base_url or None,
        llm_api_key=api_key or None,
        llm_model=str(get("LLM_MODEL", "gpt-4o-mini")),
        models=models,
        temperature=float(get("TEMPERATURE", 0.3)),
        timeout_s=float(get("TIMEOUT", 60.0)),
        max_retries=int(get("MAX_RETRIES", 3)),
        concurrency=int(get("CONCURRENCY", 8)),
        stop_after_faults=int(get("STOP_AFTER_FAULTS", 3)),
        session_idle_minutes=float(get("SESSION_IDLE_MINUTES", 60)),
        session_max_hours=float(get("SESSION_MAX_HOURS", 12)),
        signin_lock_after=int(get("SIGNIN_LOCK_AFTER", 5)),
        signin_lock_minutes=float(get("SIGNIN_LOCK_MINUTES", 15)),
        lesson_logprobs_base_url=get("LESSON_LOGPROBS_BASE_URL") or None,
        lesson_logprobs_model=get("LESSON_LOGPROBS_MODEL") or None,
        lesson_logprobs_api_key=get("LESSON_LOGPROBS_API_KEY") or None,
        lti_key_secret=get("LTI_KEY_SECRET") or None,
        public_url=(str(get("PUBLIC_URL") or "").rstrip("/") or None),
        lti_retry_minutes=float(get("LTI_RETRY_MINUTES", 1)),
    )


def _judges(value) -> list[JudgeSpec]:
    """FAIRMARK_JUDGES: a JSON list of {"name", "model", "weight"} (or a TOML array of tables
    in secrets.toml)."""
    if value in (None, ""):
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise ConfigError(Message('FAIRMARK_JUDGES must be a JSON list like '
                                      '[{{"name": "b", "model": "gpt-4.1-mini", "weight": 1}}] ({error}).',
                                      error=e)) from None
    try:
        return [JudgeSpec(**dict(v)) for v in value]
    except (TypeError, ValueError) as e:   # pydantic's ValidationError is a ValueError
        raise ConfigError(Message("FAIRMARK_JUDGES: each judge needs a name, a model and a positive weight ({error}).",
                                  error=e)) from None


def judge_endpoint(judge: JudgeSpec | str, env: dict | None = None, secrets_path: Path | None = None
                   ) -> tuple[str | None, str | None]:
    """(base URL, API key) of a judge from FAIRMARK_JUDGE_<NAME>_BASE_URL / _API_KEY in the
    environment or secrets.toml; (None, None) when it has none (it then uses the main endpoint).
    Never stored anywhere."""
    name = judge.env_name if isinstance(judge, JudgeSpec) else JudgeSpec(name=judge, model="-").env_name
    env = dict(os.environ if env is None else env)
    sec = _prefixed(_secrets(secrets_path))
    found = []
    for suffix in ("BASE_URL", "API_KEY"):
        key = f"FAIRMARK_JUDGE_{name}_{suffix}"
        found.append(env.get(key) or sec.get(key) or None)
    return found[0], found[1]
