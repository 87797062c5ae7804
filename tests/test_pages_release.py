"""Release page (AppTest): overview, gates, release locks versions, exports offered."""
from __future__ import annotations

import re

import factories as f
from core.signoff import actions
from db import releases, reviews, submissions
from core.accounts.access import Actor

SCORES = {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 2, "clarity": 2}


def release_page(app_test, c):
    at = app_test("pages/release.py")
    at.session_state["course_id"] = c["course_id"]
    at.session_state["assignment_id"] = c["assignment_id"]
    return at.run()


def seed(conn, attention=True):
    c = f.course(conn)
    ids = []
    for i in range(3):
        sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]), text=f"text {i}")
        f.draft(conn, sid, SCORES, status="needs_attention" if (attention and i == 2) else "drafted")
        ids.append(sid)
    actions.open_item(conn, ids[0], actor=Actor("ann", role="admin"))
    actions.approve(conn, ids[0], version=1, actor=Actor("ann", role="admin"))
    return c, ids


def gate_lines(at):
    return [m.value for m in at.markdown if m.value.startswith((":green[", ":red["))]


def test_gates_block_release_while_attention_items_wait(app_test, conn):
    c, ids = seed(conn)
    at = release_page(app_test, c)
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Approved, not released"] == "1" and metrics["Needs attention"] == "1"
    assert any(line.startswith(":red[:material/cancel:] **No item needing attention") for line in gate_lines(at))
    assert at.button(key="release_go").disabled
    assert "Nothing to export yet" in " ".join(c.value for c in at.caption)


def test_release_locks_versions_and_offers_exports(app_test, conn):
    c, ids = seed(conn, attention=False)
    at = release_page(app_test, c)
    lines = gate_lines(at)
    assert len(lines) == 2 and all(line.startswith(":green[") for line in lines)
    at.text_input(key="release_note").set_value("week 1 feedback")
    at.button(key="release_go").click().run()
    assert not at.exception, at.exception
    assert any("Released 1 item(s)" in s.value for s in at.success)
    assert submissions.get_submission(conn, ids[0])["status"] == "released"
    locked = conn.execute("SELECT review_version FROM release_items WHERE submission_id = ?", [ids[0]]).fetchone()[0]
    assert locked == reviews.get_review(conn, ids[0])["version"]
    assert releases.releases_of(conn, c["assignment_id"])[0]["note"] == "week 1 feedback"
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Download CSV", "Download Canvas gradebook CSV", "Download feedback ZIP (Markdown per student)"]
    # Nothing left to release: the button is disabled until another approval, and no gate is red
    # for it (issue 11 item 13: a red "Something to release" right after a release).
    assert at.button(key="release_go").disabled
    assert not [line for line in gate_lines(at) if line.startswith(":red[")]
    assert any("Nothing waits for release: every approved item is released" in i.value for i in at.info)
    # The note belongs to that release: the field is empty for the next one.
    assert at.text_input(key="release_note").value == ""
    history = at.dataframe[0].value
    assert list(history.columns) == ["Release", "Released at", "Released by", "Items", "Note"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", history["Released at"][0])
    assert history["Note"][0] == "week 1 feedback"


def test_released_count_matches_the_export_after_editing_a_released_item(app_test, conn):
    """Issue 11 item 13: after an edit of a released item the page said "Released 25" while the
    export held 26 (the locked versions)."""
    from core.export import released as export
    from core.signoff import release

    c, ids = seed(conn, attention=False)
    actions.open_item(conn, ids[1], actor=Actor("ann", role="admin"))
    actions.approve(conn, ids[1], version=1, actor=Actor("ann", role="admin"))
    release.release(conn, c["assignment_id"], actor=Actor("ann", role="admin"))
    r = reviews.get_review(conn, ids[1])
    actions.save_edit(conn, ids[1], version=r["version"], scores=dict(SCORES, clarity=0), comment=r["comment"],
                      reasons=["too_lenient"], actor=Actor("ann", role="admin"))
    at = release_page(app_test, c)
    assert not at.exception, at.exception
    shown = {m.label: m.value for m in at.metric}["Released"]
    exported = export.export(conn, c["course_id"], c["assignment_id"], fmt="csv", actor=Actor("test", role="admin")).summary["items"]
    assert shown == str(exported) == "2"
    assert any("changed after their release" in cap.value for cap in at.caption)


def test_release_is_bound_to_the_count_on_the_button(conn):
    """A colleague approves one more between drawing and clicking: nothing is released."""
    import pytest

    from core.errors import ConflictError
    from core.signoff import release

    c, ids = seed(conn, attention=False)
    actions.open_item(conn, ids[1], actor=Actor("bob", role="admin"))
    actions.approve(conn, ids[1], version=1, actor=Actor("bob", role="admin"))
    with pytest.raises(ConflictError, match="changed from 1 to 2"):
        release.release(conn, c["assignment_id"], actor=Actor("ann", role="admin"), expected=1)
    assert not releases.releases_of(conn, c["assignment_id"])


def test_the_exports_right_after_a_release_carry_its_students_links(app_test, conn):
    """The Release page keeps the links its release made for this session's downloads; the
    files made before (and after leaving) say how to get new ones."""
    import csv
    import io

    from core.export import released as export
    from student_support import classroom

    c = classroom(conn)                      # week 1 released already, by the command line's hand
    f.draft(conn, c["sam2"], {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 2,
                              "clarity": 2})
    from student_support import approve

    approve(conn, c["sam2"], c["teacher"])
    at = app_test("pages/release.py")
    at.session_state["course_id"], at.session_state["assignment_id"] = c["course_id"], c["week2"]
    at.run()
    next(b for b in at.button if b.label.startswith("Release 1 approved")).click().run()
    assert not at.exception
    assert any("private links of the release you just made (1)" in x.value for x in at.caption)
    kept = at.session_state["release_student_links"]
    assert kept["assignment"] == c["week2"] and list(kept["links"]) == [c["sam2"]]
    data = export.export(conn, c["course_id"], c["week2"], fmt="csv", actor=c["teacher"], links=kept["links"]).data
    row = next(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert row["student_link"] == kept["links"][c["sam2"]] and "/s/" in row["student_link"]
    at.session_state["assignment_id"] = c["week1"]           # released before this session: no links kept
    at.session_state["_pick_pending"] = True                  # as _common.select() moves the sidebar's picker
    at.run()
    assert any("files made right after a release" in x.value for x in at.caption)
