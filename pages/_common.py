"""UI-side helpers shared by the pages: database handle, current selection, the page's
address (query parameters), small widgets, and showing user text safely.

This is the only place pages get the database and settings from, so tests can point the
whole app at a temporary SQLite file with the FAIRMARK_DB environment variable.

The address: `?course=&assignment=&item=&run=&lesson=` (ids) say what is on screen, so a
refresh or a shared link shows exactly that. A new browser session takes its selection from the
address once (`_apply_address`, which checks every id and follows an item, run or lesson to its
course and assignment); after that the session state is the source and every run writes the
address back (`set_address`, written when the page has run). Pages read the address only
through `address_value` and write it only through `set_address` (a page's links may carry
query parameters). All URL handling is here: an id the signed-in user may not open is dropped
like one that does not exist (core.courses.browse.locate).

Who is signed in: `actor()`, the Actor app.py's sign-in gate resolved for this run (a widget
callback, which runs before the script, and a fragment's auto-refresh resolve it again so an
expired session acts on nothing; they do not count as activity for the idle time).
"""
from __future__ import annotations

import contextlib
import threading

import streamlit as st

import db
from core.accounts import access
from core.accounts import identity as accounts
from core.courses import browse
from core.accounts.access import Actor
from core.errors import FairMarkError, NotSignedIn
from core.settings import Settings, load_settings
from core.text import escape_markdown
from core.language import SUPPORTED
from pages import _i18n, _signin
from pages._i18n import N_, t

ADDRESS_KEYS = ("course", "assignment", "item", "run", "lesson")
# The link's kinds and the roles, as the interface names them (translated where shown).
LINK_KINDS = {"course": N_("a course"), "assignment": N_("an assignment"), "item": N_("an item"), "run": N_("a run"),
              "lesson": N_("a lesson")}
ROLE_NAMES = {"admin": N_("admin"), "coordinator": N_("coordinator"), "instructor": N_("instructor"),
              "ta": N_("teaching assistant")}


def settings() -> Settings:
    return load_settings()


_shell = threading.local()


@contextlib.contextmanager
def shell():
    """app.py runs every page inside this, so a page can tell it was routed by app.py. When the
    page has run (or stopped), the address is written once with what it showed."""
    _shell.active, _shell.address, _shell.actor, _shell.names = True, {}, None, None
    try:
        yield
    finally:
        _shell.active = False
        if _shell.actor is not None:  # signed out: the address stays as the link gave it
            _write_address(_shell.address)
        _shell.actor = None


def set_address(**values) -> None:
    """What this run shows, for the address: course, assignment (the sidebar), item (Review),
    run (Assess), lesson (Lesson). None leaves a key out.

    Written at once as well, over the address's other keys: a page that ends with st.stop()
    can send nothing after it (Streamlit refuses every message once a stop is requested), so
    the write when the page has run never reaches the browser, and a refresh after an import
    into a new course went back to the old one."""
    address = getattr(_shell, "address", None)
    if address is not None:
        address.update({k: v for k, v in values.items() if k in ADDRESS_KEYS})
        current = {k: v for k, v in st.query_params.to_dict().items() if k in ADDRESS_KEYS and str(v).isdigit()}
        _write_address({**current, **address})


def _write_address(values: dict) -> None:
    wanted = {k: str(int(v)) for k, v in values.items() if v is not None}
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def address_value(key: str) -> int | None:
    """An id from the address as the browser sent it (None when absent or not a number)."""
    value = st.query_params.get(key, "")
    return int(value) if str(value).isdigit() else None


def _apply_address(conn, me: Actor) -> None:
    """A new session (a refresh, a shared link): select what the address names. An item, a run
    or a lesson decides the course (and the assignment); ids that do not exist, or that this
    user may not open, are dropped with a message (the same one: it says nothing about what
    exists)."""
    if st.session_state.get("_address_applied"):
        return
    st.session_state["_address_applied"] = True
    found: dict[str, tuple] = {}
    for kind in ADDRESS_KEYS:
        value = address_value(kind)
        if value is None:
            continue
        where = browse.locate(conn, kind, value, actor=me)
        if where is None:
            st.toast(t("The link names {what} that does not exist or that you have no access to; showing what "
                       "is there instead.", what=t(LINK_KINDS[kind])))
        else:
            found[kind] = where
    if not found:
        return
    # The most specific wins: item, then run, then lesson, then assignment, then course.
    kind = next(k for k in ("item", "run", "lesson", "assignment", "course") if k in found)
    cid, aid = found[kind]
    if kind == "course" or aid is None:
        aid = found["assignment"][1] if "assignment" in found and found["assignment"][0] == cid else None
    select(cid, aid)
    if "item" in found:
        st.session_state["review_item"] = address_value("item")
        st.session_state.pop("review_pos", None)
    if "run" in found and found["run"][0] == cid:
        st.session_state["assess_run"] = address_value("run")


