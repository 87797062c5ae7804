"""Settings tabs for the catalogue: courses and assignments, rubrics (view, upload, edit)."""
import pandas as pd
import streamlit as st

from core import leakage
from core.appeals import deadline
from core.courses import answer_keys
from core.courses import catalogue
from core.errors import FairMarkError
from core.language import course as course_language
from core.rubric import RUBRIC_DIR, SIGNALS, load_rubric_file
from pages import _common, _settings_rubric_builder

NEW = catalogue.NEW  # the pickers' "+ New ..." entry


def _flash(key: str) -> None:
    msg = st.session_state.pop(key, None)
    if msg:
        st.success(_common.md(msg))  # quotes course, assignment and rubric names


def read(conn) -> dict:
    """The "Courses & assignments" tab's one read (it also says whether the actor may change the
    installation's settings: the page draws the admin's tabs then)."""
    return catalogue.editor_view(conn, st.session_state.get("set_course", _common.course_id()), actor=_common.actor())


def courses_and_assignments(conn, data: dict) -> None:
    """`data`: read(conn)."""
    _flash("cat_flash")
    all_courses = data["courses"]
    ids = [c["id"] for c in all_courses] + ([NEW] if data["may"]["create_course"] else [])
    if not ids:
        st.info("No course of yours to edit.")
        return
    names = {c["id"]: c["name"] + (" (synthetic demo)" if c["is_synthetic"] else "") for c in all_courses}
    names[NEW] = "+ New course"
    if "set_course" in st.session_state and st.session_state["set_course"] != data["course_id"]:
        st.session_state["set_course"] = data["course_id"]        # no longer offered: the first one
    cid = st.selectbox("Course", ids, format_func=names.get, key="set_course",
                       index=0 if "set_course" in st.session_state else ids.index(data["course_id"]))
    if cid == NEW:
        with st.form("new_course"):
            name = st.text_input("Name")
            description = st.text_area("Description")
            if st.form_submit_button("Create course"):
                try:
                    catalogue.create_course(conn, name, description, actor=_common.actor())
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.session_state["cat_flash"] = f"Created the course {name.strip()!r}."
                    st.rerun()
        return
    course = data["course"]
    with st.form(f"course_{cid}"):
        name = st.text_input("Name", course["name"])
        description = st.text_area("Description", course["description"])
        offered = course_language.choices()
        current = course_language.stored(course.get("language"))
        language = st.selectbox("Language of the reflections and the feedback", offered,
                                index=offered.index(current), format_func=course_language.label,
                                key=f"course_language_{cid}",
                                help="The AI reads the reflections in this language and drafts the feedback in "
                                     "it; a reflection in another language goes to a teacher.")
        if st.form_submit_button("Save course"):
            try:
                catalogue.edit_course(conn, cid, name=name, description=description, language=language,
                                      actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["cat_flash"] = "Saved the course."
                st.rerun()

    st.subheader("Assignments")
    assignments, rubric_rows = data["assignments"], data["rubrics"]
    if assignments:
        st.dataframe(pd.DataFrame([{"week": a["week"], "title": a["title"], "rubric id": a["rubric_id"],
                                    "key concepts": ", ".join(a["key_concepts"]),
                                    "reading level": a["target_grade"]} for a in assignments]), hide_index=True)
    a_ids = [a["id"] for a in assignments] + [NEW]
    titles = {a["id"]: a["title"] for a in assignments} | {NEW: "+ New assignment"}
    aid = st.selectbox("Edit assignment", a_ids, format_func=titles.get, key=f"set_assignment_{cid}")
    if not rubric_rows:
        st.info("No rubric saved yet: save one on the Rubrics tab (or import reflections) first.")
        return
    r_ids = [r["id"] for r in rubric_rows]
    r_names = {r["id"]: f"{_common.rubric_label(r['name'])} (v{r['version']})" for r in rubric_rows}
    a = next((x for x in assignments if x["id"] == aid), None) or {
        "title": "", "week": None, "prompt": "", "key_concepts": [], "target_grade": 10.0, "answer_key": None,
        "rubric_id": r_ids[-1]}
    with st.form(f"assignment_{cid}_{aid}"):
        title = st.text_input("Title", a["title"])
        week = st.number_input("Week", min_value=0, max_value=99, value=a["week"], step=1)
        prompt = st.text_area("Prompt the students answered", a["prompt"])
        concepts = st.text_area("Key concepts (one per line)", "\n".join(a["key_concepts"]))
        grade = st.number_input("Target reading level of the feedback (school grade)", min_value=1.0,
                                max_value=18.0, value=float(a["target_grade"]), step=0.5)
        key = leakage.key_of(a)
        kinds = ["none", "number", "text"]
        k1, k2 = st.columns(2)
        kind = k1.radio("Answer key (optional)", kinds, index=kinds.index(key.kind if key else "none"),
                        horizontal=True, format_func={"none": "None", "number": "A number", "text": "A text"}.get,
                        help="What a feedback comment must not give away: every drafted comment is checked.")
        tolerance = k2.number_input("Tolerance of a number (%)", min_value=0.0, max_value=50.0, step=0.5,
                                    value=float((a.get("answer_tolerance") or 0.01) * 100),
                                    help="A number in the comment within this share of the answer (at least 0.01) "
                                         "gives it away; numbers already in the prompt do not count.")
        answer_key = st.text_input("The answer", a["answer_key"] or "")
        source = st.text_area("Source or lesson text (optional: what the feedback may draw on; the grounding judge "
                              "checks the comment against it and the student's text)", a.get("source_text") or "")
        stored = deadline.as_datetime(a.get("appeal_deadline"))
        appeal_day = st.date_input("Students may appeal until (empty: appeals off)", value=stored.date() if stored
                                   else None, format="YYYY-MM-DD", key=f"set_appeal_{cid}_{aid}",
                                   help="Students ask for a second look at their released feedback until the end "
                                        "of this day (UTC); an appeal is first in the review queue. The command "
                                        "line sets a time too: python -m core assignment set --appeal-deadline.")
        rid = st.selectbox("Rubric version", r_ids, format_func=r_names.get,
                           index=r_ids.index(a["rubric_id"]) if a["rubric_id"] in r_ids else 0,
                           help="Changing it affects new drafts only: every draft keeps the rubric it was scored under.")
        if st.form_submit_button("Create assignment" if aid == NEW else "Save assignment"):
            fields = {"title": title, "week": None if week is None else int(week), "prompt": prompt,
                      "key_concepts": [c.strip() for c in concepts.splitlines() if c.strip()],
                      "target_grade": float(grade), "rubric_id": rid}
            try:
                key_fields = answer_keys.fields(kind, answer_key, tolerance, source)
                if appeal_day != (stored.date() if stored else None):  # a deadline with a time stays as it is
                    key_fields["appeal_deadline"] = appeal_day
                if aid == NEW:
                    new_id = catalogue.create_assignment(conn, cid, actor=_common.actor(), **fields)
                    catalogue.edit_assignment(conn, new_id, actor=_common.actor(), **key_fields)
                else:
                    catalogue.edit_assignment(conn, aid, actor=_common.actor(), **fields, **key_fields)
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["cat_flash"] = f"Saved the assignment {title.strip()!r}."
                st.rerun()


def _rubric_columns(rubric) -> dict:
    """Headers a teacher understands for the rubric table (the stored names stay its columns)."""
    config = {
        "key": st.column_config.TextColumn("Short name (used in files)", required=True,
                                           help="A stable id such as clarity: score columns in uploads and "
                                                "exports are named after it."),
        "title": st.column_config.TextColumn("Criterion"),
        "description": st.column_config.TextColumn("What it looks at"),
        "weight": st.column_config.NumberColumn("Weight (optional)", min_value=0.0,
                                                help="Empty: every criterion counts the same."),
        "veto_below": st.column_config.NumberColumn("Fails below (optional)", step=1,
                                                    help="A score below this fails the whole item; empty: no veto."),
        "improvement_hint": st.column_config.TextColumn("Advice when weak"),
        "signal": st.column_config.SelectboxColumn(
            "Offline signal (optional)", options=list(SIGNALS),
            help="What the offline heuristic reads for this criterion before it has learned from your scores "
                 "(e.g. spelling for conventions). Empty: an overall mix."),
        "guidance": _settings_rubric_builder.guidance_column(),
    }
    for lvl in rubric.levels:
        config[f"{catalogue.LEVEL_PREFIX}{lvl}"] = st.column_config.TextColumn(f"Level {lvl}")
    return config


def rubrics(conn) -> None:
    _flash("rub_flash")
    data = _settings_rubric_builder.read(conn)  # the tab's read
    rows = data["rubrics"]
    bundled = sorted(RUBRIC_DIR.glob("*.yaml"))
    if st.button("Add the bundled rubrics", help=", ".join(p.name for p in bundled)):
        try:
            for p in bundled:
                catalogue.save_rubric_version(conn, load_rubric_file(p), actor=_common.actor())
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.session_state["rub_flash"] = "Bundled rubrics are saved (unchanged ones are not duplicated)."
            st.rerun()
    if not rows:
        st.info("No rubric saved yet. Add the bundled ones above or upload a YAML/JSON rubric below.")
    else:
        ids = [r["id"] for r in rows]
        labels = {r["id"]: f"{_common.rubric_label(r['name'])} — version {r['version']}" for r in rows}
        if "set_rubric" in st.session_state and st.session_state["set_rubric"] != data["rubric_id"]:
            st.session_state["set_rubric"] = data["rubric_id"]    # no longer offered: the newest
        rid = st.selectbox("Rubric", ids, format_func=labels.get, key="set_rubric",
                           index=0 if "set_rubric" in st.session_state else len(ids) - 1)
        rubric = data["rubric"]
        st.caption(f"Scale {rubric.scale_min}–{rubric.scale_max}; {len(rubric.criteria)} criteria. "
                   "Saving an edit creates a new version; scores given under this one keep their meaning.")
        table = pd.DataFrame(catalogue.rubric_to_rows(rubric))
        for col in ("weight", "veto_below"):  # empty, not "None", where a criterion has no weight or veto
            table[col] = pd.to_numeric(table[col], errors="coerce")
        edited = st.data_editor(table, num_rows="dynamic", hide_index=True, key=f"rubric_table_{rid}",
                                column_config=_rubric_columns(rubric))
        if st.button("Save as a new version", key=f"save_rubric_{rid}"):
            try:
                new = catalogue.rows_to_rubric(rubric, edited.to_dict("records"))
                new_id, version = catalogue.save_rubric_version(conn, new, actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["rub_flash"] = ("Nothing changed: same as an existing version." if new_id == rid
                                                 else f"Saved {_common.rubric_label(new.name)} version {version}.")
                st.rerun()
        _settings_rubric_builder.versions(data, rid)

    st.subheader("Upload a rubric")
    up = st.file_uploader("Rubric as YAML or JSON (name, scale_min, scale_max, criteria with levels)",
                          type=["yaml", "yml", "json"], key="rubric_upload")
    if up is not None and st.button("Save uploaded rubric"):
        try:
            new_id, version = catalogue.save_rubric_version(conn, up.getvalue(), actor=_common.actor())
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.session_state["rub_flash"] = f"Saved the uploaded rubric as version {version}."
            st.rerun()
    _settings_rubric_builder.render(conn, _rubric_columns, data["builder"])
