"""Calibration: the AI earns trust per assignment.

A teacher scores a small stratified set of one assignment's reflections **blind** — without
seeing the AI's scores or comment — and FairMark compares the AI with those scores. The rules:

- `draw`: the set is drawn from drafted items no teacher has opened yet (so the score can
  still be blind), stratified by the AI's predicted band, by length and by a student group;
  default 16 items, more can be added later.
- `blind`: until an item's first blind score is saved its AI draft is hidden everywhere a
  teacher could see it (review queue and item, Students, exports: it cannot be opened or
  approved). Blind scores are final. A second teacher may score the same items blind: their
  agreement is the human ceiling. Uploads can be declared calibration scores instead.
- `readiness`: per assignment and criterion the AI against the blind scores (QWK, MAE, bias,
  ΔMAE, with CIs that resample students) and the human ceiling, against the admin's bar;
  below it the drafts say "AI not yet calibrated for this assignment" and bulk approval is off.
- `anchors`: blind-scored items become the Evaluator's examples (pseudonymised, at most one
  per level and criterion, never an item's own example: AI scores on calibration items are
  leave-one-out by construction), and they change the prompt hash the call is cached under.
- `offset`: a systematic offset by band is shown to the teacher, never silently corrected.

The SQL is in db/calibration.py; pages only call these modules.
"""
from core.language.interface import N_

NOT_CALIBRATED = N_("AI not yet calibrated for this assignment")   # translated where shown: t(NOT_CALIBRATED)
