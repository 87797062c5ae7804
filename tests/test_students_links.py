"""Students' private links (issue 26): minted at release in its transaction, 256 random bits
stored only hashed, revocable, expiring; /s/<token> exchanges a live one for the HttpOnly
student cookie and says plainly why another opens nothing; failed tries are limited per address."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from datetime import datetime, timedelta, timezone

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import factories as f
from core.cli import main
from core.errors import Forbidden, GateError
from core.export import released as export
from core.signoff import release
from core.students import links, sessions
from core.text import escape_commonmark
from core.web import server
from db import student_links as links_db
from student_support import approve, classroom, token_of
from stored import stored_anywhere


@pytest.fixture
def web():
    with TestClient(Starlette(routes=server.routes()), follow_redirects=False) as c:
        yield c


def _stored_anywhere(conn, secret: str) -> list[str]:
    """Tables with a text cell holding `secret` (tests/stored.py: on SQLite or PostgreSQL)."""
    return stored_anywhere(conn, secret)


def test_a_release_mints_a_256_bit_link_per_released_item_and_stores_only_its_hash(conn):
    c = classroom(conn)
    minted = c["release"]["links"]
    assert sorted(m["submission_id"] for m in minted) == sorted([c["sam1"], c["kim1"]])
    assert {m["student_id"] for m in minted} == {c["sam"], c["kim"]}
    for m in minted:
        token = token_of(m["url"])
        assert len(token) == 43 and m["url"] == f"/s/{token}"          # token_urlsafe(32); no public address set
        assert _stored_anywhere(conn, token) == []                     # not the token, anywhere
        row = conn.execute("SELECT * FROM student_links WHERE submission_id = ?", [m["submission_id"]]).fetchone()
        assert hashlib.sha256(token.encode()).hexdigest() in row
    expires = datetime.fromisoformat(minted[0]["expires"].replace("Z", "+00:00"))
    assert abs(expires - (datetime.now(timezone.utc) + timedelta(days=180))) < timedelta(minutes=1)


def test_links_expire_at_the_appeal_deadline_or_after_the_admins_number_of_days(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.school.example/")
    c = classroom(conn)
    admin = f.actor("admin")
    with pytest.raises(Forbidden):
        links.set_link_days(conn, 30, actor=c["teacher"])
    with pytest.raises(Exception, match="between 1 and 3650"):
        links.set_link_days(conn, 0, actor=admin)
    links.set_link_days(conn, 30, actor=admin)
    fresh = links.mint(conn, c["course_id"], c["week1"], actor=c["teacher"])
    assert fresh[0]["url"].startswith("https://fairmark.school.example/s/")
    assert fresh[0]["expires"][:10] == (datetime.now(timezone.utc) + timedelta(days=30)).strftime("%Y-%m-%d")
    conn.execute("UPDATE assignments SET appeal_deadline = '2099-01-31T17:00:00Z' WHERE id = ?", [c["week1"]])
    assert {m["expires"] for m in links.mint(conn, c["course_id"], c["week1"], actor=c["teacher"])} == {
        "2099-01-31T17:00:00.000000Z"}
    conn.execute("UPDATE assignments SET appeal_deadline = '2001-01-31T17:00:00Z' WHERE id = ?", [c["week1"]])
    past = links.mint(conn, c["course_id"], c["week1"], actor=c["teacher"])   # a deadline gone: the days
    assert past[0]["expires"][:4] == str((datetime.now(timezone.utc) + timedelta(days=30)).year)


def test_minting_is_inside_the_releases_transaction(conn, monkeypatch):
    course = f.course(conn)
    teacher = f.actor()
    sid = f.submission(conn, course["assignment_id"], f.student(conn, course["course_id"]))
    f.draft(conn, sid, {"concept_understanding": 2, "real_world_application": 2, "reflection_depth": 2,
                        "clarity": 2})
    approve(conn, sid, teacher)

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(links_db, "insert_link", broken)
    with pytest.raises(RuntimeError):
        release.release(conn, course["assignment_id"], actor=teacher)
    assert conn.execute("SELECT COUNT(*) FROM releases").fetchone()[0] == 0       # no release without its links
    assert conn.execute("SELECT status FROM submissions WHERE id = ?", [sid]).fetchone()[0] == "approved"


def test_opening_a_link_sets_the_student_cookie_and_sends_the_token_out_of_the_address(conn, web):
    c = classroom(conn)
    r = web.get(c["links"][c["sam1"]], headers={"Sec-Fetch-Site": "cross-site"})   # from an e-mail, the LMS
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert r.headers["referrer-policy"] == "no-referrer" and r.headers["cache-control"] == "no-store"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(sessions.COOKIE + "=") and "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    assert "secure" not in cookie.lower() and "Path=/" in cookie                   # plain http on this machine
    session_token = r.cookies.get(sessions.COOKIE)
    assert session_token != token_of(c["links"][c["sam1"]]) and _stored_anywhere(conn, session_token) == []
    me = sessions.resume(conn, session_token)
    assert (me.role, me.student_id, me.assignment_id, me.courses, me.via) == (
        "student", c["sam"], c["week1"], {c["course_id"]: False}, "link")


def test_the_cookie_is_secure_when_fairmark_is_served_over_https(conn, web, monkeypatch):
    c = classroom(conn)
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.school.example")
    r = web.get(c["links"][c["sam1"]])
    assert r.status_code == 303 and "secure" in r.headers["set-cookie"].lower()


def test_a_revoked_link_says_so_and_its_cookie_stops_working(conn, web, capsys):
    c = classroom(conn)
    old = web.get(c["links"][c["sam1"]]).cookies.get(sessions.COOKIE)
    assert main(["appeals", "links", "--course", "Biology", "--assignment", "Week 1"]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert sorted(printed["links"][0]) == ["expires", "student_id", "submission_id", "url"]
    assert {m["submission_id"] for m in printed["links"]} == {c["sam1"], c["kim1"]}
    r = web.get(c["links"][c["sam1"]])
    assert r.status_code == 410 and "replaced by a newer one" in r.text and "Ask your teacher" in r.text
    assert "set-cookie" not in r.headers
    assert sessions.resume(conn, old) is None                                  # the old link's cookie too
    new = next(m["url"] for m in printed["links"] if m["submission_id"] == c["sam1"])
    assert web.get(new).status_code == 303


def test_an_expired_link_says_so_and_its_cookie_stops_working(conn, web):
    c = classroom(conn)
    cookie = web.get(c["links"][c["sam1"]]).cookies.get(sessions.COOKIE)
    conn.execute("UPDATE student_links SET expires_at = '2001-01-01T00:00:00.000000Z'")
    r = web.get(c["links"][c["sam1"]])
    assert r.status_code == 410 and "has expired" in r.text and "Ask your teacher" in r.text
    assert sessions.resume(conn, cookie) is None


def test_an_unknown_link_tells_nothing_and_too_many_tries_wait(conn, web):
    c = classroom(conn)
    bodies = {web.get(f"/s/{'x' * 43}").text, web.get("/s/short").text}
    assert len(bodies) == 1 and "does not open anything" in bodies.pop()        # the same page, whatever was tried
    for _ in range(links.MAX_TRIES - 2):
        assert web.get(f"/s/{'y' * 43}").status_code == 404
    r = web.get(c["links"][c["sam1"]])                                         # even a good link, now
    assert r.status_code == 429 and "Too many tries" in r.text and "Wait 15 minutes" in r.text
    assert r.headers["retry-after"] == "900" and "set-cookie" not in r.headers
    other = links.open_link(conn, token_of(c["links"][c["sam1"]]), client="198.51.100.7")   # another address
    assert sessions.resume(conn, other.token).student_id == c["sam"]


def test_appeals_links_refuses_with_a_clear_error_and_changes_nothing(conn, capsys):
    c = classroom(conn)
    before = conn.execute("SELECT COUNT(*), COUNT(revoked_at) FROM student_links").fetchone()
    assert main(["appeals", "links", "--course", "Biology", "--assignment", "Week 2"]) == 2
    assert "nothing is released" in json.loads(capsys.readouterr().out.strip().splitlines()[-1])["error"]
    ta = f.user(conn, "tom", "ta", courses=[c["course_id"]])
    with pytest.raises(Forbidden):
        links.mint(conn, c["course_id"], c["week1"], actor=ta)
    with pytest.raises(GateError):
        links.mint(conn, c["course_id"], c["week2"], actor=c["teacher"])
    assert conn.execute("SELECT COUNT(*), COUNT(revoked_at) FROM student_links").fetchone() == before


def _csv(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


def test_the_releases_exports_carry_its_links_and_a_later_export_says_how_to_get_new_ones(conn):
    c = classroom(conn)
    teacher, urls = c["teacher"], c["links"]
    rows = _csv(export.export(conn, c["course_id"], c["week1"], fmt="csv", actor=teacher, links=urls).data)
    assert {r["student_link"] for r in rows} == {urls[c["sam1"]], urls[c["kim1"]]}
    canvas = list(csv.reader(io.StringIO(export.export(conn, c["course_id"], c["week1"], fmt="canvas", actor=teacher,
                                                       links=urls).data.decode())))
    assert canvas[0][-1] == export.LINK_COLUMN and {r[-1] for r in canvas[2:]} == {urls[c["sam1"]], urls[c["kim1"]]}
    with zipfile.ZipFile(io.BytesIO(export.export(conn, c["course_id"], c["week1"], fmt="zip", actor=teacher,
                                                  links=urls).data)) as zf:
        texts = [zf.read(n).decode() for n in zf.namelist()]
    # a bare path (no public address here) is escaped like any text of the file: a "_" in the token is "\_"
    assert sum(f"Your feedback page in FairMark: {escape_commonmark(urls[c['sam1']])}" in t for t in texts) == 1
    later = _csv(export.export(conn, c["course_id"], c["week1"], fmt="csv", actor=teacher).data)
    assert {r["student_link"] for r in later} == {export.NO_LINK} and "appeals links" in export.NO_LINK
    fresh = export.export(conn, c["course_id"], c["week1"], fmt="csv", actor=teacher, new_links=True)
    assert fresh.summary["links"] == 2
    new = {r["student_link"] for r in _csv(fresh.data)}
    assert new.isdisjoint(urls.values()) and all(u.startswith("/s/") for u in new)
    assert conn.execute("SELECT COUNT(*) FROM student_links WHERE revoked_at IS NULL").fetchone()[0] == 2


def test_failed_tries_are_kept_only_while_they_count(conn):
    for _ in range(3):
        with pytest.raises(links.LinkRefused):
            links.open_link(conn, "n" * 43, client="203.0.113.5")
    rows = conn.execute("SELECT client_hash FROM student_link_tries").fetchall()
    assert len(rows) == 3 and "203.0.113.5" not in str(rows)                 # the address only hashed
    conn.execute("UPDATE student_link_tries SET at = '2001-01-01T00:00:00.000000Z'")
    c = classroom(conn)
    links.open_link(conn, token_of(c["links"][c["sam1"]]), client="198.51.100.1")   # any later look-up
    assert conn.execute("SELECT COUNT(*) FROM student_link_tries").fetchone()[0] == 0


def test_a_whole_address_is_a_link_in_the_markdown(conn, monkeypatch):
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.school.example")
    c = classroom(conn)
    url = c["links"][c["sam1"]]
    with zipfile.ZipFile(io.BytesIO(export.export(conn, c["course_id"], c["week1"], fmt="zip", actor=c["teacher"],
                                                  links=c["links"]).data)) as zf:
        texts = [zf.read(n).decode() for n in zf.namelist()]
    assert url.startswith("https://fairmark.school.example/s/")
    assert sum(f"Your feedback page in FairMark: <{url}>" in t for t in texts) == 1       # an autolink, unescaped


def test_a_refused_links_page_speaks_the_browsers_language(conn, web):
    """The page of an expired link in Swedish, of too many tries in Russian (title, sentence and
    the page's lang), and in English for a browser that asks for neither."""
    c = classroom(conn)
    conn.execute("UPDATE student_links SET expires_at = '2001-01-01T00:00:00.000000Z'")
    r = web.get(c["links"][c["sam1"]], headers={"Accept-Language": "sv-SE,sv;q=0.9,en;q=0.8"})
    assert r.status_code == 410 and "<html lang='sv'>" in r.text
    assert "Den här länken har gått ut" in r.text and "has expired" not in r.text and "Ask your teacher" not in r.text
    r = web.get(c["links"][c["sam1"]], headers={"Accept-Language": "de-DE"})
    assert "<html lang='en'>" in r.text and "has expired" in r.text
    for _ in range(links.MAX_TRIES):
        web.get(f"/s/{'y' * 43}")
    r = web.get(c["links"][c["sam1"]], headers={"Accept-Language": "ru"})
    assert r.status_code == 429 and "<html lang='ru'>" in r.text and "Слишком много попыток" in r.text
    assert "Too many tries" not in r.text and "Wait" not in r.text
