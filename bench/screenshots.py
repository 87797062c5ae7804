"""The guides' screenshots, made again from the running app: rerun after a change to a page.

    python -m bench.screenshots                       # every picture, into docs/img/
    python -m bench.screenshots --only home.png       # one (or a few: repeat --only)
    python -m bench.screenshots --out /tmp/shots      # somewhere else (docs/img/ untouched)

Then look at the pictures (`git diff --stat docs/img/` says which changed) and commit them.

What it does, each time from nothing: a temporary database; three accounts made with the command
line as an operator would (an instructor, a coordinator granted the course, an admin); the
synthetic demo course (`python -m core demo`) assessed with the offline baseline
(`python -m core assess --provider offline`, no LLM); on the first week, a calibration set drawn
and scored blind with the demo's expert scores (as a teacher would score it by hand), and every
item that needs attention approved plus a few more (`python -m core review approve`), so
Release, Agreement and the calibration status have something to show. Then `streamlit run
app.py` against that database and Debian's /usr/bin/chromium through Playwright (never a
downloaded browser), signed in through the form as each role in turn; every picture is taken at
1280x900 once Streamlit has finished running ("Running..." gone twice in a row). Nothing
random: the demo's pseudonyms have a fixed seed and the offline baseline is deterministic; what
changes between runs is what the pages show of the clock (the run's seconds on Assess, the last
sign-in on Users).

SHOTS is the list of pictures; the guides in docs/ reference them by these names
(tests/test_screenshots.py checks every one is in docs/img/). All eleven (1.2 MB) took 395 s
on a busy 2-core machine (load 18), 281 s of it the set-up before the browser starts; rerun
unchanged, nine of the eleven files came out byte for byte the same (both measured before the
rubric builder's and the comment bank's pictures were added).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--hide-scrollbars", "--font-render-hinting=none"]
WIDTH, HEIGHT = 1280, 900
TIMEOUT_MS = 90_000
MENU = '[data-testid="stSidebar"] [data-testid="stPageLink"]'  # the app's page menu (pages/_common.menu)

PASSWORD = "screenshot password"
USERS = {  # sign-in name: (role, the name the app shows)
    "ana.rivera": ("instructor", "Ana Rivera"),
    "sam.okafor": ("coordinator", "Sam Okafor"),
    "it.admin": ("admin", "IT admin"),
}
ROLE_USER = {role: name for name, (role, _) in USERS.items()}
FIRST_WEEK = "How LLMs work and what temperature does"
APPROVE_MORE = 4   # approved besides the items that need attention (Release shows them all)

# Four reflections for the Upload page's preview (written for this script; nobody's real work).
UPLOAD_CSV = """student_id,name,email,week,reflection
S001,Amira Haddad,amira.haddad@example.edu,5,"This week I compared two answers the model gave to the same question about our refund policy. One was right and one invented a rule we do not have. I will now check every answer against the policy page before I send it to a customer."
S002,Jonas Lindqvist,jonas.lindqvist@example.edu,5,"I learned that a confident tone says nothing about whether the answer is true. At work I asked for a summary of a contract and it left out the notice period. Next time I will ask it to quote the clauses it summarises."
S003,Priya Raman,priya.raman@example.edu,5,"Evaluating outputs felt slow at first, but a short checklist helped: sources, numbers, names. I wonder whether the checklist should be different for creative tasks, where there is no single right answer."
S004,Diego Alvarez,diego.alvarez@example.edu,5,"I tried the model on our team's meeting notes. It turned vague ideas into clear action items, though it assigned one task to the wrong person. I will keep a human step where the owner confirms each item."
"""


@dataclass(frozen=True)
class Shot:
    name: str                       # the file in docs/img/
    role: str                       # signed in as this role's user (USERS)
    take: Callable                  # take(page, app) puts the page in the state to picture


# --- the database -----------------------------------------------------------------------------
def core_cli(db_path: Path, *args: str, user: str | None = None, stdin: str | None = None) -> dict:
    """One `python -m core` command; its JSON summary (the last line of stdout)."""
    acting = ["--as", user] if user else []
    done = subprocess.run([sys.executable, "-m", "core", "--db", str(db_path), *acting, *args],
                          input=stdin, text=True, capture_output=True, cwd=ROOT, env=_clean_env(db_path))
    if done.returncode != 0:
        raise RuntimeError(f"python -m core {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _clean_env(db_path: Path) -> dict:
    """Never a real key or the developer's settings: the pictures show the defaults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FAIRMARK_", "AZURE_OPENAI"))}
    env.update(FAIRMARK_DB=str(db_path), FAIRMARK_SECRETS=str(Path(db_path).parent / "no-secrets.toml"))
    return env


