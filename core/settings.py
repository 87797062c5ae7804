"""One settings object, read from the environment and `.streamlit/secrets.toml`.

Precedence: environment variable > secrets.toml > default. The API key is only
ever read here and is never written to the database or logs.
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, Field

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
    actor: str = "teacher"
    # Lesson review: a completions endpoint that echoes the prompt's token logprobs (llama.cpp's
    # server does), for the entropy of the lesson text. Unset: that check is skipped with a note.
    lesson_logprobs_base_url: str | None = None
    lesson_logprobs_model: str | None = None
    lesson_logprobs_api_key: str | None = Field(default=None, repr=False)

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)

    def model_for(self, role: str) -> str:
        return self.models.get(role) or self.llm_model


_MODEL_PREFIX = "FAIRMARK_MODEL_"


def _prefixed(sec: dict) -> dict:
    """secrets.toml keys may omit the FAIRMARK_ prefix."""
    return {(k if k.startswith("FAIRMARK_") else f"FAIRMARK_{k}"): v for k, v in sec.items()}


def load_settings(env: dict | None = None, secrets_path: Path | None = None) -> Settings:
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

    api_key = get("LLM_API_KEY") or env.get("OPENAI_API_KEY") or sec.get("OPENAI_API_KEY")
    base_url = get("LLM_BASE_URL") or env.get("OPENAI_BASE_URL") or sec.get("OPENAI_BASE_URL")
    # A model per agent role: FAIRMARK_MODEL_<ROLE> for any role of core.agents.registry (read
    # generically, so a new role needs no change here).
    models = {key[len(_MODEL_PREFIX):].lower(): str(value) for key, value in {**_prefixed(sec), **env}.items()
              if key.startswith(_MODEL_PREFIX) and len(key) > len(_MODEL_PREFIX) and value not in ("", None)}
    return Settings(
        db_path=str(get("DB", DEFAULT_DB)),
        llm_base_url=base_url or None,
        llm_api_key=api_key or None,
        llm_model=str(get("LLM_MODEL", "gpt-4o-mini")),
        models=models,
        temperature=float(get("TEMPERATURE", 0.3)),
        timeout_s=float(get("TIMEOUT", 60.0)),
        max_retries=int(get("MAX_RETRIES", 3)),
        concurrency=int(get("CONCURRENCY", 8)),
        actor=str(get("ACTOR", "teacher")),
        lesson_logprobs_base_url=get("LESSON_LOGPROBS_BASE_URL") or None,
        lesson_logprobs_model=get("LESSON_LOGPROBS_MODEL") or None,
        lesson_logprobs_api_key=get("LESSON_LOGPROBS_API_KEY") or None,
    )
