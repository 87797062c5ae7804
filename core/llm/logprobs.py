"""Logprobs -> the probability of each score label: where the server returns logprobs, the
Evaluator's score tokens give an expected score and a confidence (core.judging.confidence);
and `LogprobsMemory`, which models are asked for them."""
from __future__ import annotations

import re
import threading


def _int_value_offsets(text: str) -> list[tuple[str, int]]:
    """(dotted key path, char offset) of every integer value in a JSON text."""
    out: list[tuple[str, int]] = []
    stack: list[list] = []       # per container: [kind, current key or index]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            s = text[i + 1:j]
            k = j + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if stack and stack[-1][0] == "obj" and k < n and text[k] == ":":
                stack[-1][1] = s
            i = j + 1
            continue
        if c in "{[":
            stack.append(["obj" if c == "{" else "arr", 0 if c == "[" else None])
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == "," and stack and stack[-1][0] == "arr":
            stack[-1][1] += 1
        elif c in "-0123456789":
            j = i
            while j < n and text[j] in "-+.eE0123456789":
                j += 1
            if re.fullmatch(r"-?\d+", text[i:j]):
                path = ".".join(str(s[1]) for s in stack if s[1] is not None)
                out.append((path, i))
            i = j
            continue
        i += 1
    return out


def score_probs_from_logprobs(text: str, logprobs: list[dict] | None,
                              labels_by_field: dict[str, set[int]]) -> dict | None:
    """{field path: {label: probability}} for bounded-integer fields, from the top logprobs of
    the token where each value starts. Only labels the schema allows are kept, renormalised."""
    if not logprobs or not labels_by_field:
        return None
    starts, pos = [], 0
    for tok in logprobs:
        starts.append(pos)
        pos += len(tok.get("token", ""))
    if pos != len(text):        # tokens don't reassemble the text (e.g. fences stripped)
        joined = "".join(t.get("token", "") for t in logprobs)
        shift = joined.find(text)
        if shift < 0:
            return None
        starts = [s - shift for s in starts]
    result: dict[str, dict[str, float]] = {}
    for path, offset in _int_value_offsets(text):
        leaf = path.split(".")[-1]
        labels = labels_by_field.get(leaf)
        if not labels:
            continue
        idx = max((k for k, s in enumerate(starts) if s <= offset), default=None)
        if idx is None:
            continue
        cands = logprobs[idx].get("top_logprobs") or [logprobs[idx]]
        probs: dict[str, float] = {}
        for cand in cands:
            tok = cand.get("token", "").strip()
            if tok.lstrip("-").isdigit() and int(tok) in labels:
                probs[tok] = probs.get(tok, 0.0) + pow(2.718281828459045, cand.get("logprob", -99))
        total = sum(probs.values())
        if total > 0:
            result[path] = {k: v / total for k, v in sorted(probs.items())}
    return result or None


def bounded_int_fields(js: dict) -> dict[str, set[int]]:
    """Field name -> allowed integer labels, for every enum-of-ints property in a schema."""
    found: dict[str, set[int]] = {}

    def walk(node):
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                enum = prop.get("enum") if isinstance(prop, dict) else None
                if enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
                    found.setdefault(name, set()).update(enum)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(js)
    return found



# --- asking for them: which models give logprobs ------------------------------------------
class LogprobsMemory:
    """Whether each model gives logprobs, found out once per model and remembered like the
    structured-output mode: a server that refuses the parameter (HTTP 400/422 naming logprobs)
    is asked again without it, and one that ignores it (answers without them) is not asked
    again. Only scoring calls ask at all: bounded integer fields, or a schema that says so
    (`WANTS_LOGPROBS`: the lesson judge's confidence).

    >>> m = LogprobsMemory({})
    >>> js = {"properties": {"score": {"enum": [0, 1, 2, 3]}}}
    >>> m.wants("m", js), m.wants("m", {"properties": {}})
    (True, False)
    >>> m.answered("m", got=False); m.wants("m", js), m.gives("m")
    (False, False)
    """

    def __init__(self, known: dict[str, bool]):
        self.known = known               # model -> gives logprobs (shared per endpoint by the client)
        self._lock = threading.Lock()

    def gives(self, model: str) -> bool | None:
        """Whether this model returned logprobs when asked (None: not asked yet)."""
        return self.known.get(model)

    def wants(self, model: str, js: dict, schema=None) -> bool:
        scoring = bool(bounded_int_fields(js)) or bool(getattr(schema, "WANTS_LOGPROBS", False))
        return self.known.get(model, True) and scoring

    @staticmethod
    def refused(exc) -> bool:
        """Is this bad request the server refusing the logprobs parameter?"""
        return getattr(exc, "status_code", None) in (400, 422) and "logprob" in str(exc).lower()

    def answered(self, model: str, *, got: bool) -> None:
        with self._lock:
            self.known[model] = got
