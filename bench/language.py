"""How well the course-language check (core.language.detect) tells the offered languages apart,
on texts nobody here wrote: ELLIPSE's English essays and the paragraphs of the Russian and
Swedish source documents in ../shared/seeds (not shipped; a clone without them says so).

    python -m bench.language [--essays 2571]

Each text is judged as the flag judges it (texts under core.language.detect.MIN_WORDS words are
not judged). The flag is right for a course in language C when it is raised exactly for the texts
not in C, so the figure per pair (text language, course language) is the share judged right.
The seed documents mix languages (code, English tables and terms in a Russian text): a paragraph
counts as Russian or Swedish "prose" when most of its words are in that language's script or
carry its letters; the mixed ones are reported apart, with what the detector made of them.
Times are per text on this (shared) machine, after the detector's first load.
"""
from __future__ import annotations

import argparse
import json
import re
import resource
import time
from collections import Counter
from pathlib import Path

from core import checks
from core.language import SUPPORTED, detect

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SEEDS = {"000_c3d140cf4d60b508.txt": "ru", "001_c1a8847c9d764daf.txt": "ru", "003_1ddbebecef107979.txt": "sv"}
_WORD = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[а-яё]", re.I)


def _is_prose(paragraph: str, language: str) -> bool:
    words = _WORD.findall(paragraph)
    if language == "ru":
        return sum(bool(_CYRILLIC.search(w)) for w in words) > len(words) / 2
    # Swedish: most words are not English function words, and the paragraph has å, ä or ö
    return checks.english_share(paragraph) < 0.1 and bool(re.search(r"[åäö]", paragraph, re.I))


def samples(essays: int) -> list[tuple[str, str, str]]:
    """(text, language, kind): kind is "essay", "prose" or "mixed"."""
    import pandas as pd

    out = []
    path = SHARED / "datasets" / "ellipse" / "ELLIPSE_Final_github_test.csv"
    if path.exists():
        out += [(t, "en", "essay") for t in pd.read_csv(path)["full_text"].tolist()[:essays]]
    for name, language in SEEDS.items():
        f = SHARED / "seeds" / name
        if not f.exists():
            continue
        for p in re.split(r"\n\s*\n", f.read_text(encoding="utf-8")):
            if detect.judged(p):
                out.append((p, language, "prose" if _is_prose(p, language) else "mixed"))
    return out


def run(essays: int = 2571) -> dict:
    started = time.perf_counter()
    detect.detect("warm up")                            # the detector's load
    load_s = time.perf_counter() - started
    texts = samples(essays)
    if not texts:
        return {"error": f"no texts: {SHARED} has neither datasets/ellipse nor seeds/"}
    t0 = time.perf_counter()
    found = [detect.detect(t) for t, _, _ in texts]
    per_text_ms = (time.perf_counter() - t0) / len(texts) * 1000
    groups: dict[str, dict] = {}
    for (text, language, kind), got in zip(texts, found):
        g = groups.setdefault(f"{language} {kind}", {"texts": 0, "detected": Counter()})
        g["texts"] += 1
        g["detected"][got or "none"] += 1
    pairs = {}
    for (text, language, kind), got in zip(texts, found):
        if kind == "mixed":
            continue
        for course in SUPPORTED:
            flagged = got != course
            right = flagged == (language != course)
            cell = pairs.setdefault(f"{language} text, {course} course", [0, 0])
            cell[0] += right
            cell[1] += 1
    # The rule it replaces: "not English" when under 12 % of the words are English function words.
    old = [(language, checks.looks_non_english(t)) for t, language, kind in texts if kind != "mixed"]
    return {
        "texts": len(texts), "load_s": round(load_s, 3), "ms_per_text": round(per_text_ms, 2),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "groups": {k: {"texts": v["texts"], "detected": dict(v["detected"])} for k, v in sorted(groups.items())},
        "flag_right": {k: {"right": r, "of": n, "share": round(r / n, 4)} for k, (r, n) in pairs.items()},
        "english_rule_before": {"english_texts_flagged": sum(f for lang, f in old if lang == "en"),
                                "other_texts_not_flagged": sum(not f for lang, f in old if lang != "en"),
                                "texts": len(old)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--essays", type=int, default=2571, help="ELLIPSE essays to read (default: all 2,571)")
    print(json.dumps(run(ap.parse_args(argv).essays), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
