"""The Rubric builder: a draft rubric from a description and scored examples, kept as a draft
until an instructor or admin saves it as a rubric version.

Rules:
- Only instructors and admins build, edit, save or discard drafts ("upload" in the draft's
  course); teaching assistants and coordinators are refused in core.
- The examples are student text: every roster name, e-mail and phone number of the course is
  masked before the model sees them, and they are delimited as data in the prompt. Each is
  linked to the course's student who wrote it (the same text as a submission) or whom it names,
  so deleting that student deletes the draft; saving a draft deletes its examples.
- The model's answer must fit the schema and make a usable rubric of the described shape; an
  answer that does not is asked again (ATTEMPTS in all), then the draft is the template and
  says why. Without a language model the draft is the template of the described shape, said
  plainly (and scored examples are neither used nor kept).
- Saving checks the rubric (levels contiguous, every level described, no duplicate keys, with a
  message per row) and stores it as a new version (db.courses.save_rubric): drafts already
  scored keep their rubric version.
"""
from __future__ import annotations

import re

from core.accounts import access
from core.accounts.access import Actor
from core.agents import rubric_builder as role
from core.courses import catalogue
from core.courses import rubric_versions
from core.errors import ConflictError, IngestError, LLMError, LLMInvalidOutput, RubricError
from core.language import course as course_language
from core.language.interface import N_, Message
from core.offline import rubric_templates
from core.privacy import pseudonym
from core.rubric import Rubric, parse_rubric
from core.llm import default_provider, effective_settings, make_llm
from db import audit, courses, file_of, write_transaction
from db import rubric_drafts as store

ATTEMPTS = 2            # answers asked for before the template stands in
MAX_DESCRIPTION = 2000  # characters of the teacher's description
MAX_EXAMPLE = 20000     # characters of one example as pasted
_SCORE_LINE = re.compile(r"^\s*score\s*[:=]?\s*(-?\d+)\s*$", re.I)


def plural(singular: str, many: str) -> tuple[str, str]:
    """Marks a message's two English forms (tests/i18n_scan.py reads them); Message.plural picks one."""
    return singular, many


# A draft's note (stored as its English text, read back as a Message by `note_of`): the template's
# (rubric_templates.NOTE), then what happened to the examples or to the model's draft.
NOT_USED = N_("Your scored examples were not used (no language model is configured) and are not kept.")
BY_MODEL = N_("Drafted by the language model from your description. Check every descriptor and the notes for "
              "graders before you save it.")
BY_MODEL_FROM = plural("Drafted by the language model from your description and {count} scored example. Check every "
                       "descriptor and the notes for graders before you save it.",
                       "Drafted by the language model from your description and {count} scored examples. Check every "
                       "descriptor and the notes for graders before you save it.")
NOT_USABLE = N_("The model's draft could not be used: {why}.")
WHY_INVALID = plural("its answer did not make a usable rubric ({error}), {count} time",
                     "its answer did not make a usable rubric ({error}), {count} times")
WHY_UNASKED = N_("the language model could not be asked ({error})")
WRONG_COUNT = N_("asked for {expected} criteria, got {got}")


def parse_examples(pasted: str) -> list[dict]:
    """Scored examples as pasted: each starts with a line "Score: N", its text follows until
    the next such line. IngestError names the example at fault.

    >>> parse_examples("Score: 2\\nI used a t-test.\\nScore: 0\\nNothing.")
    [{'score': 2, 'text': 'I used a t-test.'}, {'score': 0, 'text': 'Nothing.'}]
    """
    out: list[dict] = []
    lines = (pasted or "").splitlines()
    if any(line.strip() for line in lines) and not _SCORE_LINE.match(next(x for x in lines if x.strip())):
        raise IngestError(Message('Start each example with a line "Score: N" (the level you gave it), then its text.'))
    for line in lines:
        if m := _SCORE_LINE.match(line):
            out.append({"score": int(m.group(1)), "text": []})
        elif out:
            out[-1]["text"].append(line)
    examples = [{"score": ex["score"], "text": "\n".join(ex["text"]).strip()} for ex in out]
    for i, ex in enumerate(examples, start=1):
        if not ex["text"]:
            raise IngestError(Message("Example {number} (score {score}) has no text: paste the student's text under "
                                      "its score line, or remove the line.", number=i, score=ex["score"]))
        if len(ex["text"]) > MAX_EXAMPLE:
            raise IngestError(Message("Example {number} is longer than {max:,} characters: paste a shorter excerpt.",
                                      number=i, max=MAX_EXAMPLE))
    return examples


