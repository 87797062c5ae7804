"""Home: where things stand, and the way in for a new user."""
import streamlit as st

from core import demo
from core.courses import browse
from core.errors import FairMarkError
from pages import _calibration, _common
from pages._i18n import N_, t, tn

conn = _common.get_db()
me = _common.actor()
st.title("FairMark")
if flash := st.session_state.pop("home_flash", None):
    st.success(flash)
st.caption(t("AI-drafted rubric scores and feedback for written reflections. "
             "A teacher approves every word before a student sees it."))

cid = _common.course_id()
aid = _common.assignment_id()
view = browse.home_page(conn, actor=me, course_id=cid, assignment_id=aid)
if not view["courses"]:
    if "create_course" not in view["may"]:
        st.info(t("No course is granted to you yet: ask an admin (or the course's instructor) to give you access."))
        st.stop()
    st.subheader(t("Get started"))
    st.markdown(
        t("1. **Try it with the demo course**: synthetic reflections from an AI-literacy course, "
          "with expert reference scores, so every page has something to show.") + "\n"
        + t("2. **Or bring your own**: go to **Upload** and import a CSV, Excel, Word or text file "
            "(or a ZIP of them).") + "\n"
        + t("3. **Assess** drafts scores and feedback; **Review** is where you check, edit and approve; "
            "**Release** exports only what you approved.")
    )
    english, swedish = st.columns(2)
    for language, button in (("en", english.button(t("Load demo course"), type="primary")),
                             ("sv", swedish.button(t("Load the Swedish demo course"), key="home_demo_sv",
                                                   help=t("Four reflections in Swedish, with a Swedish rubric.")))):
        if not button:
            continue
        try:
            summary = demo.load_demo(conn, actor=me, language=language)
        except FairMarkError as e:
            _common.show_error(e)
        else:
            # Shown after the rerun (a message written just before st.rerun() would vanish).
            st.session_state["home_flash"] = t("Loaded the demo course: {reflections} from {students} over {weeks}.",
                                               reflections=tn("{count} reflection", "{count} reflections",
                                                              summary["submissions"]),
                                               students=tn("{count} student", "{count} students",
                                                           summary["students"]),
                                               weeks=tn("{count} week", "{count} weeks", summary["assignments"]))
            st.rerun()
    st.page_link("pages/upload.py", label=t("Upload reflections"), icon=":material/upload_file:")
    st.stop()

labels = {  # what each count is (core.courses.browse.progress_counts defines them; Review uses the same)
    "uploaded": (N_("Uploaded"), N_("Every reflection uploaded, whatever has happened to it since.")),
    "drafted": (N_("Drafted"), N_("Reflections with an AI draft.")),
    "needs_attention": (N_("Needs attention"), N_("Flagged or failed drafts without a decision: the first group on "
                                                  "Review. Calibration items waiting for a blind score are not "
                                                  "counted.")),
    "approved": (N_("Approved"), N_("Approved by a teacher, released or not.")),
    "released": (N_("Released"), N_("Sent to students.")),
}
for title, counts in (
    (N_("This assignment"), view["assignment"]),
    (N_("This course"), view["course"]),
):
    if counts is None:
        continue
    st.subheader(t(title))
    cols = st.columns(len(labels))
    for col, (key, (label, meaning)) in zip(cols, labels.items()):
        col.metric(t(label), counts[key] if key == "uploaded" else t("{part} of {whole}", part=counts[key],
                                                                       whole=counts["uploaded"]),
                   help=t(meaning))
    if counts["rejected"]:
        st.caption(t("Rejected and back in the queue: {count}", count=counts["rejected"]))

if cid:
    _calibration.home(view["calibration"])
course = view["course_row"]
if course and course["is_synthetic"]:
    st.info(t("This is the synthetic demo course: the reflections were written for FairMark "
              "and belong to no real student."))
# The way on, as links to the pages this user may open (what app.NEEDS asks of each).
NEXT = [("pages/upload.py", N_("Upload"), ":material/upload_file:", "upload"),
        ("pages/assess.py", N_("Assess"), ":material/smart_toy:", "assess"),
        ("pages/review.py", N_("Review"), ":material/fact_check:", "read"),
        ("pages/release.py", N_("Release"), ":material/send:", "release"),
        ("pages/agreement.py", N_("Agreement (coordinators)"), ":material/balance:", "dashboards"),
        ("pages/fairness.py", N_("Fairness (coordinators)"), ":material/diversity_3:", "dashboards")]
steps = [step for step in NEXT if step[3] in view["may"]]
if steps:
    st.markdown("**" + t("Next steps:") + "**")
    for col, (path, label, icon, _) in zip(st.columns(len(steps)), steps):
        col.page_link(path, label=t(label), icon=icon)
