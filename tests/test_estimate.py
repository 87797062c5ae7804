"""The run estimate renders the Evaluator's prompt as the run will (with a calibrated
assignment's examples) and counts the judge cascade's extra scoring calls, expected until the
call log can measure them."""
import json

import pytest

import factories as f
from assess_script import RICH_TEXT
from core import estimate
from core.calibration import anchors, blind
from db import calibration, llm_calls

EXAMPLE = ("This week I compared two chatbots at work and wrote down where each one invented facts, then "
           "asked my team which answers they trusted and why. ") * 4


def _course(conn, n=3, examples=0, name="Estimate", rubric=None):
    c = f.course(conn, name=name, rubric=rubric)
    for i in range(examples):           # blind-scored: the Evaluator's examples once calibrated
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), EXAMPLE + str(i))
        f.draft(conn, sid, dict.fromkeys(c["rubric"].keys, 2))
        calibration.add_items(conn, c["assignment_id"], [(sid, None, "t")], actor="ann", at="2025-01-01")
        blind.save(conn, sid, dict.fromkeys(c["rubric"].keys, i % 4), actor=f.actor())
    for i in range(n):
        f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), RICH_TEXT + f" ({i})")
    return c


def test_a_calibrated_assignments_examples_are_in_the_evaluators_prompt(conn):
    plain = estimate.for_run(conn, course_id=_course(conn)["course_id"], actor=f.actor())
    c = _course(conn, examples=3, name="Calibrated")
    calibrated = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())
    assert plain["submissions"] == calibrated["submissions"] == 3
    shown = anchors.for_submission(conn, None, c["assignment_id"], c["rubric"])
    assert len(shown) == 3
    # Each submission's Evaluator prompt carries the examples (chars / 4 per token), once per
    # scoring call (the cascade's expected extra calls too: none without judges or samples).
    per_item = sum(len(json.dumps({"scores": a["scores"], "text": a["text"]}, ensure_ascii=False)) for a in shown) / 4
    added = (calibrated["tokens_in"] - plain["tokens_in"]) / 3
    assert per_item * 0.9 < added < per_item * 1.1
    assert calibrated["cost_usd"] > plain["cost_usd"]


def test_the_cascades_judges_are_counted_at_their_own_models_price(conn, monkeypatch):
    c = _course(conn)
    alone = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())
    assert alone["cascade"] == {"samples_per_item": 0.0, "judges": {}, "source": "expected"}
    monkeypatch.setenv("FAIRMARK_JUDGES", json.dumps([{"name": "b", "model": "judge-b"},
                                                      {"name": "c", "model": "judge-c"}]))
    judged = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())
    assert judged["cascade"]["judges"] == {"judge-b": estimate.UNSURE_SHARE,
                                           "judge-c": estimate.UNSURE_SHARE * estimate.THIRD_SHARE}
    assert judged["unpriced"] == ["judge-b", "judge-c"]
    ev_in = estimate._item_tokens(estimate._static_tokens(conn, c["assignment_id"]), len(RICH_TEXT.split()))
    extra = (judged["tokens_in"] - alone["tokens_in"]) / 3
    assert extra == pytest.approx(ev_in["evaluator"][0] * estimate.UNSURE_SHARE * (1 + estimate.THIRD_SHARE), rel=0.02)
    llm_calls.save_price(conn, "judge-b", 0.15, 0.60)
    llm_calls.save_price(conn, "judge-c", 10.0, 30.0)
    priced = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())
    assert priced["unpriced"] == [] and priced["cost_usd"] > alone["cost_usd"] * 1.5


