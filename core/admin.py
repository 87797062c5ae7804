"""The admin's settings writes (issue 13: admin alone sets models, prices, judges and their
thresholds): the Settings page calls these, never db/ directly, so the role is checked where
the write happens. The readiness bar (core.calibration.readiness.save_bar), the judge-trust
threshold (core.evals.pairwise.set_trust_threshold) and gate overrides check the same way."""
from __future__ import annotations

from core.accounts import access
from core.accounts.access import Actor
from core.language.interface import form_of, message_of
from core.runs import stored as stored_texts
from db import llm_calls


def save_llm_overrides(conn, overrides: dict, *, actor: Actor) -> dict:
    access.require(actor, "settings")
    return llm_calls.save_llm_overrides(conn, overrides, actor=actor)


def save_judging_overrides(conn, overrides: dict, *, actor: Actor) -> dict:
    access.require(actor, "settings")
    return llm_calls.save_judging_overrides(conn, overrides, actor=actor)


def replace_prices(conn, rows: list[dict], *, actor: Actor) -> int:
    access.require(actor, "settings")
    return llm_calls.replace_prices(conn, rows, actor=actor)


def save_connection_test(conn, result: dict, *, actor: Actor) -> None:
    access.require(actor, "settings")
    llm_calls.save_last_connection_test(conn, result)


def failed_connection_test(at: str, error: BaseException) -> dict:
    """What a failed connection test stores: its error's English (`error`, as the command line and
    older records have it) and, when FairMark said it, the Message's form beside it
    (`error_said`, core.language.interface.stored), which `llm_tab` reads back."""
    out = {"at": at, "ok": False, "error": str(error)}
    form = form_of(message_of(error))
    return {**out, "error_said": form} if form is not None else out


def _last_test(last: dict | None) -> dict | None:
    """The stored test with its error a Message when its form was kept and says the same English."""
    if not last or not last.get("error_said"):
        return last
    said = stored_texts.reason_of({"error": last.get("error"), "error_said": last["error_said"]}, limit=None)
    return {**last, "error": said}


def llm_overrides(conn, *, actor: Actor) -> dict:
    access.require(actor, "settings")
    return llm_calls.get_llm_overrides(conn)


def judging_overrides(conn, *, actor: Actor) -> dict:
    access.require(actor, "settings")
    return llm_calls.get_judging_overrides(conn)


def last_connection_test(conn, *, actor: Actor) -> dict | None:
    access.require(actor, "settings")
    return llm_calls.get_last_connection_test(conn)


def prices(conn, *, actor: Actor) -> list[dict]:
    access.require(actor, "settings")
    return llm_calls.list_prices(conn)


def unpriced_models(conn, *, actor: Actor) -> list[str]:
    access.require(actor, "settings")
    return llm_calls.unpriced_models(conn)


def llm_tab(conn, *, actor: Actor) -> dict:
    """The Settings page's "Language model & prices" tab in one read (one check): {"last_test",
    "overrides", "unpriced", "prices"}."""
    access.require(actor, "settings")
    return {"last_test": _last_test(llm_calls.get_last_connection_test(conn)), "overrides": llm_calls.get_llm_overrides(conn),
            "unpriced": llm_calls.unpriced_models(conn), "prices": llm_calls.list_prices(conn)}
