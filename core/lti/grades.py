"""Assignment and Grade Services: a release's results into the LMS gradebook.

Only what core.signoff.release.release released is ever sent: `post_released` is called after
a release has committed, with the ids it released, and reads each one's locked version from
release_items (the teacher's approved scores and comment, never a draft). Each post carries the
rubric total as scoreGiven with the rubric's maximum as scoreMaximum, the released comment,
activityProgress Completed and gradingProgress FullyGraded, the student's LMS user id and the
release's time.

Exactly once: one passback row per released version (db.lti_grades.queue; UNIQUE), claimed
before its request and marked posted after it, so a second release, a retry, the server's
automatic retry (`retry_due`, every minute) or `lti push` never sends a version that reached the
LMS, whichever process sends it. A failure is kept with its reason and retried with backoff (1
minute, doubling, at most 6 hours) by the server on its own; it never undoes the release. Every post, sent or failed, is in the audit log.

The line item is the launch's `lineitem` when the resource link has one, else FairMark creates
one through the `lineitems` URL, once: the creation is claimed in the database first and its
URL stored the moment the LMS answers (a creation a crashed process left unfinished is first
looked up by its resourceId, so a retry does not make a second column).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit, urlunsplit

import httpx

from core.accounts import access
from core.accounts.access import Actor
from core.errors import NotFound
from core.language.interface import Message
from core.lti import links, tokens
from core.lti.tokens import ServiceError
from core.signoff import anchored_notes
from core.text import format_timestamp
from db import audit, courses, now, write_transaction
from db import lti as lti_db
from db import lti_grades as grades_db

SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
STALE = timedelta(minutes=15)        # a post or creation claimed this long ago by a process that died
FIRST_WAIT = timedelta(minutes=1)    # the wait after a first failure, doubled each time ...
LONGEST_WAIT = timedelta(hours=6)    # ... up to this


def _link_of(conn, assignment_id: int) -> dict | None:
    return links.for_assignment(conn, assignment_id)


def post_released(conn, assignment_id: int, submission_ids: list[int], *, actor: Actor,
                  links: dict | None = None) -> dict:
    """Queue the released versions of `submission_ids` and send what is due for the assignment
    (these and earlier failures whose next try has come). Called by core.signoff.release.release
    after the release committed, with the private links it minted ({submission id: url}): a
    grade sent now carries its student's link in the comment; one sent later (a retry) cannot
    (only the link's hash is kept) and says to open FairMark from the LMS instead (`comment_of`).
    Returns `_summary` ({"linked": False} when the assignment is not linked to an LMS line item)."""
    access.check(conn, actor, "release", assignment=assignment_id)
    link = _link_of(conn, assignment_id)
    if link is None:
        return {"linked": False}
    with write_transaction(conn):
        grades_db.queue(conn, assignment_id, submission_ids, at=now())
    return _send(conn, link, assignment_id, actor=actor, due_by=now(), urls=links)


def retry(conn, course_id: int, assignment_id: int, *, actor: Actor) -> dict:
    """Send every grade of the assignment that has not reached the LMS, now (whatever its next
    try): `python -m core lti push` and the Release page's button."""
    access.check(conn, actor, "release", course=course_id, assignment=assignment_id)
    if courses.get_assignment(conn, assignment_id)["course_id"] != course_id:
        raise NotFound(Message("assignment {assignment_id} is not in course {course_id}", assignment_id=assignment_id,
                               course_id=course_id))
    link = _link_of(conn, assignment_id)
    waiting = grades_db.to_send(conn, assignment_id, due_by=None, stale_before=_iso(_now() - STALE))
    if link is None:
        return {"linked": False, "posted": 0, "failed": [], "waiting": len(waiting)}
    return _send(conn, link, assignment_id, actor=actor, due_by=None)


def retry_due(conn, *, now: datetime | None = None) -> dict:
    """Send every grade of every assignment whose next try has come (the server's automatic
    retry, core.web.server.lifespan, once a minute): the same rules as a push — only released
    versions, each at most once at the LMS, backoff and reason kept on failure, every post in the
    audit log — done by FairMark itself (access.automatic: "FairMark (automatic retry)"). An LMS
    that fails a grade (no answer, 5xx, its token endpoint) is not asked again this round, so a
    dead LMS costs one timeout per platform, not one per student. Nothing is read beyond one
    cheap query while no LMS platform is registered. `now` (UTC) is the round's time.
    Returns {"platforms", "posted", "failed", "assignments"}."""
    actor = access.automatic("lti_retry")
    access.require(actor, "lti_retry")
    if not lti_db.has_platform(conn):
        return {"platforms": False, "posted": 0, "failed": 0, "assignments": 0}
    at = now or _now()
    posted = failed = 0
    down: dict[int, str] = {}              # platform id -> why it is not asked again this round
    due = grades_db.due_assignments(conn, due_by=_iso(at), stale_before=_iso(at - STALE))
    for assignment_id in due:
        link = _link_of(conn, assignment_id)
        if link is None:                   # no longer linked: it waits, as `lti push` would say
            continue
        out = _send(conn, link, assignment_id, actor=actor, due_by=_iso(at), at=at, down=down)
        posted, failed = posted + out["posted"], failed + len(out["failed"])
    return {"platforms": True, "posted": posted, "failed": failed, "assignments": len(due)}


class _Busy(ServiceError):
    """Another process is creating the assignment's line item: about this assignment only."""


def _send(conn, link: dict, assignment_id: int, *, actor: Actor, due_by: str | None, at: datetime | None = None,
          down: dict | None = None, urls: dict | None = None) -> dict:
    """Send the assignment's due grades. `down` ({platform id: reason}) is shared by the
    assignments of one round: an LMS that failed a grade is not asked again in it."""
    at = at or _now()
    stale, stamp, platform_id = _iso(at - STALE), _iso(at), link["platform"]["id"]
    down = {} if down is None else down
    posted, failed, held = 0, [], None     # held: why the rest of this assignment is not tried
    for pid in grades_db.to_send(conn, assignment_id, due_by=due_by, stale_before=stale):
        with write_transaction(conn):
            mine = grades_db.claim(conn, pid, at=stamp, due_by=due_by, stale_before=stale)
        if not mine:
            continue                       # another process sends it, or it was sent meanwhile
        item = grades_db.item(conn, pid)
        if held or platform_id in down:    # the LMS failed a grade before: not tried, not waited for
            failed.append(_failed(conn, item, held or down[platform_id], actor=actor, at=at))
            continue
        try:
            url = _post(conn, link, item, (urls or {}).get(item["submission_id"]))
        except ServiceError as e:
            failed.append(_failed(conn, item, str(e), actor=actor, at=at))
            if not e.one_item:
                held = f"not sent, because the LMS failed the grade before it: {e}"
                if e.retry and not isinstance(e, _Busy):   # the LMS itself, not this link: every assignment
                    down[platform_id] = held
        else:
            with write_transaction(conn):
                grades_db.mark_posted(conn, pid, at=stamp, line_item_url=url)
                audit(conn, actor=actor, action="lti_post", entity="lti_passbacks", entity_id=pid,
                      submission_id=item["submission_id"], after={"status": "posted", "version": item["review_version"],
                                                                  "line_item": url})
            posted += 1
    return _summary(conn, assignment_id, posted=posted, failed=failed)


def _failed(conn, item: dict, error: str, *, actor: Actor, at: datetime) -> dict:
    wait = min(FIRST_WAIT * (2 ** item["attempts"]), LONGEST_WAIT)
    next_try = _iso(at + wait)
    with write_transaction(conn):
        grades_db.mark_failed(conn, item["id"], error=error, next_try=next_try)
        audit(conn, actor=actor, action="lti_post", entity="lti_passbacks", entity_id=item["id"],
              submission_id=item["submission_id"],
              after={"status": "failed", "version": item["review_version"], "next_try": next_try}, reason=error)
    return {"submission_id": item["submission_id"], "error": error, "next_try": next_try}


def _summary(conn, assignment_id: int, *, posted: int, failed: list[dict]) -> dict:
    rows = grades_db.status_of(conn, assignment_id)
    return {"linked": True, "posted": posted, "failed": failed,
            "sent": sum(r["status"] == "posted" for r in rows),
            "waiting": sum(r["status"] != "posted" for r in rows)}


def pending(conn) -> list[dict]:
    """The grades of every course that have not reached the LMS yet (`lti status`'s "pending"):
    {course, assignment, submission_id, status ("waiting" or "failed"), tries, why, next_try}.
    Called after platforms.status's check."""
    return [{"course": r["course"], "assignment": r["assignment"], "submission_id": r["submission_id"],
             "status": "failed" if r["status"] == "failed" else "waiting", "tries": r["attempts"],
             "why": r["last_error"] or "", "next_try": r["next_try"] or ""} for r in grades_db.waiting(conn)]


def release_view_of(conn, assignment_id: int, *, names: bool) -> dict | None:
    """What the Release page says about the LMS, read after the page's check (release_page):
    None when nothing of the assignment was sent to an LMS; else {"sent", "waiting", "problems":
    [{"student", "why", "tries", "next_try"}]} (the student's pseudonym unless `names`)."""
    rows = grades_db.status_of(conn, assignment_id)
    if not rows:
        return None
    problems = [{"student": r["name"] if names else r["pseudonym"], "why": r["last_error"], "tries": r["attempts"],
                 "next_try": format_timestamp(r["next_try"])} for r in rows if r["status"] == "failed"]
    return {"sent": sum(r["status"] == "posted" for r in rows), "waiting": sum(r["status"] != "posted" for r in rows),
            "problems": problems}


# --- one post -----------------------------------------------------------------------------
FROM_LMS = "See your whole feedback in FairMark: open FairMark from this assignment in the LMS."


def comment_of(comment: str, page_url: str | None, notes: str = "") -> str:
    r"""The comment the LMS shows: the released comment, the released notes on the text (when
    there are any), then the student's private link (when this post is the release's own), else
    how to reach the feedback page from the LMS.

    >>> comment_of("Well done.", "https://fm.example/s/abc")
    'Well done.\n\nYour feedback page in FairMark: https://fm.example/s/abc'
    """
    whole = bool(page_url) and page_url.startswith(("https://", "http://"))   # a bare path: no public address set
    noted = f"Notes on your text:\n{notes}\n\n" if notes else ""
    return f"{comment}\n\n{noted}" + (f"Your feedback page in FairMark: {page_url}" if whole else FROM_LMS)


def score_of(conn, item: dict, page_url: str | None = None) -> dict:
    """The score document of one released version (what the LMS receives)."""
    rubric = courses.get_rubric(conn, item["rubric_id"])
    notes = anchored_notes.released_for(conn, item["submission_id"], {c.key: c.title for c in rubric.criteria},
                                        item.get("release_id"))   # of the release this post sends
    return {"userId": item["lms_user_id"], "scoreGiven": rubric.total(grades_db.scores_of(item)),
            "scoreMaximum": rubric.max_total,
            "comment": comment_of(item["comment"], page_url, anchored_notes.as_text(notes)),
            "activityProgress": "Completed",
            "gradingProgress": "FullyGraded", "timestamp": item["released_at"]}


def _post(conn, link: dict, item: dict, page_url: str | None = None) -> str:
    if not item["lms_user_id"]:
        raise ServiceError(Message("this student is not on the LMS course's roster FairMark knows (sync the roster: "
                                   "python -m core lti roster, or an instructor's launch from the LMS), so the LMS "
                                   "cannot be told whose grade it is"), one_item=True)
    if SCORE not in link.get("ags_scopes", []):
        raise ServiceError(Message("the LMS did not give FairMark the grade service for this assignment's link; "
                                   "enable \"Assignment and Grade Services\" for the tool in the LMS, then launch it "
                                   "again"), retry=False)
    url = _line_item(conn, link, item["assignment_id"])
    token = tokens.access_token(conn, link["platform"], [SCORE])
    score = score_of(conn, item, page_url)
    response = _call("post", _scores_url(url), token, json=score, content_type=SCORE_TYPE)
    if response.status_code >= 300:
        raise ServiceError(_refusal(response, "the grade"), retry=response.status_code >= 500,
                           one_item=response.status_code in (400, 409, 422))
    return url


def _line_item(conn, link: dict, assignment_id: int) -> str:
    """The URL of the assignment's line item: the launch's, the one FairMark created, or a new one."""
    platform_id = link["platform"]["id"]
    if link.get("lineitem_url"):
        return link["lineitem_url"]
    known = grades_db.line_item(conn, assignment_id, platform_id)
    if known and known["url"]:
        return known["url"]
    if not link.get("lineitems_url") or LINEITEM not in link.get("ags_scopes", []):
        raise ServiceError(Message("the LMS gave this assignment no gradebook column and does not let FairMark "
                                   "create one; create the assignment's column in the LMS (or enable line item "
                                   "management for the tool), then launch it again"), retry=False)
    with write_transaction(conn):
        mine = grades_db.claim_line_item(conn, assignment_id, platform_id, at=now(), stale_before=_iso(_now() - STALE))
    if not mine:
        raise _Busy(Message("another FairMark process is creating this assignment's gradebook column; FairMark "
                            "tries again shortly"))
    try:
        url = _create_line_item(conn, link, assignment_id, look_first=known is not None)
    except ServiceError:
        with write_transaction(conn):  # the next try takes the claim and first looks for what the LMS may have made
            grades_db.drop_line_item_claim(conn, assignment_id, platform_id)
        raise
    with write_transaction(conn):      # stored before anything else can try to create it again
        grades_db.set_line_item(conn, assignment_id, platform_id, url, created=True, at=now())
    return url


def _create_line_item(conn, link: dict, assignment_id: int, *, look_first: bool) -> str:
    token = tokens.access_token(conn, link["platform"], [LINEITEM])
    resource = f"fairmark-assignment-{assignment_id}"
    url = _existing(link["lineitems_url"], resource, token) if look_first else None
    if url is None:
        assignment = courses.get_assignment(conn, assignment_id)
        body = {"label": assignment["title"], "scoreMaximum": courses.get_rubric(conn, assignment["rubric_id"]).max_total,
                "resourceId": resource, "tag": "fairmark"}
        response = _call("post", link["lineitems_url"], token, json=body, content_type=LINEITEM_TYPE)
        url = _json(response).get("id") if response.status_code < 300 else None
        if not isinstance(url, str) or not url:
            raise ServiceError(_refusal(response, "the new gradebook column"), retry=response.status_code >= 500)
    return url


def _existing(lineitems_url: str, resource: str, token: str) -> str | None:
    """The line item a crashed creation may have made (found by its resourceId), or None."""
    parts = urlsplit(lineitems_url)
    query = "&".join(q for q in (parts.query, f"resource_id={resource}") if q)
    response = _call("get", urlunsplit(parts._replace(query=query)), token, accept=LINEITEMS_TYPE)
    found = _json(response, default=[]) if response.status_code < 300 else []
    ids = [i.get("id") for i in found if isinstance(i, dict) and i.get("resourceId") == resource] if isinstance(
        found, list) else []
    return ids[0] if ids and isinstance(ids[0], str) else None


def _scores_url(lineitem_url: str) -> str:
    """The line item's scores endpoint: `/scores` after its path, its query kept (Moodle's
    line item URLs carry one).

    >>> _scores_url("https://moodle.example/mod/lti/services.php/2/lineitems/3/lineitem?type_id=1")
    'https://moodle.example/mod/lti/services.php/2/lineitems/3/lineitem/scores?type_id=1'
    >>> _scores_url("https://canvas.example/api/lti/courses/1/line_items/7/")
    'https://canvas.example/api/lti/courses/1/line_items/7/scores'
    """
    parts = urlsplit(lineitem_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def _call(method: str, url: str, token: str, *, json=None, content_type: str = "", accept: str = "") -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    if content_type:
        headers["Content-Type"] = content_type
    if accept:
        headers["Accept"] = accept
    try:
        return httpx.request(method, url, json=json, headers=headers, timeout=tokens.TIMEOUT)
    except httpx.TimeoutException as e:
        raise ServiceError(Message("the LMS did not answer in time; FairMark tries again later")) from e
    except httpx.HTTPError as e:
        raise ServiceError(Message("FairMark could not reach the LMS ({error}); it tries again later",
                                   error=type(e).__name__)) from e


def _refusal(response: httpx.Response, what: str) -> str:
    code = response.status_code
    if code == 401:
        tokens.forget()               # a token the LMS no longer accepts: ask for a new one next time
        return f"the LMS did not accept FairMark's access for {what} (401); FairMark asks for a new one and tries again"
    if code == 403:
        return f"the LMS refused {what} (403): check that the tool's grade services are enabled in the LMS"
    if code == 404:
        return f"the LMS no longer has this assignment's gradebook column (404 for {what}); launch the assignment " \
               "from the LMS again"
    if code >= 500:
        return f"the LMS had a problem receiving {what} ({code}); FairMark tries again later"
    return f"the LMS refused {what} as invalid ({code}); tell the admin (the audit log has the details)"


def _json(response: httpx.Response, default=None):
    try:
        return response.json()
    except ValueError:
        return {} if default is None else default


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
