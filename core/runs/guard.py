"""Stop a run when a fault is the configuration's, not the submission's.

A refused key is always the configuration's (`LLMAuthError` is an `LLMConfigFault`: the
pipeline stores nothing and the run stops at once). Two faults are ambiguous: an unknown model
(HTTP 404) and an endpoint that never answered may be a wrong setting, or a model being
redeployed and a network blip. One such fault fails only its submission, as any LLM error
does. When the same one hits `limit` submissions in a row (default 3, setting
`FAIRMARK_STOP_AFTER_FAULTS`) with no successful call in between, it is the setting: the
guard turns it into an `LLMConfigFault`, the run stops with the message saying what to fix,
and the submissions the streak had already failed are handed back (`held_items`) so that the
resume retries them with the rest.

"In a row" per cause: an endpoint that never answered is reset by any real answer from it; an
unknown model by any real answer from that model (so a wrong Coach model stops the run even
while the Evaluator's model answers). Answers served from the cache prove nothing and reset
nothing.
"""
from __future__ import annotations

import threading

from core.errors import LLMConfigFault, LLMError, LLMNotFound
from core.language.interface import Message, message_of

DEFAULT_LIMIT = 3


class ConfigFaultGuard:
    """Wraps the run's LLM (any object with the LLM protocol). A run's item is what a call's
    context names: its submission (reflection runs), or with `item="lesson_id", noun="lessons"`
    its lesson (lesson runs)."""

    def __init__(self, inner, limit: int = DEFAULT_LIMIT, *, item: str = "submission_id", noun: str = "submissions"):
        self.inner = inner
        self.provider = inner.provider
        self.limit = max(1, int(limit))
        self.item, self.noun = item, noun
        self._lock = threading.Lock()
        self._streaks: dict[tuple, list[int | None]] = {}
        self.tripped: LLMConfigFault | None = None
        self._held: list[int] = []

    def __getattr__(self, name):          # temperature, db_path, ... of the wrapped LLM
        return getattr(self.inner, name)

    def model_for(self, role: str) -> str:
        return self.inner.model_for(role)

    def complete(self, messages, schema, *, role: str, ctx, temperature=None):
        if self.tripped is not None:      # no more calls to a setting known to be wrong
            raise self.tripped
        model = self.inner.model_for(role)
        try:
            resp = self.inner.complete(messages, schema, role=role, ctx=ctx, temperature=temperature)
        except LLMConfigFault:
            raise
        except LLMError as exc:
            if exc.config_suspect:
                self._count(exc, model, getattr(ctx, self.item))
            raise
        if not getattr(resp, "cache_hit", False):
            with self._lock:
                self._streaks.pop(("endpoint",), None)
                self._streaks.pop(("model", model), None)
        return resp

    def _count(self, exc: LLMError, model: str, item_id: int | None) -> None:
        key = ("model", model) if isinstance(exc, LLMNotFound) else ("endpoint",)
        with self._lock:
            if self.tripped is None:
                items = self._streaks.setdefault(key, [])
                if item_id not in items:
                    items.append(item_id)
                if len(items) >= self.limit:
                    self.tripped = LLMConfigFault(self._streak(exc, len(items)))
                    self._held = [i for i in items if i is not None]
            elif item_id is not None and item_id not in self._held:
                self._held.append(item_id)      # in flight when the run stopped
            tripped = self.tripped
        if tripped is not None:
            raise tripped from exc

    def _streak(self, exc: LLMError, count: int):
        """Why the streak is the configuration's: a Message (the fault's own text inside it as it is)."""
        error = message_of(exc)
        if self.noun == "submissions":
            return Message.plural("{error} The same fault hit {count} submissions in a row, so it is a setting, not "
                                  "the submissions.", "{error} The same fault hit {count} submissions in a row, so "
                                  "it is a setting, not the submissions.", count, error=error)
        if self.noun == "lessons":
            return Message.plural("{error} The same fault hit {count} lessons in a row, so it is a setting, not "
                                  "the lessons.", "{error} The same fault hit {count} lessons in a row, so it is a "
                                  "setting, not the lessons.", count, error=error)
        return f"{exc} The same fault hit {count} {self.noun} in a row, so it is a setting, not the {self.noun}."

    def held_items(self) -> list[int]:
        """Items the streak failed before it was recognised: the resume retries them."""
        with self._lock:
            return list(self._held)
