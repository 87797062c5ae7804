"""Moderation: markers agree with each other, and the coordinator sees each marker's severity.

A sample of an assignment is marked twice, the second time blind, and the moderator settles
the differences. The rules:

- `sample.draw`: a coordinator (or admin) draws the sample (a size or a share) from the drafted,
  unreleased items, stratified by the AI's predicted band and by first marker as the
  calibration draw is (its `allocate`); each item gets a second marker from the course's
  instructors and teaching assistants, never its own first marker, the least loaded first.
- The first mark is the item's review as its marker approved it; the second is the second
  marker's blind mark (`marking`). Until the second marker has committed, they see neither the
  first marker's scores nor the AI's draft anywhere: not on the Second marking page, not in the
  review queue (the item shows in the group `second_marking`), not in the review item (refused), not in
  the analysis export (the columns are blank) and not on the command line.
- Two marks *differ* when some criterion is more than one level apart (`TOLERANCE`); those
  items are listed for the moderator, who settles each with a final score per criterion and a
  note. The settlement becomes the teacher's version (a new review version, audited) and the
  dashboards' reference: "auto" takes expert scores, else the settled score, else blind scores.
- Release (`sample.release_gate`, one of core.signoff.release's gates): an approved item of the
  sample waits for its second mark, and, where the marks differ, for the settlement. Marks
  within a level of each other need no settlement: the first marker's approved mark is released.
- `markers`: marker assignment (by section or at random, per assignment; a marker's review queue
  shows only their items unless they ask for all), and each marker's figures against the
  consensus: the settled score where there is one, else the other marker's blind mark, never
  their own. Coordinators and admins see every marker (students pseudonymised); a marker sees
  only their own figures; a teaching assistant cannot moderate.

The SQL is in db/moderation.py; pages and the command line only call these modules.
"""
TOLERANCE = 1   # marks more than this many levels apart on a criterion need the moderator
