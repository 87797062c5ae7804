"""Draw the shipped ELLIPSE subset (run once by a maintainer who has the corpus).

    python data/corpus/make_ellipse_sample.py PATH/TO/ELLIPSE_Final_github_test.csv

Writes data/corpus/ellipse_sample.jsonl.gz: SIZE essays drawn at random (seed 10) from the
corpus's test split, one JSON object per line with the text id, prompt, text, the overall and six
analytic scores and the demographic columns (see README.md beside this file for the license).
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pandas as pd

SIZE = 1200
SCORES = ["Overall", "Cohesion", "Syntax", "Vocabulary", "Phraseology", "Grammar", "Conventions"]
DEMOGRAPHICS = ["gender", "grade", "race_ethnicity", "SES"]
OUT = Path(__file__).with_name("ellipse_sample.jsonl.gz")


def main(csv_path: str) -> None:
    frame = pd.read_csv(csv_path).sample(n=SIZE, random_state=10).sort_values("text_id_kaggle")
    with gzip.open(OUT, "wt", encoding="utf-8") as out:
        for row in frame.itertuples(index=False):
            r = row._asdict()
            record = {"text_id": str(r["text_id_kaggle"]), "prompt": r["prompt"], "task": r["task"],
                      "text": r["full_text"], "scores": {k.lower(): float(r[k]) for k in SCORES},
                      **{k.lower(): (None if pd.isna(r[k]) else (int(r[k]) if k == "grade" else str(r[k])))
                         for k in DEMOGRAPHICS}}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{SIZE} essays -> {OUT} ({OUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
