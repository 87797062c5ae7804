"""The teacher's sign-off, split by what a teacher does:

- `actions`: one item: open, edit, approve, reject, back to review, regenerate, use a new draft.
- `bulk`: approve the confident drafts together after checking a stratified sample.
- `release`: the gates, then release the approved items (locks their versions).
- `labels`: what the pages show instead of stored codes.
- `triage`: where an item goes in the review queue (the ones that most need a human first).
- `eligibility`: whether a draft may be approved in bulk, and why not.
- `review_view`: the review queue and one item as data, for the Review page and the command line.

Rules these modules enforce (pages and the command line only call them; the SQL is in db/):
- The teacher's version wins. `reviews` holds it; nothing here or in the pipeline replaces it
  with a draft unless the teacher explicitly chooses that draft (`actions.use_draft`).
- Every change writes an audit_log row in the same transaction (who, when, before, after, why).
- Every action carries the version the teacher saw. The UPDATE is conditional on that version,
  so a stale action (a colleague's save, or a second click after the first took effect) writes
  nothing and raises `actions.VersionConflict` saying what changed. Approving an approved item
  is refused (`actions.AlreadyDecided`); a save that changes nothing writes no version.
- An approval (or rejection) can be withdrawn before release (`back_to_review`, audited).
- Release locks the approved review versions in `release_items`; a later edit makes a new
  version that goes back to review and needs its own release.
- A submission's status changes only through db.submissions.set_status (or its set-based
  sibling), with the priority core.signoff.triage computes for it.
"""
