"""How long masking takes: 20,000 characters of any content against a 300-student roster.

    python -m bench.masking                     # the current core.privacy.pseudonym
    python -m bench.masking --before REV        # also the masking module of git revision REV

Goal: under 50 ms for every content (issue #10), with no named-entity model. The contents
include the ones that made the earlier regex-per-variant masking quadratic (one letter
repeated, "a.a.a.", "x dot x dot"). The revision's module is run in a subprocess per content
with a time limit, because a quadratic regex cannot be interrupted; it masked only the author
(one student), so its figures are a lower bound for what a roster-wide version of it would take.
Each figure is the best of 5 runs (the machine is shared; the earlier module: 1 run).
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from core.privacy.pseudonym import Person, roster

SIZE = 20_000
FIRST = ["Ana", "Zoë", "José", "Liam", "Åsa", "Anne-Marie", "Mohammed", "Wei", "Olga", "Siobhán", "Noah", "Will",
         "Grace", "Fatima", "Ivan", "Chloé", "Mateo", "Aroha", "Kwame", "Yuki", "Юлия", "Сергей"]
LAST = ["López", "O'Connor", "Núñez", "Lind", "van Dijk", "Svensson", "Al-Rashid", "Zhang", "Ivanova", "Ní Bhriain",
        "Müller", "de la Cruz", "Kowalski", "Rose", "Okafor", "Tanaka", "D'Angelo", "Øster", "Nguyen", "Smith-Jones",
        "Кузнецова", "Щукин"]


def make_roster(n: int = 300) -> list[Person]:
    people = []
    for i in range(n):
        first, last = FIRST[i % len(FIRST)], LAST[(i * 7 + i // len(FIRST)) % len(LAST)]
        people.append(Person(f"{first} {last}", f"{first.lower()}.{i}@uni.example", f"Student-{i:05d}"))
    return people


def contents(people: list[Person]) -> dict[str, str]:
    rng = random.Random(10)
    prose = (f"This week I worked with {people[3].name} and {people[41].name.split()[0]}; "
             f"{people[77].name.split()[-1]}'s idea about temperature was new to me. Write to "
             f"{people[5].email.replace('@', ' [at] ')} or call +46 70 123 45 67. I wonder how bias enters the "
             "training data, and whether we can trust the model's answers at work. ")
    printable = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:'\"-@()[]\n"
    russian = (f"На этой неделе я работал с {people[20].name} и Юлией Кузнецовой; Sergei Shchukin и "
               f"{people[3].name} спорили, а Annas idé var bäst. Я думаю, что температура меняет ответы модели. ")
    out = {
        "a reflection naming classmates": prose,
        "Russian, names in both scripts": russian,
        "one word repeated": "reflection ",
        "one letter, no space": "a",
        "a.a.a.": "a.",
        "x dot x dot": "x dot ",
        "at at at": "at ",
        "digits and spaces": "1 2 3 4 5 6 7 8 9 ",
        "@@@": "@",
        "e-mail after e-mail": "a.b@c.de ",
        "apostrophes and hyphens": "o'o-",
        "roster names only": " ".join(p.name for p in people[:50]) + " ",
        "random characters": "".join(rng.choice(printable) for _ in range(SIZE)),
    }
    return {name: (unit * (SIZE // len(unit) + 1))[:SIZE] for name, unit in out.items()}


def time_current(people: list[Person], texts: dict[str, str], repeat: int = 5) -> dict[str, float]:
    r = roster(people)
    out = {}
    for name, text in texts.items():
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            r.mask(text, author=3)
            runs.append(time.perf_counter() - t0)
        out[name] = min(runs)
    return out


_CHILD = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("old_pseudonym", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
text = open(sys.argv[2], encoding="utf-8").read()
p = mod.Pseudonymizer(sys.argv[3], sys.argv[4], "Student-00003")
t0 = time.perf_counter(); p.hide(text); print(time.perf_counter() - t0)
"""


# Where the masking module lived at a revision: core/privacy/ since the house's packages, core/ before.
PSEUDONYM_PATHS = ("core/privacy/pseudonym.py", "core/pseudonym.py")
ROOT = Path(__file__).resolve().parent.parent


def source_at(rev: str, root: Path = ROOT) -> str:
    """The masking module's source at git revision `rev`, wherever it lived then."""
    for path in PSEUDONYM_PATHS:
        shown = subprocess.run(["git", "show", f"{rev}:{path}"], check=False, capture_output=True, text=True, cwd=root)
        if shown.returncode == 0:
            return shown.stdout
    raise SystemExit(f"revision {rev} has no {' or '.join(PSEUDONYM_PATHS)}: give a revision of this repository "
                     "(git log --oneline) from before the change you want to compare with")


def time_revision(rev: str, people: list[Person], texts: dict[str, str], limit_s: float) -> dict[str, float | None]:
    source = source_at(rev)
    out: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        module = Path(tmp, "old_pseudonym.py")
        module.write_text(source, encoding="utf-8")
        for name, text in texts.items():
            path = Path(tmp, "text.txt")
            path.write_text(text, encoding="utf-8")
            try:
                proc = subprocess.run([sys.executable, "-c", _CHILD, str(module), str(path), people[3].name,
                                       people[3].email], capture_output=True, text=True, timeout=limit_s)
                out[name] = float(proc.stdout.strip()) if proc.returncode == 0 else None
            except subprocess.TimeoutExpired:
                out[name] = None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", metavar="REV", help="also time the masking module of this git revision")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds allowed per content for --before")
    args = ap.parse_args(argv)
    people = make_roster()
    texts = contents(people)
    now = time_current(people, texts)
    before = time_revision(args.before, people, texts, args.limit) if args.before else {}
    print(f"Masking {SIZE:,} characters against a {len(people)}-student roster (goal < 50 ms)")
    head = f"{'content':32} {'now':>10}" + (f" {'before (' + args.before[:10] + ')':>22}" if args.before else "")
    print(head)
    for name in texts:
        row = f"{name:32} {now[name] * 1000:8.1f} ms"
        if args.before:
            b = before.get(name)
            row += f" {('> %.0f s' % args.limit) if b is None else ('%.1f ms' % (b * 1000)):>22}"
        print(row)
    worst = max(now.values())
    print(f"worst now: {worst * 1000:.1f} ms ({'meets' if worst < 0.05 else 'misses'} the 50 ms goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
