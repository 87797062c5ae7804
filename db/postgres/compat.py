"""SQLite's functions that FairMark's queries and defaults use, defined in a PostgreSQL database so the
statements keep them: strftime, julianday, json_extract, json_each, json_array_length on text,
group_concat, total, instr, round on a float. JSON columns stay TEXT (Python writes and reads them
as it does on SQLite); these read them as jsonb. Each behaves as SQLite's does for the forms
FairMark uses (a format of %Y %m %d %H %M %S %f %s %j %w, 'now' or an ISO time, '$.a.b' paths);
json_extract and json_each give text, where SQLite gives a typed value (see dialect.py)."""

FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION _sqlite_time(t text) RETURNS timestamp LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN t IS NULL THEN NULL
              WHEN lower(t) = 'now' THEN clock_timestamp() AT TIME ZONE 'UTC'
              WHEN t ~ '^-?[0-9]+(\.[0-9]+)?$' THEN to_timestamp((t::double precision - 2440587.5) * 86400) AT TIME ZONE 'UTC'
              ELSE t::timestamptz AT TIME ZONE 'UTC' END
$$;

CREATE OR REPLACE FUNCTION _sqlite_time(t text, mods text[]) RETURNS timestamp LANGUAGE plpgsql STABLE AS $$
DECLARE ts timestamp := _sqlite_time(t); m text;
BEGIN
  FOREACH m IN ARRAY mods LOOP
    IF m ~* '^start of day$' THEN ts := date_trunc('day', ts);
    ELSIF m ~* '^start of month$' THEN ts := date_trunc('month', ts);
    ELSIF m ~* '^start of year$' THEN ts := date_trunc('year', ts);
    ELSE ts := ts + m::interval; END IF;
  END LOOP;
  RETURN ts;
END $$;

CREATE OR REPLACE FUNCTION strftime(fmt text, t text DEFAULT 'now', VARIADIC mods text[] DEFAULT '{}')
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE ts timestamp := _sqlite_time(t, mods); out text := ''; i int := 1; c text;
BEGIN
  IF ts IS NULL THEN RETURN NULL; END IF;
  WHILE i <= length(fmt) LOOP
    c := substr(fmt, i, 1);
    IF c = '%' AND i < length(fmt) THEN
      i := i + 1; c := substr(fmt, i, 1);
      out := out || CASE c WHEN 'Y' THEN to_char(ts, 'YYYY') WHEN 'm' THEN to_char(ts, 'MM')
        WHEN 'd' THEN to_char(ts, 'DD') WHEN 'H' THEN to_char(ts, 'HH24') WHEN 'M' THEN to_char(ts, 'MI')
        WHEN 'S' THEN to_char(ts, 'SS') WHEN 'f' THEN to_char(ts, 'SS.MS') WHEN 'j' THEN to_char(ts, 'DDD')
        WHEN 's' THEN floor(extract(epoch FROM ts))::bigint::text WHEN 'w' THEN extract(dow FROM ts)::int::text
        WHEN '%' THEN '%' ELSE '%' || c END;
    ELSE out := out || c; END IF;
    i := i + 1;
  END LOOP;
  RETURN out;
END $$;

CREATE OR REPLACE FUNCTION julianday(t text, VARIADIC mods text[] DEFAULT '{}') RETURNS double precision
LANGUAGE sql STABLE AS $$ SELECT extract(epoch FROM _sqlite_time(t, mods))::double precision / 86400 + 2440587.5 $$;

CREATE OR REPLACE FUNCTION _sqlite_path(p text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(coalesce(m[1], m[2], m[3]) ORDER BY n), '{}')
  FROM regexp_matches(substr(p, 2), '\."([^"]*)"|\.([^.\[]+)|\[([0-9]+)\]', 'g') WITH ORDINALITY AS x(m, n)
$$;

