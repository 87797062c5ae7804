"""`python -m core metrics FILE.csv --ai COL --reference COL --min LO --max HI`: agreement and
fairness of any two score columns in a CSV (no database needed).

Prints one JSON object: n, skipped, mae, bias, qwk (full scale), qwk_observed_labels, exact,
adjacent, CIs, bands (low/high: n, mae, bias, CIs, warning), delta_mae with its CI, by_group,
group_difference and group_tests when --group is given, warnings and notes. With --cluster COL
the bootstrap resamples the values of COL (students: all of a student's rows together) and
small-sample warnings count them. Numbers are rounded to 4 decimals; undefined figures are
null with a note saying why.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from core import metrics, reports
from core.errors import IngestError
from core.metrics.fairness import MIN_N
from core.metrics.permutation import DEFAULT_PERMUTATIONS

DECIMALS = 4


def register(sub) -> None:
    p = sub.add_parser(
        "metrics", help="agreement and fairness of AI vs reference scores in a CSV",
        description="Compare two score columns of any CSV: MAE, QWK over the full scale, exact and adjacent "
                    "agreement, error by score band (ΔMAE) and by group, with seeded bootstrap 95%% CIs. "
                    "Rows with a missing score are skipped and counted.")
    p.add_argument("file", help="CSV file with one row per scored item")
    p.add_argument("--ai", required=True, help="column with the AI (or first rater's) scores")
    p.add_argument("--reference", required=True, help="column with the reference (human) scores")
    p.add_argument("--min", type=int, required=True, dest="lo", help="lowest score on the scale")
    p.add_argument("--max", type=int, required=True, dest="hi", help="highest score on the scale")
    p.add_argument("--group", help="column to split by (section, ELL status, ...)")
    p.add_argument("--cluster", help="column naming who each row belongs to (a student id): the bootstrap then "
                                     "resamples students, not rows, and the group tests permute labels across "
                                     "students (a student's criteria and weeks are not independent)")
    p.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS,
                   help=f"label shuffles of the group tests' p-values (default {DEFAULT_PERMUTATIONS})")
    p.add_argument("--band-cut", type=float, help="largest reference score in the low band "
                   "(default: lower half of the scale, e.g. 1 on 0-3)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    p.add_argument("--min-n", type=int, default=MIN_N, help=f"flag bands/groups smaller than this (default {MIN_N})")
    p.set_defaults(func=run)


def _clean(x):
    """JSON-safe: NaN -> None, numpy scalars -> Python, floats rounded."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if hasattr(x, "item"):
        x = x.item()
    if isinstance(x, float):
        return None if math.isnan(x) else round(x, DECIMALS)
    return x


def read_scores(path: str, ai: str, reference: str, group: str | None, lo: int, hi: int,
                cluster: str | None = None) -> tuple[pd.DataFrame, int]:
    """The score columns as numbers (and `group`, `student` for --group, --cluster) and the
    number of rows skipped for a missing value (a score, or the cluster id).

    Raises IngestError naming the column (and the available ones), or the row and value.
    """
    if lo >= hi:
        raise IngestError(f"--min ({lo}) must be lower than --max ({hi})")
    try:
        df = pd.read_csv(Path(path), dtype=str, keep_default_na=False)
    except FileNotFoundError:
        raise IngestError(f"no such file: {path}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise IngestError(f"cannot read {path} as CSV: {e}") from None
    for flag, col in (("--ai", ai), ("--reference", reference), ("--group", group), ("--cluster", cluster)):
        if col is not None and col not in df.columns:
            raise IngestError(f"{flag}: column {col!r} is not in {path}; available columns: "
                              f"{', '.join(map(repr, df.columns))}")
    out = pd.DataFrame(index=df.index)
    for flag, col, name in (("--ai", ai, "ai"), ("--reference", reference, "reference")):
        raw = df[col].str.strip()
        num = pd.to_numeric(raw, errors="coerce")
        bad = num.isna() & ~raw.str.lower().isin(["", "na", "nan", "null", "none"])
        if bad.any():
            i = bad.idxmax()
            raise IngestError(f"row {i + 2}: {flag} column {col!r} has {df.at[i, col]!r}, not a number")
        out_of = num.notna() & ((num < lo) | (num > hi))
        if out_of.any():
            i = out_of.idxmax()
            raise IngestError(f"row {i + 2}: {flag} column {col!r} has {df.at[i, col]}, outside the scale "
                              f"{lo}-{hi}; check --min/--max")
        out[name] = num
    if group is not None:
        out["group"] = df[group].str.strip().replace("", "(not recorded)")
    ok = out["ai"].notna() & out["reference"].notna()
    if cluster is not None:
        out["student"] = df[cluster].str.strip()
        ok &= out["student"] != ""
    return out[ok].reset_index(drop=True), int((~ok).sum())


def compute(rows: pd.DataFrame, lo: int, hi: int, *, group: bool = False, band_cut: float | None = None,
            n_boot: int = 1000, seed: int = 0, min_n: int = MIN_N,
            permutations: int = DEFAULT_PERMUTATIONS) -> dict:
    """The JSON summary for a frame with `ai`, `reference` (and `group`, and `student` to
    resample by student) columns: `reports.summary` of their counts, in the command's shape."""
    keys = {"student": rows["student"]} if "student" in rows.columns else {}
    table = metrics.pair_counts(rows["ai"], rows["reference"], keys=keys)
    groups = ({"group": metrics.pair_counts(rows["ai"], rows["reference"], keys={**keys, "group": rows["group"]})}
              if group else {})
    s = reports.summary(table, lo, hi, groups=groups, cut=band_cut, n_boot=n_boot, seed=seed, min_n=min_n,
                        permutations=permutations)
    bands = s["bands"]
    out = {
        **{k: s[k] for k in ("n", "scale", "mae", "bias", "qwk", "qwk_observed_labels", "exact", "adjacent", "ci")},
        "band_cut": bands["cut"],
        "bands": {name: {k: b[k] for k in ("range", "n", "mae", "mae_ci", "bias", "bias_ci", "warning")}
                  for name, b in bands["bands"].items()},
        "delta_mae": bands["delta_mae"], "delta_mae_ci": bands["delta_mae_ci"],
        **{k: s[k] for k in ("warnings", "notes", "bootstrap")},
        "students": s["students"],
    }
    if group:
        g = s["groups"]["group"]
        out["by_group"] = {name: {k: v for k, v in b.items() if k != "notes"} for name, b in g["by_group"].items()}
        out["group_difference"] = {k: v for k, v in g["difference"].items() if k != "notes"}
        out["group_tests"] = g["tests"]
    return out


def run(args: argparse.Namespace) -> int:
    from core.cli.common import emit

    rows, skipped = read_scores(args.file, args.ai, args.reference, args.group, args.lo, args.hi, args.cluster)
    out = compute(rows, args.lo, args.hi, group=args.group is not None, band_cut=args.band_cut,
                  n_boot=args.bootstrap, seed=args.seed, min_n=args.min_n, permutations=args.permutations)
    out = {"file": str(args.file), "ai": args.ai, "reference": args.reference, "cluster": args.cluster,
           "skipped": skipped, **out}
    emit(_clean(out))
    return 0