def prepare(db_path: Path) -> dict:
    """The demo course as the pictures show it; returns {course, course_id, assignment_id}."""
    from core import demo

    core_cli(db_path, "init")
    admin = ROLE_USER["admin"]
    for name, (role, shown) in sorted(USERS.items(), key=lambda u: u[1][0] != "admin"):  # the admin first
        core_cli(db_path, "user", "add", name, "--role", role, "--display-name", shown, "--password-stdin",
                 stdin=PASSWORD + "\n", user=None if role == "admin" else admin)
    course = demo.demo_data()["course"]["name"]
    loaded = core_cli(db_path, "demo", user=admin)
    for role in ("instructor", "coordinator"):
        core_cli(db_path, "user", "grant", ROLE_USER[role], "--course", course, user=admin)
    core_cli(db_path, "assess", "--course", course, "--provider", "offline", user=ROLE_USER["instructor"])
    queue = core_cli(db_path, "review", "queue", "--course", course, "--assignment", FIRST_WEEK,
                     user=ROLE_USER["instructor"])["items"]
    aid = _calibrate(db_path, course, queue)
    # After calibration: its items were hidden until scored; the queue again, as it is now.
    queue = core_cli(db_path, "review", "queue", "--course", course, "--assignment", FIRST_WEEK,
                     user=ROLE_USER["instructor"])["items"]
    others = [i for i in queue if i["group"] != "needs_attention"][:APPROVE_MORE]
    for item in [i for i in queue if i["group"] == "needs_attention"] + others:
        sid = str(item["submission_id"])
        version = core_cli(db_path, "review", "show", sid, user=ROLE_USER["instructor"])["review_version"]
        core_cli(db_path, "review", "approve", sid, "--version", str(version), user=ROLE_USER["instructor"])
    return {"course": course, "course_id": loaded["course_id"], "assignment_id": aid}


def _calibrate(db_path: Path, course: str, queue: list[dict]) -> int:
    """Every user signs in once; then the first week's calibration set is drawn and scored
    blind as the instructor, the demo's expert scores standing in for the teacher's own (no
    command line does this)."""
    import db
    from core import demo
    from core.accounts import identity as accounts
    from core.courses import browse
    from core.calibration import blind, draw

    data = demo.demo_data()
    week = next(a["week"] for a in data["assignments"] if a["title"] == FIRST_WEEK)
    people = {s["student_id"]: s["name"] for s in data["students"]}
    expert = {people[r["student_id"]]: r["scores"] for r in data["reflections"] if r["week"] == week}
    conn = db.connect(db_path)
    try:
        for name in USERS:  # everyone has signed in once: Users shows a time, also for a run with --only
            accounts.sign_in(conn, name, PASSWORD)
        teacher = accounts.actor_of(conn, ROLE_USER["instructor"])
        cid = next(c["id"] for c in browse.list_courses(conn, actor=teacher) if c["name"] == course)
        aid = next(a["id"] for a in browse.list_assignments(conn, cid, actor=teacher) if a["title"] == FIRST_WEEK)
        names = {i["submission_id"]: i["student"] for i in queue}
        for item in draw.draw(conn, aid, actor=teacher).items:
            blind.save(conn, item["submission_id"], expert[names[item["submission_id"]]], actor=teacher)
    finally:
        conn.close()
    return aid


# --- the server and the browser ------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(db_path: Path, log_dir: Path):
    """`streamlit run app.py` on a free port against db_path (as tests/e2e_support.py starts it)."""
    port = _free_port()
    log_path = Path(log_dir) / "streamlit.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, env=_clean_env(db_path), stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.time() + 120
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited early:\n{log_path.read_text()}")
                try:
                    if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                        break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError("streamlit did not answer within 120 s") from None
                    time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


@contextlib.contextmanager
def chromium():
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: install Debian's package (`apt-get install -y chromium`).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def idle(page) -> None:
    """Streamlit has finished its script run: nothing running at two checks 0.3 s apart (a run
    can start a moment after the click that caused it, or rerun itself)."""
    quiet = "() => !document.querySelector('[data-testid^=\"stStatusWidgetRunning\"]')"
    for _ in range(2):
        page.wait_for_timeout(300)
        page.wait_for_function(quiet, timeout=TIMEOUT_MS)


def scroll_to(locator, block: str = "start") -> None:
    """Scroll the page so this element is at the top ("start") or the middle ("center")."""
    locator.evaluate(f"e => e.scrollIntoView({{block: '{block}'}})")


def open_page(page, url: str) -> None:
    """Open an address and wait until the app has drawn it (the menu and the page's title)."""
    page.goto(url)
    page.wait_for_selector(MENU, timeout=TIMEOUT_MS)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=TIMEOUT_MS)
    idle(page)


