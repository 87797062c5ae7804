"""An AI configuration: per agent role, the prompt's content hash, the model and the temperature.
Its hash names it; it is recorded (db.evals.record_config) the first time it is used, by a run,
an eval-suite run or a comparison, and every draft stores the hash of the one that wrote it.

A *variant* is a way to describe configuration B before using it: a folder
`prompts/variants/<name>/` holding only the prompt files it changes, and optionally
`variant.json` with {"description": "...", "models": {"<role>": "<model>"}, "temperature": 0.2}.
Everything the folder does not mention stays as configured.

>>> d = definition("offline", load_settings({}))
>>> sorted(d["roles"]["pedagogy"]), d["roles"]["evaluator"]["model"]
(['joint_prompt_hash', 'model', 'prompt_hash', 'temperature'], 'offline')
>>> len(config_hash(d))
16
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.agents import registry
from core.errors import ConfigError
from core.judging import comment_judges
from core.language.interface import Message, N_, message_of
from core.llm import effective_settings, from_settings, make_llm
from core.prompts import PROMPT_DIR, PromptError
from core.settings import Settings, load_settings

VARIANTS_DIR = PROMPT_DIR / "variants"
PROMPT_LABELS = {"bundled": N_("as bundled"), "changed": N_("changed")}   # describe()'s prompt column
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Variant:
    """Configuration B as a difference from the configuration in use ('' = no difference)."""
    name: str = ""
    prompt_dir: Path | None = None
    models: dict = field(default_factory=dict)
    temperature: float | None = None
    description: str = ""


STANDARD = Variant()


def list_variants(root: Path | None = None) -> list[str]:
    root = root or VARIANTS_DIR
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def load_variant(name_or_path: str | Path | None, root: Path | None = None) -> Variant:
    """A variant folder by name (under prompts/variants/) or path, validated: every prompt file
    must belong to a role and load against the variables its code passes; models name roles."""
    if not name_or_path:
        return STANDARD
    root = root or VARIANTS_DIR
    path = Path(name_or_path)
    if not path.is_dir():
        if not _NAME.match(str(name_or_path)):
            raise ConfigError(Message("{name!r} is not a variant name (letters, digits, - _ .)", name=name_or_path))
        path = root / str(name_or_path)
    if not path.is_dir():
        raise ConfigError(Message("No variant folder {path}; variants: {variants}", path=path,
                                  variants=", ".join(list_variants(root)) or Message("none yet")))
    roles = set(registry.names())
    for md in sorted(path.glob("*.md")):
        if md.stem not in roles:
            raise ConfigError(Message("{file}: no agent role {role!r}; a variant's prompt files are named after roles "
                                      "({roles})", file=md, role=md.stem, roles=", ".join(sorted(roles))))
        try:
            registry.get(md.stem).prompt.load(path)
        except PromptError as e:
            raise ConfigError(Message("{file}: {problem}", file=md, problem=message_of(e))) from None
    meta = {}
    if (path / "variant.json").exists():
        try:
            meta = json.loads((path / "variant.json").read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ConfigError(Message("{file}: not valid JSON ({error})", file=path / "variant.json", error=e)) from None
    unknown = set(meta) - {"description", "models", "temperature"}
    if unknown:
        raise ConfigError(Message("{file}: unknown keys {keys}; use description, models, temperature",
                                  file=path / "variant.json", keys=sorted(unknown)))
    models = {str(k): str(v) for k, v in (meta.get("models") or {}).items()}
    bad = set(models) - roles
    if bad:
        raise ConfigError(Message("{file}: models for unknown roles {roles}", file=path / "variant.json",
                                  roles=sorted(bad)))
    temperature = meta.get("temperature")
    if temperature is not None and not (isinstance(temperature, (int, float)) and 0 <= temperature <= 2):
        raise ConfigError(Message("{file}: temperature must be a number from 0 to 2", file=path / "variant.json"))
    return Variant(name=path.name, prompt_dir=path, models=models,
                   temperature=None if temperature is None else float(temperature),
                   description=str(meta.get("description") or ""))


def settings_for(variant: Variant, settings: Settings) -> Settings:
    """The settings in force with the variant's models and temperature on top."""
    update = {}
    if variant.models:
        update["models"] = {**settings.models, **variant.models}
    if variant.temperature is not None:
        update["temperature"] = variant.temperature
    return settings.model_copy(update=update) if update else settings


