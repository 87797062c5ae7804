"""Strict scripted fakes for tests (no network, no HTTP mocks).

ScriptedLLM — implements core.llm.LLM. Script answers per role; each call takes the next one.

    llm = ScriptedLLM()
    llm.script("evaluator", {"scores": ...}, EvaluatorOut(...), LLMTimeout("slow"))
    llm.script("coach", lambda messages, schema: {"questions": ["Why?"]})   # computed answer
    llm.always("reviewer", {"verdict": "CONFIDENT", "fixes": [], "explanation": "ok"})
    ... run the code under test with `llm` ...
    llm.assert_all_used()                       # every scripted answer was consumed
    assert "Alice" not in llm.all_text()        # no real name reached the model

An answer is a pydantic instance of the requested schema, a dict validated against it, a
callable (messages, schema) -> answer, an exception instance (raised), or `WithProbs(answer,
{"clarity.score": {"2": 0.6, "3": 0.4}, ...})` for an answer with given score probabilities.
Score probabilities (what a server's logprobs give): by default every bounded-integer field
(a score) is certain, as from a confident model that returns logprobs; `ScriptedLLM(score_probs=None)`
is a model that returns none. Likewise a schema that reads its confidence from the answer's own
token logprobs (`WANTS_LOGPROBS`, the lesson judge) gets certain tokens by default, none with
`score_probs=None`; `WithProbs(answer, None, tokens=p)` gives tokens of probability p (0.125: unsure). `judges=(JudgeSpec(...), ...)` are the judges it "routes" to
(role "judge:<name>", scripted like any role). A call for a role
with nothing scripted, a pydantic instance of the wrong class, or a dict that does not fit the
schema fails the test at once with UnexpectedCall (an AssertionError): scripts must be valid;
to simulate a bad model answer, script `LLMInvalidOutput(...)`.
Thread-safe: the pipeline calls it from many threads (per-role order is then the order of
arrival; use `always` or a callable when several submissions run concurrently).

FakeTransport — scripts the raw completion layer under core.llm.OpenAICompatibleLLM:

    t = FakeTransport(FakeTransport.reply('{"ok": true}'),
                      LLMRateLimited("429", retry_after=7),
                      FakeTransport.reply("not json"), ...)
    llm = OpenAICompatibleLLM(settings, transport=t, sleep=slept.append)
    t.requests -> the request dicts sent (model, messages, response_format, temperature ...)
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from pydantic import BaseModel, ValidationError

from bench.fake import answer_tokens, certain_probs
from core.llm import CallContext, LLMResponse, RawCompletion, Usage


class UnexpectedCall(AssertionError):
    """The code under test made a call the test did not script (or scripted it wrongly)."""


@dataclass
class RecordedCall:
    role: str
    messages: list[dict]
    schema: type
    ctx: CallContext
    temperature: float | None


@dataclass
class WithProbs:
    """A scripted answer and the score probabilities its logprobs would give."""
    answer: object
    score_probs: dict | None
    tokens: float | None = None      # the answer tokens' probability (WANTS_LOGPROBS schemas)


class ScriptedLLM:
    provider = "fake"

    def __init__(self, script: dict[str, list] | None = None, *, models: dict[str, str] | None = None,
                 temperature: float = 0.3, usage: Usage | None = None, score_probs: str | None = "certain",
                 judges: tuple = ()):
        self.temperature = temperature
        self.score_probs = score_probs
        self.judges = tuple(judges)
        self._models = models or {}
        self._usage = usage or Usage(tokens_in=100, tokens_out=20)
        self._queues: dict[str, list] = {}
        self._always: dict[str, object] = {}
        self._lock = threading.Lock()
        self.calls: list[RecordedCall] = []
        for role, answers in (script or {}).items():
            self.script(role, *answers)

    # -- scripting ---------------------------------------------------------------------------
    def script(self, role: str, *answers) -> "ScriptedLLM":
        with self._lock:
            self._queues.setdefault(role, []).extend(answers)
        return self

    def always(self, role: str, answer) -> "ScriptedLLM":
        """Answer every call for `role` (after its queued answers) with `answer`."""
        self._always[role] = answer
        return self

    def model_for(self, role: str) -> str:
        if role.startswith("judge:"):
            spec = next((j for j in self.judges if j.name == role[6:]), None)
            if spec is not None:
                return spec.model
        return self._models.get(role, f"fake-{role}")

    # -- the protocol ------------------------------------------------------------------------
    def complete(self, messages: list[dict], schema, *, role: str, ctx: CallContext,
                 temperature: float | None = None) -> LLMResponse:
        if not isinstance(ctx, CallContext):
            raise UnexpectedCall(f"complete(role={role!r}) needs a CallContext, got {type(ctx).__name__}")
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            raise UnexpectedCall(f"complete(role={role!r}) needs a pydantic model class as schema")
        with self._lock:
            self.calls.append(RecordedCall(role, [dict(m) for m in messages], schema, ctx, temperature))
            queue = self._queues.get(role)
            if queue:
                answer = queue.pop(0)
            elif role in self._always:
                answer = self._always[role]
            else:
                raise UnexpectedCall(
                    f"Unexpected LLM call for role {role!r} (agent {ctx.agent!r}, schema "
                    f"{schema.__name__}): nothing scripted. Scripted roles left: {self.pending()}")
        if callable(answer) and not isinstance(answer, (BaseModel, type, WithProbs)):
            answer = answer(messages, schema)
        if isinstance(answer, BaseException):
            raise answer
        probs, p_tokens = ..., None
        if isinstance(answer, WithProbs):
            answer, probs, p_tokens = answer.answer, answer.score_probs, answer.tokens
        data = self._coerce(answer, schema, role)
        if probs is ...:
            probs = certain_probs(data) if self.score_probs == "certain" else None
        raw = data.model_dump_json()
        if p_tokens is None and self.score_probs == "certain":
            p_tokens = 0.999
        tokens = answer_tokens(raw, p_tokens) if p_tokens and getattr(schema, "WANTS_LOGPROBS", False) else None
        return LLMResponse(data=data, model=self.model_for(role), raw=raw,
                           usage=Usage(**vars(self._usage)), latency_ms=1.0,
                           request_id=f"fake-{len(self.calls)}", attempts=1,
                           response_mode="fake", score_probs=probs, logprobs=tokens)

    @staticmethod
    def _coerce(answer, schema, role):
        if isinstance(answer, BaseModel):
            if not isinstance(answer, schema):
                raise UnexpectedCall(f"Scripted answer for {role!r} is a {type(answer).__name__}, "
                                     f"but the code asked for {schema.__name__}")
            return answer
        if isinstance(answer, str):
            answer = json.loads(answer)
        if isinstance(answer, dict):
            try:
                return schema.model_validate(answer)
            except ValidationError as exc:
                raise UnexpectedCall(f"Scripted answer for {role!r} does not fit {schema.__name__}: "
                                     f"{exc}") from None
        raise UnexpectedCall(f"Cannot use scripted answer of type {type(answer).__name__} for {role!r}")

    # -- assertions --------------------------------------------------------------------------
    def pending(self) -> dict[str, int]:
        return {role: len(q) for role, q in self._queues.items() if q}

    def assert_all_used(self) -> None:
        left = self.pending()
        if left:
            raise AssertionError(f"Scripted LLM answers were never used: {left}")

    def calls_for(self, role: str) -> list[RecordedCall]:
        return [c for c in self.calls if c.role == role]

    def all_text(self) -> str:
        """Every message text the fake received, for 'no real name reached the model' checks."""
        return "\n".join(str(m.get("content", "")) for c in self.calls for m in c.messages)


class FakeTransport:
    """A scripted `core.llm.Transport`: each request takes the next step (RawCompletion, a JSON
    text or dict for a normal answer, or an exception to raise)."""

    def __init__(self, *steps):
        self._steps = list(steps)
        self._lock = threading.Lock()
        self.requests: list[dict] = []

    @staticmethod
    def reply(content: str | dict | None, *, finish_reason: str = "stop", refusal: str | None = None,
              tokens_in: int = 50, tokens_out: int = 10, tokens_cached: int = 0,
              request_id: str | None = "req-fake", logprobs: list[dict] | None = None) -> RawCompletion:
        if isinstance(content, dict):
            content = json.dumps(content)
        return RawCompletion(content=content, finish_reason=finish_reason, refusal=refusal,
                             usage=Usage(tokens_in, tokens_out, tokens_cached),
                             request_id=request_id, logprobs=logprobs)

    def add(self, *steps) -> "FakeTransport":
        with self._lock:
            self._steps.extend(steps)
        return self

    def __call__(self, request: dict) -> RawCompletion:
        with self._lock:
            self.requests.append(json.loads(json.dumps(request)))
            if not self._steps:
                raise UnexpectedCall(f"Unexpected request #{len(self.requests)} to the transport "
                                     f"(response_format={request.get('response_format', {}).get('type')}): "
                                     "nothing scripted")
            step = self._steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, (str, dict)):
            return self.reply(step)
        return step

    def assert_all_used(self) -> None:
        if self._steps:
            raise AssertionError(f"{len(self._steps)} scripted transport step(s) never used")

    @property
    def formats(self) -> list[str]:
        """response_format mode of each request: json_schema | json_object_schema | json_object."""
        out = []
        for r in self.requests:
            rf = r.get("response_format") or {}
            out.append("json_object_schema" if rf.get("type") == "json_object" and "schema" in rf
                       else rf.get("type", "none"))
        return out


class StubOpenAIServer:
    """A tiny real HTTP server speaking just enough of /v1/chat/completions to exercise the real
    openai SDK path (status codes, headers, timeouts) without any HTTP mocking.

        with StubOpenAIServer() as srv:
            srv.respond(429, {"error": {"message": "slow down"}}, headers={"retry-after": "3"})
            srv.respond(200, srv.completion('{"ok": true}'))
            settings = Settings(llm_base_url=srv.base_url, llm_api_key="sk-test", max_retries=2)
            ... srv.requests -> [{"path", "headers", "body"}] ...
    A payload may be a callable (request body -> payload), for answers that depend on the request
    or on what happened before it. Unscripted requests get HTTP 599 and are recorded in
    `srv.unexpected`."""

    def __init__(self):
        import http.server

        self._steps: list[tuple[int, object, dict, float]] = []
        self._lock = threading.Lock()
        self.requests: list[dict] = []
        self.unexpected = 0
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):      # keep test output quiet
                pass

            def do_POST(self):
                import time as _time

                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with stub._lock:
                    stub.requests.append({"path": self.path, "headers": dict(self.headers),
                                          "body": json.loads(body or b"{}")})
                    step = stub._steps.pop(0) if stub._steps else None
                    if step is None:
                        stub.unexpected += 1
                        step = (599, {"error": {"message": "unscripted request"}}, {}, 0.0)
                status, payload, headers, delay = step
                if callable(payload):            # an answer computed from the request body
                    payload = payload(json.loads(body or b"{}"))
                if delay:
                    _time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass                       # the client timed out and went away

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def respond(self, status: int, payload, *, headers: dict | None = None, delay: float = 0.0):
        with self._lock:
            self._steps.append((status, payload, headers or {}, delay))
        return self

    @staticmethod
    def completion(content: str, *, finish_reason: str = "stop", prompt_tokens: int = 12,
                   completion_tokens: int = 5, cached_tokens: int = 0, model: str = "stub-model",
                   refusal: str | None = None) -> dict:
        return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None,
                             "message": {"role": "assistant", "content": content, "refusal": refusal}}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens,
                          "prompt_tokens_details": {"cached_tokens": cached_tokens}}}

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
