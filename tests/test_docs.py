"""The docs/ pages stay true to the code: every setting the code reads is in
docs/configuration.md and every setting there is read, with its default; docs/cli.md lists
exactly the command line's commands and options, and the keys each command prints; the guides
name no internal work items and link only to pages and pictures that exist or are made."""
from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from bench import screenshots

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CODE = [ROOT / "app.py", *sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "db").rglob("*.py")),
        *sorted((ROOT / "pages").rglob("*.py"))]
TOOLS = [*sorted((ROOT / "bench").rglob("*.py")), *sorted((ROOT / "tests").rglob("*.py"))]
NAME = re.compile(r"(?:FAIRMARK|OPENAI)_[A-Z0-9_]*")


def _read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _rows(text: str) -> dict[str, str]:
    """First cell's backticked name -> the whole row, for every table row of a page."""
    out = {}
    for line in text.splitlines():
        if m := re.match(r"\| `([^`]+)` \|", line):
            out[m.group(1)] = line
    return out


# --- configuration ---------------------------------------------------------------------------
def _settings_calls() -> dict[str, str]:
    """FAIRMARK_<NAME> -> Settings field, from load_settings: `field=...get("NAME", default)`."""
    tree = ast.parse((ROOT / "core" / "settings.py").read_text())
    load = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "load_settings")
    fields: dict[str, str] = {}
    for node in ast.walk(load):
        if isinstance(node, ast.keyword) and node.arg:
            for call in ast.walk(node.value):
                if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "get" and call.args
                        and isinstance(call.args[0], ast.Constant)):
                    fields[f"FAIRMARK_{call.args[0].value}"] = node.arg
    # Read through a local variable first (the key and the base URL), not a keyword.
    for node in ast.walk(load):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "get" and node.args
                and isinstance(node.args[0], ast.Constant)):
            fields.setdefault(f"FAIRMARK_{node.args[0].value}", "")
    return fields


def _names_in(paths, *, reads_only: bool) -> set[str]:
    """Setting names in string literals of the code (reads_only: only those passed to
    os.environ.get / os.environ[...], for bench/ and tests/, which set many more than they read);
    an f-string FAIRMARK_JUDGE_{name}_{suffix} gives its pattern."""
    found = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if reads_only:
                arg = None
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                        and "environ" in ast.unparse(node.func.value) and node.args:
                    arg = node.args[0]
                elif isinstance(node, ast.Subscript) and "environ" in ast.unparse(node.value):
                    arg = node.slice
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and NAME.fullmatch(arg.value):
                    found.add(arg.value)
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and NAME.fullmatch(node.value):
                found.add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
                head = node.values[0].value
                if head == "FAIRMARK_JUDGE_" and len(node.values) >= 3:
                    found |= {"FAIRMARK_JUDGE_<NAME>_BASE_URL", "FAIRMARK_JUDGE_<NAME>_API_KEY"}
    return found


def _model_roles() -> set[str]:
    from core.agents import registry
    from core.lessons import roles as lesson_roles

    return {r.name for r in [*registry.roles(), *registry.tools()]} | {r.name for r in lesson_roles.ROLES} | set(lesson_roles.JUDGE_SEATS)


def _code_settings() -> set[str]:
    names = _names_in(CODE, reads_only=False) | set(_settings_calls()) | _names_in(TOOLS, reads_only=True)
    names -= {"FAIRMARK_"}               # secrets.toml keys may leave out the prefix (core.settings)
    assert "FAIRMARK_MODEL_" in names    # a model per role is read by its prefix: one row per role
    names.discard("FAIRMARK_MODEL_")
    return names | {f"FAIRMARK_MODEL_{r.upper()}" for r in _model_roles()}


def _prefixes(names: set[str]) -> set[str]:
    """Names read by their start (FAIRMARK_JUDGE_ + a judge's name): documented as a pattern."""
    return {n for n in names if n.endswith("_")}


def _documented_settings() -> dict[str, str]:
    return {k: v for k, v in _rows(_read("configuration.md")).items() if NAME.fullmatch(k.split("=")[0]) or
            k.startswith("FAIRMARK_JUDGE_<")}


def test_every_setting_the_code_reads_is_documented():
    code, documented = _code_settings(), set(_documented_settings())
    for prefix in _prefixes(code):
        assert any(d.startswith(prefix + "<") for d in documented), prefix
    missing = code - _prefixes(code) - documented
    assert not missing, f"docs/configuration.md lacks {sorted(missing)}"


