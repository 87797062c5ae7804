"""Lessons (issue 17): upload a course's lessons with their specification, review them in the
background (seed 001's judge, or the offline baseline), and work through the queue by tier."""
import pandas as pd
import streamlit as st

from core.errors import FairMarkError
from core.lessons import demo, ingest, runs, spec, tiers, view
from core.offline import LABEL as OFFLINE_LABEL
from core.text import count, escape_markdown
from pages import _common

st.title("Lessons")
st.caption("Review lesson texts before they are published: free Stage 1 checks, an AI judge on a weighted rubric "
           "with vetoes, targeted fixes you accept or reject, and your approval before any export.")
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
    with st.expander("Upload lessons", expanded=course is None or not queue):
        with st.form("lesson_upload", clear_on_submit=True):
            files = st.file_uploader("Lesson files (Markdown, text, Word or a ZIP of them)",
                                     type=["md", "markdown", "txt", "docx", "zip"], accept_multiple_files=True,
                                     key="lesson_files")
            course_name = st.text_input("Course", value=course["name"] if course else "",
                                        help="The lessons go into this course (created if it is new).")
            st.caption("The specification below fills in what a file's YAML front matter (title, target_grade, "
                       "objectives, archetype, sources) leaves out.")
            c1, c2 = st.columns(2)
            grade = c1.number_input("Target reading grade (Flesch-Kincaid)", 1.0, 18.0, 8.0, 0.5)
            archetype = c2.selectbox("Content archetype", spec.ARCHETYPES)
            audience = c1.text_input("Audience", placeholder="e.g. grade 5 science class")
            objectives = c2.text_area("Learning objectives (one per line)")
            sources = st.text_area("Source material for fact checks (optional)",
                                   help="Only sentences flagged as uncertain are checked against it.")
            submitted = st.form_submit_button("Import lessons", type="primary")
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
                st.session_state["lessons_flash"] = (f"Imported {out['imported']} lesson(s), replaced {out['replaced']}, "
                                                     f"{out['unchanged']} unchanged.")
                st.rerun()
        if st.button("Load the demo lessons (synthetic)", key="lessons_demo"):
            out = demo.load_demo(conn, actor=me)
            _common.select(out["course_id"], None)
            st.session_state["lessons_flash"] = f"Loaded {out['lessons']} demo lessons into '{out['course']}'."
            st.rerun()

if course is None:
    st.info("No course yet: upload lessons above (or load the demo lessons).")
    st.stop()
if not queue:
    st.info(_common.md(f"'{course['name']}' has no lessons yet: upload some above."))
    st.stop()

# --- review -----------------------------------------------------------------------------------
st.subheader("Review")
configured = _common.settings().llm_configured
providers = ["openai", "offline"] if configured else ["offline"]
labels = {"openai": "AI judge (the configured language model)",
          "offline": f"{OFFLINE_LABEL.capitalize()}: Stage 1 checks only"}
c1, c2 = st.columns(2)
provider = c1.radio("Reviewer", providers, format_func=labels.get, key="lessons_provider")
if not configured:
    c1.caption("No language model is configured (Settings page): only the Stage 1 checks can run.")
redo = c2.checkbox("Also review lessons reviewed before", key="lessons_redo",
                   help="Never touches an approved lesson.")
waiting = data["waiting"]
last = data["run"]
active = last is not None and last["status"] in ("queued", "running") and not last["resumable"]
if st.button(f"Start review ({waiting} lesson(s))", type="primary",
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
    who = OFFLINE_LABEL if p["provider"] == "offline" else "AI judge"
    st.progress(p["fraction"], text=f"Run {p['run_id']} ({who}): {p['finished']} of {count(p['total'], 'lesson')}, "
                                    f"{p['status']}")
    if p["error"]:
        _common.show_error(f"Run stopped: {p['error']}")
    if p["resumable"] and st.button("Resume the run", key=f"lessons_resume_{p['run_id']}"):
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
st.subheader("Queue")
counts = data["tiers"]
QUEUE_METRICS = {"needs_review": tiers.LABELS["needs_review"], "sampled": tiers.LABELS["sampled"],
                 "ready": tiers.LABELS["ready"], "approved": "Approved", "uploaded": "Not reviewed"}
for col, (key, label) in zip(st.columns(len(QUEUE_METRICS)), QUEUE_METRICS.items()):
    col.metric(label, counts.get(key, 0))
st.caption("Every lesson needs your approval before export. Needs a full review first; then the 10 % sample of the "
           "spot-check tier; lessons ready to publish still get a look from you.")
for lesson in queue:
    tier = tiers.LABELS.get(lesson["tier"] if lesson["status"] == "reviewed" else None)
    state = {"approved": "approved", "failed": "review failed", "uploaded": "not reviewed"}.get(lesson["status"], tier)
    extra = " · in the 10 % sample" if lesson["in_sample"] and lesson["status"] == "reviewed" else ""
    score = f" · score {lesson['score']:.2f}" if lesson["score"] is not None else ""
    offline = f" · {OFFLINE_LABEL}" if lesson["is_offline"] else ""
    st.page_link("pages/lesson_review.py", query_params={"lesson": str(lesson["id"])},
                 label=f"{escape_markdown(lesson['title'])} — {state}{extra}{score}{offline}",
                 icon=":material/article:")

spent = data["costs"]
st.subheader("Cost")
m1, m2, m3 = st.columns(3)
m1.metric("Calls", spent["calls"], help=f"{spent['cache_hits']} answered from the cache at $0.")
m2.metric("Per lesson", f"${spent['per_lesson_usd']:.5f}",
          help=f"The published case study this review follows reports ${spent['seed_per_lesson_usd']} per lesson "
               "when nothing needs fixing.")
m3.metric("Per 20 lessons", f"${spent['per_20_lessons_usd']:.4f}",
          help=f"The published case study this review follows reports ${spent['seed_per_course_usd']} per "
               "20-lesson course.")
with st.expander("Per lesson, from the call log"):
    st.dataframe(pd.DataFrame(spent["rows"]).drop(columns=["lesson_id"]), hide_index=True)
