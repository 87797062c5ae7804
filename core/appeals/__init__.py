"""A student's appeal of released feedback (issue 26), in small modules:

- `deadline`: an assignment's appeal deadline (None = appeals off), as a teacher types it.
- `filing`: the student's side: `file` an appeal (one or more criteria, each with its reason)
  and `for_student` (their appeals and the outcomes, as the student page shows them).
- `deciding`: the teacher's side: the appeal as the review item shows it, a blind re-mark
  (`remark`), `decide` (keep, or change: an edit with a reason code, then a new release), and
  `listed` (the command line's `appeals list`).
- `figures`: appeal and upheld rates per assignment, score band and student group.

Rules (the SQL is in db.appeals):
- Only a student actor files, and only on their own released work (access.check_student),
  before the assignment's deadline, on the rubric's criteria, one open appeal at a time.
- While open, the item is first in the review queue (core.signoff.triage.APPEALS).
- A teacher who may review decides; a note to the student is required either way. A change is
  an edit with a reason code (core.signoff.actions), approved at once; it goes out as a release
  of that one item (core.signoff.release, its gates, and to the LMS when linked) when the teacher
  may release; a teaching assistant's change waits, approved, for the Release page. The student
  sees the outcome of a change only once it is released.
- Appealed items are a selected sample: a re-mark never becomes a reference for agreement or
  fairness (the blind re-mark is kept in the appeal, not in the calibration scores; the
  dashboards' teacher reference keeps the score released before the appeal).
- Every step is in the audit log.
"""