def test_measured_cascade_shares_replace_the_expected_ones(conn, monkeypatch):
    from dashboard_data import call

    c = _course(conn)
    monkeypatch.setenv("FAIRMARK_JUDGES", json.dumps([{"name": "b", "model": "judge-b"}]))
    run = conn.execute("INSERT INTO runs (course_id, provider) VALUES (?, 'openai')", [c["course_id"]]).lastrowid
    subs = [r[0] for r in conn.execute("SELECT id FROM submissions")]
    for i in range(estimate.MEASURED_FROM):
        sid = subs[i % len(subs)] if i < len(subs) else f.submission(conn, c["assignment_id"],
                                                                     f.student(conn, c["course_id"]), f"x {i}")
        call(conn, sid, "evaluator", 0.0001, run=run)
        if i % 4 == 0:                     # one item in four went to the consensus judge
            call(conn, sid, "judge:b", 0.0001, run=run)
            conn.execute("UPDATE llm_calls SET tier = 2 WHERE id = (SELECT MAX(id) FROM llm_calls)")
    conn.execute("UPDATE llm_calls SET tier = 1, temperature = 0 WHERE tier IS NULL")
    cascade = estimate.for_run(conn, course_id=c["course_id"], redo=True, actor=f.actor())["cascade"]
    assert cascade["source"] == f"measured on {estimate.MEASURED_FROM} judged items"
    assert cascade["judges"] == {"judge-b": 0.25} and cascade["samples_per_item"] == 0


def test_the_response_schema_is_counted_in_every_roles_prompt(conn):
    """The provider bills the response schema as prompt tokens: the estimate counts it as the
    request carries it (core.llm.sent_schema), on top of the rendered prompt."""
    from core.agents import evaluator, registry
    from core.llm import sent_schema

    c = _course(conn)
    static = estimate._static_tokens(conn, c["assignment_id"])
    rendered = evaluator.PROMPT.load().render(**evaluator.prompt_values(c["rubric"], courses_assignment(conn, c), ""))
    schema = len(sent_schema(evaluator.schema_for(c["rubric"])))
    assert static["evaluator"] == (schema + sum(len(m["content"]) for m in rendered)) // 4
    assert static["evaluator:prefix"] == (schema + len(rendered[0]["content"])) // 4
    prompts = registry.load_prompts()
    for role in registry.roles():
        if role.name != "evaluator":
            sent = len(sent_schema(role.answer))
            assert static[role.name] == (sent + len(prompts[role.name].system) + len(prompts[role.name].user)) // 4


def courses_assignment(conn, c):
    from db import courses

    return {**courses.get_assignment(conn, c["assignment_id"]), "anchors": []}


def test_the_shared_prefix_is_priced_cached_as_bench_tokens_prices_it(conn):
    """One formula (core.llm.prompt_cache.cached_tokens): on an assignment's n submissions, every
    call of a role to one model but the first gets its shared prefix (schema and system message)
    at the cached price, when that prefix is long enough to be cached."""
    from core.llm import cached_tokens

    c = _course(conn, n=4)
    static = estimate._static_tokens(conn, c["assignment_id"])
    assert static["evaluator:prefix"] >= 1024 > static["aggregator:prefix"]   # only the Evaluator's is cached
    out = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())
    assert out["tokens_cached"] == int(cached_tokens(static["evaluator:prefix"]) * 3)   # 4 calls, the first a miss
    llm_calls.save_price(conn, "gpt-4o-mini", 0.15, 0.60, 0.15)          # no discount: the cache changes nothing
    full = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor())
    assert full["cost_usd"] - out["cost_usd"] == pytest.approx(out["tokens_cached"] * (0.15 - 0.075) / 1e6, abs=1e-4)
    assert full["per_submission_usd"] - out["per_submission_usd"] == pytest.approx(
        out["tokens_cached"] * (0.15 - 0.075) / 1e6 / 4, abs=1e-6)   # rounded to 6 places
    one = _course(conn, n=1, name="Alone")
    alone = estimate.for_run(conn, course_id=one["course_id"], actor=f.actor())
    assert alone["tokens_cached"] == 0   # the first call is never cached