def test_every_documented_setting_is_read_by_the_code():
    extra = set(_documented_settings()) - _code_settings()
    assert not extra, f"docs/configuration.md lists settings the code never reads: {sorted(extra)}"


def test_every_model_setting_names_a_role():
    documented = {k[len("FAIRMARK_MODEL_"):].lower() for k in _documented_settings() if k.startswith("FAIRMARK_MODEL_")}
    assert documented == _model_roles()


def _default_cell(row: str) -> str:
    return [c.strip() for c in row.strip("|").split("|")][2]


def test_each_documented_default_is_the_codes_default():
    """The default column of every setting held by Settings is its default there; the batch
    timings are the Batcher's."""
    import inspect

    from core.llm.batch import Batcher
    from core.settings import DEFAULT_DB, Settings

    rows, defaults = _documented_settings(), Settings()
    checked = 0
    for name, field in _settings_calls().items():
        if not field or field in ("judges", "llm_base_url", "llm_api_key"):
            continue
        want = getattr(defaults, field)
        cell = _default_cell(rows[name])
        value = re.match(r"`([^`]+)`", cell)
        if want is None:
            assert value is None, (name, cell)
        elif isinstance(want, str):
            assert value and value.group(1) == want, (name, cell, want)
        else:
            assert value and float(value.group(1)) == pytest.approx(float(want)), (name, cell, want)
        checked += 1
    assert checked >= 15 and Settings().db_path == DEFAULT_DB
    batcher = inspect.signature(Batcher).parameters
    for name, param in (("FAIRMARK_BATCH_POLL_S", "poll_s"), ("FAIRMARK_BATCH_QUIET_S", "quiet_s")):
        assert float(re.match(r"`([^`]+)`", _default_cell(rows[name])).group(1)) == batcher[param].default


def test_the_band_gap_setting_is_documented_with_its_default():
    """What tests/test_bulk_eligibility.py checked in the README: the exact row's default."""
    from core.settings import Settings

    row = _documented_settings()["FAIRMARK_MAX_BAND_GAP"]
    assert _default_cell(row) == f"`{Settings().max_band_gap:.2f}`"


def test_secrets_only_keys_are_documented():
    keys = set()
    for path in CODE:
        text = path.read_text(encoding="utf-8")
        if "st.secrets" in text:
            keys |= set(re.findall(r"\.get\(\"(fairmark_[a-z_]+)\"", text))
    assert keys and keys <= set(_rows(_read("configuration.md")))


# --- command line ----------------------------------------------------------------------------
def _leaves(parser: argparse.ArgumentParser, path=()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), parser
        return
    for name, sub in subs[0].choices.items():
        yield from _leaves(sub, (*path, name))


def _arguments(parser) -> dict[str, argparse.Action]:
    """Option or POSITIONAL -> its action, without --help and the options of every command."""
    out = {}
    for a in parser._actions:
        if isinstance(a, argparse._HelpAction) or a.dest in ("db", "as_user"):
            continue
        out[a.option_strings[-1] if a.option_strings else a.dest.upper()] = a
    return out


