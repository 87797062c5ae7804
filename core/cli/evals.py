"""Command `evals`: run the eval suite against an AI configuration, show the gate, override it,
export the cases teachers saved.

    python -m core evals run [--suite DIR] [--provider offline|openai] [--variant NAME]
    python -m core evals status [--provider offline|openai] [--variant NAME]
    python -m core evals override --config HASH --reason TEXT [--as USER]
    python -m core evals export-saved --out FILE

`run` prints {"cases", "passed", "failed", "not_run", "by_dimension", "blocking_failed",
"results": [...], "provider", "config", "variant", "suite", "suite_version", "trusted_judges"} and exits 1 when a
blocking case failed (2 on a usage or configuration error). The result is stored against the
configuration, which is what the gate in front of a run reads.
"""
from __future__ import annotations

import json
from pathlib import Path

from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from core.evals import config as ai_config
from core.evals import gate, pairwise, runner, saved
from core.evals.cases import dumps_case, load_suite
from core.llm import PROVIDERS, check_provider, default_provider, effective_settings
from core.settings import load_settings
from db import evals as evals_db
from db import file_of


def register(sub) -> None:
    p = sub.add_parser("evals", help="evaluate the feedback AI: eval cases, the gate, saved cases",
                       description="Evaluate the feedback itself (leakage, grounding, level, pedagogy). "
                                   "See docs/coordinator.md, 'Check an AI change before it is used'.")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    r = verbs.add_parser("run", help="run the eval suite; exit 1 when a blocking case fails")
    r.add_argument("--suite", help="folder of *.jsonl case files (default data/evals)")
    r.add_argument("--provider", choices=PROVIDERS, help="default: openai when configured, else offline")
    r.add_argument("--variant", help="evaluate configuration B: a folder under prompts/variants/ (name or path)")
    r.add_argument("--concurrency", type=int, default=4, help="cases evaluated at once (default 4)")
    add_db_arg(r)
    r.set_defaults(func=run_evals)

    s = verbs.add_parser("status", help="has the configuration in use passed its blocking eval cases?")
    s.add_argument("--provider", choices=PROVIDERS)
    s.add_argument("--variant")
    add_db_arg(s)
    s.set_defaults(func=run_status)

    o = verbs.add_parser("override", help="admin: let a configuration run without passing (audited)")
    o.add_argument("--config", required=True, help="the configuration's hash (from `evals status`)")
    o.add_argument("--reason", required=True, help="why it may run anyway (goes to the audit log)")
    add_db_arg(o)
    o.set_defaults(func=run_override)

    e = verbs.add_parser("export-saved", help="append the cases teachers saved on review items to a JSONL file")
    e.add_argument("--out", required=True, help="e.g. data/evals/saved.jsonl (review, then commit it)")
    add_db_arg(e)
    e.set_defaults(func=run_export)


def _provider(args) -> str:
    settings = effective_settings(load_settings())
    provider = args.provider or default_provider(settings)
    check_provider(provider, settings)
    return provider


def run_evals(args) -> int:
    conn = open_db(args)
    try:
        provider = _provider(args)
        variant = ai_config.load_variant(args.variant)
        suite = load_suite(args.suite)
        defn = ai_config.current(provider, variant=variant)
        h = ai_config.config_hash(defn)
        who = actor(args, conn)
        evals_db.record_config(conn, h, defn, variant=variant.name, used_by=who, used_for="eval suite")
        llm = ai_config.llm_for(provider, file_of(conn), variant)
        trusted = frozenset({"pedagogy"}) if pairwise.judge_trust(conn)["trusted"] else frozenset()
        report = runner.run_suite(suite, llm, variant=variant, concurrency=args.concurrency, config=h,
                                  trusted=trusted)
        evals_db.save_eval_run(conn, h, report, suite=suite.path, created_by=who)
    finally:
        conn.close()
    emit(runner.as_printed(report))
    return 1 if report["blocking_failed"] else 0


def run_status(args) -> int:
    conn = open_db(args)
    try:
        provider = _provider(args)
        variant = ai_config.load_variant(args.variant)
        defn = ai_config.current(provider, variant=variant)
        s = gate.status(conn, ai_config.config_hash(defn), provider)
    finally:
        conn.close()
    emit({"config": s["hash"], "provider": provider, "variant": variant.name, "state": s["state"],
          "cleared": s["cleared"], "message": s["message"], "eval_run": s["eval_run"],
          "roles": defn["roles"]})
    return 0


def run_override(args) -> int:
    conn = open_db(args)
    try:
        oid = gate.override(conn, args.config, actor=actor(args, conn), reason=args.reason)
        s = gate.status(conn, args.config)
    finally:
        conn.close()
    emit({"override": oid, "config": args.config, "state": s["state"], "cleared": s["cleared"]})
    return 0


def run_export(args) -> int:
    conn = open_db(args)
    try:
        cases = saved.cases_for_export(conn, actor=actor(args, conn))
    finally:
        conn.close()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    existing = out.read_text(encoding="utf-8") if out.exists() else ""
    known = set()
    for line in existing.splitlines():
        try:
            known.add(json.loads(line)["id"])
        except (ValueError, KeyError, TypeError):
            continue
    new = [c for c in cases if c["id"] not in known]
    with out.open("a", encoding="utf-8") as fh:
        if existing and not existing.endswith("\n"):
            fh.write("\n")
        for c in new:
            fh.write(dumps_case(c) + "\n")
    emit({"out": str(out), "written": len(new), "already_there": len(cases) - len(new)})
    return 0
