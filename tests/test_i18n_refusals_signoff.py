"""The sign-off's and the moderation's refusals, the edit conflict's message and the review history's
reasons and changes: English as before on the command line and in tests, Swedish and Russian on a page
(core Messages, catalogues/sv/refusals_signoff.po and ru/refusals_signoff.po)."""
from __future__ import annotations

import pytest

import factories as f
from core.accounts.access import Actor
from core.errors import ConflictError, FairMarkError, GateError
from core.language.interface import Interface, Message
from core.moderation import sample as moderation_sample
from core.signoff import actions, labels, release
from db import reviews
from signoff_items import HIGH, course, make_item  # noqa: F401  (course: a fixture)

ANN, BOB = Actor("ann", role="admin"), Actor("bob", role="admin")
SV, RU = Interface("sv"), Interface("ru")


def _stale_approval(conn, course, comment="Bob's words."):
    """Ann opened version 1; Bob saved version 2 (on 4 March 2020); Ann approves version 1."""
    from core.accounts import identity as accounts

    accounts.add_user(conn, username="bob", role="instructor", password=f.PASSWORD, display_name="Bob Brown",
                      actor=f.actor("test setup"))
    sid = make_item(conn, course)
    actions.open_item(conn, sid, actor=ANN)
    actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment=comment, reasons=["tone"],
                      actor=BOB)
    conn.execute("UPDATE audit_log SET at = '2020-03-04T10:05:00Z' WHERE action = 'edit'")
    with pytest.raises(ConflictError) as refused:
        actions.approve(conn, sid, version=1, actor=ANN)
    return sid, refused.value


def test_a_stale_approval_reads_as_before_in_english_and_is_said_in_swedish_and_russian(conn, course):
    sid, err = _stale_approval(conn, course)
    draft = reviews.item(conn, sid)["draft"]["comment"]
    assert str(err) == (
        "Bob Brown saved this item on 4 March 2020 at 10:05 UTC after you opened it, so your change was not saved. "
        "You opened version 1; the latest is version 2 (the one named at the top). What they changed:\n"
        f"- Comment: “{labels.shorten(draft)}” → “Bob's words.”\n"
        "- Reasons: — → Tone\n"
        "- Clarity: 3 → 2\n"
        "Load the latest version, then make your change again.")
    assert isinstance(err.args[0], Message)
    sv = SV.said(err)
    assert sv.startswith("Bob Brown sparade arbetet den 4 mars 2020 kl. 10:05 UTC efter att du öppnade det, "
                         "så din ändring sparades inte. Du öppnade version 1; den senaste är version 2")
    assert "- Kommentar: “" in sv and "→ “Bob's words.”" in sv          # the comment quoted as written
    assert "- Clarity: 3 → 2" in sv                                    # the rubric's title as the rubric has it
    assert sv.endswith("Hämta den senaste versionen och gör sedan din ändring igen.")
    assert "- Skäl: — → Tonen" in sv and "saved" not in sv and "Reasons" not in sv
    ru = RU.said(err)
    assert ru.startswith("Работу сохранил(а) Bob Brown 4 марта 2020 в 10:05 UTC — уже после того, как вы её открыли")
    assert "Слишком" not in ru and "Тон" in ru and ru.endswith("Загрузите последнюю версию и внесите изменение заново.")


def test_a_conflict_hides_the_students_name_in_every_language(conn, course, monkeypatch):
    from core.accounts import access

    sid = make_item(conn, course)
    student = reviews.item(conn, sid)["student"]
    actions.open_item(conn, sid, actor=ANN)
    actions.save_edit(conn, sid, version=1, scores=dict(HIGH, clarity=2), comment=f"{student['name']}, well done.",
                      reasons=["tone"], actor=BOB)
    monkeypatch.setattr(access, "sees_names", lambda actor, course_id: False)
    with pytest.raises(ConflictError) as refused:
        actions.approve(conn, sid, version=1, actor=ANN)
    for text in (str(refused.value), SV.said(refused.value), RU.said(refused.value)):
        assert student["name"] not in text and student["pseudonym"] in text


def test_the_changes_a_page_warns_about_are_said_in_the_readers_language(conn, course):
    sid, _ = _stale_approval(conn, course)
    said = actions.changed_since(conn, sid, 1, actor=ANN)
    assert said.startswith("Bob Brown saved this item on 4 March 2020 at 10:05 UTC after you opened it. You opened")
    assert SV.said(said).startswith("Bob Brown sparade arbetet den 4 mars 2020 kl. 10:05 UTC efter att du öppnade det.")
    assert SV.said(said).endswith("Du kan inte spara förrän du har hämtat den senaste versionen.")


def test_when_in_words_in_russian_uses_three_plural_forms():
    from datetime import datetime, timezone

    now = datetime(2026, 12, 1, 16, 30, tzinfo=timezone.utc)
    said = [RU.said(labels.when_words(t, now)) for t in ("2026-12-01T16:29:40Z", "2026-12-01T16:29:00Z",
                                                         "2026-12-01T16:27:00Z", "2026-12-01T16:25:00Z",
                                                         "2026-12-01T11:10:00Z")]
    assert said == ["только что", "1 минуту назад", "3 минуты назад", "5 минут назад", "5 часов назад"]
    assert SV.said(labels.when_words("2026-11-29T21:27:43Z", now)) == "den 29 november 2026 kl. 21:27 UTC"