def _ensure_shell() -> None:
    """Because the page files live in `pages/`, a freshly started server whose first request is
    a deep link (/review?item=5) runs that file in Streamlit's legacy multipage mode, without
    app.py: no sidebar, every file listed as a page. st.navigation switches that mode off for
    the process; until app.py has run once, do the same here and rerun through app.py."""
    if getattr(_shell, "active", False):
        return
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    st.rerun()


def get_db():
    """A connection for this script run (cheap; migrations run once per process)."""
    _ensure_shell()
    return connect()


def connect():
    """A connection for a widget callback (it runs before the script, outside the app shell)."""
    return db.connect(settings().db_path)


def md(text) -> str:
    """User text, or a message quoting it, as Markdown that shows exactly that text (line
    breaks kept). Use it for every label, caption, message, option or header with user text."""
    return escape_markdown(text).replace("\n", "  \n")


def person(name) -> str:
    """Who did a thing, as the app names people: the display name of the user name the audit
    log recorded ("e2e.teacher" -> "Ada Admin"); a name with no account ("command line (ann)",
    a background worker) as it is. Looked up once per run."""
    if not name:
        return ""
    names = getattr(_shell, "names", None) if getattr(_shell, "active", False) else None
    if names is None:
        names = accounts.display_names(connect(), actor=actor())
        if getattr(_shell, "active", False):
            _shell.names = names
    return names.get(str(name), str(name))


def know_people(names: dict) -> None:
    """The display names a page's view read with its data (user name -> display name):
    person() uses them for the rest of this run instead of reading them again."""
    if getattr(_shell, "active", False):
        _shell.names = dict(names)


def show_error(error) -> None:
    """A FairMarkError (or its message) as st.error: its message may quote names and titles."""
    st.error(md(_i18n.said(error)))   # core's Messages in the reader's language, other errors as they are


def sign_in(conn) -> Actor:
    """app.py's gate: the signed-in Actor for this run, else the sign-in form (and the page stops)."""
    me = _signin.current(conn)
    _signin.follow()  # after a sign-in or sign-out: the browser goes to the cookie's route
    _i18n.choose(conn, me)   # the user's own language, else the browser's (signed out: the browser's)
    if me is None:
        _signin.form(conn)
    st.session_state["_actor"] = me
    _shell.actor = me
    return me


def actor() -> Actor:
    """The signed-in user (core functions take it as `actor=`)."""
    if getattr(_shell, "active", False) and getattr(_shell, "actor", None) is not None:
        return _shell.actor
    # A widget callback or a fragment's auto-refresh (outside the app shell): check the session
    # again, without renewing its idle time (the full run after a click renews it; a tab left
    # alone with a live progress fragment must still time out).
    me = _signin.current(connect(), touch=False)
    if me is None:
        raise NotSignedIn(t("Your session has ended: sign in again."))
    return me


def refuse_unless(action: str, course_id: int | None = None) -> None:
    """Stop the page with core's refusal when the signed-in role may not do `action` at all
    (a page opened by its address; the menu does not list it)."""
    try:
        access.require(actor(), action, course_id=course_id)
    except access.Forbidden as e:
        show_error(e)
        st.stop()


def course_id() -> int | None:
    return st.session_state.get("course_id")


def assignment_id() -> int | None:
    return st.session_state.get("assignment_id")


def scope() -> str:
    """Dashboard scope chosen in the sidebar: 'assignment', 'course' or 'all'."""
    return st.session_state.get("scope", "assignment")


def select(course_id: int | None, assignment_id: int | None) -> None:
    """Make this course and assignment the current selection (e.g. after an import). The sidebar
    applies it to its pickers on the next run: a keyed widget keeps its own value otherwise, and
    its key cannot be written once it has been drawn in this run."""
    st.session_state["course_id"] = course_id
    st.session_state["assignment_id"] = assignment_id
    st.session_state["_pick_pending"] = True


def rubric_label(name: str) -> str:
    """A rubric's name for display. The stored name stays (renaming it would make a new version);
    the bundled rubric's internal "(seed 000)" tag is shown as the study it comes from."""
    return str(name).replace("(seed 000)", "(Zhang & Luo 2025)")


def no_courses_message() -> str:
    return t("No courses yet: load the demo course on Home or upload reflections.")


def require_course() -> int | None:
    cid = course_id()
    if cid is None:
        st.info(t("No course yet. Load the demo course on the Home page or upload reflections first."))
    return cid


def require_assignment() -> int | None:
    aid = assignment_id()
    if aid is None:
        st.info(t("Choose a course and an assignment in the sidebar first."))
    return aid


