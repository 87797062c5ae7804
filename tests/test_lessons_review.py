"""One lesson through the review with scripted judges at the LLM protocol, through the real call
log: the cascade (tier 1 settles, CLEV asks a second and a third judge), the generator rule,
Stage 1 settling without an LLM, the offline baseline, failures, the entropy flags and the
conditional fact check, and what is stored."""
import json

import pytest

from core.errors import LLMAuthError, LLMInvalidOutput
from core.lessons import review
from core.lessons.review import Options
from core.llm import LoggedLLM, echo
from core.offline import LABEL
from db import lessons as lessons_db
from db import votes as votes_db
from fake_llm import ScriptedLLM
from lesson_helpers import LESSON, MODELS, ONE_JUDGE, add_lesson, issue, verdict
from core.accounts.access import Actor

PRICES = {m: {"input_per_mtok": 0.27, "cached_input_per_mtok": 0.07, "output_per_mtok": 1.10}
          for m in set(MODELS.values())}


def logged(fake, db_path):
    return LoggedLLM(fake, db_path, prices=PRICES)


def test_a_clear_pass_is_settled_by_one_judge_at_temperature_zero(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=MODELS).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    fake.assert_all_used()
    assert out["tier"] == "ready" and out["score"] == pytest.approx(0.9175, abs=1e-3)
    assert [c.temperature for c in fake.calls] == [0.0]
    lesson, rv = lessons_db.get(conn, lid), lessons_db.review(conn, out["review_id"])
    assert lesson["status"] == "reviewed" and lesson["tier"] == "ready" and rv["first_verdict"] == "publish"
    assert rv["record"]["panel"] == ["deepseek-chat", "gpt-4o-mini", "claude-3-haiku"]
    assert len(votes_db.of(conn, "lesson", lid, draft_id=out["review_id"])) == 4
    calls = list(conn.query("SELECT * FROM llm_calls"))
    assert [(c["agent"], c["lesson_id"], c["model"]) for c in calls] == [("lesson_judge", lid, "deepseek-chat")]
    assert calls[0]["cost_usd"] > 0
    prompt = fake.calls[0].messages
    assert "<lesson>" in prompt[1]["content"] and "puddle" in prompt[1]["content"] and "puddle" not in prompt[0]["content"]


def test_an_ambiguous_score_asks_a_second_judge_and_their_agreement_settles_it(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=MODELS)
    fake.script("lesson_judge", verdict(0.9, 0.8, 0.8, 0.8))           # 0.835: the ambiguity zone
    fake.script("lesson_judge_2", verdict(0.85, 0.8, 0.75, 0.8))
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    fake.assert_all_used()
    assert [(c.role, c.temperature) for c in fake.calls] == [("lesson_judge", 0.0), ("lesson_judge_2", 0.15)]
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert record["first"]["tier"] == 2 and record["first"]["scores"]["factual_integrity"] == pytest.approx(0.875)
    assert out["tier"] == "sampled"


def test_judges_who_disagree_call_the_third_and_a_split_dimension_goes_to_a_teacher(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=MODELS)
    fake.script("lesson_judge", verdict(0.9, 0.8, 0.8, 0.6))
    fake.script("lesson_judge_2", verdict(0.9, 0.8, 0.8, 0.9))
    fake.script("lesson_judge_3", verdict(0.9, 0.8, 0.8, 0.75))          # engagement: 0.6 / 0.9 / 0.75
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    fake.assert_all_used()
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert record["first"]["unsure"] == ["engagement_tone"] and out["tier"] == "needs_review"
    assert "could not agree on engagement & tone" in " ".join(record["tier_reasons"])


def test_the_judge_is_never_of_the_family_that_wrote_the_lesson(conn, db_path):
    lid = add_lesson(conn, LESSON.replace(b"min_words: 40", b"min_words: 40\ngenerated_by: deepseek-v3"))
    fake = ScriptedLLM(models=MODELS).script("lesson_judge_2", verdict(0.95, 0.9, 0.9, 0.9))
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    fake.assert_all_used()
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert record["panel"] == ["gpt-4o-mini", "claude-3-haiku"]
    assert "same model family as the writer (deepseek-v3)" in record["notes"][0]
    # Only the writer's family configured (issue 22's one family rule): judged, and it says so.
    only_deepseek = ScriptedLLM(models={k: "deepseek-chat" for k in MODELS})
    only_deepseek.script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    lid2 = add_lesson(conn, LESSON.replace(b"min_words: 40", b"min_words: 40\ngenerated_by: deepseek-v3")
                      .replace(b"The water cycle", b"Water again"), name="w2.md")
    out = review.review_lesson(db_path, lid2, logged(only_deepseek, db_path))
    only_deepseek.assert_all_used()
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert out["status"] != "failed" and any("Every judge is of one model family (deepseek)" in n for n in record["notes"])


