import streamlit as st

from pages import _common

st.title("Upload")
_common.not_landed(2, "Upload")
