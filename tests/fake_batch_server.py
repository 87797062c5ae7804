"""A local OpenAI-compatible batch engine for tests (beside tests/fake_openai_server.py).

It serves what the chat fake serves, plus the file and batch endpoints of OpenAI's Batch API:
    POST /v1/files                      (multipart: purpose=batch, file=JSONL) -> a file object
    POST /v1/batches                    {input_file_id, endpoint, completion_window} -> a batch
    GET  /v1/batches/{id}               the batch: validating -> in_progress -> completed
    GET  /v1/files/{id}/content         the output (or error) JSONL
Each line of an input file is answered exactly as the chat fake answers that request (the same
answer for the same request), so a batch run and a synchronous run get the same answers.

    with FakeBatchOpenAI(delay_s=0.2) as server:
        os.environ["FAIRMARK_LLM_BASE_URL"] = server.base_url
        server.hold = True          # batches stay in progress until released
        server.batches              # {batch id: {"status", "lines", ...}}
`line_faults` {"500": p, "429": p}: a line's answer is an error line with that status instead.
"""
from __future__ import annotations

import email
import itertools
import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_openai_server import FakeOpenAI


class FakeBatchOpenAI(FakeOpenAI):
    def __init__(self, *, delay_s: float = 0.0, line_faults: dict[str, float] | None = None, **kwargs):
        super().__init__(**kwargs)
        self.delay_s = delay_s
        self.line_faults = dict(line_faults or {})
        self.hold = False
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.batch_requests = 0            # chat requests received inside batch files
        self._ids = itertools.count(1)
        self._line_rng = random.Random(kwargs.get("seed", 0))

    def start(self) -> "FakeBatchOpenAI":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                if self.path.rstrip("/").endswith(("/files", "/batches")):
                    return owner._batch_post(self)
                owner._handle(self)

            def do_GET(self):
                owner._batch_get(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True, name="fake-batch").start()
        return self

    # -- files and batches -----------------------------------------------------------------
    def _batch_post(self, h: BaseHTTPRequestHandler) -> None:
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        if h.path.rstrip("/").endswith("/files"):
            msg = email.message_from_bytes(b"Content-Type: " + h.headers["Content-Type"].encode() + b"\r\n\r\n" + body)
            data = next(p.get_payload(decode=True) for p in msg.get_payload()
                        if p.get_param("name", header="content-disposition") == "file")
            fid = f"file-{next(self._ids)}"
            with self._lock:
                self.files[fid] = data
            return self._send(h, 200, {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                                       "filename": "batch.jsonl", "purpose": "batch", "status": "processed"}, "file")
        request = json.loads(body)
        lines = [json.loads(x) for x in self.files[request["input_file_id"]].decode().splitlines() if x.strip()]
        bid = f"batch_{next(self._ids)}"
        out, err = [], []
        for line in lines:
            result = self._line(line)
            (out if result["response"]["status_code"] == 200 else err).append(result)
        with self._lock:
            self.batch_requests += len(lines)
            self.files[f"{bid}-out"] = "".join(json.dumps(x) + "\n" for x in out).encode()
            self.files[f"{bid}-err"] = "".join(json.dumps(x) + "\n" for x in err).encode()
            self.batches[bid] = {"created": time.monotonic(), "lines": len(lines), "input": request["input_file_id"],
                                 "errors": len(err), "polls": 0}
        self._send(h, 200, self._batch(bid), "batch")

    def _line(self, line: dict) -> dict:
        with self._lock:
            x, fault = self._line_rng.random(), None
            for name, p in self.line_faults.items():
                if x < p:
                    fault = name
                    break
                x -= p
        request = line["body"]
        rid = f"req_{next(self._ids)}"
        if fault:
            return {"id": f"batch_req_{rid}", "custom_id": line["custom_id"], "error": None,
                    "response": {"status_code": int(fault), "request_id": rid,
                                 "body": {"error": {"message": "The server had an error", "type": "server_error"}}}}
        answer = self.answer(request) if self.answer else self._answer(request)
        return {"id": f"batch_req_{rid}", "custom_id": line["custom_id"], "error": None,
                "response": {"status_code": 200, "request_id": rid, "body": self._completion(request, answer)}}

    def _status(self, bid: str) -> str:
        b = self.batches[bid]
        if self.hold or time.monotonic() - b["created"] < self.delay_s:
            return "in_progress"
        return "completed"

    def _batch(self, bid: str) -> dict:
        b = self.batches[bid]
        status = self._status(bid)
        done = status == "completed"
        return {"id": bid, "object": "batch", "endpoint": "/v1/chat/completions", "errors": None,
                "input_file_id": b["input"], "completion_window": "24h", "status": status,
                "output_file_id": f"{bid}-out" if done else None,
                "error_file_id": f"{bid}-err" if done and b["errors"] else None,
                "created_at": int(time.time()), "request_counts": {"total": b["lines"], "completed": b["lines"] if done
                                                                   else 0, "failed": 0}}

    def _batch_get(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path.split("?")[0].rstrip("/")
        parts = path.split("/")
        if "/batches/" in path and parts[-1] in self.batches:
            with self._lock:
                self.batches[parts[-1]]["polls"] += 1
            return self._send(h, 200, self._batch(parts[-1]), "poll")
        if path.endswith("/content") and parts[-2] in self.files:
            return self._send_raw(h, 200, self.files[parts[-2]], "application/octet-stream", "content")
        self._send(h, 404, {"error": {"message": f"no route {h.path}", "type": "not_found"}}, "404")
