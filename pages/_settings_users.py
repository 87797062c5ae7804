"""Settings tab "Users" (admins): who may sign in, their roles and the courses granted to them.
Every change goes through core.accounts.identity (audited); passwords are typed here once and never shown."""
import pandas as pd
import streamlit as st

from core.accounts import access
from core.accounts import identity as accounts
from core.errors import FairMarkError
from core.text import format_timestamp
from pages import _common
from pages._i18n import t, tn


def render(conn) -> None:
    me = _common.actor()
    if msg := st.session_state.pop("users_flash", None):
        st.success(_common.md(msg))
    data = accounts.users_view(conn, actor=me)  # the tab's one read
    users = data["users"]
    st.dataframe(pd.DataFrame([{
        t("user"): u["username"], t("name"): u["display_name"], t("role"): _role(u["role"]),
        t("e-mail"): u["email"] or "", t("active"): bool(u["active"]),
        t("last sign-in"): format_timestamp(u["last_signin_at"]) or t("never"),
        t("courses"): "; ".join((g["course_name"] or t("department {name}", name=g["department"]))
                                + (" " + t("(names)") if g["sees_names"] else "") for g in u["grants"])
        or (t("every course") if u["role"] == "admin" else t("none"))} for u in users]), hide_index=True,
        width="stretch")
    with st.expander(t("What each role may do")):
        # The actions' words and the roles' names are core's English labels, translated here.
        st.dataframe(pd.DataFrame([{t(k): t(v) if k == "action" else v
                                    for k, v in row.items()} for row in access.table()]), hide_index=True, width="stretch")

    st.subheader(t("Add a user"))
    with st.form("user_add", clear_on_submit=True):
        c1, c2 = st.columns(2)
        name = c1.text_input(t("User name (sign-in name)"))
        display = c2.text_input(t("Name as shown"))
        role = c1.selectbox(t("Role"), access.ROLES, format_func=_role, index=2)
        email = c2.text_input(t("E-mail (institutional sign-in matches on it)"))
        password = st.text_input(tn("Password (at least {count} character; empty: institutional sign-in only)",
                                    "Password (at least {count} characters; empty: institutional sign-in only)",
                                    accounts.MIN_PASSWORD), type="password")
        if st.form_submit_button(t("Add user")):
            _do(lambda: accounts.add_user(conn, username=name, role=role, password=password or None,
                                          display_name=display, email=email or None, actor=me),
                t("Added {name}.", name=name))

    if not users:
        return
    st.subheader(t("Change a user"))
    ids = [u["id"] for u in users]
    by_id = {u["id"]: u for u in users}
    uid = st.selectbox(t("User"), ids, format_func=lambda i: by_id[i]["username"], key="users_pick")
    user = by_id[uid]
    courses = data["courses"]
    c1, c2 = st.columns(2)
    with c1.form(f"user_grant_{uid}"):
        course = st.selectbox(t("Course"), [c["id"] for c in courses],
                              format_func={c["id"]: c["name"] for c in courses}.get)
        names = st.checkbox(t("May see student names (coordinators; everyone else sees them anyway)"))
        g1, g2 = st.columns(2)
        if g1.form_submit_button(t("Grant")) and course is not None:
            _do(lambda: accounts.grant(conn, uid, course_id=course, sees_names=names, actor=me), t("Granted."))
        if g2.form_submit_button(t("Revoke")) and course is not None:
            _do(lambda: accounts.revoke(conn, uid, course_id=course, actor=me), t("Revoked."))
    with c2.form(f"user_role_{uid}"):
        role = st.selectbox(t("Role"), access.ROLES, index=access.ROLES.index(user["role"]), format_func=_role)
        if st.form_submit_button(t("Change role")):
            _do(lambda: accounts.set_role(conn, uid, role, actor=me),
                t("{name} is now {role}.", name=user["username"], role=_role(role)))
    with c2.form(f"user_password_{uid}", clear_on_submit=True):
        password = st.text_input(t("New password"), type="password")
        if st.form_submit_button(t("Set password (ends their sessions)")):
            _do(lambda: accounts.set_password(conn, uid, password, actor=me), t("Password set."))
    if uid != me.user_id:
        label = t("Deactivate (ends their sessions)") if user["active"] else t("Activate")
        if st.button(label, key=f"user_active_{uid}"):
            _do(lambda: accounts.set_active(conn, uid, not user["active"], actor=me), t("Done."))


def _role(role: str) -> str:
    """A role as the interface names it (the sidebar's names, translated)."""
    return t(_common.ROLE_NAMES[role]) if role in _common.ROLE_NAMES else access.ROLE_LABELS.get(role, role)


def _do(action, done: str) -> None:
    try:
        action()
    except FairMarkError as e:
        _common.show_error(e)
    else:
        st.session_state["users_flash"] = done
        st.rerun()