def test_the_estimate_counts_last_weeks_comment_in_the_coachs_and_the_aggregators_input():
    from core import estimate as est
    from core.agents import registry

    static = {"criteria": 4, **{r.name: 100 for r in registry.roles()}}
    tokens = est._item_tokens(static, 200)
    notes = next(r for r in registry.roles() if r.per_criterion).out_tokens * 4
    comment = registry.at("compose")[0].out_tokens
    assert tokens["coach"][0] == 100 + notes + comment          # its notes and last week's comment
    assert tokens["aggregator"][0] == 100 + notes + comment
    assert tokens["equity"][0] == 100 + notes                   # the others do not read it


def test_the_estimate_counts_the_bank_comments_the_aggregator_will_read(conn):
    """The Aggregator's <bank> slot carries up to BANK_EXAMPLES comments tied to the levels the
    run will score, from the course bank and the bank of the teacher who starts it (or the item's
    assigned marker): the estimate counts the longest ones it could send, and the "none" line
    when no comment is tied."""
    from core.agents import common, registry
    from core.courses import comment_bank as bank

    c = _course(conn, n=3)
    empty = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor("ines"))
    keys = c["rubric"].keys
    long_ones = [f"Comment {i}: " + "say which step of your plan you would change first and why " * 3
                 for i in range(4)]
    for i, text in enumerate(long_ones):            # course bank, tied to a criterion and level
        bank.add(conn, c["course_id"], text[:250], actor=f.actor(), mine=False, criterion=keys[i % len(keys)], level=i % 4)
    bank.add(conn, c["course_id"], "Untied: not a style example.", actor=f.actor(), mine=False)
    bank.add(conn, c["course_id"], "Ines's own tied comment, short.", actor=f.actor("ines"), mine=True,
             criterion=keys[0], level=1)
    full = estimate.for_run(conn, course_id=c["course_id"], actor=f.actor("ines"))
    sent = common.bank_slot(sorted((t[:250] for t in long_ones), key=len, reverse=True)[:common.BANK_EXAMPLES])
    assert (full["tokens_in"] - empty["tokens_in"]) / 3 == pytest.approx((len(sent) - len(common.NO_BANK)) / 4, abs=1)
    # the empty bank's "none" line is counted in the Aggregator's input too
    static = estimate._static_tokens(conn, c["assignment_id"])
    agg = estimate._item_tokens(static, 100, bank=len(common.NO_BANK) // 4)["aggregator"][0]
    assert agg == estimate._item_tokens(static, 100)["aggregator"][0] + len(common.NO_BANK) // 4
    assert "bank" in registry.get("aggregator").reads
    # another teacher's own bank is not read by a run Ines starts
    bank.add(conn, c["course_id"], "Tom's: " + "x" * 280, actor=f.actor("tom"), mine=True, criterion=keys[0], level=0)
    assert estimate.for_run(conn, course_id=c["course_id"], actor=f.actor("ines"))["tokens_in"] == full["tokens_in"]
    assert estimate.for_run(conn, course_id=c["course_id"], actor=f.actor("tom"))["tokens_in"] > full["tokens_in"]


def test_the_estimate_counts_the_grader_guidance_in_every_evaluator_call(conn):
    """A rubric's notes for graders go to the Evaluator (never to students): its prompt in the
    estimate is the rendered one, so the guidance is counted on each scoring call."""
    from core.rubric import default_rubric
    from db.rubric_model import parse_rubric

    data = default_rubric().model_dump(mode="json")
    data["criteria"][0]["guidance"] = "Concrete means a named tool, a date or a number from the student's own work. " * 3
    plain, guided = _course(conn, name="Plain"), _course(conn, name="Guided", rubric=parse_rubric(data))
    a = estimate.for_run(conn, course_id=plain["course_id"], actor=f.actor())
    b = estimate.for_run(conn, course_id=guided["course_id"], actor=f.actor())
    added = (b["tokens_in"] - a["tokens_in"]) / 3
    note = len(" ".join(data["criteria"][0]["guidance"].split())) / 4
    assert note < added < note * 1.2