def menu(pages: dict, needs: dict | None = None) -> None:
    """The pages by role (app.py's PAGES) the signed-in role may use (`needs`: page title ->
    action of core.accounts.access), as links at the top of the sidebar."""
    me = actor()
    with st.sidebar:
        for section, entries in pages.items():
            shown = [e for e in entries if access.may(me, (needs or {}).get(e.title, "read"))]
            if section and shown:
                st.caption(t(section))
            for entry in shown:   # app.py's titles are the English messages (N_): the label is translated
                st.page_link(entry, label=t(entry.title), icon=entry.icon)
        st.divider()


def sidebar(conn, pages: dict | None = None, needs: dict | None = None) -> None:
    """The page menu, then the course and assignment picker shared by every page (only the
    courses granted to the signed-in user), then who is signed in."""
    me = actor()
    _apply_address(conn, me)
    if pages:
        menu(pages, needs)
    with st.sidebar:
        _who(me)
        all_courses = browse.list_courses(conn, actor=me)
        if not all_courses:
            st.caption(t("No courses yet.") if me.all_courses else t("No course is granted to you yet: ask an admin."))
            st.session_state["course_id"] = None
            st.session_state["assignment_id"] = None
            language_picker(me)
            return
        ids = [c["id"] for c in all_courses]
        synthetic = t(" (synthetic)")
        names = {c["id"]: c["name"] + (synthetic if c["is_synthetic"] and "synthetic" not in c["name"].lower() else "")
                 for c in all_courses}
        current = st.session_state.get("course_id")
        idx = ids.index(current) if current in ids else 0
        pending = st.session_state.pop("_pick_pending", False)  # set by select(): move the pickers
        if pending and current in ids:
            st.session_state["_pick_course"], idx = current, 0  # the state wins; 0 avoids a duplicate default
        cid = st.selectbox(t("Course"), ids, index=idx, format_func=names.get, key="_pick_course")
        st.session_state["course_id"] = cid
        assignments = browse.list_assignments(conn, cid, actor=me)
        if assignments:
            aids = [a["id"] for a in assignments]
            titles = {a["id"]: (t("Week {week}: ", week=a["week"]) if a["week"] is not None else "") + a["title"]
                      for a in assignments}
            cur_a = st.session_state.get("assignment_id")
            aidx = aids.index(cur_a) if cur_a in aids else 0
            if pending and cur_a in aids:
                st.session_state["_pick_assignment"], aidx = cur_a, 0
            aid = st.selectbox(t("Assignment"), aids, index=aidx, format_func=titles.get, key="_pick_assignment")
            st.session_state["assignment_id"] = aid
        else:
            st.caption(t("This course has no assignments yet."))
            st.session_state["assignment_id"] = None
        set_address(course=cid, assignment=st.session_state["assignment_id"])
        scopes = {"assignment": t("This assignment"), "course": t("This course"), "all": t("All courses")}
        cur_s = st.session_state.get("scope", "assignment")
        st.session_state["scope"] = st.radio(
            t("Dashboards show"), list(scopes), index=list(scopes).index(cur_s), format_func=scopes.get,
            key="_pick_scope", help=t("Scope of the Agreement, Fairness and Costs pages (all courses: yours)."))
        language_picker(me)   # the user's own, last: the pickers above are the page's


def _who(me: Actor) -> None:
    role = t(ROLE_NAMES[me.role]) if me.role in ROLE_NAMES else me.role_label
    st.caption(md(t("Signed in as {name} ({role})", name=me.display_name, role=role)))
    st.button(t("Sign out"), key="sign_out", on_click=_signin.sign_out, args=(me,))


BROWSER = ""   # the picker's first option: no choice of one's own, the browser's language


def language_picker(me: Actor) -> None:
    """The signed-in user's own interface language (core.accounts.preferences), at the foot of
    the sidebar: each language named in itself, or the browser's."""
    if getattr(me, "user_id", None) is None:
        return
    if error := st.session_state.pop("_language_error", None):
        show_error(error)
    chosen = _i18n.chosen() or BROWSER
    options = [BROWSER, *SUPPORTED]
    names = {BROWSER: t("Browser's language ({language})", language=SUPPORTED[_i18n.browser_language()][1]),
             **{code: native for code, (_, native) in SUPPORTED.items()}}
    st.selectbox(t("Language"), options, index=options.index(chosen), format_func=names.get, key="_pick_language",
                 on_change=_set_language, args=(me,))


def _set_language(me: Actor) -> None:
    from core.accounts import preferences

    code = st.session_state.get("_pick_language") or None
    try:
        stored = preferences.set_language(connect(), me.user_id, code, actor=actor())
    except FairMarkError as e:   # e.g. the session ended meanwhile: shown by the picker
        st.session_state["_language_error"] = _i18n.said(e)   # in the language still in use
        return
    _i18n.use(stored or _i18n.browser_language())
