"""SQLite's SQL, as FairMark's queries write it, said in PostgreSQL's (one statement at a time).

The queries in db/ are written for SQLite. Most of it is common SQL; what differs is rewritten here
once per statement text (cached): `?` placeholders, INSERT OR IGNORE / OR REPLACE, `IS` between
values, REAL, LIKE's case, id lists passed as JSON. SQLite's functions that PostgreSQL lacks
(strftime, julianday, json_extract, json_each, group_concat, total, instr) are defined in the
database instead (db/postgres/compat.py), so the statements keep them. What neither can do (a typed
json_extract compared with a number) is listed in /work/notes/p-pg.md and belongs in a dialect
helper at the query, not here.
"""
from __future__ import annotations

import functools
import re

_WORD_PAIRS = [
    (re.compile(r"\bIS\s+NOT\s+(?!NULL\b|TRUE\b|FALSE\b|DISTINCT\b)", re.I), "IS DISTINCT FROM "),
    (re.compile(r"\bIS\s+(?!NOT\b|NULL\b|TRUE\b|FALSE\b|DISTINCT\b)", re.I), "IS NOT DISTINCT FROM "),
    (re.compile(r"\bAS\s+REAL\b", re.I), "AS DOUBLE PRECISION"),
    # An empty list (no ids given): SQLite's x IN () is false and x NOT IN () true; PostgreSQL has
    # no empty list, but an empty array typed by x says the same.
    (re.compile(r"\bNOT\s+IN\s*\(\s*\)", re.I), "<> ALL('{}')"),
    (re.compile(r"\bIN\s*\(\s*\)", re.I), "= ANY('{}')"),
    (re.compile(r"\bNOT\s+LIKE\b", re.I), "NOT ILIKE"),
    (re.compile(r"(?<!NOT )\bLIKE\b", re.I), "ILIKE"),
    (re.compile(r"\bWHERE\s+1\b(?!\s*[=<>])", re.I), "WHERE TRUE"),
    (re.compile(r"\bWHERE\s+0\b(?!\s*[=<>])", re.I), "WHERE FALSE"),
    (re.compile(r"(?<![.\w])temp\.", re.I), "pg_temp."),     # SQLite's temp schema is PostgreSQL's pg_temp
    (re.compile(r"\bjson_object\(", re.I), "json_build_object("),
    (re.compile(r"\bjson_array\(", re.I), "json_build_array("),
    (re.compile(r"\bjson_group_array\(", re.I), "json_agg("),
    (re.compile(r"\bjson_group_object\(", re.I), "json_object_agg("),
    (re.compile(r"\bchar\(", re.I), "chr("),
    # An id list passed as one JSON parameter: its items are numbers, compared with integer columns.
    (re.compile(r"SELECT\s+value\s+FROM\s+json_each\(\?\)", re.I), "SELECT value::bigint FROM json_each(?)"),
    # SQLite's random() is a 64-bit integer (FairMark stores it as a change mark); PostgreSQL's is in [0, 1).
    (re.compile(r"\brandom\(\)", re.I), "floor(random() * 9e18)::bigint"),
]
_INSERT_INTO = re.compile(r"^\s*INSERT\s+INTO\s+(\"?\w+\"?)", re.I)
_BARE_UPDATE = re.compile(r"ON\s+CONFLICT\s+DO\s+UPDATE", re.I)
_INSERT_OR = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\"?\w+\"?)\s*(\(([^)]*)\))?", re.I)


def _outside_quotes(sql: str, fn) -> str:
    """fn applied to the parts of sql outside '…' and "…" literals (placeholders and keywords
    inside a string are text)."""
    out, i, part = [], 0, []
    while i < len(sql):
        ch = sql[i]
        if ch in "'\"":
            out.append(fn("".join(part)))
            part = []
            j = i + 1
            while j < len(sql):
                if sql[j] == ch and (j + 1 >= len(sql) or sql[j + 1] != ch):
                    break
                j += 2 if sql[j] == ch else 1
            out.append(sql[i:j + 1])
            i = j + 1
        else:
            part.append(ch)
            i += 1
    out.append(fn("".join(part)))
    return "".join(out)