def _cli_sections() -> dict[str, str]:
    text = _read("cli.md")
    parts = re.split(r"^### `python -m core ([a-z -]+)`\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def _documented_arguments(section: str) -> dict[str, str]:
    return {cell.split(" ")[0].rstrip("…"): row for cell, row in _rows(section.split("\nPrints")[0]).items()}


@pytest.fixture(scope="module")
def parser():
    from core.__main__ import build_parser

    return build_parser()


def test_cli_reference_lists_exactly_the_commands(parser):
    assert set(_cli_sections()) == {name for name, _ in _leaves(parser)}


def test_cli_reference_lists_exactly_each_commands_options(parser):
    sections = _cli_sections()
    for name, leaf in _leaves(parser):
        documented, real = _documented_arguments(sections[name]), _arguments(leaf)
        assert set(documented) == set(real), (name, sorted(documented), sorted(real))
        for arg, action in real.items():
            for choice in action.choices or ():
                assert f"{choice}" in documented[arg], (name, arg, choice)
            if action.required and arg.startswith("--"):
                assert "required" in documented[arg], (name, arg)


def test_every_command_takes_db_and_as_which_are_documented_once(parser):
    general = _rows(_read("cli.md").split("\n## Setting up")[0])
    assert {"--db FILE", "--as USER"} <= set(general)
    top = {a.dest for a in parser._actions}
    assert {"db", "as_user"} <= top
    for name, leaf in _leaves(parser):
        dests = {a.dest for a in leaf._actions}
        assert name == "metrics" or {"db", "as_user"} <= dests, name


def _printed_keys(section: str) -> list[set[str]]:
    """Top-level keys of each `{...}` shape on the lines that say what a command prints."""
    shapes = []
    for part in section.split("\nPrints")[1:]:
        for shape in re.findall(r"`(\{[^`]*\})`", part.split("\n\n")[0]):
            depth, keys = 0, set()
            for token in re.finditer(r"[{}\[\]]|\"([^\"]+)\"", shape):
                if token.group(0) in "{[":
                    depth += 1
                elif token.group(0) in "}]":
                    depth -= 1
                elif depth == 1:
                    keys.add(token.group(1))
            shapes.append(keys)
    return shapes


def test_every_command_section_says_what_it_prints(parser):
    sections = _cli_sections()
    for name, _ in _leaves(parser):
        assert _printed_keys(sections[name]), name


# The commands run in one database, in this order (each with what it needs before it).
RUNS = [
    ("init", ()), ("user add", ("anna", "--role", "admin", "--password-stdin")),
    ("import", ("{csv}", "--course", "C", "--assignment", "A")),
    ("assignment set", ("--course", "C", "--assignment", "A", "--prompt", "What did you learn?")),
    ("course set", ("--course", "C", "--language", "en")),
    ("assess", ("--course", "C", "--provider", "offline")),
    ("review queue", ("--course", "C", "--assignment", "A")),
    ("review show", ("{sid}",)), ("review approve", ("{sid}", "--version", "{version}")),
    ("release", ("--course", "C", "--assignment", "A")),
    ("assignment set", ("--course", "C", "--assignment", "A", "--appeal-deadline", "2099-12-31")),
    ("appeals list", ("--course", "C", "--assignment", "A")),
    ("appeals links", ("--course", "C", "--assignment", "A")),
    ("lti push", ("--course", "C", "--assignment", "A")), ("lti roster", ("--course", "{lms_course}")),
    ("export", ("--course", "C", "--format", "csv", "--out", "{tmp}/out.csv")),
    ("export", ("--course", "C", "--format", "analysis", "--out", "{tmp}/analysis.csv")),
    ("metrics", ("{scores}", "--ai", "a", "--reference", "b", "--min", "0", "--max", "3", "--group", "g",
                 "--bootstrap", "20", "--permutations", "20")),
    ("user add", ("tom", "--role", "ta", "--password-stdin")), ("user list", ()),
    ("user grant", ("tom", "--course", "C")), ("user revoke", ("tom", "--course", "C")),
    ("user role", ("tom", "instructor")), ("user password", ("tom", "--password-stdin")),
    ("user deactivate", ("tom",)), ("user activate", ("tom",)), ("user language", ("tom", "sv")),
    ("user grant", ("tom", "--course", "C")),
    ("moderation draw", ("--course", "C", "--assignment", "A", "--size", "1")),
    ("moderation status", ("--course", "C", "--assignment", "A")), ("moderation markers", ("--course", "C")),
    ("data backup", ("{tmp}/backup.db",)), ("data migrate-to", ("{empty_postgresql}",)),
    ("data retention", ("--days", "365")),
    ("data apply-retention", ("--dry-run",)),
    ("evals run", ("--provider", "offline")), ("evals status", ("--provider", "offline")),
    ("evals override", ("--config", "{config}", "--reason", "the offline rules cover it")),
    ("evals export-saved", ("--out", "{tmp}/saved.jsonl")),
    ("lessons demo", ()), ("lessons import", ("{lesson}", "--course", "L")),
    ("lessons review", ("--course", "L", "--provider", "offline")),
    ("lessons export", ("--course", "L", "--out", "{tmp}/lessons")),
    ("data delete-student", ("--course", "C", "--student", "s1")),
    ("data delete-course", ("--course", "L", "--confirm", "L")),
    ("data restore", ("{tmp}/backup.db",)), ("demo", ()),
    ("lti platform add", ("--issuer", "https://lms.example", "--client-id", "fm", "--deployment-id", "d1",
                          "--auth-url", "https://lms.example/auth", "--token-url", "https://lms.example/token",
                          "--jwks-url", "https://lms.example/jwks")),
    ("lti platform list", ()), ("lti status", ()), ("lti keys rotate", ()),
]


@pytest.fixture(scope="module")
def printed(tmp_path_factory, request):
    """What each command printed, run in-process against a temporary database (the offline
    baseline: no language model). `data migrate-to` gets an empty database on the session's
    PostgreSQL server (POSTGRESQL_ONLY), whichever databases the other tests use."""
    from core.__main__ import main

    tmp = tmp_path_factory.mktemp("cli")
    csv = tmp / "reflections.csv"
    text = "I learned how a model is trained and why the data it learns from matters to me. " * 10
    csv.write_text("student_id,name,text\n" + "".join(f"s{i},Student {i},\"{text}\"\n" for i in range(2)))
    scores = tmp / "scores.csv"
    scores.write_text("a,b,g\n" + "".join(f"{i % 4},{(i + 1) % 4},{'xy'[i % 2]}\n" for i in range(30)))
    lesson = tmp / "water.md"
    lesson.write_text("---\ntitle: Water\n---\n# Water\n\n" + "Water moves from the sea to the sky and back. " * 20)
    values = {"tmp": str(tmp), "csv": str(csv), "scores": str(scores), "lesson": str(lesson)}
    out: dict[str, list[dict]] = {}
    with pytest.MonkeyPatch.context() as mp, contextlib.ExitStack() as stack:
        mp.setenv("FAIRMARK_DB", str(tmp / "fairmark.db"))
        mp.setenv("FAIRMARK_LTI_KEY_SECRET", "the docs test's secret, long enough to seal a key")
        for name, args in RUNS:
            if name in POSTGRESQL_ONLY:
                values["empty_postgresql"] = _empty_postgresql(request)
            if name == "lti roster":   # a course an instructor's launch from the served test platform made
                import lti_support

                values["lms_course"] = "Biology in the LMS"
                stack.enter_context(lti_support.linked_course(tmp / "fairmark.db", values["lms_course"]))
            argv = [*name.split(), *(a.format(**values) for a in args)]
            stdout, stderr = io.StringIO(), io.StringIO()
            mp.setattr(sys, "stdin", io.StringIO("a long password 1\n"))
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                code = main(argv)
            result = json.loads(stdout.getvalue().strip().splitlines()[-1])
            assert code == 0, (argv, result, stderr.getvalue()[-500:])
            out.setdefault(name, []).append(result)
            if name == "review queue":
                values["sid"] = str(result["items"][0]["submission_id"])
            elif name == "review show":
                values["version"] = str(result["review_version"])
            elif name == "evals status":
                values["config"] = result["config"]
    return out


POSTGRESQL_ONLY = {"data migrate-to"}


def _empty_postgresql(request) -> str:
    """A new empty database on the session's PostgreSQL server (dropped with the server)."""
    import psycopg

    from conftest_postgres import _with_database

    admin_url, _ = request.getfixturevalue("postgres_template")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        name = f"fairmark_docs_empty_{os.getpid()}"
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return _with_database(admin_url, name)


def test_every_command_prints_the_keys_its_section_lists(parser, printed):
    sections = _cli_sections()
    assert set(printed) == {name for name, _ in _leaves(parser)}   # every command was run
    for name, results in printed.items():
        shapes = _printed_keys(sections[name])
        for result in results:
            # A documented shape is the output's keys, or the part the section adds to ("plus
            # `"error"` ..."), never a key it does not name.
            assert any(keys <= set(result) and set(result) - keys <= _plus(sections[name]) for keys in shapes), (
                name, sorted(result), shapes)


def _plus(section: str) -> set[str]:
    """Keys a section names as added to the main shape: `"error"`, `"by_group"` ..."""
    return set(re.findall(r"`\"([a-z_]+)\"`", section))


def test_the_json_keys_of_the_review_queue_are_those_others_script_against(printed):
    [queue] = printed["review queue"]
    item = queue["items"][0]
    assert set(item) == {"submission_id", "student", "status", "group", "bulk_eligible", "reasons", "judging"}
    assert set(item["judging"]) == {"confident", "split_criteria", "judges"}
    from core.signoff import eligibility

    assert set(eligibility.CODES) <= set(re.findall(r"`([a-z_]+)`", _cli_sections()["review queue"]))


# --- the pages read well on their own -------------------------------------------------------
PRODUCT_DOCS = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
# Made by the screenshot script (python -m bench.screenshots) into docs/img/: each guide shows its tasks.
SCREENSHOTS = {shot.name for shot in screenshots.SHOTS}


@pytest.mark.parametrize("page", PRODUCT_DOCS, ids=lambda p: p.name)
def test_no_internal_work_item_numbers(page):
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"\bissues? #?\d+|\bseed 0\d\d\b|\breview finding \d+|\(#\d+\)", text, re.I)
    assert not found, (page.name, found)


