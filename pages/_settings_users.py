"""Settings tab "Users" (admins): who may sign in, their roles and the courses granted to them.
Every change goes through core.accounts.identity (audited); passwords are typed here once and never shown."""
import pandas as pd
import streamlit as st

from core.accounts import access
from core.accounts import identity as accounts
from core.errors import FairMarkError
from core.text import format_timestamp
from pages import _common


def render(conn) -> None:
    me = _common.actor()
    if msg := st.session_state.pop("users_flash", None):
        st.success(_common.md(msg))
    data = accounts.users_view(conn, actor=me)  # the tab's one read
    users = data["users"]
    st.dataframe(pd.DataFrame([{
        "user": u["username"], "name": u["display_name"], "role": u["role_label"], "e-mail": u["email"] or "",
        "active": bool(u["active"]), "last sign-in": format_timestamp(u["last_signin_at"]) or "never",
        "courses": "; ".join((g["course_name"] or f"department {g['department']}") + (" (names)" if g["sees_names"]
                                                                                        else "") for g in u["grants"])
        or ("every course" if u["role"] == "admin" else "none")} for u in users]), hide_index=True, width="stretch")
    with st.expander("What each role may do"):
        st.dataframe(pd.DataFrame(access.table()), hide_index=True, width="stretch")

    st.subheader("Add a user")
    with st.form("user_add", clear_on_submit=True):
        c1, c2 = st.columns(2)
        name = c1.text_input("User name (sign-in name)")
        display = c2.text_input("Name as shown")
        role = c1.selectbox("Role", access.ROLES, format_func=access.ROLE_LABELS.get, index=2)
        email = c2.text_input("E-mail (institutional sign-in matches on it)")
        password = st.text_input(f"Password (at least {accounts.MIN_PASSWORD} characters; empty: institutional "
                                 "sign-in only)", type="password")
        if st.form_submit_button("Add user"):
            _do(lambda: accounts.add_user(conn, username=name, role=role, password=password or None,
                                          display_name=display, email=email or None, actor=me), f"Added {name}.")

    if not users:
        return
    st.subheader("Change a user")
    ids = [u["id"] for u in users]
    by_id = {u["id"]: u for u in users}
    uid = st.selectbox("User", ids, format_func=lambda i: by_id[i]["username"], key="users_pick")
    user = by_id[uid]
    courses = data["courses"]
    c1, c2 = st.columns(2)
    with c1.form(f"user_grant_{uid}"):
        course = st.selectbox("Course", [c["id"] for c in courses],
                              format_func={c["id"]: c["name"] for c in courses}.get)
        names = st.checkbox("May see student names (coordinators; everyone else sees them anyway)")
        g1, g2 = st.columns(2)
        if g1.form_submit_button("Grant") and course is not None:
            _do(lambda: accounts.grant(conn, uid, course_id=course, sees_names=names, actor=me), "Granted.")
        if g2.form_submit_button("Revoke") and course is not None:
            _do(lambda: accounts.revoke(conn, uid, course_id=course, actor=me), "Revoked.")
    with c2.form(f"user_role_{uid}"):
        role = st.selectbox("Role", access.ROLES, index=access.ROLES.index(user["role"]),
                            format_func=access.ROLE_LABELS.get)
        if st.form_submit_button("Change role"):
            _do(lambda: accounts.set_role(conn, uid, role, actor=me), f"{user['username']} is now {role}.")
    with c2.form(f"user_password_{uid}", clear_on_submit=True):
        password = st.text_input("New password", type="password")
        if st.form_submit_button("Set password (ends their sessions)"):
            _do(lambda: accounts.set_password(conn, uid, password, actor=me), "Password set.")
    if uid != me.user_id:
        label = "Deactivate (ends their sessions)" if user["active"] else "Activate"
        if st.button(label, key=f"user_active_{uid}"):
            _do(lambda: accounts.set_active(conn, uid, not user["active"], actor=me), "Done.")


def _do(action, done: str) -> None:
    try:
        action()
    except FairMarkError as e:
        _common.show_error(e)
    else:
        st.session_state["users_flash"] = done
        st.rerun()
