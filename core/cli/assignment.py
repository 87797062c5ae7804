"""`python -m core assignment set`: an assignment's settings from the command line (the same as
Settings → Courses & assignments, audited the same way through core.courses.catalogue).

Each setting is one entry of SETTINGS (option, what it means, how the text becomes the value),
so a later setting (an answer key, a source text) is one more line.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from core.courses import catalogue
from core.cli.common import emit
from core.cli.common import actor, add_db_arg, open_db
from core.errors import FairMarkError
from db import courses


def _concepts(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def _grade(text: str) -> float:
    try:
        return float(text)
    except ValueError as e:
        raise FairMarkError(f"--target-grade {text!r}: give a school grade between 1 and 18, e.g. 10") from e


@dataclass(frozen=True)
class Setting:
    field: str                       # the assignment's column (core.courses.catalogue.edit_assignment)
    option: str
    help: str
    parse: Callable[[str], object] = str


SETTINGS = (
    Setting("prompt", "--prompt", "the prompt the students answered"),
    Setting("key_concepts", "--concepts", "key concepts, comma-separated (A,B,C)", _concepts),
    Setting("target_grade", "--target-grade", "target reading level of the feedback (school grade 1-18)", _grade),
    # parsed by core.courses.catalogue (core.appeals.deadline), as the Settings page's is
    Setting("appeal_deadline", "--appeal-deadline", "until when students may appeal: a date (2026-12-20: the end "
            "of that day, UTC), a date and time (2026-12-20T17:00, UTC unless it names its offset), or none "
            "(appeals off, the default)"),
)


def register(sub) -> None:
    p = sub.add_parser("assignment", help="change an assignment's settings (prompt, key concepts, reading level, appeal "
                                           "deadline)")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    s = verbs.add_parser("set", help="set an assignment's prompt, key concepts, target reading level or appeal deadline",
                         description="Change the given settings of one assignment; the others stay. Each change "
                                     "is recorded in the audit log. Prints {command, course, assignment, changed}.")
    s.add_argument("--course", required=True, help="course name")
    s.add_argument("--assignment", required=True, help="assignment title")
    for setting in SETTINGS:
        s.add_argument(setting.option, dest=setting.field, help=setting.help)
    add_db_arg(s)
    s.set_defaults(func=run_set)


def run_set(args) -> int:
    given = {st.field: st.parse(getattr(args, st.field)) for st in SETTINGS if getattr(args, st.field) is not None}
    if not given:
        raise FairMarkError("nothing to set: give " + ", ".join(st.option for st in SETTINGS[:-1])
                            + f" or {SETTINGS[-1].option}")
    conn = open_db(args)
    course = courses.course_by_name(conn, args.course)
    assignment = courses.assignment_by_title(conn, course["id"], args.assignment)
    changed = catalogue.edit_assignment(conn, assignment["id"], actor=actor(args, conn), **given)
    emit({"command": "assignment set", "course": course["name"], "assignment": assignment["title"],
          "changed": changed, "unchanged": sorted(set(given) - set(changed))})
    return 0
