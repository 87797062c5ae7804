import streamlit as st

from pages import _common

st.title("Agreement")
_common.not_landed(5, "The Agreement dashboard")
