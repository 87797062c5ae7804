"""Settings → Rubrics: the Rubric builder (draft, edit, save) and a rubric's versions (diff,
rollback). Instructors and admins only; core refuses anyone else anyway."""
import pandas as pd
import streamlit as st

from core.courses import catalogue
from core.courses import rubric_builder as builder
from core.courses import rubric_versions
from core.errors import FairMarkError
from core.text import format_timestamp
from pages import _common
from pages._i18n import N_, said, t, tn

EXAMPLES_HELP = N_('Optional: 5 to 20 of your students\' texts, each under a line "Score: N" with the level you '
                   "gave it. Names of students on the course's roster are replaced before the model reads them; "
                   "the examples are deleted when you save the draft.")


def _flash() -> None:
    msg = st.session_state.pop("rb_flash", None)
    if msg:
        st.success(_common.md(msg))


def guidance_column():
    return st.column_config.TextColumn(t("Notes for graders (never shown to students)"),
                                       help=t("What counts and common pitfalls: the Evaluator and markers read "
                                              "them; students never see them."))


def read(conn) -> dict:
    """The Rubrics tab's one read (core.courses.rubric_builder.rubrics_tab), with the versions the
    compare pickers hold (their keys are per rubric)."""
    rid = st.session_state.get("set_rubric")
    pair = (st.session_state.get(f"rv_a_{rid}"), st.session_state.get(f"rv_b_{rid}"))
    ids = st.session_state.get("rv_ids", {})
    compare = (ids.get(pair[0]), ids.get(pair[1])) if None not in pair else None
    return builder.rubrics_tab(conn, rid, compare=compare if compare and None not in compare else None,
                               pick=st.session_state.get("rb_course", _common.course_id()), actor=_common.actor())


def render(conn, columns, view: dict) -> None:
    """The builder. `columns(rubric)`: the Rubrics tab's column headers for a rubric table;
    `view`: the tab's read's "builder"."""
    st.subheader(t("Rubric builder"))
    _flash()
    me = _common.actor()
    if not view["courses"]:
        st.info(t("Only an instructor or an admin of a course builds rubrics."))
        return
    names = {c["id"]: c["name"] for c in view["courses"]}
    ids = list(names)
    if "rb_course" in st.session_state and st.session_state["rb_course"] != view["course_id"]:
        st.session_state["rb_course"] = view["course_id"]
    cid = st.selectbox(t("Build it for the course"), ids, format_func=names.get, key="rb_course",
                       index=0 if "rb_course" in st.session_state else ids.index(view["course_id"]),
                       help=t("Drafts and their examples belong to this course (they are deleted with it)."))
    with st.form("rb_new"):
        description = st.text_input(t("Describe the work"), key="rb_description",
                                    placeholder=t("a weekly reflection on applying statistics at work, 3 criteria, "
                                                  "0–3"))
        # core reads the examples' "Score: N" lines: the translations keep those words in English
        examples = st.text_area(t("Scored examples (optional)"), key="rb_examples", height=160,
                                help=t(EXAMPLES_HELP),
                                placeholder=t("Score: 3\nAt work I ran a t-test on …\nScore: 1\nStatistics is "
                                              "useful …"))
        go = st.form_submit_button(t("Draft a rubric"))
    if go:
        try:
            with st.spinner(t("Drafting…")):
                builder.draft(conn, cid, description, examples, llm=builder.configured_llm(conn), actor=me)
        except FairMarkError as e:
            _common.show_error(e)
        else:
            st.session_state["rb_flash"] = t("Drafted. Check it below, edit it, then save it.")
            st.rerun()
    for i, d in enumerate(view["drafts"]):
        _draft(conn, d, columns, expanded=i == 0)