CREATE OR REPLACE FUNCTION _sqlite_value(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE jsonb_typeof(j) WHEN 'boolean' THEN CASE WHEN j = 'true'::jsonb THEN '1' ELSE '0' END
              WHEN 'null' THEN NULL WHEN 'object' THEN j::text WHEN 'array' THEN j::text ELSE j #>> '{}' END
$$;

CREATE OR REPLACE FUNCTION json_extract(j text, p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT _sqlite_value(j::jsonb #> _sqlite_path(p))
$$;

CREATE OR REPLACE FUNCTION _sqlite_type(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE jsonb_typeof(j) WHEN 'number' THEN CASE WHEN j::text ~ '^-?[0-9]+$' THEN 'integer' ELSE 'real' END
              WHEN 'string' THEN 'text' WHEN 'boolean' THEN j::text ELSE jsonb_typeof(j) END
$$;

CREATE OR REPLACE FUNCTION json_each(j text, p text DEFAULT '$')
RETURNS TABLE(key text, value text, type text, atom text) LANGUAGE sql IMMUTABLE AS $$
  WITH doc(d) AS (SELECT j::jsonb #> _sqlite_path(p))
  SELECT (n - 1)::text, _sqlite_value(e), _sqlite_type(e),
         CASE WHEN jsonb_typeof(e) IN ('object', 'array') THEN NULL ELSE _sqlite_value(e) END
    FROM doc, jsonb_array_elements(CASE WHEN jsonb_typeof(d) = 'array' THEN d ELSE '[]' END) WITH ORDINALITY AS a(e, n)
  UNION ALL
  SELECT k, _sqlite_value(v), _sqlite_type(v),
         CASE WHEN jsonb_typeof(v) IN ('object', 'array') THEN NULL ELSE _sqlite_value(v) END
    FROM doc, jsonb_each(CASE WHEN jsonb_typeof(d) = 'object' THEN d ELSE '{}' END) AS o(k, v)
$$;

CREATE OR REPLACE FUNCTION json_array_length(j text, p text DEFAULT '$') RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(j::jsonb #> _sqlite_path(p)) = 'array'
              THEN jsonb_array_length(j::jsonb #> _sqlite_path(p)) ELSE 0 END
$$;

CREATE OR REPLACE FUNCTION json(j text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT j::jsonb::text $$;

CREATE OR REPLACE FUNCTION instr(a text, b text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT strpos(a, b) $$;

CREATE OR REPLACE FUNCTION round(x double precision, n integer) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
  SELECT round(x::numeric, n)::double precision
$$;

CREATE OR REPLACE FUNCTION _sqlite_concat(acc text, v text, sep text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v ELSE acc || sep || v END
$$;
CREATE OR REPLACE FUNCTION _sqlite_concat(acc text, v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT _sqlite_concat(acc, v, ',')
$$;
CREATE OR REPLACE AGGREGATE group_concat(text, text) (SFUNC = _sqlite_concat, STYPE = text);
CREATE OR REPLACE AGGREGATE group_concat(text) (SFUNC = _sqlite_concat, STYPE = text);

-- A comparison is a boolean in PostgreSQL and an integer in SQLite: SUM(x = y) counts.
CREATE OR REPLACE FUNCTION _sqlite_bsum(acc bigint, v boolean) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(acc, 0) + coalesce(v::int, 0)
$$;
CREATE OR REPLACE AGGREGATE sum(boolean) (SFUNC = _sqlite_bsum, STYPE = bigint);
CREATE OR REPLACE FUNCTION _sqlite_bavg(acc double precision[], v boolean) RETURNS double precision[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL THEN acc ELSE ARRAY[acc[1] + v::int, acc[2] + 1] END
$$;
CREATE OR REPLACE FUNCTION _sqlite_bavg_end(acc double precision[]) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN acc[2] = 0 THEN NULL ELSE acc[1] / acc[2] END
$$;
CREATE OR REPLACE AGGREGATE avg(boolean) (SFUNC = _sqlite_bavg, STYPE = double precision[], FINALFUNC = _sqlite_bavg_end,
  INITCOND = '{0,0}');

-- json_extract gives text here and a number in SQLite: text compared with a number compares as
-- numbers (a text that is no number is unequal), as SQLite compares json_extract's value.
CREATE OR REPLACE FUNCTION _sqlite_num(a text) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a ~ '^\s*-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\s*$' THEN a::double precision END
$$;
CREATE OR REPLACE FUNCTION _sqlite_eq(a text, b double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(_sqlite_num(a) = b, CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE false END)
$$;
CREATE OR REPLACE FUNCTION _sqlite_ne(a text, b double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT NOT _sqlite_eq(a, b)
$$;
CREATE OR REPLACE FUNCTION _sqlite_lt(a text, b double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT _sqlite_num(a) < b $$;
CREATE OR REPLACE FUNCTION _sqlite_gt(a text, b double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT _sqlite_num(a) > b $$;
CREATE OR REPLACE FUNCTION _sqlite_le(a text, b double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT _sqlite_num(a) <= b $$;
CREATE OR REPLACE FUNCTION _sqlite_ge(a text, b double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT _sqlite_num(a) >= b $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_operator WHERE oprname = '=' AND oprleft = 'text'::regtype
                 AND oprright = 'double precision'::regtype) THEN
    CREATE OPERATOR = (LEFTARG = text, RIGHTARG = double precision, FUNCTION = _sqlite_eq);
    CREATE OPERATOR <> (LEFTARG = text, RIGHTARG = double precision, FUNCTION = _sqlite_ne);
    CREATE OPERATOR < (LEFTARG = text, RIGHTARG = double precision, FUNCTION = _sqlite_lt);
    CREATE OPERATOR > (LEFTARG = text, RIGHTARG = double precision, FUNCTION = _sqlite_gt);
    CREATE OPERATOR <= (LEFTARG = text, RIGHTARG = double precision, FUNCTION = _sqlite_le);
    CREATE OPERATOR >= (LEFTARG = text, RIGHTARG = double precision, FUNCTION = _sqlite_ge);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION _sqlite_total(acc double precision, v double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$ SELECT acc + coalesce(v, 0) $$;
CREATE OR REPLACE AGGREGATE total(double precision) (SFUNC = _sqlite_total, STYPE = double precision, INITCOND = '0');
"""
