"""README and CI stay in step: CI runs exactly the README's test command."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```\n(.+?)\n```", text.split("## Configuration")[0])


def test_readme_has_exactly_two_setup_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert "streamlit run app.py" in cmds[0]
    assert "python -m pytest" in cmds[1]


def test_ci_extracts_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    line = next(l for l in script.splitlines() if l.startswith("TEST_CMD="))
    out = subprocess.run(["bash", "-c", line + '; printf %s "$TEST_CMD"'], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out == _commands()[1]