@pytest.mark.parametrize("page", PRODUCT_DOCS, ids=lambda p: p.name)
def test_links_lead_to_pages_and_pictures_that_exist(page):
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), (page.name, target)
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest.read_text(encoding="utf-8")), (page.name, target)


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", text, re.M)}


def test_each_guide_shows_its_tasks_with_the_screenshots_made_for_it():
    shown = {}
    for guide in ("teacher", "coordinator", "admin"):
        shown[guide] = set(re.findall(r"\]\(img/([^)]+)\)", _read(f"{guide}.md")))
        assert shown[guide] == {s for s in SCREENSHOTS if s.startswith(guide)}, guide
    assert "docs/img/home.png" in (ROOT / "README.md").read_text()


def test_the_index_links_every_page():
    index = _read("index.md")
    for page in DOCS.glob("*.md"):
        assert page.name == "index.md" or f"]({page.name})" in index, page.name


# Where each marker lives: helpers add their docs right after it, so it stands inside its
# section, after the section's own text. Docs added after it stay in the section.
MARKERS = {"configuration.md": {"<!-- llm-settings -->": "## The language model"},
           "coordinator.md": {"<!-- calibration -->": "## Check whether the AI is ready"},
           "cli.md": {"<!-- cli -->": "## Data care"},
           "benchmarks.md": {"<!-- performance -->": "## "}}


