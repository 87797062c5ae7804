"""The suite's split (docs/testing.md): a test that uses Chromium or the local model server is
slow and in that fixture's group, so `-m "not slow"` leaves it out and `--dist loadgroup` runs
each group on one worker (one Chromium, one model server)."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT
from waits import WAIT_S

COLLECT = """
import json, sys, pytest

class Marks:
    def pytest_collection_finish(self, session):
        self.items = {i.nodeid: sorted({m.name if m.name != "xdist_group" else "group:" + m.args[0]
                                        for m in i.iter_markers() if m.name in ("slow", "xdist_group")})
                      for i in session.items}

marks = Marks()
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[marks])
print("MARKS" + json.dumps(marks.items))
"""
FILES = ["tests/test_e2e_data.py", "tests/test_integration_llama.py", "tests/test_readme.py"]


def _collect(*args) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", COLLECT, *args, *FILES], cwd=ROOT, capture_output=True,
                          text=True, timeout=WAIT_S)
    line = next(l for l in done.stdout.splitlines() if l.startswith("MARKS"))
    return json.loads(line[len("MARKS"):])


@pytest.mark.slow   # two collections in subprocesses
def test_browser_and_model_tests_are_slow_and_grouped_and_the_rest_is_not():
    items = _collect()
    by_file = {f: {k: v for k, v in items.items() if k.startswith(f)} for f in FILES}
    assert all(by_file.values())
    assert all(v == ["group:browser", "slow"] for v in by_file["tests/test_e2e_data.py"].values())
    assert all(v == ["group:llama", "slow"] for v in by_file["tests/test_integration_llama.py"].values())
    assert all(v == [] for v in by_file["tests/test_readme.py"].values())


@pytest.mark.slow
def test_not_slow_leaves_out_exactly_the_slow_tests():
    fast = _collect("-m", "not slow")
    assert fast and all(k.startswith("tests/test_readme.py") for k in fast)


@pytest.mark.slow
def test_both_databases_collect_each_database_test_twice_and_the_sqlite_ones_once():
    """`--databases both` (the README's command): a test of the database as [sqlite] and
    [postgresql]; a browser test, a test of SQLite's backup file or one marked sqlite_only once."""
    files = ["tests/test_data_care.py", "tests/test_e2e_data.py", "tests/test_readme.py"]
    done = subprocess.run([sys.executable, "-c", COLLECT, "--databases", "both", *files], cwd=ROOT,
                          capture_output=True, text=True, timeout=WAIT_S)
    ids = json.loads(next(l for l in done.stdout.splitlines() if l.startswith("MARKS"))[len("MARKS"):])
    twice = "tests/test_data_care.py::test_deleting_a_course_leaves_nothing_of_it"
    assert {f"{twice}[sqlite]", f"{twice}[postgresql]"} <= set(ids)
    once = "tests/test_data_care.py::test_restore_brings_the_backup_back_and_keeps_the_replaced_database"
    assert once in ids and not any(i.startswith(once + "[") for i in ids)   # sqlite_file: SQLite only
    assert not any(i.startswith("tests/test_e2e_data.py") and "postgresql" in i for i in ids)
    assert any(i.startswith("tests/test_e2e_data.py") for i in ids)
    readme = [i for i in ids if i.startswith("tests/test_readme.py")]
    assert readme and not any("[" in i for i in readme)   # no database: once, unparametrized
