"""Seed 001's judge cascade against blanket 3x voting, with fake judges of known accuracy.

    python -m bench.cascade --n 1000 --ambiguous 0.2

prints {"calls_per_item", "calls_blanket_3x", "saving", "accuracy_single", "accuracy_cascade",
"accuracy_blanket_3x", ...}. The items go through the real score stage (core.judging.scoring:
the Evaluator's confidence from its score probabilities, the settle rule, CLEV with two judges
from Settings, the weighted majority) behind a fake LLM at the project's protocol:

- an item's true level is uniform on a 0-3 criterion; `--ambiguous` of the items are ambiguous
  (each judge right with probability 0.6, otherwise one level off in a random direction, the
  other direction at the ends of the scale), the rest clear (right with 0.99);
- the three judges (the Evaluator and judges b and c) answer independently;
- the Evaluator reports high confidence (its score 97 % probable) on 95 % of clear items and
  10 % of ambiguous ones, else 60 %. The band-cut margin is off: these items have no band.

Every judge's answer is drawn once per item, so the single judge (the Evaluator alone), blanket
3x voting (majority of all three, median on ties) and the cascade are compared on the same
answers. calls_per_item counts the calls the cascade made; saving = 1 - calls / (3 x items).
`accuracy_gap_to_blanket_3x` is cascade minus blanket accuracy with a paired 95 % bootstrap
interval over items (`same_accuracy_as_blanket_3x`: the interval includes 0).

What it measures on: synthetic judges whose accuracy and confidence are set above, not real
models; the figures say what the cascade's rules do with judges like these, not how often real
judges are unsure or right. Two bounds follow from the arithmetic, whatever the rules:
`saving_ceiling` = 1 - 1/3, reached only if every item settled at its first judge (each item
needs that call: the Evaluator's answer is the draft's); and `saving_bound` = 1 - (1 + s) / 3
where s is the share of items whose first judge was not sure (each needs at least one more
call), reached only if the second judge always agreed.
"""
from __future__ import annotations

import argparse
import json
import random
import sys

from core.agents import Job
from core.judging import scoring
from core.judging.cascade import ORDINAL
from core.llm import LLMResponse, Usage
from core.rubric import parse_rubric
from core.settings import JudgeSpec

LEVELS = (0, 1, 2, 3)
RUBRIC = parse_rubric({"name": "Bench", "scale_min": 0, "scale_max": 3, "criteria": [
    {"key": "x", "title": "Criterion", "levels": {lvl: f"level {lvl}" for lvl in LEVELS}}]})
JUDGES = (JudgeSpec(name="b", model="judge-b"), JudgeSpec(name="c", model="judge-c"))
ROLES = {"evaluator": 0, "judge:b": 1, "judge:c": 2}


def draw(rng: random.Random, n: int, ambiguous: float) -> list[dict]:
    """Per item: the truth, whether it is ambiguous, the three judges' answers, tier 1's confidence."""
    items = []
    for _ in range(n):
        truth, hard = rng.choice(LEVELS), rng.random() < ambiguous
        p_right = 0.6 if hard else 0.99
        answers = []
        for _judge in range(3):
            if rng.random() < p_right:
                answers.append(truth)
                continue
            step = rng.choice((-1, 1))
            answers.append(truth + step if truth + step in LEVELS else truth - step)
        sure = rng.random() < (0.10 if hard else 0.95)
        items.append({"truth": truth, "ambiguous": hard, "answers": answers, "sure": sure})
    return items


class FakeJudges:
    """The Evaluator and judges b and c at the LLM protocol, answering from the drawn items."""

    provider = "fake"
    temperature = 0.0
    judges = JUDGES

    def __init__(self, items: list[dict]):
        self.items = items
        self.calls = 0

    def model_for(self, role: str) -> str:
        return {"evaluator": "evaluator", "judge:b": "judge-b", "judge:c": "judge-c"}.get(role, role)

    def complete(self, messages, schema, *, role, ctx, temperature=None):
        self.calls += 1
        item = self.items[ctx.submission_id]
        score = item["answers"][ROLES[role]]
        data = schema.model_validate({"x": {"score": score, "reasoning": "fake judge", "evidence_quote": "",
                                            "areas_for_improvement": ["none"]}})
        probs = None
        if role == "evaluator":
            other = str(score + 1 if score + 1 in LEVELS else score - 1)
            probs = {"x.score": {str(score): 0.97, other: 0.03} if item["sure"] else {str(score): 0.6, other: 0.4}}
        return LLMResponse(data=data, model=self.model_for(role), usage=Usage(), score_probs=probs)


def _paired_gap(a: list[bool], b: list[bool], rng: random.Random, n_boot: int = 2000) -> tuple[float, tuple]:
    """Mean of a minus mean of b, and its 95 % percentile bootstrap interval resampling items
    (both figures of an item drawn together: the two methods saw the same answers)."""
    import numpy as np

    diffs = np.array(a, dtype=float) - np.array(b, dtype=float)
    idx = np.random.default_rng(rng.randrange(2**32)).integers(0, len(diffs), size=(n_boot, len(diffs)))
    boots = diffs[idx].mean(axis=1)
    return float(diffs.mean()), (float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5)))

def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.cascade", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="items")
    ap.add_argument("--ambiguous", type=float, default=0.2, help="share of ambiguous items")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    from core.agents import Ids

    items = draw(random.Random(args.seed), args.n, args.ambiguous)
    llm = FakeJudges(items)
    config = scoring.Config(band_margin=None)
    right = {"single": 0, "cascade": 0, "blanket": 0}
    hits: dict[str, list[bool]] = {"cascade": [], "blanket": []}
    escalated = third = 0
    for i, item in enumerate(items):
        job = Job(rubric=RUBRIC, assignment={}, text=f"item {i}", ids=Ids(submission_id=i))
        before = llm.calls
        out = scoring.score(llm, job, config)
        escalated += llm.calls - before > 1
        third += llm.calls - before > 2
        hits["cascade"].append(out.scores["x"] == item["truth"])
        hits["blanket"].append(ORDINAL.combine(item["answers"], [1, 1, 1]) == item["truth"])
        right["single"] += item["answers"][0] == item["truth"]
        right["cascade"] += hits["cascade"][-1]
        right["blanket"] += hits["blanket"][-1]
    n = len(items)
    gap, (lo, hi) = _paired_gap(hits["cascade"], hits["blanket"], random.Random(args.seed))
    result = {"calls_per_item": round(llm.calls / n, 4), "calls_blanket_3x": 3.0,
              "saving": round(1 - llm.calls / (3 * n), 4),
              "accuracy_single": round(right["single"] / n, 4), "accuracy_cascade": round(right["cascade"] / n, 4),
              "accuracy_blanket_3x": round(right["blanket"] / n, 4),
              "n": n, "ambiguous": args.ambiguous, "seed": args.seed,
              "share_tier2": round(escalated / n, 4), "share_third_judge": round(third / n, 4),
              "accuracy_gap_to_blanket_3x": [round(gap, 4), round(lo, 4), round(hi, 4)],
              "same_accuracy_as_blanket_3x": lo <= 0 <= hi,
              "saving_ceiling": round(1 - 1 / 3, 4), "saving_bound": round(1 - (1 + escalated / n) / 3, 4)}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
