"""The interface's translation check, shared by tests/test_i18n.py: which modules are converted,
the strings that reach Streamlit in them without the translation function, and the messages
their code uses. Run it to list what the catalogues lack, in .po form:

    python tests/i18n_scan.py

CONVERTED lists the modules scanned: every page module and app.py (tests/test_i18n.py fails when
a module of pages/ is missing from it); "path:function" would scan one function of a file.
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONVERTED = (
    "app.py",
    "pages/_signin.py",
    "pages/_common.py",
    "pages/home.py",
    "pages/_calibration.py",   # readiness, offsets, the hidden draft's notice and what is missing: core's Messages and N_ labels
    "pages/_student_view.py",
    "pages/_student_appeal.py",
    "pages/student.py",
    "pages/settings.py",   # its title and tab names; its tabs' modules are listed each on its own
    "pages/_settings_users.py",
    "pages/_settings_calibration.py",   # the bar's sentence ("at least 30 students scored blind, …"): a core Message
    "pages/_settings_llm.py",   # a failed test's error: a core Message; the last test's, stored, is English
    "pages/_settings_judges.py",
    "pages/_settings_lti.py",
    "pages/_settings_data.py",
    "pages/_settings_catalogue.py",
    "pages/_settings_rubric_builder.py",   # a draft's note and the versions' differences: core's Messages (said)
    "pages/_i18n.py",
    "pages/upload.py",
    "pages/assess.py",
    "pages/release.py",
    "pages/review.py",
    "pages/_review_item.py",   # its groups, flags, verdicts, reasons, checks and agents are named by core (English)
    "pages/_anchored_notes.py",
    "pages/_appeal_review.py",
    "pages/_comment_bank.py",
    "pages/_review_nav.py",
    "pages/_review_queue.py",
    "pages/learning.py",
    "pages/second_marking.py",
    "pages/costs.py",
    "pages/markers.py",
    "pages/_appeal_rates.py",
    "pages/moderation.py",   # core's refusals are Messages (show_error); the strata's band is an N_ label
    "pages/calibrate.py",   # the offline scorer's summary, the strata and the bar's sentence: core's Messages and N_ labels
    "pages/_dashboard.py",   # the charts' axes and legends (N_), translated on the figure; their ticks and hover: core.charts
    "pages/agreement.py",
    "pages/fairness.py",   # the bands' names on the chart ("Low band (0–1)") and the hover: core.charts, said in the page's language
    "pages/ai_quality.py",   # a check's detail: a core Message (core/evals/rules, runner), its form kept in the eval run's report
    "pages/_evals_widgets.py",   # the configuration's name, label and message and its roles' values: core's N_ labels and Messages
    "pages/_offline_scorer.py",   # each criterion's scorer ("Scored by", an N_ label) and why it was chosen (a Message)
    "pages/lessons.py",   # the call log's columns are core's N_ labels; the lessons' titles are the teacher's
    "pages/compare.py",   # core's, English still: the bootstrap's interval notes (core/metrics)
    "pages/_lessons_agreement.py",   # its tables' rows and columns and the intervals' notes are core's (English)
    "pages/lesson_review.py",   # the Stage 1 checks and details, the panel's, rounds' and fact check's notes: core's Messages, kept with the review (stored English read back, core.lessons.view); the judges' quotes, unsure sentences and errors as they wrote them
)
# core modules that build sentences a converted page shows, through core.language.interface
CORE_MESSAGES = ("core/students/page.py", "core/accounts/identity.py", "core/signoff/labels.py", "core/data_care.py",
                 "core/signoff/triage.py", "core/signoff/eligibility.py", "core/offline/__init__.py",
                 "core/calibration/__init__.py", "core/calibration/readiness.py", "core/calibration/blind.py",
                 "core/calibration/draw.py", "core/calibration/offset.py", "core/calibration/band_gap.py",
                 "core/reports/pairs.py", "core/metrics/proportion.py",
                 "core/appeals/figures.py", "core/judging/agreement.py", "core/reports/judges.py",
                 "core/metrics/bootstrap.py", "core/metrics/fairness.py", "core/metrics/length.py", "core/charts.py",
                 "core/reports/costs.py", "core/moderation/markers.py",
                 "core/lessons/tiers.py", "core/lessons/signoff.py", "core/lessons/spec.py", "core/lessons/rubric.py",
                 "core/lessons/review.py", "core/lessons/heuristics.py", "core/evals/pairwise.py",
                 "core/evals/gate.py", "core/evals/__init__.py",
                 "core/lessons/judge.py", "core/lessons/factcheck.py")
CORE_MESSAGES += ("core/agents/registry.py",   # the agents' names and duties
                  "core/agents/aggregator.py", "core/agents/coach.py", "core/agents/equity.py",   # what a failed
                  "core/agents/reviewer.py", "core/agents/reviser.py", "core/agents/rubric_builder.py",   # agent costs
                  "core/signoff/release.py", "core/moderation/sample.py",   # the release gates
                  "core/estimate.py",   # the estimate's source on Assess
                  "core/language/course.py", "core/rubric.py",   # the course languages, the offline signals
                  "core/moderation/blindness.py",   # the hold-back reasons (eligibility.py is listed above)
                  "core/evals/config.py", "core/evals/runner.py",   # configurations' names, roles' prompts, cases' statuses
                  "core/evals/rules.py", "core/checks.py",   # an eval check's detail, a draft's rules' details
                  "core/judging/judges.py",   # the trust rule, the family rule's notes (the lesson panel, the readiness view)
                  "core/offline/scorer.py", "core/offline/crossval.py",   # the offline scorer's kinds and why it scores so
                  "core/offline/model.py",   # the learned model's feature labels (a draft's offline reasoning)
                  "core/lessons/costs.py", "core/lessons/roles.py", "core/lessons/refine.py",   # the call log's columns; notes
                  "core/web/student.py")   # a refused private link's page (plain HTML)

# The refusals: every module of core/ (not its command line, which speaks English) and of db/ is
# scanned for a FairMark error raised with a plain string, and for the Messages it gives (see
# refusals()). A module still listed here raises plain English, and is not scanned: the list only shrinks.
REFUSALS_PENDING: set[str] = {
}

TRANSLATE = {"t", "N_", "Message"}   # the message first
CONTEXT = "\x04"   # gettext's separator of a context and its msgid: in_context(IN_SENTENCE, "Swedish")
IN_SENTENCE = "in a sentence"   # core.language.interface.IN_SENTENCE (the scan imports no core)
PLURAL = {"tn", "plural"}        # singular, plural first
# Streamlit's calls that show text (a widget's label, a message, a title), whatever the object
# they are called on (st, a column, a container, the sidebar).
SHOWN = {"title", "header", "subheader", "caption", "markdown", "write", "text", "info", "warning", "error",
         "success", "toast", "exception", "button", "form_submit_button", "download_button", "link_button",
         "page_link", "text_input", "text_area", "number_input", "selectbox", "multiselect", "radio", "checkbox",
         "toggle", "slider", "select_slider", "date_input", "time_input", "file_uploader", "metric", "tabs",
         "expander", "popover", "status", "spinner", "Page", "set_page_config", "dataframe", "table",
         "chat_input", "navigation", "login"}
# Their arguments that are never shown to a person.
NOT_SHOWN = {"key", "type", "icon", "page_icon", "layout", "initial_sidebar_state", "url_path", "on_click", "on_change",
             "args", "kwargs", "width", "height", "hide_index", "disabled", "max_chars", "index", "min_value",
             "max_value", "step", "position", "default", "border", "use_container_width", "clear_on_submit",
             "data", "file_name", "mime", "delta_color",   # a download's content, its file's name and type
             "query_params"}   # a page link's address
NOT_SHOWN |= {"format"}   # a date's or a number's display format ("YYYY-MM-DD", "%.2f")
LOOKUPS = {"get", "pop", "setdefault", "startswith", "endswith"}   # a key, not a text
# Literal text allowed to reach the screen as it is: the product's name.
ALLOWED = {"FairMark"}
ICON = re.compile(r":\w+\[:material/\w+:\]")   # a coloured icon, ":green[:material/check_circle:]"
COLOUR = re.compile(r":\w+(-\w+)?\[")   # Markdown's colour opener, ":gray[" or ":green-badge["


@dataclass(frozen=True)
class Finding:
    where: str
    line: int
    text: str

    def __str__(self):
        return f"{self.where}:{self.line}: {self.text!r} reaches Streamlit without t()"


def _name(func) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _is_text(value: str) -> bool:
    """A string a person would read: it has letters and is not a path, an icon or the product's name."""
    s = value.strip()
    return (any(c.isalpha() for c in s) and s not in ALLOWED and not s.endswith(".py")
            and not s.startswith(":material/") and not ICON.fullmatch(s)
            and any(c.isalpha() for c in COLOUR.sub("", s)))