def _check_examples(examples: list[dict], shape: rubric_templates.Shape) -> None:
    if examples and not role.MIN_EXAMPLES <= len(examples) <= role.MAX_EXAMPLES:
        raise IngestError(Message("Give {min} to {max} scored examples (you gave {count}), or none to draft from the "
                                  "description alone.", min=role.MIN_EXAMPLES, max=role.MAX_EXAMPLES,
                                  count=len(examples)))
    for i, ex in enumerate(examples, start=1):
        if not shape.scale_min <= ex["score"] <= shape.scale_max:
            raise IngestError(Message("Example {number}: the score {score} is outside the scale {low}–{high} your "
                                      "description names; fix the score or the description.", number=i,
                                      score=ex["score"], low=shape.scale_min, high=shape.scale_max))


def _masked(conn, course_id: int, examples: list[dict], description: str) -> tuple[list[dict], list[dict], str]:
    """(what is stored: the text as given with the student it is linked to; what the model
    sees: the text masked against the course's roster; the description masked too: a teacher
    may name a student in it)."""
    people = store.course_people(conn, course_id)
    roster = pseudonym.roster(people)
    stored, shown = [], []
    for ex in examples:
        masked = roster.mask(ex["text"])
        named = next((s.person for s in masked.spans if s.person is not None), None)
        author = store.author_of(conn, course_id, ex["text"])
        stored.append({**ex, "student_id": author if author is not None else
                       (people[named]["id"] if named is not None else None)})
        shown.append({"score": ex["score"], "text": masked.text})
    return stored, shown, roster.mask(description).text


def _usable(answer, shape: rubric_templates.Shape, description: str) -> dict:
    """The answer as a rubric of the asked shape, or LLMInvalidOutput saying what is wrong."""
    definition = role.to_rubric(answer, shape, description)
    if len(definition["criteria"]) != shape.criteria:
        raise LLMInvalidOutput(Message(WRONG_COUNT, expected=shape.criteria, got=len(definition["criteria"])))
    try:
        parse_rubric(definition)
    except RubricError as e:
        raise LLMInvalidOutput(_said(e)) from None
    return definition


