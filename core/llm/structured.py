"""Structured output: the JSON schema a pydantic model becomes, the `response_format` of each
mode a server may accept, and tidying an answer before it is validated."""
from __future__ import annotations

import copy
import json
import re

from pydantic import BaseModel, ValidationError

from core.errors import ConfigError
from core.language.interface import Message

# Best first; a server that refuses one mode gets the next (core.llm.openai_client).
MODES = ("json_schema", "json_object_schema", "json_object")


# Keywords that cost prompt tokens on every call and tell the model nothing: pydantic's
# "title"s repeat the field names ("Evidence Quote" for evidence_quote) and the models' names;
# defaults never apply (every property is required).
_DROPPED = ("default", "title")


def json_schema_for(schema: type[BaseModel]) -> dict:
    """The model's JSON schema with $refs inlined (small servers' grammar builders handle
    plain nested objects best), `default`s and pydantic's `title`s dropped (the provider bills
    the schema as prompt tokens on every call), and every object closed
    (additionalProperties false, all properties required), as strict mode demands.
    Literal ints stay `enum`s, which grammar-constrained servers do enforce (unlike min/max)."""
    raw = schema.model_json_schema()
    defs = raw.pop("$defs", {})

    def walk(node, depth=0):
        if depth > 40:
            raise ConfigError(Message("Schema {schema} is recursive; agents' schemas must not be.",
                                      schema=schema.__name__))
        if isinstance(node, list):
            return [walk(x, depth + 1) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].split("/")[-1]]
            merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
            return walk(merged, depth + 1)
        out = {}
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):   # field names, whatever they are called
                out[k] = {name: walk(sub, depth + 1) for name, sub in v.items()}
            elif k not in _DROPPED:
                out[k] = walk(v, depth + 1)
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out.setdefault("additionalProperties", False)
        return out

    return walk(raw)


def is_strict_compatible(js: dict) -> bool:
    """Strict json_schema needs closed objects; a dict[str, X] field (open keys) is not."""
    if isinstance(js, dict):
        if js.get("type") == "object" and js.get("additionalProperties", False) is not False:
            return False
        if js.get("type") == "object" and "properties" not in js:
            return False
        return all(is_strict_compatible(v) for v in js.values())
    if isinstance(js, list):
        return all(is_strict_compatible(v) for v in js)
    return True


def schema_instruction(schema: type[BaseModel], js: dict) -> str:
    return ("Answer with one JSON object only, no prose and no code fences, that matches this "
            f"JSON schema ({schema.__name__}):\n" + json.dumps(js, ensure_ascii=False))


# Length bounds steer grammar-constrained servers (json_object + schema); strict json_schema
# servers may refuse such keywords, and pydantic enforces the bounds anyway, so strict mode
# gets the schema without them.
_STRICT_UNSUPPORTED = ("maxLength", "minLength", "maxItems", "minItems", "pattern")


def _without_length_bounds(node):
    if isinstance(node, dict):
        return {k: _without_length_bounds(v) for k, v in node.items() if k not in _STRICT_UNSUPPORTED}
    if isinstance(node, list):
        return [_without_length_bounds(v) for v in node]
    return node


def sent_schema(schema: type[BaseModel], mode: str = MODES[0]) -> str:
    """The schema's text as a request in `mode` carries it (what the provider bills as prompt
    tokens; json_object mode carries it in the system message instead): what bench.tokens and
    the run estimate (core.estimate) count."""
    js = json_schema_for(schema)
    if mode == "json_object":
        return schema_instruction(schema, js)
    rf = response_format(mode, schema, js)
    return json.dumps(rf["json_schema"]["schema"] if mode == "json_schema" else rf["schema"], ensure_ascii=False)


def response_format(mode: str, schema: type[BaseModel], js: dict) -> dict:
    if mode == "json_schema":
        js = _without_length_bounds(js)
        return {"type": "json_schema",
                "json_schema": {"name": schema.__name__[:64], "schema": js,
                                "strict": is_strict_compatible(js)}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": js}
    return {"type": "json_object"}


def with_schema_in_system(messages: list[dict], text: str) -> list[dict]:
    msgs = [dict(m) for m in messages]
    if msgs and msgs[0].get("role") == "system":
        msgs[0]["content"] = f"{msgs[0].get('content', '')}\n\n{text}"
    else:
        msgs.insert(0, {"role": "system", "content": text})
    return msgs


def strip_fences(text: str) -> str:
    """Small models wrap JSON in ```json fences even in JSON mode."""
    t = text.strip()
    m = re.match(r"^```(?:json)?\s*(.*?)\s*```$", t, re.S)
    return m.group(1) if m else t


def short_validation_error(exc: ValidationError) -> str:
    """The first few validation errors, short enough to show the model in a re-ask."""
    parts = []
    for e in exc.errors()[:8]:
        loc = ".".join(str(x) for x in e.get("loc", ())) or "(whole answer)"
        parts.append(f"{loc}: {e.get('msg')}")
    return "; ".join(parts)



def parse_answer(schema: type[BaseModel], text: str) -> BaseModel:
    """The answer validated against `schema`. JSON allows no raw line break or tab inside a
    string, but small models write them; such an answer is read leniently rather than re-asked
    (the content is fine). Raises pydantic's ValidationError otherwise."""
    try:
        return schema.model_validate_json(text)
    except ValidationError as exc:
        try:
            loose = json.loads(text, strict=False)
        except ValueError:
            raise exc from None
        return schema.model_validate(loose)