def _parse(spec: str, root: Path = ROOT) -> tuple[ast.Module, ast.AST]:
    """The module, and what of it is converted (the module, or one function of it)."""
    path, _, function = spec.partition(":")
    module = ast.parse((root / path).read_text(encoding="utf-8"), filename=path)
    if function:
        found = [n for n in ast.walk(module) if isinstance(n, ast.FunctionDef) and n.name == function]
        assert found, f"{spec}: no function {function}"
        return module, found[0]
    return module, module


def _assignments(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """Name -> the values given to it in this scope (a function's body, or the module's top level)."""
    out: dict[str, list[ast.AST]] = {}
    for node in _own_nodes(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node.value)
    return out


def _own_nodes(scope: ast.AST):
    """The nodes of a scope, not those of the functions defined in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


class _Scan:
    def __init__(self, where: str, assigned: dict[str, list[ast.AST]]):
        self.where, self.assigned, self.found = where, assigned, []

    def text(self, node, *, follow: bool = True, table: bool = False) -> None:
        """Every literal in `node` that would be shown; names are followed to what they were given once."""
        if node is None:
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and _is_text(node.value):
                self.found.append(Finding(self.where, node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            for part in node.values:
                self.text(part, follow=follow)
        elif isinstance(node, ast.FormattedValue):
            self.text(node.value, follow=follow)
        elif isinstance(node, ast.Call):
            name = _name(node.func)
            skip = 1 if name in TRANSLATE else 2 if name in PLURAL else 0
            if name in LOOKUPS or name in SHOWN:   # a key; or a Streamlit call, scanned on its own
                return
            for arg in node.args[skip:]:
                self.text(arg, follow=follow)
            for kw in node.keywords:
                self.text(kw.value, follow=follow)
            if isinstance(node.func, ast.Attribute) and skip == 0:
                self.text(node.func.value, follow=follow)
        elif isinstance(node, ast.Subscript):          # table[key]: the table's values are shown
            if isinstance(node.value, ast.Name) and follow:
                for value in self.assigned.get(node.value.id, []):
                    self.text(value, follow=False, table=True)
            else:
                self.text(node.value, follow=follow)
        elif isinstance(node, ast.Name):
            if follow:
                for value in self.assigned.get(node.id, []):
                    self.text(value, follow=False)
        elif isinstance(node, ast.Dict):
            for key in ([] if table else node.keys):
                self.text(key, follow=follow)
            for value in node.values:
                self.text(value, follow=follow)
        elif isinstance(node, ast.Compare):
            return
        elif isinstance(node, (ast.Lambda, ast.Attribute)):
            return
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.comprehension):
                    self.text(child.iter, follow=follow)
                elif not isinstance(child, (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)):
                    self.text(child, follow=follow, table=table)

    def call(self, node: ast.Call) -> None:
        shown_by = any(kw.arg == "format_func" for kw in node.keywords)   # then the options are keys
        for i, arg in enumerate(node.args):
            if not (shown_by and i == 1):
                self.text(arg)
        for kw in node.keywords:
            if shown_by and kw.arg == "options":
                continue
            if kw.arg == "format_func" and isinstance(kw.value, ast.Attribute) and isinstance(kw.value.value, ast.Name):
                for value in self.assigned.get(kw.value.value.id, []):   # options shown by a table's .get
                    self.text(value, follow=False, table=True)
            elif kw.arg is None:   # **options: a dict of keyword arguments, each judged by its name
                self.splat(kw.value)
            elif kw.arg not in NOT_SHOWN:
                self.text(kw.value)

    def splat(self, node, follow: bool = True) -> None:
        if isinstance(node, ast.Name) and follow:
            for value in self.assigned.get(node.id, []):
                self.splat(value, follow=False)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if key is None:            # {**other, ...}
                    self.splat(value, follow=follow)
                elif _literal(key) not in NOT_SHOWN:
                    self.text(value, follow=follow)
        else:
            self.text(node, follow=follow)


def untranslated(specs=CONVERTED, root: Path = ROOT) -> list[Finding]:
    """The string literals that reach a Streamlit call in the converted code without t()."""
    findings: list[Finding] = []
    for spec in specs:
        module, tree = _parse(spec, root)
        where = spec
        top = _assignments(module)
        scopes = [n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        inside = [module] if tree is module else []
        for scope in scopes + inside:
            if tree is not module and scope is not tree and not _within(scope, tree):
                continue
            assigned = top if scope is module else {**top, **_assignments(scope)}
            scan = _Scan(where, assigned)
            for node in _own_nodes(scope):
                if isinstance(node, ast.Call) and _name(node.func) in SHOWN:
                    scan.call(node)
            findings.extend(scan.found)
    return findings


def _within(inner: ast.AST, outer: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _literal(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def messages(specs=None) -> dict[str | tuple[str, str], list[str]]:
    """Every message the code passes to t()/N_() (a string) or tn()/plural() (a pair), with where:
    the converted pages, CORE_MESSAGES, and the Messages of every core and db/ module refusals() scans."""
    if specs is None:
        specs = list(dict.fromkeys(CONVERTED + CORE_MESSAGES + tuple(
            m for m in refusal_modules() if any(call in (ROOT / m).read_text(encoding="utf-8")
                                          for call in ("Message(", "Message.plural(")))))
    out: dict = {}
    for spec in specs:
        module, tree = _parse(spec)
        where = spec
        # one function of a module: its module's tables (N_) too
        nodes = list(ast.walk(tree)) + ([] if tree is module else list(_own_nodes(module)))
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            if name in TRANSLATE and node.args and _literal(node.args[0]) is not None:
                out.setdefault(_literal(node.args[0]), []).append(f"{where}:{node.lineno}")
            elif name == "in_context" and len(node.args) >= 2 and _literal(node.args[1]) is not None:
                out.setdefault(f"{_context(node.args[0])}{CONTEXT}{_literal(node.args[1])}", []).append(
                    f"{where}:{node.lineno}")
            elif name in PLURAL and len(node.args) >= 2 and None not in (_literal(a) for a in node.args[:2]):
                out.setdefault((_literal(node.args[0]), _literal(node.args[1])), []).append(f"{where}:{node.lineno}")
    return out


def _context(node) -> str:
    """An in_context call's context: a literal, or core.language.interface's IN_SENTENCE by name."""
    return _literal(node) or (IN_SENTENCE if isinstance(node, ast.Name) and node.id == "IN_SENTENCE" else "?")


def msgid_of(key) -> str:
    """A collected message's msgid: a plural's singular, a message in context (`context\x04msgid`) without it."""
    return (key[0] if isinstance(key, tuple) else key).split(CONTEXT)[-1]


def core_modules(root: Path = ROOT) -> list[str]:
    """core's modules whose refusals a person reads on a page (not the command line's)."""
    return sorted(p.relative_to(root).as_posix() for p in (root / "core").rglob("*.py")
                  if "cli" not in p.relative_to(root / "core").parts[:1])


def db_modules(root: Path = ROOT) -> list[str]:
    """db/'s modules (its PostgreSQL ones and its migrations too): db/ gives its refusals as Messages
    (db/message.py) without importing core/."""
    return sorted(p.relative_to(root).as_posix() for p in (root / "db").rglob("*.py"))


def refusal_modules(root: Path = ROOT) -> list[str]:
    """The modules refusals() scans when not told: core's (not its command line's) and db/'s, but
    those still pending."""
    return [m for m in core_modules(root) + db_modules(root) if m not in REFUSALS_PENDING]


def _error_classes(root: Path = ROOT) -> set[str]:
    """FairMarkError and every class of db/ and core/ that derives from it, by name."""
    bases: dict[str, set[str]] = {}
    for path in [*(root / "db").rglob("*.py"), *(root / "core").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(n for n in map(_name, node.bases) if n)
    found = {"FairMarkError"}
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _plain_text(node) -> bool:
    """A string built in place: a literal, an f-string, "…".format(…), or text joined with +."""
    if isinstance(node, ast.JoinedStr) or _literal(node) is not None:
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _plain_text(node.left) or _plain_text(node.right)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and _literal(node.func.value) is not None)


@dataclass(frozen=True)
class PlainRefusal(Finding):
    def __str__(self):
        verb = "calls" if self.text.startswith(REFUSE_HELPER) else "raises"
        return f"{self.where}:{self.line}: {verb} {self.text} with a plain string: give it a Message"


REFUSE_HELPER = "_refuse"   # a module's helper that raises its refusal: `_refuse(Message(...))`


def _refuse_helpers(module: ast.Module) -> set[str]:
    """The module-level helpers of a module whose name starts with REFUSE_HELPER: defined at its
    top level or imported into it (a method, `self._refuse(...)`, is not one)."""
    names = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
    return {name for name in names if name.startswith(REFUSE_HELPER)}


def refusals(specs=None, root: Path = ROOT) -> list[PlainRefusal]:
    """The FairMark errors core and db/ raise with a plain string: a page would show them in English.
    An error carrying a Message (`raise NotFound(Message("No submission {id}.", id=i))`) reads
    English on the command line and in the reader's language on a page (`show_error`). A call
    to a module-level helper named `_refuse…` with a plain string first is one too: the helper
    raises it (`_refuse("expired")`; `_refuse(Message("expired"))` is not)."""
    classes = _error_classes(root)
    out = []
    for spec in specs if specs is not None else refusal_modules(root):
        module = ast.parse((root / spec).read_text(encoding="utf-8"))
        helpers = _refuse_helpers(module)
        for node in ast.walk(module):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and _name(node.exc.func) in classes:
                if node.exc.args and _plain_text(node.exc.args[0]):
                    out.append(PlainRefusal(spec, node.lineno, _name(node.exc.func)))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
                if node.args and _plain_text(node.args[0]):
                    out.append(PlainRefusal(spec, node.lineno, node.func.id))
    return sorted(out, key=lambda r: (r.where, r.line))


def _po_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def missing(code: str) -> list:
    """The messages the code uses that the language's catalogue does not translate."""
    from core.language.interface import read_catalogue

    catalogue = read_catalogue(code)
    out = []
    for msgid in messages():
        key = msgid[0] if isinstance(msgid, tuple) else msgid
        context, _, key = key.rpartition(CONTEXT)    # core.language.interface.in_context: its msgctxt
        entry = catalogue.get(key, context=context or None)
        strings = entry.string if entry is not None else ""
        strings = strings if isinstance(strings, tuple) else (strings,)
        if entry is None or entry.fuzzy or not all(strings):
            out.append(msgid)
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for finding in untranslated():
        print(f"# {finding}")
    from core.language.interface import TRANSLATED

    for code in TRANSLATED:
        print(f"# --- {code}.po lacks:")
        for msgid in missing(code):
            if isinstance(msgid, tuple):
                print(f"msgid {_po_string(msgid[0])}\nmsgid_plural {_po_string(msgid[1])}\n"
                      f'msgstr[0] ""\nmsgstr[1] ""\n')
            else:
                print(f'msgid {_po_string(msgid)}\nmsgstr ""\n')