def _draft(conn, d: dict, columns, expanded: bool) -> None:
    rubric = d["rubric"]
    about = d["description"] if len(d["description"]) <= 70 else d["description"][:70].rsplit(" ", 1)[0] + " …"
    label = (t("Draft of {when}", when=format_timestamp(d["created_at"])) + ": " + _common.md(about) + " ("
             + (t("template") if d["source"] == "template" else t("drafted by the model")) + ")")
    with st.expander(label, expanded=expanded):
        st.info(_common.md(said(d["note"])))   # core's note on the draft (a Message when core made it)
        st.caption(tn("Scale {low}–{high}; {count} criterion", "Scale {low}–{high}; {count} criteria",
                      len(rubric.criteria), low=rubric.scale_min, high=rubric.scale_max)
                   + ("; " + tn("built from {count} scored example", "built from {count} scored examples",
                                d["examples"]) if d["examples"] else "") + ".")
        name = st.text_input(t("Rubric name"), rubric.name, key=f"rb_name_{d['id']}")
        table = pd.DataFrame(catalogue.rubric_to_rows(rubric))
        for col in ("weight", "veto_below"):
            table[col] = pd.to_numeric(table[col], errors="coerce")
        levels = [c for c in table.columns if c.startswith(catalogue.LEVEL_PREFIX)]
        order = ["title", *levels, "guidance", "key", "description", "improvement_hint", "weight", "veto_below",
                 "signal"]   # what a teacher checks first: the criteria, their levels, the notes
        edited = st.data_editor(table, num_rows="dynamic", hide_index=True, key=f"rb_table_{d['id']}",
                                column_order=[c for c in order if c in table.columns],
                                column_config=columns(rubric) | {"guidance": guidance_column()})
        c1, c2 = st.columns(2)
        if c1.button(t("Save as rubric"), key=f"rb_save_{d['id']}", type="primary"):
            try:
                _rid, version = builder.save(conn, d["id"], edited.to_dict("records"), name=name,
                                             actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["rb_flash"] = t("Saved {name} as version {version}. Pick it for an assignment "
                                                 "in {tab}.", name=_common.rubric_label(name.strip() or rubric.name),
                                                 version=version, tab=t("Courses & assignments"))
                st.rerun()
        if c2.button(t("Discard this draft"), key=f"rb_discard_{d['id']}"):
            try:
                builder.discard(conn, d["id"], actor=_common.actor())
            except FairMarkError as e:
                _common.show_error(e)
            else:
                st.session_state["rb_flash"] = t("Discarded the draft and its examples.")
                st.rerun()


def versions(data: dict, rubric_id: int) -> None:
    """The versions of the rubric shown on the Rubrics tab, the diff of two, and rollback (all
    from the tab's read)."""
    rows, may_change = data["versions"], data["may_change"]
    st.subheader(t("Versions"))
    st.dataframe(pd.DataFrame([{
        t("version"): r["version"], t("saved"): format_timestamp(r["created_at"]),
        t("note"): t("restores version {version}", version=r["restores"]) if r["restores"] else "",
        t("assignments using it"): r["assignments"], t("AI drafts scored under it"): r["drafts"]} for r in rows]),
        hide_index=True)
    if len(rows) < 2:
        st.caption(t("Only one version so far: saving an edit makes the next one."))
        return
    by_version = {r["version"]: r["id"] for r in rows}
    st.session_state["rv_ids"] = by_version    # the next read compares the versions picked here
    numbers = list(by_version)
    c1, c2 = st.columns(2)
    a = c1.selectbox(t("Compare version"), numbers, index=len(numbers) - 2, key=f"rv_a_{rubric_id}")
    b = c2.selectbox(t("with version"), numbers, index=len(numbers) - 1, key=f"rv_b_{rubric_id}")
    shown = data["compare"]["ids"]
    lines = data["compare"]["lines"] if shown == (by_version[a], by_version[b]) else None
    if lines is None:   # the pickers moved since the read: read again (the next run shows it)
        st.rerun()
    if not lines:
        st.caption(t("Versions {a} and {b} are the same.", a=a, b=b))
    for line in lines:
        st.markdown("- " + _common.md(said(line)))   # core's description of a change (the rubric's text as written)
    if not may_change:
        return
    older = numbers[:-1]
    back = st.selectbox(t("Roll back to version"), older, index=len(older) - 1, key=f"rv_back_{rubric_id}",
                        help=t("Makes a new version with that version's content. Drafts keep the version they "
                               "were scored under; assignments keep theirs until you pick the new one."))
    sure = st.checkbox(t("Yes, make version {version}'s content the newest version", version=back),
                       key=f"rv_sure_{rubric_id}")
    st.button(t("Roll back"), key=f"rv_go_{rubric_id}", disabled=not sure, on_click=_rollback,
              args=(by_version[back], numbers[-1], back))
    if (problem := st.session_state.pop("rv_error", None)) is not None:
        _common.show_error(problem)


def _rollback(rubric_id: int, latest: int, back: int) -> None:
    """The button's callback (before the script: the rubric picker may still be moved to the new version)."""
    conn = _common.connect()
    try:
        new_id, version = rubric_versions.rollback(conn, rubric_id, latest=latest, actor=_common.actor())
    except FairMarkError as e:
        st.session_state["rv_error"] = e.args[0] if len(e.args) == 1 else str(e)   # its Message (not the error: its traceback holds the frames)
    else:
        st.session_state["rub_flash"] = t("Rolled back: version {version} restores version {back}.", version=version,
                                           back=back)
        st.session_state["set_rubric"] = new_id
    finally:
        conn.close()
