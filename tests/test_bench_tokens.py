"""bench.tokens prices prompt caching as OpenAI documents it: only a prefix identical to an
earlier prompt's to the same model, of 1,024 tokens or more, counted in steps of 128, is billed
at the cached price; the response schema is billed too (it is the prompt's first part)."""
import pytest

from bench import tokens


class WordTokenizer:
    """One token per space-separated word (ids by word), so counts are easy to read."""

    def ids(self, text: str) -> list[int]:
        return [hash(w) % 100_000 for w in (text or "").split()]

    def count(self, text: str) -> int:
        return len(self.ids(text))


def _record(shared_words: int, own: str, *, model: str = "gpt-4o-mini", role: str = "evaluator") -> dict:
    system = " ".join(f"rule{i}" for i in range(shared_words))
    return {"role": role, "model": model, "schema": "schema words", "completion": "ten words " * 5,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": own}]}


def test_only_a_shared_prefix_of_1024_tokens_or_more_to_the_same_model_is_billed_cached():
    tok = WordTokenizer()
    # framing: schema marker + 2 schema words, then 2 tokens before the system text
    recs = [_record(1500, "first student"), _record(1500, "second student"),
            _record(1500, "third student", model="judge-b"), _record(900, "a"), _record(900, "b")]
    out = tokens.measure(recs, tok, n_items=1)
    ev = out["per_agent"]["evaluator"]      # all five records are the role "evaluator"
    seqs = [tokens._sequence(r, tok) for r in recs]
    shared = 1 + 2 + 2 + 1500   # marker, schema, framing, the system text: the same for both students
    assert tokens._lcp(seqs[0], seqs[1]) >= shared
    cached_second = tokens.cached_tokens(tokens._lcp(seqs[0], seqs[1]))
    assert cached_second == 1024 + (tokens._lcp(seqs[0], seqs[1]) - 1024) // 128 * 128 and cached_second >= 1408
    # the first call and the other model's call are misses; the 900-word prompts share < 1024 tokens
    assert ev["cached_tokens"] == cached_second
    prompt = sum(len(s) for s in seqs)
    completion = 5 * 5 * 2
    assert ev["prompt_tokens"] == prompt and ev["completion_tokens"] == completion
    assert ev["cost_usd"] == pytest.approx(((prompt - cached_second) * 0.15 + cached_second * 0.075
                                            + completion * 0.60) / 1e6, rel=1e-6)
    assert ev["cost_uncached_usd"] == pytest.approx((prompt * 0.15 + completion * 0.60) / 1e6, rel=1e-6)
    assert out["per_reflection"]["cached_tokens"] == cached_second


def test_the_schema_is_billed_as_prompt_tokens_ahead_of_the_system_message():
    tok = WordTokenizer()
    rec = _record(3, "text")
    seq = tokens._sequence(rec, tok)
    assert seq[1:3] == tuple(tok.ids("schema words"))            # the schema first
    assert len(seq) == 1 + 2 + (3 + 3) + (3 + 1) + tokens.REPLY_OVERHEAD


def test_a_student_text_placed_before_the_shared_part_gets_no_cache():
    tok = WordTokenizer()
    shared = " ".join(f"rule{i}" for i in range(1500))
    recs = [{"role": "x", "model": "m", "schema": "", "completion": "ok",
             "messages": [{"role": "user", "content": f"{student} {shared}"}]} for student in ("ann", "ben")]
    assert tokens.measure(recs, tok, n_items=2)["per_reflection"]["cached_tokens"] == 0


def test_cached_tokens_follow_openais_steps():
    assert [tokens.cached_tokens(n) for n in (0, 1023, 1024, 1151, 1152, 2000)] == [0, 0, 1024, 1024, 1152, 1920]


def test_the_later_scenario_fills_the_real_bank_slot_with_three_examples():
    from assess_script import evaluation_for
    from core.agents import aggregator
    from core.agents.common import Ids
    from core.pipeline import masked_job
    from core.rubric import default_rubric

    rubric = default_rubric()
    item = {"rubric": rubric, "text": "I learned about sampling.", "student_name": "Ana", "student_email": "",
            "pseudonym": "Student-1"}
    banked = tokens.with_bank(item, "Score the reflection on each criterion of this rubric")
    assert len(banked["bank"]) == len(rubric.criteria) * len(rubric.levels) * tokens.BANK_PER_LEVEL
    assert "bank" not in item
    job, _ = masked_job(banked, Ids())
    job.scores = {c.key: 2 for c in rubric.criteria}
    job.outputs = {"evaluator": evaluation_for(evaluator_schema())}

    class Recorder:
        def complete(self, messages, schema, **kw):
            self.messages = messages
            raise RuntimeError("recorded")

    rec = Recorder()
    try:
        aggregator.run(rec, job)
    except RuntimeError:
        pass
    user = rec.messages[-1]["content"]
    slot = user[user.index("<bank>\n") + 7:user.index("\n</bank>")]
    assert len(slot.splitlines()) == 3 and all(len(line.split()) == tokens.BANK_WORDS + 1 for line in slot.splitlines())


def evaluator_schema():
    from core.agents import evaluator
    from core.rubric import default_rubric
    return evaluator.schema_for(default_rubric())


def test_every_item_gets_last_weeks_comment_at_the_limit():
    from core import checks

    item = {"id": 1, "text": "I learned how temperature changes the sampling of the next token in a model."}
    prev = tokens.with_last_week(item)["previous"]
    assert checks.words(prev["comment"]) > 100 and prev["acted"] is None and "previous" not in item


def test_the_schema_billed_is_the_one_the_request_carries():
    """gpt-4o-mini gets the strict json_schema (core.llm.sent_schema): no pydantic titles, no
    length bounds (strict mode takes none); the bench bills that, not pydantic's schema."""
    import json

    from core.agents.aggregator import Comment
    from core.llm import CallContext, sent_schema

    llm = tokens.RecordingLLM(lambda role, schema, messages, ctx: {"comment": "Well argued."})
    llm.complete([{"role": "user", "content": "x"}], Comment, role="aggregator",
                 ctx=CallContext(agent="aggregator", prompt_name="aggregator", prompt_hash="h"))
    billed = llm.records[0]["schema"]
    assert billed == sent_schema(Comment)
    assert json.loads(billed) == {"type": "object", "properties": {"comment": {"type": "string"}},
                                  "required": ["comment"], "additionalProperties": False}


def test_the_o200k_tokenizer_counts_as_gpt_4o_mini_does():
    """--tokenizer o200k: o200k_base's own ids (tiktoken's: "Hello world" is 13225, 2375), no download."""
    tok = tokens.Tokenizer("o200k")
    assert tok.ids("Hello world") == [13225, 2375]
    assert tok.count("") == 0 and tok.count("Score the reflection on each criterion.") < 10


def test_the_answers_at_the_limits_follow_the_evaluators_areas_rule_and_answer_the_joint_judges():
    """At the limits the Evaluator writes one area for improvement per criterion on a rubric of
    three or more (two on fewer), as its prompt asks; the joint call of the comment's judges gets
    each judge's own answer at its limits, and is recorded under the joint prompt's name."""
    from core.agents import Ids, Job, evaluator, registry
    from core.judging import comment_judges
    from core.rubric import default_rubric, parse_rubric

    messages = [{"role": "system", "content": "x"}, {"role": "user", "content": "some words of a text here"}]
    many = tokens.at_limits("evaluator", evaluator.schema_for(default_rubric()), messages)
    assert {len(c["areas_for_improvement"]) for c in many.values()} == {1}
    one = parse_rubric({"name": "One", "scale_min": 0, "scale_max": 3, "criteria": [
        {"key": "depth", "title": "Depth", "levels": {i: f"level {i}" for i in range(4)}}]})
    assert [len(c["areas_for_improvement"]) for c in tokens.at_limits(
        "evaluator", evaluator.schema_for(one), messages).values()] == [2]
    llm = tokens.RecordingLLM(lambda role, schema, m, ctx: tokens.at_limits(role, schema, m))
    job = Job(rubric=default_rubric(), assignment={"prompt": "Reflect."}, text="some words of a text here",
              comment="Good work. What next?", ids=Ids(submission_id=1))
    assert comment_judges.together(llm, job, comment_judges.ROLES)
    got = comment_judges.verdicts(llm, job, registry.get("pedagogy"))
    assert got["grounding"]["unsupported"] and got["pedagogy"]["justification"]
    assert [r["role"] for r in llm.records] == ["comment_judges"]
