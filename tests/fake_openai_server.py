"""A small OpenAI-compatible server for fault-injection and privacy tests.

It serves `POST /v1/chat/completions` on a loopback port and answers every request with a
valid JSON object for the request's `response_format` schema, unless a fault is drawn. The
real openai SDK (through `core.llm.make_llm`) talks to it, so the whole HTTP path is tested:
status codes, headers, bodies cut short, bodies that are not JSON, hangs.

    with FakeOpenAI(faults={"500": 0.1, "hang": 0.05}, seed=1, hang_s=1.0) as server:
        os.environ["FAIRMARK_LLM_BASE_URL"] = server.base_url
        ... run FairMark ...
    server.bodies            # every request body as received (for privacy assertions)
    server.outcomes          # Counter of what each request got: "ok", "500", "hang", ...

Faults (each a probability; one draw per request, so they add up to the fault rate):
    "500", "503"        server errors with a JSON error body
    "429"               rate limit with `Retry-After: <retry_after>`
    "hang"              no answer for `hang_s` seconds, then the connection is closed
    "truncated"         a 200 whose body stops halfway (Content-Length promises more)
    "non_json"          a 200 whose body is an HTML error page
    "cut_json"          a 200 whose JSON body is cut off (valid length, invalid JSON)
    "schema_invalid"    a 200 chat completion whose message is JSON of the wrong shape
`models` (a set) makes every other model name a 404; `api_key` makes any other key a 401.
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that gave up (its timeout ran out while a fault hung or a reply was being
        # written) is what the faults are for: not an error of this server. Anything else is
        # printed, as the standard server does, so a test that looks for tracebacks sees it.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


FAULTS = ("500", "503", "429", "hang", "truncated", "non_json", "cut_json", "schema_invalid")

GOOD_COMMENT = ("You explain temperature clearly and give a concrete example from work ({salt}). "
                "Next: (1) connect temperature to bias, (2) add one question you still have. "
                "What would you test first?")
# Property name -> the value a sane model gives (the rest is generated from the schema).
ANSWERS = {
    "comment": GOOD_COMMENT,
    "verdict": "CONFIDENT",
    "fixes": [],
    "flags": [],
    "questions": ["What helped you most to understand this week's topic?"],
    "evidence_quote": "",
    "explanation": "The comment matches the scores.",
}


def example(node: dict, name: str = "", overrides: dict | None = None, salt: str = ""):
    """A valid instance of a (strict, $ref-free) JSON schema, with sane values by property name.
    `salt` (from the request) goes into the text, so different requests get different answers,
    as from a real model, and the cache cannot serve one submission's answer to another."""
    overrides = ANSWERS if overrides is None else overrides
    if name in overrides:
        value = overrides[name]
        return value.format(salt=salt) if isinstance(value, str) else value
    if "enum" in node:
        values = node["enum"]
        return values[len(values) // 2]
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if o.get("type") != "null"] or node["anyOf"]
        return example(options[0], name, overrides, salt)
    kind = node.get("type")
    if kind == "object":
        return {key: example(sub, key, overrides, salt) for key, sub in (node.get("properties") or {}).items()}
    if kind == "array":
        return [example(node.get("items") or {}, name, overrides, salt)
                for _ in range(max(1, int(node.get("minItems") or 0)))]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return node.get("minimum", 0)
    return f"A short note on {name or 'this'} ({salt})."


