"""The gate in front of an AI change: has the configuration in use passed its blocking eval
cases (seed 003: leakage and grounding block a release)?

    state "passed"       its latest eval-suite run had no blocking case failed or not run
    state "failed"       a blocking case failed
    state "unevaluated"  never evaluated, or blocking cases could not run (the offline
                         provider cannot run the judges)
    state "offline"      the offline baseline: not an AI configuration, nothing to gate

A run (core.runs.reflections.create), a Regenerate (core.pipeline.assess_one) and a resumed run whose
settings changed since it started (core.runs.reflections) with a configuration that has not passed are
refused unless an admin has overridden the gate for exactly that configuration, with a reason
(on the Settings page); the override is stored and written to the audit log. Any change to a
prompt, a model or a temperature is a new configuration, which has to pass (or be overridden)
again.
"""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.errors import GateError, NotFound
from core.evals import config as ai_config
from core.language.interface import Message, N_
from core.text import format_date
from db import audit
from db import evals as evals_db
from db import users as users_db

LABELS = {"passed": N_("passed its blocking eval cases"), "failed": N_("FAILED blocking eval cases"),
          "unevaluated": N_("not evaluated yet"), "offline": N_("offline baseline — not an AI configuration")}
OVERRIDDEN = {"failed": N_("FAILED blocking eval cases — run allowed by an admin's override"),
              "unevaluated": N_("not evaluated yet — run allowed by an admin's override")}   # pages: t(label)
HOW = Message("Run `python -m core evals run` with this configuration (a real endpoint runs the judges); "
              "or an admin can override the gate on the Settings page, with a reason (audited).")


def config_name(conn, config_hash: str | None, definition: dict | None = None) -> Message:
    """What pages call a configuration (core.evals.config.name, a Message: pages show it with
    said()): from its recorded definition, else from `definition` (one not used yet)."""
    cfg = evals_db.get_config(conn, config_hash) if config_hash else None
    if cfg is None:
        return ai_config.name(definition) if definition else Message("a configuration not recorded here")
    return ai_config.name(cfg["definition"], variant=cfg.get("variant") or "", first_used_at=cfg.get("first_used_at"))


def status(conn, config_hash: str | None, provider: str | None = None, definition: dict | None = None) -> dict:
    """{hash, name, state, label, cleared, override, eval_run, message} of a configuration
    (`definition`: names one not recorded yet)."""
    cfg = evals_db.get_config(conn, config_hash) if config_hash else None
    provider = provider or (cfg or {}).get("provider")
    out = {"hash": config_hash, "name": config_name(conn, config_hash, definition or {"provider": provider}),
           "state": "unevaluated", "cleared": False, "override": None, "eval_run": None}
    if provider == "offline":
        out.update(state="offline", cleared=True)
        out["label"] = LABELS["offline"]
        out["message"] = Message("The offline baseline (no LLM) has no AI configuration to evaluate.")
        return out
    run = evals_db.latest_eval_run(conn, config_hash) if config_hash else None
    if run is not None:
        out["eval_run"] = {k: run[k] for k in ("id", "created_at", "suite_version", "cases", "passed", "failed",
                                               "not_run", "blocking_failed", "blocking_not_run", "provider")}
        out["eval_run"]["blocking_failed_ids"] = list(run["report"].get("blocking_failed") or [])
        out["state"] = ("failed" if run["blocking_failed"] else "unevaluated" if run["blocking_not_run"]
                        else "passed")
    override = evals_db.latest_override(conn, config_hash) if config_hash else None
    out["override"] = override
    out["cleared"] = out["state"] == "passed" or override is not None
    out["label"] = OVERRIDDEN[out["state"]] if override and out["state"] != "passed" else LABELS[out["state"]]
    out["message"] = _message(out, conn)
    return out


def _message(s: dict, conn=None) -> Message:
    """One Message (its parts are Messages too: a page shows it translated with said()). It says
    "This configuration": pages show its name beside the message; the command line its hash."""
    run = s["eval_run"]
    if s["state"] == "passed":
        return Message("This configuration passed its blocking eval cases (eval run {run}, {date}).", run=run["id"],
                       date=format_date(run["created_at"]))
    if s["state"] == "failed":
        ids = ", ".join(run["blocking_failed_ids"]) or str(run["blocking_failed"])
        text = Message("This configuration failed blocking eval cases in eval run {run}: {ids}.", run=run["id"],
                       ids=ids)
    elif run is not None:
        text = Message("This configuration is not evaluated: {count} blocking case(s) could not run in eval run {run} "
                       "(provider {provider}: judges need a language model).", count=run["blocking_not_run"],
                       run=run["id"], provider=run["provider"])
    else:
        text = Message("This configuration has not been evaluated against the eval cases.")
    if s["override"]:
        o = s["override"]
        who = users_db.display_names(conn).get(o["actor"], o["actor"]) if conn is not None else o["actor"]
        return Message("{text} {who} overrode the gate on {date}: “{reason}”.", text=text, who=who,
                       date=format_date(o["created_at"]), reason=o["reason"])
    return Message("{text} {how}", text=text, how=HOW)


def require(conn, defn: dict, *, actor: str = "", used_for: str = "", variant: str = "") -> dict:
    """Record the configuration (first use) and refuse with GateError unless it is cleared."""
    h = ai_config.config_hash(defn)
    evals_db.record_config(conn, h, defn, variant=variant, used_by=actor, used_for=used_for)
    s = status(conn, h, defn.get("provider"))
    if not s["cleared"]:
        raise GateError(s["message"])
    return s


def override(conn, config_hash: str, *, actor: Actor, reason: str, definition: dict | None = None) -> int:
    """An admin lets a configuration that has not passed run anyway; the reason is required and
    the override goes to the audit log in the same transaction. With its `definition`, a
    configuration not used yet is recorded first (the override is its first use)."""
    access.require(actor, "settings")
    reason = (reason or "").strip()
    if len(reason) < 10:
        raise GateError(Message("Say why this configuration may run without passing its eval cases (at least 10 "
                                "characters): the reason goes to the audit log."))
    if definition is not None and ai_config.config_hash(definition) == config_hash:
        evals_db.record_config(conn, config_hash, definition, used_by=actor, used_for="gate override")
    if evals_db.get_config(conn, config_hash) is None:
        raise NotFound(Message("No AI configuration {config!r} has been used yet", config=config_hash))
    before = status(conn, config_hash)
    with conn.atomic():
        oid = evals_db.add_override(conn, config_hash, actor=actor, reason=reason)
        audit(conn, actor=actor, action="override_eval_gate", entity="ai_configs", entity_id=oid,
              before={"config": config_hash, "state": before["state"]},
              after={"config": config_hash, "override": oid}, reason=reason)
    return oid
