"""What the sign-off pages show (core.signoff.labels): labels, history rows, safe highlighting."""
from __future__ import annotations

from core.signoff import labels


def test_highlight_is_escaped_markdown_with_bold_quotes():
    text = "I think <script>alert(1)</script> temperature *matters* [link](x) :red[boom]"
    md = labels.highlight_markdown(text, ["temperature *matters*", "absent quote"])
    assert "<script>" not in md and "\\<script\\>" in md
    assert "**temperature \\*matters\\***" in md
    assert "\\[link\\]\\(x\\)" in md and "\\:red\\[boom\\]" in md
    assert labels.find_quotes("Hello World", ["world", "xx"]) == [(6, 11)]


def test_highlight_never_makes_code_blocks_from_indented_text():
    md = labels.highlight_markdown("Here:\n    client = OpenAI()\n\tx = 1", [])
    lines = md.split("  \n")
    assert lines[1] == "\u00a0" * 4 + "client \\= OpenAI\\(\\)"
    assert lines[2] == "\u00a0" * 4 + "x \\= 1"


def test_labels_for_codes_timestamps_and_history():
    from core.rubric import default_rubric
    from core.text import format_timestamp

    assert format_timestamp("2026-11-29T21:27:43.687677Z") == "2026-11-29 21:27 UTC"
    assert format_timestamp("2026-11-29T23:27:43+02:00") == "2026-11-29 21:27 UTC"
    assert format_timestamp(None) == "" and format_timestamp("not a time") == "not a time"
    assert labels.label(labels.STATUS_LABELS, "needs_attention") == "Needs attention"
    assert labels.label(labels.FLAG_LABELS, "short_text") == "Short text"
    assert labels.label(labels.FLAG_LABELS, "new_flag") == "New flag"
    assert labels.reason_label("too_harsh, tone: be kind") == "Too harsh, Tone: be kind"
    assert labels.reason_label("Quotes are invented") == "Quotes are invented"
    rubric = default_rubric()
    assert labels.scores_text({"clarity": 2, "real_world_application": 1}, rubric) == \
        "Real-world application: 1, Clarity: 2"
    rows = labels.history_rows([{"at": "2026-11-29T21:27:43.687677Z", "actor": "ann", "action": "reject",
                                 "reason": "too_lenient", "before": {"status": "in_review", "scores": {"clarity": 3}},
                                 "after": {"status": "rejected", "scores": {"clarity": 1}}}], rubric)
    assert rows == [{"When": "2026-11-29 21:27 UTC", "Who": "ann", "Action": "Rejected", "Reason": "Too lenient",
                     "Change": "Status: In review → Rejected; Clarity: 3 → 1"}]
