"""Helpers for the lesson review tests: a clean lesson, verdicts, a scripted judge panel."""
from __future__ import annotations

from core.lessons import ingest
from core.accounts.access import Actor

LESSON = b"""---
title: The water cycle
target_grade: 5
audience: grade 5
objectives:
  - Explain how the sun's heat makes water evaporate
  - Describe how water vapour condenses into clouds
sources: The sun heats water and it evaporates. Vapour cools and condenses into clouds.
min_words: 40
---
# The water cycle

Have you ever seen a puddle on the playground in the morning and found it gone by lunchtime? The water did not disappear. It went on a long trip into the sky, and in this lesson we will follow it.

## Evaporation

First, the sun warms the water in oceans, lakes and puddles every day. When water gets warm enough, some of it turns into a gas called water vapour. Scientists call this change evaporation.

## Condensation

Next, the warm vapour rises high into the sky, where the air is much colder. The cold air cools the vapour, and it turns back into tiny drops of water. Millions of these drops crowd together and make a cloud.

## Summary

In summary, the sun makes water evaporate, and the vapour condenses into clouds. Remember your puddle the next time it rains.
"""

MODELS = {"lesson_judge": "deepseek-chat", "lesson_judge_2": "gpt-4o-mini", "lesson_judge_3": "claude-3-haiku",
          "lesson_fixer": "deepseek-chat", "lesson_factcheck": "deepseek-chat"}
ONE_JUDGE = {**MODELS, "lesson_judge_2": "deepseek-chat", "lesson_judge_3": "deepseek-chat"}


def dim(score: float, why: str = "Fine.") -> dict:
    return {"reasoning": why, "score": score}


def verdict(f=0.9, p=0.9, c=0.9, e=0.9, issues=()) -> dict:
    return {"issues": list(issues), "factual_integrity": dim(f), "pedagogical_alignment": dim(p),
            "clarity_structure": dim(c), "engagement_tone": dim(e), "strengths": ["clear"], "fix_recommendation": ""}


def issue(dimension: str, quote: str, severity: str = "major", location: str = "", fix: str = "Fix it.") -> dict:
    return {"dimension": dimension, "severity": severity, "location": location, "quote": quote, "fix": fix}


def add_lesson(conn, text: bytes = LESSON, course: str = "Science", name: str = "water.md") -> int:
    return ingest.import_lessons(conn, [(name, text)], course_name=course, actor=Actor("test", role="admin"))["lesson_ids"][0]


def lesson_page(app_test, path, locale, course_id, lesson=None):
    """A lesson page run with AppTest in the browser's `locale`, on a course (and a lesson)."""
    at = app_test(path)
    at.context = {"locale": locale}
    at.session_state["course_id"] = course_id
    if lesson is not None:
        at.query_params["lesson"] = str(lesson)
    at.run()
    assert not at.exception, at.exception
    return at
