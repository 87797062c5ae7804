"""Settings tabs for the catalogue: courses and assignments, rubrics (view, upload, edit)."""
import pandas as pd
import streamlit as st

from core import leakage
from core.appeals import deadline
from core.courses import answer_keys
from core.courses import catalogue
from core.errors import FairMarkError
from core.language import course as course_language
from core.rubric import RUBRIC_DIR, SIGNAL_LABELS, SIGNALS, load_rubric_file
from pages import _common, _settings_rubric_builder
from pages._i18n import N_, t, tn

NEW = catalogue.NEW  # the pickers' "+ New ..." entry
ANSWER_KINDS = {"none": N_("None"), "number": N_("A number"), "text": N_("A text")}


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
        st.info(t("No course of yours to edit."))
        return
    names = {c["id"]: c["name"] + (" (" + t("synthetic demo") + ")" if c["is_synthetic"] else "") for c in all_courses}
    names[NEW] = "+ " + t("New course")
    if "set_course" in st.session_state and st.session_state["set_course"] != data["course_id"]:
        st.session_state["set_course"] = data["course_id"]        # no longer offered: the first one
    cid = st.selectbox(t("Course"), ids, format_func=names.get, key="set_course",
                       index=0 if "set_course" in st.session_state else ids.index(data["course_id"]))
    if cid == NEW:
        with st.form("new_course"):
            name = st.text_input(t("Name"))
            description = st.text_area(t("Description"))
            if st.form_submit_button(t("Create course")):
                try:
                    catalogue.create_course(conn, name, description, actor=_common.actor())
                except FairMarkError as e:
                    _common.show_error(e)
                else:
                    st.session_state["cat_flash"] = t("Created the course {name}.", name=repr(name.strip()))
                    st.rerun()
        return
    course = data["course"]
    with st.form(f"course_{cid}"):
        name = st.text_input(t("Name"), course["name"])
        description = st.text_area(t("Description"), course["description"])
        offered = course_language.choices()
        current = course_language.stored(course.get("language"))
        language = st.selectbox(t("Language of the reflections and the feedback"), offered,
                                index=offered.index(current),
                                format_func={code: course_language.label(code, t) for code in offered}.get,
                                key=f"course_language_{cid}",
                                help=t("The AI reads the reflections in this language and drafts the feedback "
                                       "in it; a reflection in another language goes to a teacher."))
        if st.form_submit_button(t("Save course")):
            try:
                catalogue.edit_course(conn, cid, name=name, description=description, language=language,
                                      actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["cat_flash"] = t("Saved the course.")
                st.rerun()

    st.subheader(t("Assignments"))
    assignments, rubric_rows = data["assignments"], data["rubrics"]
    if assignments:
        st.dataframe(pd.DataFrame([{t("week"): a["week"], t("title"): a["title"], t("rubric id"): a["rubric_id"],
                                    t("key concepts"): ", ".join(a["key_concepts"]),
                                    t("reading level"): a["target_grade"]} for a in assignments]), hide_index=True)
    a_ids = [a["id"] for a in assignments] + [NEW]
    titles = {a["id"]: a["title"] for a in assignments} | {NEW: "+ " + t("New assignment")}
    aid = st.selectbox(t("Edit assignment"), a_ids, format_func=titles.get, key=f"set_assignment_{cid}")
    if not rubric_rows:
        st.info(t("No rubric saved yet: save one on the Rubrics tab (or import reflections) first."))
        return
    r_ids = [r["id"] for r in rubric_rows]
    r_names = {r["id"]: t("{name} (v{version})", name=_common.rubric_label(r["name"]), version=r["version"])
               for r in rubric_rows}
    a = next((x for x in assignments if x["id"] == aid), None) or {
        "title": "", "week": None, "prompt": "", "key_concepts": [], "target_grade": 10.0, "answer_key": None,
        "rubric_id": r_ids[-1]}
    with st.form(f"assignment_{cid}_{aid}"):
        title = st.text_input(t("Title"), a["title"])
        week = st.number_input(t("Week"), min_value=0, max_value=99, value=a["week"], step=1)
        prompt = st.text_area(t("Prompt the students answered"), a["prompt"])
        concepts = st.text_area(t("Key concepts (one per line)"), "\n".join(a["key_concepts"]))
        grade = st.number_input(t("Target reading level of the feedback (school grade)"), min_value=1.0,
                                max_value=18.0, value=float(a["target_grade"]), step=0.5)
        key = leakage.key_of(a)
        kinds = ["none", "number", "text"]
        shown_kinds = {k: t(v) for k, v in ANSWER_KINDS.items()}   # translated in this run (AppTest formats later)
        k1, k2 = st.columns(2)
        kind = k1.radio(t("Answer key (optional)"), kinds, index=kinds.index(key.kind if key else "none"),
                        horizontal=True, format_func=shown_kinds.get,
                        help=t("What a feedback comment must not give away: every drafted comment is checked."))
        tolerance = k2.number_input(t("Tolerance of a number (%)"), min_value=0.0, max_value=50.0, step=0.5,
                                    value=float((a.get("answer_tolerance") or 0.01) * 100),
                                    help=t("A number in the comment within this share of the answer (at least "
                                           "0.01) gives it away; numbers already in the prompt do not count."))
        answer_key = st.text_input(t("The answer"), a["answer_key"] or "")
        source = st.text_area(t("Source or lesson text (optional: what the feedback may draw on; the grounding judge "
                                "checks the comment against it and the student's text)"), a.get("source_text") or "")
        stored = deadline.as_datetime(a.get("appeal_deadline"))
        appeal_day = st.date_input(t("Students may appeal until (empty: appeals off)"), value=stored.date() if stored
                                   else None, format="YYYY-MM-DD", key=f"set_appeal_{cid}_{aid}",
                                   help=t("Students ask for a second look at their released feedback until the "
                                          "end of this day (UTC); an appeal is first in the review queue. The "
                                          "command line sets a time too: python -m core assignment set "
                                          "--appeal-deadline."))
        rid = st.selectbox(t("Rubric version"), r_ids, format_func=r_names.get,
                           index=r_ids.index(a["rubric_id"]) if a["rubric_id"] in r_ids else 0,
                           help=t("Changing it affects new drafts only: every draft keeps the rubric it was scored "
                                  "under."))
        if st.form_submit_button(t("Create assignment") if aid == NEW else t("Save assignment")):
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
                st.session_state["cat_flash"] = t("Saved the assignment {title}.", title=repr(title.strip()))
                st.rerun()


def _rubric_columns(rubric) -> dict:
    """Headers a teacher understands for the rubric table (the stored names stay its columns)."""
    config = {
        "key": st.column_config.TextColumn(t("Short name (used in files)"), required=True,
                                           help=t("A stable id such as clarity: score columns in uploads and "
                                                  "exports are named after it.")),
        "title": st.column_config.TextColumn(t("Criterion")),
        "description": st.column_config.TextColumn(t("What it looks at")),
        "weight": st.column_config.NumberColumn(t("Weight (optional)"), min_value=0.0,
                                                help=t("Empty: every criterion counts the same.")),
        "veto_below": st.column_config.NumberColumn(t("Fails below (optional)"), step=1,
                                                    help=t("A score below this fails the whole item; empty: no "
                                                           "veto.")),
        "improvement_hint": st.column_config.TextColumn(t("Advice when weak")),
        "signal": st.column_config.SelectboxColumn(   # the stored value is the English word; shown translated
            t("Offline signal (optional)"), options=list(SIGNALS),
            format_func={s: t(SIGNAL_LABELS.get(s, s)) for s in SIGNALS}.get,
            help=t("What the offline heuristic reads for this criterion before it has learned from your scores "
                   "(e.g. spelling for conventions). Empty: an overall mix.")),
        "guidance": _settings_rubric_builder.guidance_column(),
    }
    for lvl in rubric.levels:
        config[f"{catalogue.LEVEL_PREFIX}{lvl}"] = st.column_config.TextColumn(t("Level {level}", level=lvl))
    return config


def _bundled() -> list:
    """The rubric files that come with FairMark."""
    return sorted(RUBRIC_DIR.glob("*.yaml"))


def rubrics(conn) -> None:
    _flash("rub_flash")
    data = _settings_rubric_builder.read(conn)  # the tab's read
    rows = data["rubrics"]
    bundled = _bundled()
    if st.button(t("Add the bundled rubrics"), help=", ".join(p.name for p in bundled)):
        try:
            for p in bundled:
                catalogue.save_rubric_version(conn, load_rubric_file(p), actor=_common.actor())
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.session_state["rub_flash"] = t("Bundled rubrics are saved (unchanged ones are not duplicated).")
            st.rerun()
    if not rows:
        st.info(t("No rubric saved yet. Add the bundled ones above or upload a YAML/JSON rubric below."))
    else:
        ids = [r["id"] for r in rows]
        labels = {r["id"]: t("{name} — version {version}", name=_common.rubric_label(r["name"]), version=r["version"])
                  for r in rows}
        if "set_rubric" in st.session_state and st.session_state["set_rubric"] != data["rubric_id"]:
            st.session_state["set_rubric"] = data["rubric_id"]    # no longer offered: the newest
        rid = st.selectbox(t("Rubric"), ids, format_func=labels.get, key="set_rubric",
                           index=0 if "set_rubric" in st.session_state else len(ids) - 1)
        rubric = data["rubric"]
        st.caption(tn("Scale {low}–{high}; {count} criterion", "Scale {low}–{high}; {count} criteria",
                      len(rubric.criteria), low=rubric.scale_min, high=rubric.scale_max) + ". "
                   + t("Saving an edit creates a new version; scores given under this one keep their meaning."))
        table = pd.DataFrame(catalogue.rubric_to_rows(rubric))
        for col in ("weight", "veto_below"):  # empty, not "None", where a criterion has no weight or veto
            table[col] = pd.to_numeric(table[col], errors="coerce")
        edited = st.data_editor(table, num_rows="dynamic", hide_index=True, key=f"rubric_table_{rid}",
                                column_config=_rubric_columns(rubric))
        if st.button(t("Save as a new version"), key=f"save_rubric_{rid}"):
            try:
                new = catalogue.rows_to_rubric(rubric, edited.to_dict("records"))
                new_id, version = catalogue.save_rubric_version(conn, new, actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["rub_flash"] = (t("Nothing changed: same as an existing version.") if new_id == rid
                                                 else t("Saved {name} version {version}.",
                                                        name=_common.rubric_label(new.name), version=version))
                st.rerun()
        _settings_rubric_builder.versions(data, rid)

    st.subheader(t("Upload a rubric"))
    up = st.file_uploader(t("Rubric as YAML or JSON (name, scale_min, scale_max, criteria with levels)"),
                          type=["yaml", "yml", "json"], key="rubric_upload")
    if up is not None and st.button(t("Save uploaded rubric")):
        try:
            new_id, version = catalogue.save_rubric_version(conn, up.getvalue(), actor=_common.actor())
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.session_state["rub_flash"] = t("Saved the uploaded rubric as version {version}.", version=version)
            st.rerun()
    _settings_rubric_builder.render(conn, _rubric_columns, data["builder"])