_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


def _scalar_extremes(sql: str) -> str:
    """SQLite's MAX(a, b) / MIN(a, b) of several values is PostgreSQL's GREATEST / LEAST."""
    out, i = [], 0
    for found in re.finditer(r"\b(MAX|MIN)\(", sql, re.I):
        depth, j, comma = 0, found.end() - 1, False
        while j < len(sql):
            depth += {"(": 1, ")": -1}.get(sql[j], 0)
            comma = comma or (depth == 1 and sql[j] == ",")
            if depth == 0:
                break
            j += 1
        if comma:
            out += [sql[i:found.start()], "GREATEST(" if found.group(1).upper() == "MAX" else "LEAST("]
            i = found.end()
    return "".join(out) + sql[i:]


def _words(part: str) -> str:
    part = _scalar_extremes(_NAMED.sub(r"%(\1)s", part))
    for pattern, replacement in _WORD_PAIRS:
        part = pattern.sub(replacement, part)
    return part.replace("?", "%s")


@functools.lru_cache(maxsize=4096)
def translate(sql: str, keys: tuple = ()) -> str:
    """The statement for psycopg: placeholders %s, literal % doubled, SQLite-only forms rewritten.
    `keys`: (table, (primary key columns…)) pairs, for INSERT OR REPLACE's conflict target."""
    sql = sql.replace("%", "%%")
    sql = _outside_quotes(sql, _words)
    found = _INSERT_OR.match(sql)
    target = _INSERT_INTO.match(sql)
    if target and not found and _BARE_UPDATE.search(sql):   # PostgreSQL's DO UPDATE names its target
        pk = dict(keys).get(target.group(1).strip('"'), ())
        sql = _BARE_UPDATE.sub(f"ON CONFLICT ({', '.join(pk)}) DO UPDATE", sql, count=1)
    if found:
        verb, table, _, columns = found.groups()
        sql = f"INSERT INTO {table}" + (f" ({columns})" if columns else "") + sql[found.end():]
        body = sql.rstrip().rstrip(";")
        if verb.upper() == "IGNORE":
            sql = f"{body} ON CONFLICT DO NOTHING"
        else:
            pk = dict(keys).get(table.strip('"'), ())
            names = [c.strip().strip('"') for c in (columns or "").split(",") if c.strip()]
            rest = [c for c in names if c not in pk]
            action = ("DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in rest)) if rest else "DO NOTHING"
            sql = f"{body} ON CONFLICT ({', '.join(pk)}) {action}" if pk else f"{body} ON CONFLICT DO NOTHING"
    return _qualified_update(sql)


_DO_UPDATE = re.compile(r"\bDO\s+UPDATE\s+SET\b", re.I)
_COLUMNS = re.compile(r"^\s*INSERT\s+INTO\s+\"?(\w+)\"?\s*\(([^)]*)\)", re.I)


def _qualified_update(sql: str) -> str:
    """In ON CONFLICT … DO UPDATE SET n = n + 1, SQLite reads the bare n as the row's; PostgreSQL
    calls it ambiguous (the row's or EXCLUDED's), so it is said as table.n."""
    found, cols = _DO_UPDATE.search(sql), _COLUMNS.match(sql)
    if not (found and cols):
        return sql
    table, tail = cols.group(1), sql[found.end():]
    for c in (c.strip().strip('"') for c in cols.group(2).split(",")):
        tail = re.sub(rf"(?<![.\w]){re.escape(c)}\b(?!\s*=[^=])", f"{table}.{c}", tail)
    return sql[:found.end()] + tail


def returning_id(sql: str, keys: tuple) -> bool:
    """Whether an INSERT should say RETURNING id: the lastrowid SQLite gives of a table with an id."""
    found = _INSERT_INTO.match(sql)
    return bool(found) and dict(keys).get(found.group(1).strip('"')) == ("id",) and not re.search(
        r"\bRETURNING\b", sql, re.I)
