"""README and CI stay in step: CI runs exactly the README's test command, and that command alone
gives a portable llama.cpp build. The README is short and sends readers to docs/
(tests/test_docs.py checks those pages against the code)."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 200


def _commands():
    return re.findall(r"```\n(.+?)\n```", (ROOT / "README.md").read_text())


def _test_command():
    [cmd] = [c for c in _commands() if "python -m pytest" in c]
    return cmd


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    return text.split(f"\n## {title}\n")[1].split("\n## ")[0]


def test_readme_has_a_virtualenv_an_app_and_a_test_command():
    cmds = _commands()
    assert any("-m venv" in c for c in cmds)
    assert sum("streamlit run app.py" in c for c in cmds) == 1
    assert sum("python -m pytest" in c for c in cmds) == 1


def test_readme_names_the_supported_python():
    setup = _section("Set up")
    assert "Python 3.11" in setup and "virtual environment" in setup


def test_ci_extracts_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    line = next(l for l in script.splitlines() if l.startswith("TEST_CMD="))
    out = subprocess.run(["bash", "-c", line + '; printf %s "$TEST_CMD"'], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out == _test_command()


def test_ci_sets_nothing_before_the_command():
    """.ci/run used to export CMAKE_ARGS first, so CI passed while the README's command, run
    verbatim, built llama.cpp for the build machine's CPU."""
    script = (ROOT / ".ci" / "run").read_text()
    assert not re.search(r"^\s*export\s", script, re.M)
    assert re.findall(r"^\s*([A-Z_]+)=", script, re.M) == ["TEST_CMD"]  # its own variable, not the environment


def test_the_test_command_builds_llama_cpp_portably_and_never_from_a_cached_wheel():
    cmd = _test_command()
    install = next(part for part in cmd.split("&&") if "requirements-dev.txt" in part)
    cmake_args = re.search(r'CMAKE_ARGS="([^"]*)" pip install', install).group(1).split()
    assert "-DGGML_NATIVE=OFF" in cmake_args  # for any x86-64 CPU
    assert "-DLLAVA_BUILD=OFF" in cmake_args  # not the image-model library the tests never load (a shorter compile)
    assert "--no-cache-dir" in install and "--no-binary llama-cpp-python" in install


def test_the_test_command_runs_the_suite_on_two_workers_with_its_groups_on_both_databases():
    """pytest-xdist, with each group (the browser tests, the local model's tests) on one worker:
    one Chromium and one model server (tests/conftest.py, docs/testing.md); every database test on
    SQLite and on PostgreSQL (tests/conftest_postgres.py)."""
    run = _test_command().split("&&")[-1].split()
    assert run[:3] == ["python", "-m", "pytest"]
    assert run[3:] == ["-n", "2", "--dist", "loadgroup", "--databases", "both"]
    dev = (ROOT / "requirements-dev.txt").read_text().splitlines()
    assert any(line.startswith("pytest-xdist") for line in dev)


def test_every_requirement_is_bounded_below_its_next_major_version():
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if not line or line.startswith("-r"):
                continue
            assert "==" in line or re.search(r"<\d", line), f"{name}: {line} has no upper bound"


def test_the_readme_is_short_and_sends_readers_to_each_guide():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    links = set(re.findall(r"\]\((docs/[^)#]+)", text))
    assert {"docs/teacher.md", "docs/coordinator.md", "docs/admin.md", "docs/deploy.md", "docs/configuration.md",
            "docs/cli.md", "docs/benchmarks.md", "docs/index.md", "docs/img/home.png"} <= links


def test_the_start_command_needs_no_setting():
    """The app starts on embedded defaults: the start command sets no variable before it."""
    [start] = [c for c in _commands() if "streamlit run app.py" in c]
    assert start == "pip install -r requirements.txt && streamlit run app.py"