def test_the_historys_reasons_and_changes_in_swedish_a_typed_reason_as_typed(conn, course):
    sid = make_item(conn, course)
    rv = actions.open_item(conn, sid, actor=ANN)
    rv = actions.save_edit(conn, sid, version=rv["version"], scores=dict(HIGH, clarity=1), comment=rv["comment"],
                           reasons=["too_lenient", "other"], note="Läs uppgiften igen", actor=ANN)
    rv = actions.approve(conn, sid, version=rv["version"], actor=ANN)
    rv = actions.back_to_review(conn, sid, version=rv["version"], actor=ANN)
    actions.reject(conn, sid, version=rv["version"], note="too lenient overall", actor=ANN)
    rows = labels.history_rows(reviews.history(conn, sid), course["rubric"])
    english = [(r["Action"], r["Reason"], r["Change"]) for r in rows]
    assert english[0][1] == "first opened; review created from the draft"
    assert english[1][1] == "Other (add a note), Too lenient: Läs uppgiften igen"
    assert "Reasons: — → Other (add a note), Too lenient" in english[1][2] and "Clarity: 3 → 1" in english[1][2]
    assert english[3][1] == "approved before release; back to review"
    assert english[4][1] == "too lenient overall"                                  # the teacher's words
    swedish = [(SV(r["Action"]), SV.said(r["Reason"]), SV.said(r["Change"])) for r in rows]
    assert swedish[0][1] == "öppnades första gången; granskningen skapades från utkastet"
    assert swedish[1][1] == "Annat (skriv en anteckning), För generöst: Läs uppgiften igen"
    assert "Clarity: 3 → 1" in swedish[1][2] and "Too lenient" not in swedish[1][2]
    assert swedish[3][1] == "godkänt före publicering; tillbaka till granskning"
    assert swedish[4][1] == "too lenient overall"                                  # typed: never translated
    assert "Avvisade" in swedish[4][2] and "Rejected" not in swedish[4][2]
    # Stored as English: the database keeps what the code wrote.
    assert [h["reason"] for h in reviews.history(conn, sid)][3] == "approved before release; back to review"


def test_a_teachers_note_that_looks_like_a_reason_of_another_action_stays_as_typed():
    assert labels.reason_label("first opened; review created from the draft", "reject") == \
        "first opened; review created from the draft"
    assert not isinstance(labels.reason_label("teacher chose draft 7", "reject"), Message)
    said = SV.said(labels.reason_label("teacher chose draft 7", "use_draft"))
    assert said == "läraren valde utkast 7"


def test_refusals_read_english_and_in_russian(conn, course):
    sid = make_item(conn, course)
    with pytest.raises(FairMarkError) as refused:
        actions.reject(conn, sid, version=1, note=" ", actor=ANN)
    assert str(refused.value) == "Say why you reject it: the note goes back to the queue with the item."
    assert RU.said(refused.value) == "Напишите, почему вы отклоняете работу: заметка вернётся в очередь вместе с ней."
    with pytest.raises(GateError) as refused:
        moderation_sample.draw(conn, course["assignment_id"], size=900, actor=ANN)
    assert str(refused.value) == "the moderation sample's size must be between 1 and 500, not 900"
    assert RU.said(refused.value) == "размер выборки для модерации должен быть от 1 до 500, а не 900"
    with pytest.raises(GateError) as refused:
        release.release(conn, course["assignment_id"], actor=ANN)
    assert SV.said(refused.value).startswith("inget att publicera: inget godkänt arbete väntar på publicering")


def test_a_release_refused_by_its_gates_names_each_gate_in_swedish(conn, course):
    ok = make_item(conn, course)
    make_item(conn, course, status="needs_attention", attention_reasons=["REVISE after 2 rounds"])
    actions.open_item(conn, ok, actor=ANN)
    actions.approve(conn, ok, version=1, actor=ANN)
    with pytest.raises(GateError) as refused:
        release.release(conn, course["assignment_id"], actor=ANN)
    assert str(refused.value) == ("release refused: No item needing attention left unreviewed — 1 item(s) needing "
                                  "attention still wait for a decision")
    sv = SV.said(refused.value)
    assert sv.startswith("publiceringen nekades: ") and "needing" not in sv and " — " in sv


def test_the_review_pages_history_in_swedish(app_test, conn, course):
    sid = make_item(conn, course)
    rv = actions.open_item(conn, sid, actor=ANN)
    rv = actions.save_edit(conn, sid, version=rv["version"], scores=dict(HIGH, clarity=2), comment=rv["comment"],
                           reasons=["too_lenient"], note="se uppgiften", actor=ANN)
    rv = actions.approve(conn, sid, version=rv["version"], actor=ANN)
    actions.back_to_review(conn, sid, version=rv["version"], actor=ANN)
    at = app_test("pages/review.py")
    at.context = {"locale": "sv-SE"}
    at.session_state["course_id"], at.session_state["assignment_id"] = course["course_id"], course["assignment_id"]
    at.session_state["review_item"] = sid
    at.run()
    assert not at.exception, at.exception
    history = next(d.value for d in at.dataframe if len(d.value.columns) == 5 and len(d.value) == 4)
    reasons, changes = list(history.iloc[:, 3]), list(history.iloc[:, 4])
    assert reasons == ["öppnades första gången; granskningen skapades från utkastet", "För generöst: se uppgiften",
                       "", "godkänt före publicering; tillbaka till granskning"]
    assert changes[1] == "Anteckning:  → se uppgiften; Skäl: — → För generöst; Version: 1 → 2; Clarity: 3 → 2"
    assert changes[3] == "Status: Godkända → Under granskning; Version: 3 → 4"
    assert not any("Reasons" in c or "Too lenient" in c for c in changes)
