import streamlit as st

from pages import _common

st.title("Assess")
_common.not_landed(3, "The Assess page")
