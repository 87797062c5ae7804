"""The import graph, read from the source (AST): no circles, and one module talks to openai.
Every import counts, also one inside a function: a lazy import hides a circle, it does not
remove it."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "db", "pages", "bench")


def _sources() -> dict[str, Path]:
    """Module name -> file, for the app's own modules."""
    found = {"app": ROOT / "app.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(tree: ast.AST) -> set[str]:
    """Every dotted name an import statement names (`from a import b` gives a and a.b)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _graph() -> dict[str, set[str]]:
    sources = _sources()
    graph = {}
    for name, path in sources.items():
        imported = _imported(ast.parse(path.read_text(), str(path)))
        # `from core import llm` names core.llm (a module); `from core.llm import make_llm` names
        # core.llm (core.llm.make_llm is not a module).
        graph[name] = {m for m in imported if m in sources and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as the path that closes it, or None."""
    state: dict[str, str] = {}          # visiting | done
    path: list[str] = []

    def visit(node):
        state[node] = "visiting"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "visiting":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_import_circles():
    graph = _graph()
    assert "core.llm.factory" in graph["core.llm"] and "core.llm" in graph["core.pipeline"]  # the reader works
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_only_the_openai_client_imports_openai():
    importers = sorted(
        str(path.relative_to(ROOT)) for path in ROOT.rglob("*.py")
        if not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
        and any(m == "openai" or m.startswith("openai.") for m in _imported(ast.parse(path.read_text()))))
    assert importers == ["core/llm/openai_client.py"]


def test_layers_point_one_way_pages_to_core_to_db():
    graph = _graph()
    upward = sorted(f"{m} -> {dep}" for m, deps in graph.items() if m == "db" or m.startswith("db.")
                    for dep in deps if dep == "core" or dep.startswith("core."))
    assert upward == [], "db/ must not import core/"
    into_pages = sorted(f"{m} -> {dep}" for m, deps in graph.items() if m.split(".")[0] in ("core", "db")
                        for dep in deps if dep.split(".")[0] == "pages")
    assert into_pages == []


def test_core_and_db_never_import_streamlit():
    offenders = sorted(str(p.relative_to(ROOT)) for package in ("core", "db") for p in (ROOT / package).rglob("*.py")
                       if any(m.split(".")[0] == "streamlit" for m in _imported(ast.parse(p.read_text()))))
    assert offenders == []


SQL_START = ("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "WITH", "DROP", "ALTER", "PRAGMA")


def _sql_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """String literals (and the text start of f-strings) that begin an SQL statement."""
    found, inside_fstrings = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inside_fstrings.update(id(v) for v in node.values)
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inside_fstrings:
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value)
        if text is not None:
            words = text.lstrip().split(None, 1)
            if words and words[0] in SQL_START and len(words) > 1:
                found.append((node.lineno, text.strip()[:40]))
    return found


def test_every_sql_statement_lives_in_db():
    offenders = []
    for path in [ROOT / "app.py", *(ROOT / "core").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]:
        offenders += [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in _sql_literals(ast.parse(path.read_text()))]
    assert offenders == []


def test_the_sql_finder_finds_sql():
    tree = ast.parse('x = "SELECT id FROM t"\ny = f"UPDATE t SET a = {1}"\nz = "Select the best answer"\n')
    assert [line for line, _ in _sql_literals(tree)] == [1, 2]


# Pages read a course's data only through core, where the signed-in actor is checked (issue 13):
# the database package itself (connect, now) is all they take from db/.
PAGES_MAY_IMPORT_FROM_DB = {"db"}


def test_pages_read_course_data_only_through_core():
    graph = _graph()
    leaks = {name: sorted(m for m in targets if m.startswith("db") and m not in PAGES_MAY_IMPORT_FROM_DB)
             for name, targets in graph.items() if name == "app" or name.startswith("pages")}
    assert not {k: v for k, v in leaks.items() if v}, leaks
# Small modules (house rule): a core/ or db/ file over this many lines holds two concepts. No
# exception: the migrations are one module each (db/migrations/).
MAX_LINES = 400


def _long_modules(root: Path, packages=("core", "db")) -> list[str]:
    """Every module of these packages (subpackages included) over MAX_LINES, with its length."""
    return sorted(f"{p.relative_to(root)}: {n} lines" for package in packages for p in (root / package).rglob("*.py")
                  if (n := len(p.read_text().splitlines())) > MAX_LINES)


def test_no_module_over_400_lines():
    assert _long_modules(ROOT) == []


def test_the_length_finder_lists_every_long_module(tmp_path):
    for path, n in (("core/a.py", MAX_LINES + 1), ("core/ok.py", MAX_LINES), ("db/sub/b.py", 900), ("pages/c.py", 900)):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n" * n)
    assert _long_modules(tmp_path) == ["core/a.py: 401 lines", "db/sub/b.py: 900 lines"]


def _private_imports(tree: ast.AST, modules: set[str]) -> list[str]:
    """`from a import _b` where _b is not itself a module: another module's private name."""
    return [f"{node.module}.{a.name}" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and not node.level
            for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
            and f"{node.module}.{a.name}" not in modules]


def test_no_module_imports_another_modules_private_names():
    sources = _sources()
    offenders = sorted(f"{name}: {imp}" for name, path in sources.items()
                       for imp in _private_imports(ast.parse(path.read_text()), set(sources)))
    assert offenders == []


def test_the_private_import_finder_finds_one():
    tree = ast.parse("from core.ingest.read import _JUNK, MAX\nfrom pages import _common\n")
    assert _private_imports(tree, {"pages._common"}) == ["core.ingest.read._JUNK"]


# The house (issue: a layout that shows the architecture). core's top level holds the concepts
# every area shares; each area with more than one module is a package.
MAX_TOP_LEVEL = 15


def test_core_top_level_holds_at_most_fifteen_modules():
    top = sorted(p.name for p in (ROOT / "core").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} modules at core's top level: {top}"


def _agent_imports(graph: dict[str, set[str]]) -> list[str]:
    """Agent modules importing a role: roles share helpers only through core.agents.common, and
    common (like the package) imports no role, or a role would reach another through it. The
    registry, which lists every role, is the one module that imports them all."""
    shared = {"core.agents", "core.agents.common"}
    return sorted(f"{m} -> {dep}" for m, deps in graph.items()
                  if (m == "core.agents" or m.startswith("core.agents.")) and m != "core.agents.registry"
                  for dep in deps if dep.startswith("core.agents.") and dep not in shared)


def test_agents_never_import_each_other():
    graph = _graph()
    assert graph["core.agents.coach"] & {"core.agents.common"}       # the reader sees the shared helpers
    assert _agent_imports(graph) == []


def test_the_agent_import_finder_finds_one():
    assert _agent_imports({"core.agents.reviser": {"core.agents.reviewer", "core.agents.common"},
                           "core.agents.registry": {"core.agents.reviser"}}) == ["core.agents.reviser -> core.agents.reviewer"]
    assert _agent_imports({"core.agents.common": {"core.agents.aggregator"}, "core.agents": {"core.agents.common"},
                           "core.agents.coach": {"core.agents.common"}}) == ["core.agents.common -> core.agents.aggregator"]


def _into_cli(graph: dict[str, set[str]]) -> list[str]:
    """The command line is an adapter over core, like pages/: nothing else in the app imports it."""
    return sorted(f"{m} -> {dep}" for m, deps in graph.items()
                  if not (m == "core.cli" or m.startswith("core.cli.") or m == "core.__main__")
                  for dep in deps if dep == "core.cli" or dep.startswith("core.cli."))


def test_only_the_command_line_imports_the_command_line():
    graph = _graph()
    assert "core.cli.common" in graph["core.cli.review"]
    assert _into_cli(graph) == []
    assert list((ROOT / "core").glob("cli_*.py")) == [], "command modules live in core/cli/"


def test_student_growth_stands_apart_from_the_eval_gate():
    graph = _graph()
    assert "core.growth.learning" in graph, "student growth has its own package"
    into_gate = sorted(f"{m} -> {dep}" for m, deps in graph.items() if m == "core.growth" or m.startswith("core.growth.")
                       for dep in deps if dep == "core.evals" or dep.startswith("core.evals."))
    assert into_gate == []
    assert not any(m.startswith("core.evals") and "learning" in m for m in graph)