class FakeOpenAI:
    def __init__(self, *, faults: dict[str, float] | None = None, seed: int = 0, latency: float = 0.0,
                 hang_s: float = 2.0, retry_after: str = "0", models: set[str] | None = None,
                 api_key: str | None = None, answer=None):
        unknown = set(faults or {}) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}; use {FAULTS}")
        self.faults = dict(faults or {})
        self.latency, self.hang_s, self.retry_after = latency, hang_s, retry_after
        self.models, self.api_key = models, api_key
        self.answer = answer              # optional callable(request dict) -> answer dict
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.bodies: list[str] = []
        self.outcomes: Counter = Counter()
        self._server: _Server | None = None
        self._closing = threading.Event()

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> "FakeOpenAI":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):   # quiet: tests read outcomes, not logs
                pass

            def do_POST(self):
                owner._handle(self)

        self._server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True, name="fake-openai").start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def set_faults(self, faults: dict[str, float]) -> None:
        with self._lock:
            self.faults = dict(faults)

    # -- one request ------------------------------------------------------------------------
    def _draw(self) -> str:
        with self._lock:
            x = self._rng.random()
            for fault, p in self.faults.items():
                if x < p:
                    return fault
                x -= p
        return "ok"

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0)).decode("utf-8")
        with self._lock:
            self.bodies.append(body)
        if not h.path.rstrip("/").endswith("/chat/completions"):
            return self._send(h, 404, {"error": {"message": f"no route {h.path}", "type": "not_found"}}, "404")
        request = json.loads(body)
        if self.api_key is not None and h.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self._send(h, 401, {"error": {"message": "Incorrect API key provided: sk-te****", "type":
                                                 "invalid_request_error", "code": "invalid_api_key"}}, "401")
        if self.models is not None and request.get("model") not in self.models:
            return self._send(h, 404, {"error": {"message": f"The model `{request.get('model')}` does not exist",
                                                 "type": "invalid_request_error", "code": "model_not_found"}}, "404")
        if self.latency:
            time.sleep(self.latency)
        fault = self._draw()
        if fault in ("500", "503"):
            return self._send(h, int(fault), {"error": {"message": "The server had an error", "type": "server_error"}},
                              fault)
        if fault == "429":
            return self._send(h, 429, {"error": {"message": "Rate limit reached", "type": "rate_limit"}}, fault,
                              headers={"Retry-After": self.retry_after})
        if fault == "hang":
            self._count(fault)
            self._closing.wait(self.hang_s)
            h.close_connection = True
            return None
        answer = self.answer(request) if self.answer else self._answer(request)
        if fault == "schema_invalid":
            answer = {"unexpected": "shape", "note": "not what the schema asked for"}
        completion = self._completion(request, answer)
        if fault == "non_json":
            return self._send_raw(h, 200, b"<html><body>502 Bad Gateway</body></html>", "text/html", fault)
        raw = json.dumps(completion).encode()
        if fault == "cut_json":
            return self._send_raw(h, 200, raw[: len(raw) // 2], "application/json", fault)
        if fault == "truncated":
            self._count(fault)
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw[: len(raw) // 2])
            h.wfile.flush()
            h.close_connection = True
            return None
        return self._send_raw(h, 200, raw, "application/json", "ok" if fault == "ok" else fault)

    @staticmethod
    def _answer(request: dict) -> dict:
        fmt = request.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema") or {}
        conversation = json.dumps(request.get("messages") or [], sort_keys=True)
        return example(schema, salt=hashlib.sha256(conversation.encode()).hexdigest()[:8])

    @staticmethod
    def _completion(request: dict, answer: dict) -> dict:
        prompt_chars = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
        content = json.dumps(answer)
        return {"id": f"chatcmpl-fake-{random.getrandbits(32):x}", "object": "chat.completion",
                "created": int(time.time()), "model": request.get("model", "fake"),
                "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                          "total_tokens": prompt_chars // 4 + len(content) // 4}}

    def _count(self, outcome: str) -> None:
        with self._lock:
            self.outcomes[outcome] += 1

    def _send(self, h, status: int, payload: dict, outcome: str, headers: dict | None = None) -> None:
        self._send_raw(h, status, json.dumps(payload).encode(), "application/json", outcome, headers)

    def _send_raw(self, h, status: int, raw: bytes, ctype: str, outcome: str, headers: dict | None = None) -> None:
        self._count(outcome)
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(raw)
        h.wfile.flush()
