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