def test_a_clear_stage1_failure_is_settled_without_any_llm_call(conn, db_path):
    lid = add_lesson(conn, b"---\ntitle: Tiny\nmin_words: 200\n---\n# Tiny\nRain is wet.\n")
    fake = ScriptedLLM(models=MODELS)                      # nothing scripted: any call fails the test
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    rv = lessons_db.review(conn, out["review_id"])
    assert out["tier"] == "needs_review" and rv["first_verdict"] == "revise" and not rv["is_offline"]
    assert "Stage 1: Length" in rv["record"]["tier_reasons"][0] and fake.calls == []


def test_the_offline_baseline_runs_stage1_only_and_says_so(conn, db_path):
    lid = add_lesson(conn)
    out = review.review_lesson(db_path, lid, None)
    rv = lessons_db.review(conn, out["review_id"])
    assert rv["is_offline"] == 1 and rv["provider"] == "offline" and out["tier"] == "needs_review"
    assert LABEL in rv["record"]["notes"] and rv["first_verdict"] == "publish" and rv["record"]["stage1_score"] == 1.0
    assert list(conn.query("SELECT * FROM llm_calls")) == []


def test_a_failed_judge_is_recorded_on_the_lesson_and_a_refused_key_stores_nothing(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", LLMInvalidOutput("not JSON"))
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    assert out["status"] == "failed" and "not JSON" in out["error"]
    assert lessons_db.get(conn, lid)["status"] == "failed"
    lid2 = add_lesson(conn, LESSON.replace(b"The water cycle", b"Other"), name="o.md")
    with pytest.raises(LLMAuthError):
        review.review_lesson(db_path, lid2, ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", LLMAuthError("key")))
    assert lessons_db.get(conn, lid2)["status"] == "uploaded" and lessons_db.get(conn, lid2)["current_review_id"] is None


def test_a_failing_lesson_gets_a_section_fix_proposed_and_rejudged(conn, db_path):
    lid = add_lesson(conn)
    hook = "The water did not disappear."
    fake = ScriptedLLM(models=ONE_JUDGE)
    fake.script("lesson_judge", verdict(0.9, 0.9, 0.7, 0.2, [issue("engagement_tone", hook, location="The water cycle")]),
                verdict(0.9, 0.9, 0.8, 0.85))
    fake.script("lesson_fixer", {"text": "Imagine a puddle that vanishes before lunch. Where did it go?",
                                 "summary": "A question hook."})
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    fake.assert_all_used()
    fixer_prompt = fake.calls_for("lesson_fixer")[0].messages
    assert "Rewrite ONLY that section" in fixer_prompt[0]["content"]
    user = fixer_prompt[1]["content"]
    assert hook in user.split("<section>")[1] and "First, the sun warms" in user.split("<after>")[1]
    assert "(this is the first section)" in user.split("<before>")[1]
    fixes = lessons_db.fixes(conn, out["review_id"])
    assert [(f["round"], f["dimension"], f["section"], f["status"]) for f in fixes] == [
        (1, "engagement_tone", "The water cycle", "proposed")]
    assert fixes[0]["gain"] == pytest.approx(0.15) and out["tier"] == "ready"
    assert lessons_db.get(conn, lid)["text"] == lessons_db.get(conn, lid)["original_text"]    # a proposal only
    assert lessons_db.review(conn, out["review_id"])["first_verdict"] == "revise"


class EchoFake:
    """The echo transport: one token per word; the words of sentences containing `unsure` get
    3 bits of entropy, the others almost none."""

    def __init__(self, unsure: str):
        self.unsure, self.requests = unsure, []

    def __call__(self, request):
        import math
        import re
        self.requests.append(request)
        text = request["prompt"]
        bad = text.find(self.unsure)
        out = {"tokens": [], "text_offset": [], "token_logprobs": [], "top_logprobs": [], "tokens_in": 120,
               "tokens_out": 1, "request_id": "echo-1"}
        for m in re.finditer(r"\S+\s*", text):
            hot = bad <= m.start() < bad + len(self.unsure)
            out["tokens"].append(m.group(0))
            out["text_offset"].append(m.start())
            out["token_logprobs"].append(math.log(0.125 if hot else 0.99))
            out["top_logprobs"].append({c: math.log(0.125) for c in "abcdefgh"} if hot else {"a": math.log(0.99)})
        return out


CLAIM = "In 1783 scientists proved that clouds weigh one kilogram."


def claim_lesson(conn):
    return add_lesson(conn, LESSON.replace(b"Millions of these drops crowd together and make a cloud.",
                                           b"Millions of these drops crowd together and make a cloud. " + CLAIM.encode()))


def test_a_flagged_sentence_is_checked_against_the_sources_and_a_contradiction_escalates(conn, db_path):
    lid = claim_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    fake.script("lesson_factcheck", {"checks": [{"sentence": 1, "verdict": "contradicted",
                                                 "evidence": "clouds hold tonnes of water"}]})
    transport = EchoFake(CLAIM)
    opts = Options(echo=echo.Endpoint("http://llama:8080/v1", "smollm2"), echo_transport=transport)
    out = review.review_lesson(db_path, lid, logged(fake, db_path), options=opts)
    fake.assert_all_used()
    assert transport.requests[0]["echo"] is True and transport.requests[0]["max_tokens"] == 1
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert [f["sentence"] for f in record["entropy"]["flags"]] == [CLAIM]
    assert record["entropy"]["flags"][0]["verdict"] == "contradicted" and out["tier"] == "needs_review"
    assert any("contradicted by the sources" in r for r in record["tier_reasons"])
    check_prompt = fake.calls_for("lesson_factcheck")[0].messages[1]["content"]
    assert CLAIM in check_prompt and "evaporates" in check_prompt and "puddle" not in check_prompt
    agents = [(c["agent"], c["lesson_id"], c["status"]) for c in conn.query("SELECT * FROM llm_calls ORDER BY id")]
    assert ("lesson_logprobs", lid, "ok") in agents and ("lesson_factcheck", lid, "ok") in agents
    # the same lesson again: the echo answer comes from the cache
    review.review_lesson(db_path, lid, logged(ScriptedLLM(models=ONE_JUDGE), db_path), options=opts)
    assert len(transport.requests) == 1
    assert next(conn.query("SELECT status FROM llm_calls WHERE agent = 'lesson_logprobs' ORDER BY id DESC"))[
        "status"] == "cache_hit"


def test_no_flag_means_no_fact_check_call_and_no_endpoint_means_a_note(conn, db_path):
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    opts = Options(echo=echo.Endpoint("http://llama:8080/v1", "smollm2"), echo_transport=EchoFake("no such text"))
    out = review.review_lesson(db_path, lid, logged(fake, db_path), options=opts)
    assert fake.calls_for("lesson_factcheck") == [] and out["tier"] == "ready"
    lid2 = add_lesson(conn, LESSON.replace(b"The water cycle", b"Again"), name="a.md")
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    out = review.review_lesson(db_path, lid2, logged(fake, db_path))
    assert "FAIRMARK_LESSON_LOGPROBS_BASE_URL" in lessons_db.review(conn, out["review_id"])["record"]["entropy"]["skipped"]


def test_without_sources_flagged_sentences_are_left_for_the_teacher(conn, db_path):
    lid = add_lesson(conn, LESSON.replace(b"sources: The sun heats water and it evaporates. Vapour cools and condenses "
                                          b"into clouds.\n", b"").replace(b"make a cloud.", b"make a cloud. " +
                                                                           CLAIM.encode()))
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    opts = Options(echo=echo.Endpoint("http://x/v1", "m"), echo_transport=EchoFake(CLAIM))
    out = review.review_lesson(db_path, lid, logged(fake, db_path), options=opts)
    record = lessons_db.review(conn, out["review_id"])["record"]
    assert record["entropy"]["flags"][0]["verdict"] == "unchecked" and fake.calls_for("lesson_factcheck") == []
    assert "No source material is attached" in " ".join(record["notes"])


def test_a_lesson_changed_during_its_review_keeps_the_teachers_version(conn, db_path):
    lid = add_lesson(conn)

    def judge_and_meanwhile_edit(messages, schema):
        conn.execute("UPDATE lessons SET version = version + 1 WHERE id = ?", [lid])
        return verdict(0.95, 0.9, 0.9, 0.9)
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", judge_and_meanwhile_edit)
    out = review.review_lesson(db_path, lid, logged(fake, db_path))
    assert out["review_id"] is None and lessons_db.get(conn, lid)["status"] == "uploaded"
    assert list(conn.query("SELECT * FROM lesson_reviews")) == []


def test_the_judges_answer_is_shown_with_a_made_up_quote_marked(conn, db_path):
    from core.lessons import view
    lid = add_lesson(conn)
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9, [
        issue("clarity_structure", "Millions of these drops crowd together", "minor"),
        issue("factual_integrity", "Water boils at 50 degrees", "minor")]))
    review.review_lesson(db_path, lid, logged(fake, db_path))
    v = view.lesson_view(conn, lid, actor=Actor("test", role="admin"))
    assert [(i["quote"][:12], i["found"]) for i in v["issues"]] == [("Millions of ", True), ("Water boils ", False)]
    assert json.loads(json.dumps(v["record"]))["first"]["votes"][0]["judge"] == "deepseek-chat"


def test_a_failing_echo_endpoint_is_logged_and_the_review_goes_on(conn, db_path):
    from core.errors import LLMConnectionError

    lid = add_lesson(conn)

    def down(request):
        raise LLMConnectionError("Cannot reach the language model at http://x/v1.")
    fake = ScriptedLLM(models=ONE_JUDGE).script("lesson_judge", verdict(0.95, 0.9, 0.9, 0.9))
    out = review.review_lesson(db_path, lid, logged(fake, db_path),
                               options=Options(echo=echo.Endpoint("http://x/v1", "m"), echo_transport=down))
    assert out["tier"] == "ready"
    assert "Cannot reach" in lessons_db.review(conn, out["review_id"])["record"]["entropy"]["skipped"]
    call = next(conn.query("SELECT * FROM llm_calls WHERE agent = 'lesson_logprobs'"))
    assert call["status"] == "error" and call["lesson_id"] == lid and "LLMConnectionError" in call["error"]
