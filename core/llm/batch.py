"""Batch mode (issue 18): the run's LLM calls go to the endpoint's batch engine (/v1/files +
/v1/batches) at half the price, through the ONE pipeline the synchronous runs use.

The seam is the chat transport. `Batcher.transport` takes a request, queues it and blocks its
thread until the answer comes back; everything above it is unchanged: the client's structured-
output fallback, its validation and single re-ask, its retries of transient faults (a failed
line is a 5xx or 429 like any other), the call log and the cache (LoggedLLM, priced at the
batch rate). A run in batch mode works on many submissions at once; once no new request has
arrived for `quiet_s` (every active item is waiting), the batcher submits every queued request
as one batch file. That makes the waves by itself: all the Evaluator calls, then the roles
that depend on them, and so on. A background thread polls the open batches and hands each
answer to the thread waiting for it.

Resumable: each batch's id and the hash of each of its requests are stored (db.batches). After
a restart the resumed run asks the same requests again: one whose batch completed meanwhile is
answered from the stored line, one whose batch is still running waits for that batch (polled
again), so nothing is paid twice. Identical requests in one wave go into the batch once.
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from dataclasses import dataclass, field

import db
from core.errors import LLMError, LLMServerError
from core.language.interface import Message
from core.llm.openai_client import BatchEndpoint, batch_result
from core.llm.protocol import RawCompletion
from db import batches as batches_db

log = logging.getLogger(__name__)

QUIET_S = 1.0          # no new request for this long: every active item waits, submit the wave
POLL_S = 30.0          # how often open batches are polled (a provider's batch takes minutes to hours)
BATCH_PRICE = 0.5      # OpenAI's Batch API: half the synchronous price


_call = threading.local()     # the self-consistency sample of the call this thread is making


def request_hash(request: dict, sample: int = 0) -> str:
    """A request's identity: its body, and the sample index of a self-consistency sample (its
    body is the same as the other samples', but it must be drawn on its own)."""
    return hashlib.sha256(json.dumps([request, sample], sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class SampleTagged:
    """Wraps the client so its transport knows which sample a call is (core.judging asks for
    several answers to one prompt; each is a line of its own, and a resumed run matches each to
    its own line)."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def complete(self, messages, schema, *, role, ctx, temperature=None):
        _call.sample = ctx.sample
        try:
            return self.inner.complete(messages, schema, role=role, ctx=ctx, temperature=temperature)
        finally:
            _call.sample = 0


@dataclass
class _Waiting:
    request: dict
    key: str
    done: threading.Event = field(default_factory=threading.Event)
    result: RawCompletion | LLMError | None = None


class Batcher:
    """Collects the chat requests of many threads into batches and hands the answers back."""

    def __init__(self, endpoint: BatchEndpoint, db_path, *, run_id: int | None = None, quiet_s: float = QUIET_S,
                 poll_s: float = POLL_S):
        self.endpoint, self.db_path, self.run_id = endpoint, str(db_path), run_id
        self.quiet_s, self.poll_s = quiet_s, poll_s
        self._cond = threading.Condition()
        self._queue: dict[str, list[_Waiting]] = {}         # request hash -> its waiters (not yet sent)
        self._sent: dict[str, dict[str, list[_Waiting]]] = {}   # batch id -> custom id -> waiters
        self._open: dict[str, dict[str, str]] = {}          # batch id -> custom id -> request hash
        self._running: dict[str, tuple[str, str]] = {}      # request hash -> (batch id, custom id) sent
        self._last = 0.0
        self._closed = False
        conn = db.connect(self.db_path)
        try:   # batches a previous process left running: wait for them instead of asking again
            for b in batches_db.open_batches(conn):
                self._open[b["batch_id"]] = b["requests"]
                self._sent[b["batch_id"]] = {}
                self._running.update({h: (b["batch_id"], cid) for cid, h in b["requests"].items()})
        finally:
            conn.close()
        self.batches_submitted = 0
        self._thread = threading.Thread(target=self._loop, daemon=True, name="fairmark-batcher")
        self._thread.start()

    # -- the transport: one request in, its answer out (blocks) ------------------------------
    def transport(self, request: dict) -> RawCompletion:
        key = request_hash(request, getattr(_call, "sample", 0))
        line = self._answered(key)
        if line is not None:     # a batch answered it already (before a restart, or a retry's twin)
            return self._unwrap(batch_result(line, self.endpoint.base_url))
        w = _Waiting(request, key)
        with self._cond:
            if self._closed:
                raise LLMServerError(Message("The batch run was stopped before this request was sent; resume the run."))
            if key in self._running:
                running, cid = self._running[key]
                self._sent[running].setdefault(cid, []).append(w)
            elif (line := self._answered(key)) is not None:
                # Its batch finished between the look above and this lock (the poller stores the
                # answers before it lets go of the batch): answered, never sent twice.
                return self._unwrap(batch_result(line, self.endpoint.base_url))
            else:
                self._queue.setdefault(key, []).append(w)
                self._last = time.monotonic()
            self._cond.notify_all()
        w.done.wait()
        return self._unwrap(w.result)

    def _answered(self, key: str) -> dict | None:
        conn = db.connect(self.db_path)
        try:
            return batches_db.answered(conn, key)
        finally:
            conn.close()

    @staticmethod
    def _unwrap(result):
        if isinstance(result, LLMError):
            raise result
        return result

    def close(self) -> None:
        """Stop the background thread; requests still queued fail (retryable) and stay to resume."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=10)
        for waiters in [*self._queue.values(), *(w for b in self._sent.values() for w in b.values())]:
            for w in waiters:
                self._wake(w, LLMServerError(Message("The batch run was stopped before its answer came back; "
                                                     "resume the run.")))

    # -- the background thread: submit waves, poll batches ---------------------------------
    def _loop(self) -> None:
        """Submit and poll until closed. A fault here (the database or the endpoint briefly out of
        reach) is logged and tried again at the next poll: were this thread to end, every call
        waiting on it would wait for ever."""
        while True:
            try:
                self._cycle()
                return
            except Exception:
                log.exception("the batch loop failed; trying again in %.1f s", self.poll_s)
                with self._cond:
                    if self._closed:
                        return
                    self._cond.wait(timeout=self.poll_s)

    def _cycle(self) -> None:
        last_poll = 0.0
        while True:
            with self._cond:
                if self._closed:
                    return
                now = time.monotonic()
                due = self._queue and now - self._last >= self.quiet_s
                wave = self._take_wave() if due else None
                if not wave and now - last_poll < self.poll_s:
                    self._cond.wait(timeout=min(self.quiet_s, self.poll_s) / 4)
                    continue
            if wave:
                self._submit(wave)
            if time.monotonic() - last_poll >= self.poll_s or wave:
                last_poll = time.monotonic()
                for batch_id in list(self._open):
                    self._poll(batch_id)

    def _take_wave(self) -> dict[str, list[_Waiting]]:
        wave, self._queue = self._queue, {}
        return wave

    def _submit(self, wave: dict[str, list[_Waiting]]) -> None:
        """One batch file per model (the Batch API takes one model per file)."""
        models: dict[str, dict] = {}
        for k, waiters in wave.items():
            models.setdefault(str(waiters[0].request.get("model")), {})[k] = waiters
        for _, part in sorted(models.items()):
            self._submit_one(part)

    def _submit_one(self, wave: dict[str, list[_Waiting]]) -> None:
        keys = sorted(wave)
        lines = [{"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions",
                  "body": wave[k][0].request} for i, k in enumerate(keys)]
        try:
            made = self.endpoint.submit(lines, metadata={"source": "fairmark", "run": str(self.run_id or "")})
        except LLMError as exc:          # nothing was sent: each waiting call gets the fault (and its retries)
            for k in keys:
                for w in wave[k]:
                    self._wake(w, exc)
            return
        conn = db.connect(self.db_path)
        try:
            batches_db.record(conn, run_id=self.run_id, batch_id=made["batch_id"], input_file_id=made["input_file_id"],
                              status="validating", requests=[(f"r{i}", k) for i, k in enumerate(keys)])
        finally:
            conn.close()
        self.batches_submitted += 1
        log.info("batch %s: %d request(s) submitted", made["batch_id"], len(keys))
        with self._cond:
            self._open[made["batch_id"]] = {f"r{i}": k for i, k in enumerate(keys)}
            self._running.update({k: (made["batch_id"], f"r{i}") for i, k in enumerate(keys)})
            self._sent[made["batch_id"]] = {f"r{i}": wave[k] for i, k in enumerate(keys)}

    def _poll(self, batch_id: str) -> None:
        try:
            state = self.endpoint.status(batch_id)
        except LLMError as exc:
            log.warning("batch %s: polling failed (%s); polling again later", batch_id, exc)
            return
        status = state["status"]
        if status not in batches_db.FINAL:
            conn = db.connect(self.db_path)
            try:
                batches_db.set_status(conn, batch_id, status)
            finally:
                conn.close()
            return
        answers: dict[str, dict] = {}
        error = "; ".join(state.get("errors") or []) or None
        if status == "completed":
            try:
                for line in self.endpoint.lines(state["output_file_id"]) + self.endpoint.lines(state["error_file_id"]):
                    answers[str(line.get("custom_id"))] = line
            except LLMError as exc:
                log.warning("batch %s: reading its output failed (%s); trying again later", batch_id, exc)
                return
        conn = db.connect(self.db_path)
        try:
            batches_db.finish(conn, batch_id, status, answers=answers, output_file_id=state["output_file_id"],
                              error_file_id=state["error_file_id"], error=error)
        finally:
            conn.close()
        with self._cond:
            for h in self._open.pop(batch_id, {}).values():
                self._running.pop(h, None)
            sent = self._sent.pop(batch_id, {})
        for cid, waiters in sent.items():
            line = answers.get(cid) or {"custom_id": cid, "error": {"message": error or f"batch {status}"}}
            for w in waiters:
                self._wake(w, batch_result(line, self.endpoint.base_url))

    @staticmethod
    def _wake(w: _Waiting, result) -> None:
        w.result = result
        w.done.set()
