"""Lessons (issue 17): upload a course's lessons with their specification, review them in the
background (seed 001's judge, or the offline baseline), and work through the queue by tier."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.lessons import costs as lesson_costs
from core.lessons import demo, ingest, runs, spec, tiers, view
from core.offline import LABEL as OFFLINE_LABEL
from core.text import escape_markdown
from pages import _common
from pages._i18n import N_, said, t, tn

RUN_STATUS = {"queued": N_("queued"), "running": N_("running"), "done": N_("done"), "cancelled": N_("cancelled"),
              "failed": N_("failed")}

st.title(t("Lessons"))
st.caption(t("Review lesson texts before they are published: free Stage 1 checks, an AI judge on a weighted rubric "
             "with vetoes, targeted fixes you accept or reject, and your approval before any export."))
conn = _common.get_db()
me = _common.actor()
db_path = _common.settings().db_path
if flash := st.session_state.pop("lessons_flash", None):
    st.success(_common.md(flash))

cid = _common.course_id()
data = view.lessons_page(conn, db_path, cid, redo=bool(st.session_state.get("lessons_redo")), actor=me)  # one read
course, queue = data["course"], data["queue"]

# --- upload ---------------------------------------------------------------------------------
if data["may"]["upload"]:  # instructors and admins: upload and the demo
    with st.expander(t("Upload lessons"), expanded=course is None or not queue):
        with st.form("lesson_upload", clear_on_submit=True):
            files = st.file_uploader(t("Lesson files (Markdown, text, Word or a ZIP of them)"),
                                     type=["md", "markdown", "txt", "docx", "zip"], accept_multiple_files=True,
                                     key="lesson_files")
            course_name = st.text_input(t("Course"), value=course["name"] if course else "",
                                        help=t("The lessons go into this course (created if it is new)."))
            st.caption(t("The specification below fills in what a file's YAML front matter (title, target_grade, "
                         "objectives, archetype, sources) leaves out."))
            c1, c2 = st.columns(2)
            grade = c1.number_input(t("Target reading grade (Flesch-Kincaid)"), 1.0, 18.0, 8.0, 0.5)
            archetype = c2.selectbox(t("Content archetype"), spec.ARCHETYPES,   # core names them (N_)
                             format_func={a: t(spec.ARCHETYPE_LABELS[a]) for a in spec.ARCHETYPES}.get)
            audience = c1.text_input(t("Audience"), placeholder=t("e.g. grade 5 science class"))
            objectives = c2.text_area(t("Learning objectives (one per line)"))
            sources = st.text_area(t("Source material for fact checks (optional)"),
                                   help=t("Only sentences flagged as uncertain are checked against it."))
            submitted = st.form_submit_button(t("Import lessons"), type="primary")
        if submitted:
            try:
                out = ingest.import_lessons(
                    conn, [(f.name, f.getvalue()) for f in files or []], course_name=course_name, actor=me,
                    defaults={"target_grade": grade, "archetype": archetype, "audience": audience,
                              "objectives": objectives, "sources": sources})
            except FairMarkError as e:
                _common.show_error(e)
            else:
                _common.select(out["course_id"], None)
                st.session_state["lessons_flash"] = tn(
                    "Imported {count} lesson(s), replaced {replaced}, {unchanged} unchanged.",
                    "Imported {count} lesson(s), replaced {replaced}, {unchanged} unchanged.", out["imported"],
                    replaced=out["replaced"], unchanged=out["unchanged"])
                st.rerun()
        if st.button(t("Load the demo lessons (synthetic)"), key="lessons_demo"):
            out = demo.load_demo(conn, actor=me)
            _common.select(out["course_id"], None)
            st.session_state["lessons_flash"] = tn("Loaded {count} demo lessons into '{course}'.",
                                                   "Loaded {count} demo lessons into '{course}'.", out["lessons"],
                                                   course=out["course"])
            st.rerun()

if course is None:
    st.info(t("No course yet: upload lessons above (or load the demo lessons)."))
    st.stop()
if not queue:
    st.info(_common.md(t("'{course}' has no lessons yet: upload some above.", course=course["name"])))
    st.stop()

# --- review -----------------------------------------------------------------------------------
st.subheader(t("Review"))
configured = _common.settings().llm_configured
providers = ["openai", "offline"] if configured else ["offline"]
labels = {"openai": t("AI judge (the configured language model)"),
          "offline": t("{baseline}: Stage 1 checks only", baseline=t(OFFLINE_LABEL).capitalize())}   # core's label
c1, c2 = st.columns(2)
provider = c1.radio(t("Reviewer"), providers, format_func=labels.get, key="lessons_provider")
if not configured:
    c1.caption(t("No language model is configured (Settings page): only the Stage 1 checks can run."))
redo = c2.checkbox(t("Also review lessons reviewed before"), key="lessons_redo",
                   help=t("Never touches an approved lesson."))
waiting = data["waiting"]
last = data["run"]
active = last is not None and last["status"] in ("queued", "running") and not last["resumable"]
if st.button(tn("Start review ({count} lesson(s))", "Start review ({count} lesson(s))", waiting), type="primary",
             disabled=not waiting or active or not data["may"]["review"]):
    try:
        run_id = runs.create(conn, course_id=cid, provider=provider, redo=redo, actor=me)
        runs.start(db_path, run_id, actor=me)
        st.rerun()
    except FairMarkError as e:
        _common.show_error(e)


def show_run() -> None:
    """The latest run's progress: drawn with the page, the page's read; each refresh of its own
    (every second while the run is live) reads again."""
    first = st.session_state.pop("_lessons_run", None)
    p = first["run"] if first is not None else runs.latest(_common.connect(), db_path, cid, actor=_common.actor())
    if p is None:
        return
    who = t(OFFLINE_LABEL) if p["provider"] == "offline" else t("AI judge")
    st.progress(p["fraction"], text=tn("Run {run} ({who}): {finished} of {count} lesson, {status}",
                                       "Run {run} ({who}): {finished} of {count} lessons, {status}", p["total"],
                                       run=p["run_id"], who=who, finished=p["finished"],
                                       status=t(RUN_STATUS.get(p["status"], p["status"]))))
    if p["error"]:
        _common.show_error(t("Run stopped: {error}", error=said(p["error"])))
    if p["resumable"] and st.button(t("Resume the run"), key=f"lessons_resume_{p['run_id']}"):
        runs.resume(db_path, p["run_id"], actor=_common.actor())
        st.rerun()
    live = p["status"] in ("queued", "running") and not p["resumable"]
    if not live and st.session_state.get("lessons_live") == p["run_id"]:
        st.session_state["lessons_live"] = None
        st.rerun(scope="app")
    if live:
        st.session_state["lessons_live"] = p["run_id"]


st.session_state["_lessons_run"] = {"run": last}
st.fragment(show_run, run_every=1.0 if active else None)()

# --- the queue ----------------------------------------------------------------------------------
st.subheader(t("Queue"))
counts = data["tiers"]
QUEUE_METRICS = {"needs_review": t(tiers.LABELS["needs_review"]), "sampled": t(tiers.LABELS["sampled"]),  # core's (N_)
                 "ready": t(tiers.LABELS["ready"]), "approved": t("Approved"), "uploaded": t("Not reviewed")}
for col, (key, label) in zip(st.columns(len(QUEUE_METRICS)), QUEUE_METRICS.items()):
    col.metric(label, counts.get(key, 0))
st.caption(t("Every lesson needs your approval before export. Needs a full review first; then the 10 % sample of "
             "the spot-check tier; lessons ready to publish still get a look from you."))
for lesson in queue:
    tier = t(tiers.LABELS.get(lesson["tier"] if lesson["status"] == "reviewed" else None))
    state = {"approved": t("approved"), "failed": t("review failed"),
             "uploaded": t("not reviewed")}.get(lesson["status"], tier)
    extra = " · " + t("in the 10 % sample") if lesson["in_sample"] and lesson["status"] == "reviewed" else ""
    score = " · " + t("score {score}", score=f"{lesson['score']:.2f}") if lesson["score"] is not None else ""
    offline = " · " + t(OFFLINE_LABEL) if lesson["is_offline"] else ""
    st.page_link("pages/lesson_review.py", query_params={"lesson": str(lesson["id"])},
                 label=f"{escape_markdown(lesson['title'])} — {state}{extra}{score}{offline}",
                 icon=":material/article:")

spent = data["costs"]
st.subheader(t("Cost"))
m1, m2, m3 = st.columns(3)
m1.metric(t("Calls"), spent["calls"], help=tn("{count} answered from the cache at $0.",
                                              "{count} answered from the cache at $0.", spent["cache_hits"]))
m2.metric(t("Per lesson"), f"${spent['per_lesson_usd']:.5f}",
          help=t("The published case study this review follows reports {cost} per lesson when nothing needs fixing.",
                 cost=f"${spent['seed_per_lesson_usd']}"))
m3.metric(t("Per 20 lessons"), f"${spent['per_20_lessons_usd']:.4f}",
          help=t("The published case study this review follows reports {cost} per 20-lesson course.",
                 cost=f"${spent['seed_per_course_usd']}"))
with st.expander(t("Per lesson, from the call log")):   # its columns: core's names (N_); the titles are the teacher's
    calls = pd.DataFrame(spent["rows"])
    calls = calls[[c for c in calls.columns if c != "lesson_id"]]
    st.dataframe(calls.rename(columns={key: t(label) for key, label in lesson_costs.COLUMNS.items()}), hide_index=True)