def _said(error: BaseException):
    """An error's message as it was given (a Message stays one)."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(error)


def _ask(llm, request: role.Request) -> tuple[dict | None, str]:
    """(the model's usable draft, "") or (None, why the template stands in: a Message)."""
    error = ""
    for attempt in range(ATTEMPTS):
        try:
            answer = role.run(llm, request, attempt=attempt).data
            return _usable(answer, request.shape, request.description), ""
        except LLMInvalidOutput as e:
            error = _said(e)
        except LLMError as e:
            return None, Message(WHY_UNASKED, error=_said(e))
    return None, Message.plural(*WHY_INVALID, ATTEMPTS, error=error)


def draft(conn, course_id: int, description: str, pasted_examples: str = "", *, llm=None, actor: Actor) -> int:
    """Draft a rubric for a course; returns the draft's id. `llm` None or the offline baseline:
    the template of the described shape."""
    access.check(conn, actor, "upload", course=course_id)
    description = (description or "").strip()
    if not description:
        raise IngestError(Message('Describe the work first, e.g. "a weekly reflection on applying statistics at '
                                  'work, 3 criteria, 0–3".'))
    if len(description) > MAX_DESCRIPTION:
        raise IngestError(Message("Keep the description under {max:,} characters.", max=MAX_DESCRIPTION))
    shape = rubric_templates.shape(description)
    examples = parse_examples(pasted_examples)
    _check_examples(examples, shape)
    offline = llm is None or getattr(llm, "provider", None) == "offline"
    # Offline nothing reads the examples: they are not kept (the note says so).
    stored, shown, asked = _masked(conn, course_id, examples, description) if not offline else ([], [], description)
    template = rubric_templates.template(shape)
    note = rubric_templates.note(shape)
    if offline and examples:
        note = Message.joined(" ", [note, Message(NOT_USED)])
    with write_transaction(conn):
        draft_id = store.insert(conn, course_id=course_id, description=description, source="template",
                                definition=template, note=str(note), created_by=actor, examples=stored)
        audit(conn, actor=actor, action="draft", entity="rubric_drafts", entity_id=draft_id,
              after={"shape": shape.__dict__, "examples": len(examples), "offline": offline})
    if offline:
        return draft_id
    definition, why = _ask(llm, role.Request(asked, shape, tuple(shown), rubric_draft_id=draft_id,
                                                    language=course_language.stored(
                                                        courses.get_course(conn, course_id).get("language"))))
    with write_transaction(conn):
        if definition is not None:
            note = Message.plural(*BY_MODEL_FROM, len(examples)) if examples else Message(BY_MODEL)
            store.set_result(conn, draft_id, source="model", definition=definition, note=str(note))
        else:
            store.set_result(conn, draft_id, source="template", definition=template,
                             note=str(Message.joined(" ", [Message(NOT_USABLE, why=why), rubric_templates.note(shape)])))
    return draft_id


def _pattern(template: str) -> re.Pattern:
    """A message's English with each {field} a group: its stored text is matched by it."""
    parts = re.split(r"\{(\w+)[^}]*\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)))


def _reread(text: str, templates, value=lambda name, text: text):
    """The stored English `text` as a Message of the first of `templates` (a message, or a plural's
    two forms) it reads as, its fields' texts given by `value`; None when none does."""
    for template in templates:
        forms = (template,) if isinstance(template, str) else template
        for form in forms:
            if found := _pattern(form).fullmatch(text):
                values = {k: value(k, v) for k, v in found.groupdict().items()}
                if isinstance(template, str):
                    candidate = Message(template, **values)
                else:
                    if not values.get("count", "").isdigit():
                        continue
                    count = int(values.pop("count"))
                    candidate = Message.plural(*template, count, **values)
                if candidate == text:
                    return candidate
    return None


def _note_value(name: str, text: str):
    if name == "kind":
        return next((Message(w) for w in rubric_templates.KIND_WORDS.values() if w == text), text)
    if name == "why":
        return _reread(text, [WHY_INVALID, WHY_UNASKED], _note_value) or text
    if name == "error":
        return _reread(text, [WRONG_COUNT]) or text
    return text


def note_of(text: str):
    """A draft's stored note (English) as the Message it was made from, which a page shows in the
    reader's language; a note none of the messages makes is given as it is.

    >>> m = note_of("The model's draft could not be used: the language model could not be asked (timeout). "
    ...             + rubric_templates.note(rubric_templates.Shape("essay", 4, 1, 6)))
    >>> type(m).__name__, [part.msgid[:24] for part in m.parts], m.parts[0].values["why"].values
    ('Message', ["The model's draft could ", 'This is a template, not '], {'error': 'timeout'})
    """
    text = text or ""
    found = _reread(text, [BY_MODEL, BY_MODEL_FROM])
    if found is not None:
        return found
    # the template's note, alone, with the examples' sentence after it or the model's failure before it
    for lead, tail in ((None, None), (None, NOT_USED), (NOT_USABLE, None)):
        if tail and not text.endswith(" " + tail):
            continue
        if lead and not text.startswith(lead.split("{")[0]):
            continue
        for form in rubric_templates.NOTE:
            whole = " ".join(p for p in (lead, form, tail) if p)
            match = _pattern(whole).fullmatch(text)
            if match is None or not match["count"].isdigit():
                continue
            v = {k: _note_value(k, x) for k, x in match.groupdict().items()}
            parts = [Message(lead, why=v["why"])] if lead else []
            parts.append(Message.plural(*rubric_templates.NOTE, int(match["count"]), kind=v["kind"], low=v["low"],
                                        high=v["high"]))
            parts += [Message(tail)] if tail else []
            message = parts[0] if len(parts) == 1 else Message.joined(" ", parts)
            if message == text:
                return message
    return text


def configured_llm(conn):
    """The language model the builder asks (the settings in force), or None without one."""
    settings = effective_settings(conn=conn)
    provider = default_provider(settings)
    return None if provider == "offline" else make_llm(provider, file_of(conn), settings)


def builder_view(conn, pick: int | None = None, *, actor: Actor) -> dict:
    """The page's one read: {"courses" the actor may build rubrics for, "course_id" (`pick` when
    offered, else the first), "drafts" of it (drafts_view)}."""
    access.require(actor, "read")
    return _builder(conn, pick, actor)


def _builder(conn, pick: int | None, actor: Actor) -> dict:
    mine = [c for c in courses.list_courses(conn) if "upload" in access.allowed(actor, c["id"])]
    ids = [c["id"] for c in mine]
    course_id = pick if pick in ids else (ids[0] if ids else None)   # only courses the actor may build for
    return {"courses": mine, "course_id": course_id, "drafts": _drafts(conn, course_id) if course_id is not None else []}


def rubrics_tab(conn, rubric_id: int | None = None, *, compare: tuple | None = None, pick: int | None = None,
                actor: Actor) -> dict:
    """The Settings page's Rubrics tab in one read and one check: catalogue.rubrics_view's
    {"rubrics", "rubric_id", "rubric"} with "versions" of that rubric (rubric_versions), "compare"
    (the plain diff of two version ids, `compare`, when both are versions of it), "may_change"
    (rollback and saving: an instructor's or admin's), and "builder" (builder_view's data)."""
    data = catalogue.rubrics_view(conn, rubric_id, actor=actor)
    rid = data["rubric_id"]
    versions = rubric_versions.versions_of(conn, rid) if rid is not None else []
    ids = [v["id"] for v in versions]
    if compare is None or not all(i in ids for i in compare):
        compare = tuple(ids[-2:]) if len(ids) >= 2 else None
    lines = rubric_versions.diff_lines(courses.get_rubric(conn, compare[0]), courses.get_rubric(conn, compare[1])) \
        if compare else []
    return {**data, "versions": versions, "compare": {"ids": compare, "lines": lines},
            "may_change": "upload" in access.allowed(actor), "builder": _builder(conn, pick, actor)}


def drafts_view(conn, course_id: int, *, actor: Actor) -> list[dict]:
    """The course's unsaved drafts, newest first: {id, description, source, note, created_by,
    created_at, examples (how many), rubric (the draft as a Rubric)}."""
    access.check(conn, actor, "upload", course=course_id)
    return _drafts(conn, course_id)


def _drafts(conn, course_id: int) -> list[dict]:
    out = []
    for row in store.of_course(conn, course_id):
        out.append({**{k: row[k] for k in ("id", "description", "source", "created_by", "created_at")},
                    "note": note_of(row["note"]),
                    "examples": len(store.examples(conn, row["id"])), "rubric": parse_rubric(row["definition"])})
    return out


def check_rows(base: Rubric, rows: list[dict], name: str) -> Rubric:
    """The edited table as a rubric, or RubricError listing every problem by row."""
    base = base.model_copy(update={"name": (name or "").strip() or base.name})
    return catalogue.rows_to_rubric(base, rows)


def save(conn, rubric_draft_id: int, rows: list[dict], *, name: str, actor: Actor) -> tuple[int, int]:
    """Save the edited draft as a rubric version; returns (rubric_id, version). A draft saved
    already (by someone else meanwhile) is refused, and nothing is written."""
    access.check(conn, actor, "upload", rubric_draft=rubric_draft_id)
    row = store.get(conn, rubric_draft_id)
    rubric = check_rows(parse_rubric(row["definition"]), rows, name)
    with write_transaction(conn):
        if store.get(conn, rubric_draft_id)["saved_rubric_id"] is not None:
            raise ConflictError(Message("This draft was saved already; open the rubric on the Rubrics tab."))
        rid, version = catalogue.save_rubric_version(conn, rubric, actor=actor)
        store.mark_saved(conn, rubric_draft_id, rubric_id=rid, saved_by=actor)
        audit(conn, actor=actor, action="save", entity="rubric_drafts", entity_id=rubric_draft_id,
              after={"rubric_id": rid, "name": rubric.name, "version": version})
    return rid, version


def discard(conn, rubric_draft_id: int, *, actor: Actor) -> None:
    """Delete a draft, its examples and its calls to the model."""
    access.check(conn, actor, "upload", rubric_draft=rubric_draft_id)
    with write_transaction(conn):
        counts = store.delete(conn, rubric_draft_id)
        audit(conn, actor=actor, action="discard", entity="rubric_drafts", entity_id=rubric_draft_id, after=counts)