def _heading_level(line: str) -> int:
    return len(line) - len(line.lstrip("#")) if line.startswith("#") else 0


@pytest.mark.parametrize("page", sorted(MARKERS))
def test_each_marker_stands_inside_its_section(page):
    lines = _read(page).splitlines()
    for marker, section in MARKERS[page].items():
        at = lines.index(marker)
        start = max(i for i in range(at) if lines[i].startswith(section))
        level = _heading_level(lines[start])
        between = [line for line in lines[start + 1:at] if 0 < _heading_level(line) <= level]
        assert between == [], (marker, "lies past the end of", lines[start], between)


def test_the_lesson_docs_sit_in_their_sections():
    """The lesson judge's settings under the language model, the lesson commands after the main
    commands, the lesson benchmark among the benchmarks."""
    config = _read("configuration.md")
    model = config.split("\n## The language model")[1].split("\n## ")[0]
    assert "FAIRMARK_MODEL_LESSON_JUDGE" in model and "### The lesson review's own entropy check" in model
    cli = _read("cli.md")
    assert cli.index("### `python -m core init`") < cli.index("### `python -m core lessons import`")
    assert "## Lesson review on the demo" in _read("benchmarks.md")


# --- the names the pages give the code ---------------------------------------------------------
DOTTED = re.compile(r"(?<![\w./-])((?:core|db|bench)(?:\.[A-Za-z_]\w*)+)")


def _unresolved(text: str) -> list[str]:
    """Every dotted name of the code (core.x.y, db.x, bench.x) in a page that names no module,
    function or value: a module the house moved, or a helper that moved to another module."""
    import importlib

    missing = []
    for name in sorted(set(DOTTED.findall(text))):
        parts, obj = name.split("."), None
        for i in range(len(parts), 0, -1):
            with contextlib.suppress(ModuleNotFoundError):
                obj = importlib.import_module(".".join(parts[:i]))
                break
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
        if obj is None:
            missing.append(name)
    return missing


@pytest.mark.parametrize("page", PRODUCT_DOCS, ids=lambda p: p.name)
def test_every_module_and_function_a_page_names_exists(page):
    assert _unresolved(page.read_text(encoding="utf-8")) == [], page.name


def test_the_name_finder_finds_a_moved_name():
    text = "core.ingest.read.MAX_FILE_BYTES, core.ingest_read.MAX_FILE_BYTES, core.agents.evaluator.criteria, fairmark.db"
    assert _unresolved(text) == ["core.agents.evaluator.criteria", "core.ingest_read.MAX_FILE_BYTES"]
