import streamlit as st

from pages import _common

st.title("Release")
_common.not_landed(4, "Release")
