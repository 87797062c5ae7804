"""Every prompt puts what the submissions of an assignment share first and the submission's own
data last, so a provider's prompt cache (an identical prefix) can reuse the shared part."""
import os

import pytest

import factories as f
from assess_script import RICH_TEXT, evaluation_for, good_llm, submission_text
from core import pipeline, prompts
from core.courses import answer_keys
from core.accounts.access import Actor
from core.agents import aggregator, registry

SOURCE = "Lesson 2: temperature scales the logits before sampling; higher values spread the probability."


def _shared_prefix(a: list[dict], b: list[dict]) -> str:
    x, y = "\n".join(m["content"] for m in a), "\n".join(m["content"] for m in b)
    return os.path.commonprefix([x, y])


def test_two_submissions_share_every_role_prompt_up_to_their_own_data(conn, db_path):
    c = f.course(conn)
    answer_keys.set_answer_key(conn, c["assignment_id"], kind="text", value="softmax", source=SOURCE,
                               actor=Actor("Ms T", role="admin"))
    texts = [RICH_TEXT, RICH_TEXT.replace("This week I learned", "Over these days I found out")]
    sids = [f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"], name=n), t)
            for n, t in zip(("Ana Silva", "Ben Okafor"), texts)]
    llm = good_llm()
    # each submission's evaluation differs (as real ones do): it quotes the submission
    llm.always("evaluator", lambda messages, schema: evaluation_for(schema, quote=submission_text(messages)[:20]))
    for sid in sids:
        pipeline.assess_one(db_path, sid, llm=llm)
    checked = set()
    for role in ("evaluator", "equity", "coach", "aggregator", "reviewer", "grounding", "pedagogy"):
        first, second = (next(c for c in llm.calls_for(role) if c.ctx.submission_id == sid) for sid in sids)
        shared = _shared_prefix(first.messages, second.messages)
        assert shared.startswith(first.messages[0]["content"]), role      # the whole system message
        if SOURCE in first.messages[-1]["content"]:
            assert SOURCE in shared, f"{role}: the source comes after the submission's own data"
            checked.add(role)
        if "Reflect on this week's topic." in first.messages[-1]["content"]:   # the assignment's question
            assert "Reflect on this week's topic." in shared, role
            checked.add(role)
    assert checked == {"aggregator", "grounding", "pedagogy"}


def test_a_prompt_file_with_shared_content_after_the_submission_fails_on_load(tmp_path):
    text = aggregator.PROMPT.load().system
    (tmp_path / "aggregator.md").write_text(
        f"=== system ===\n{text}\n=== user ===\n<evaluation>\n{{{{evaluation}}}}\n</evaluation>\n"
        "<equity>\n{{equity}}\n</equity>\n<questions>\n{{questions}}\n</questions>\n<source>\n{{source}}\n</source>\n"
            "<bank>\n{{bank}}\n</bank>\n<previous>\n{{previous}}\n</previous>\n{{follow_up}}\n")
    with pytest.raises(prompts.PromptError, match=r"\{\{source\}\} is the same for every submission but comes after "
                                                  r"\{\{evaluation\}\}"):
        aggregator.PROMPT.load(tmp_path)


def test_every_role_declares_its_per_submission_data_last():
    for name, p in registry.load_prompts().items():
        order = prompts._PLACEHOLDER.findall(f"{p.system}\n{p.user}")
        own = [i for i, v in enumerate(order) if v in prompts.PER_SUBMISSION]
        assert own, f"{name} carries no per-submission data"
        assert all(v in prompts.PER_SUBMISSION for v in order[own[0]:]), name