def sign_in(page, url: str, user: str) -> None:
    page.goto(url)
    page.get_by_label("User name", exact=True).fill(user)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    # The server's /auth/session route sets the cookie (HttpOnly: only the browser context sees it),
    # then sends the browser back to the page.
    for _ in range(TIMEOUT_MS // 100):
        if any(c["name"] == "fairmark_session" for c in page.context.cookies()):
            break
        page.wait_for_timeout(100)
    page.wait_for_load_state("load")
    page.wait_for_selector(MENU, timeout=TIMEOUT_MS)
    idle(page)


# --- the pictures ----------------------------------------------------------------------------
@dataclass(frozen=True)
class App:
    url: str
    course_id: int
    assignment_id: int
    work: Path

    def at(self, path: str = "") -> str:
        """A page of the first week (the sidebar's course and assignment come from the address)."""
        return f"{self.url}/{path}?course={self.course_id}&assignment={self.assignment_id}"


def _home(page, app: App) -> None:
    open_page(page, app.at())


def _upload(page, app: App) -> None:
    open_page(page, app.at("upload"))
    sample = app.work / "week5-reflections.csv"
    sample.write_text(UPLOAD_CSV, encoding="utf-8")
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(sample))
    page.get_by_text("Ready to import").wait_for()
    idle(page)
    scroll_to(page.get_by_role("heading", name="Columns", exact=True))


def _assess(page, app: App) -> None:
    open_page(page, app.at("assess"))
    finished = page.get_by_text(re.compile(r"Run \d+: finished"))
    finished.wait_for()
    idle(page)
    scroll_to(finished, "center")


def _review(page, app: App) -> None:
    open_page(page, app.at("review"))
    page.locator('[class*="st-key-open_"] button').first.click()
    page.get_by_text("Your version").wait_for()
    idle(page)
    scroll_to(page.get_by_role("heading", name="Your version"), "center")


def _notes_on_text(page, app: App) -> None:
    """Review item: the AI's suggested notes on the text (from the offline baseline's evidence
    quotes), one kept, and a note of the teacher's on a picked sentence, highlighted in the text."""
    open_page(page, app.at("review"))
    page.locator('[class*="st-key-open_"] button').first.click()
    page.get_by_text("Notes on the text", exact=True).wait_for()
    idle(page)
    page.locator('[class*="st-key-an_keep_"] button').first.click()
    idle(page)
    page.get_by_text("Add a note on the text").click()
    idle(page)
    box = page.locator('[class*="st-key-an_sent_"]').get_by_role("combobox")
    box.fill("3. ")                                    # typed: a list opened by a click can vanish
    page.locator('[role="option"]').filter(has_text=re.compile(r"^3\. ")).first.click()
    idle(page)
    page.keyboard.press("Escape")
    page.get_by_label("Note for the student", exact=True).fill(
        "Good that you see this at your school: what could you try with your colleagues?")
    page.get_by_role("button", name="Add note").click()
    page.get_by_text("Note added.").wait_for()
    idle(page)
    scroll_to(page.get_by_role("heading", name=re.compile(r"^Submission")), "start")
    idle(page)


def _release(page, app: App) -> None:
    open_page(page, app.at("release"))
    page.get_by_role("button", name=re.compile(r"^Release \d+ approved item")).wait_for()


def _agreement(page, app: App) -> None:
    open_page(page, app.at("agreement"))


def _fairness(page, app: App) -> None:
    open_page(page, app.at("fairness"))


def _calibration(page, app: App) -> None:
    """A coordinator sees the calibration status of every assignment on Home (Calibrate itself
    is for teachers, who score blind)."""
    open_page(page, app.at())
    scroll_to(page.get_by_role("heading", name="Calibration", exact=True), "center")
    idle(page)


def _settings_tab(tab: str, heading: str | None = None) -> Callable:
    def take(page, app: App) -> None:
        open_page(page, app.at("settings"))
        page.get_by_role("tab", name=tab).click()
        idle(page)
        if heading:
            scroll_to(page.get_by_role("heading", name=heading, exact=True))
            idle(page)
    return take


def _rubric_builder(page, app: App) -> None:
    """Settings → Rubrics: a draft from a description (offline here: the template, said so)."""
    open_page(page, app.at("settings"))
    page.get_by_role("tab", name="Rubrics").click()
    idle(page)
    page.get_by_label("Describe the work", exact=True).fill(
        "a weekly reflection on applying statistics at work, 3 criteria, 0–3")
    page.get_by_role("button", name="Draft a rubric").click()
    idle(page)
    scroll_to(page.get_by_text("This is a template, not written by a language model").first, "center")
    idle(page)


