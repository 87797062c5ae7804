import streamlit as st

from pages import _common

st.title("Student")
_common.not_landed(4, "The student view")