def _roles(model_for, default_temperature: float, variant: Variant) -> dict:
    hashes = registry.prompt_hashes(variant.prompt_dir)
    out = {}
    for role in registry.roles():
        temp = role.temperature if role.temperature is not None else default_temperature
        out[role.name] = {"model": model_for(role.name), "temperature": round(float(temp), 4),
                          "prompt_hash": hashes[role.name]}
    # the grounding and pedagogy verdicts may come from their joint prompt (core.judging.comment_judges)
    for name in comment_judges.ROLES:
        out[name]["joint_prompt_hash"] = hashes[comment_judges.PROMPT.name]
    return out


def definition(provider: str, settings: Settings, variant: Variant = STANDARD) -> dict:
    """The configuration a run with this provider and these settings (already effective) uses."""
    if provider == "offline":
        return {"provider": "offline", "roles": _roles(lambda r: "offline", 0.0, variant)}
    s = settings_for(variant, settings)
    return {"provider": provider, "roles": _roles(s.model_for, s.temperature, variant)}


def of_llm(llm, variant: Variant = STANDARD) -> dict:
    """The configuration an LLM object answers with (what the pipeline records on a draft)."""
    return {"provider": llm.provider, "roles": _roles(llm.model_for, float(getattr(llm, "temperature", 0.3)), variant)}


def config_hash(defn: dict) -> str:
    return hashlib.sha256(json.dumps(defn, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def current(provider: str, settings: Settings | None = None, variant: Variant = STANDARD) -> dict:
    """The configuration in use for `provider` (Settings page overrides applied)."""
    return definition(provider, effective_settings(settings or load_settings()), variant)


def llm_for(provider: str, db_path, variant: Variant = STANDARD, settings: Settings | None = None, *,
            read_cache: bool = True):
    """The logged LLM of a configuration: the settings in force plus the variant's models and
    temperature (its prompts travel on the Job: Job.prompt_dir)."""
    if provider == "offline":
        return make_llm("offline", db_path, read_cache=read_cache)
    s = settings_for(variant, effective_settings(settings or load_settings()))
    return from_settings(s, db_path, read_cache=read_cache, apply_overrides=False)


def describe(defn: dict) -> list[dict]:
    """One row per role for a table: role, model, temperature, and whether its prompt is the
    bundled one (a prompt's hash means nothing to a reader). The role and the prompt are N_
    labels: a page shows them with t()."""
    labels, bundled = registry.labels(), registry.prompt_hashes(None)
    return [{"role": labels.get(name, name), "model": r["model"], "temperature": r["temperature"],
             "prompt": PROMPT_LABELS["bundled" if r.get("prompt_hash") == bundled.get(name) else "changed"]}
            for name, r in defn.get("roles", {}).items()]


def name(defn: dict | None, *, variant: str = "", first_used_at: str | None = None) -> Message:
    """A configuration as people tell them apart (its hash stays its key in the database and on
    the command line): models, temperature, prompts, and when it was first used. A Message:
    pages show it with said(); the provider, the models and the variant's name are not translated.

    >>> name({"provider": "openai", "roles": {"a": {"model": "gpt-4o-mini", "temperature": 0.3}}}, variant="questions")
    'openai gpt-4o-mini at temperature 0.3, prompts of the variant “questions”'
    """
    from core.text import format_timestamp

    if not defn:
        return Message("a configuration not used yet")
    if defn.get("provider") == "offline":
        return Message("the offline baseline")
    roles = list(defn.get("roles", {}).values())
    values = {"provider": defn.get("provider", ""), "models": ", ".join(sorted({str(r.get("model")) for r in roles})),
              "temperatures": "/".join(f"{t:g}" for t in sorted({float(r.get("temperature", 0)) for r in roles}))}
    text = (Message("{provider} {models} at temperature {temperatures}, prompts of the variant “{variant}”",
                    variant=variant, **values) if variant
            else Message("{provider} {models} at temperature {temperatures}, bundled prompts", **values))
    if first_used_at:
        return Message("{configuration}, first used {when}", configuration=text, when=format_timestamp(first_used_at))
    return text