# The course bank the comment bank's picture shows (written for this script), tied to a
# criterion key of the demo's rubric and a level.
BANK = (
    ("real_world_application", 1, "Name one task from your own work where you would use this, and say what you would check."),
    ("real_world_application", 3, "Your example from work shows exactly where the idea helps and where it stops."),
    ("reflection_depth", 2, "Say what surprised you and what you would do differently next time."),
    ("clarity", 2, "One idea per paragraph would make your argument easier to follow."),
)


def _comment_bank(page, app: App) -> None:
    """Review: the comment bank under the comment box, with a course bank of four comments and
    a search (the bank is filled here, as the instructor would: core.courses.comment_bank)."""
    import db
    from core.accounts import identity as accounts
    from core.courses import comment_bank

    conn = db.connect(app.work / "fairmark.db")
    try:
        teacher = accounts.actor_of(conn, ROLE_USER["instructor"])
        if not comment_bank.search(conn, app.course_id, actor=teacher)["course"]:
            for criterion, level, text in BANK:
                comment_bank.add(conn, app.course_id, text, actor=teacher, mine=False, criterion=criterion,
                                 level=level)
    finally:
        conn.close()
    open_page(page, app.at("review"))
    page.locator('[class*="st-key-open_"] button').first.click()
    page.get_by_text("Your version").wait_for()
    idle(page)
    panel = page.locator('[data-testid="stExpander"]').filter(has_text="Comment bank")
    panel.locator("summary").click()
    idle(page)
    search = page.get_by_label("Search the bank", exact=True)
    search.fill("what you would")
    search.press("Enter")
    idle(page)
    search.evaluate("e => e.blur()")   # no focus ring in the picture
    scroll_to(page.get_by_text("Comment for the student", exact=True), "start")
    idle(page)


SHOTS = (
    Shot("home.png", "instructor", _home),
    Shot("teacher-rubric-builder.png", "instructor", _rubric_builder),
    Shot("teacher-upload.png", "instructor", _upload),
    Shot("teacher-assess.png", "instructor", _assess),
    Shot("teacher-review.png", "instructor", _review),
    Shot("teacher-comment-bank.png", "instructor", _comment_bank),
    Shot("teacher-notes-on-text.png", "instructor", _notes_on_text),
    Shot("teacher-release.png", "instructor", _release),
    Shot("coordinator-agreement.png", "coordinator", _agreement),
    Shot("coordinator-fairness.png", "coordinator", _fairness),
    Shot("coordinator-calibration.png", "coordinator", _calibration),
    Shot("admin-users.png", "admin", _settings_tab("Users")),
    Shot("admin-models.png", "admin", _settings_tab("Language model & prices")),
    Shot("admin-backup.png", "admin", _settings_tab("Data", "Backup")),
)


def run(out_dir: Path = OUT, only: list[str] | None = None) -> list[Path]:
    """Make the pictures (all, or those named in `only`) in out_dir; returns their paths."""
    unknown = sorted(set(only or ()) - {s.name for s in SHOTS})
    if unknown:
        raise SystemExit(f"no such picture: {', '.join(unknown)}; the pictures are: "
                         + ", ".join(s.name for s in SHOTS))
    shots = [s for s in SHOTS if not only or s.name in only]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="fairmark-shots-") as tmp:
        work = Path(tmp)
        db_path = work / "fairmark.db"
        t0 = time.perf_counter()
        where = prepare(db_path)
        print(f"set-up (database, demo, assessment, approvals): {time.perf_counter() - t0:.0f} s", flush=True)
        with streamlit_server(db_path, work) as url, chromium() as browser:
            app = App(url, where["course_id"], where["assignment_id"], work)
            for role in dict.fromkeys(s.role for s in shots):  # one signed-in browser context per role
                context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
                page = context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                sign_in(page, url, ROLE_USER[role])
                for shot in (s for s in shots if s.role == role):
                    shot.take(page, app)
                    page.mouse.move(0, 0)  # no hover highlight or tooltip in the picture
                    idle(page)
                    path = out_dir / shot.name
                    page.screenshot(path=str(path), animations="disabled", caret="hide")
                    written.append(path)
                    print(f"{path} ({path.stat().st_size // 1024} KB)", flush=True)
                context.close()
    return written


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.screenshots", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=OUT, help="where the PNGs go (default docs/img/)")
    p.add_argument("--only", action="append", metavar="NAME.png", help="only this picture (repeatable)")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    paths = run(args.out, args.only)
    total = sum(path.stat().st_size for path in paths)
    print(f"{len(paths)} picture(s), {total / 1e6:.2f} MB, in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
