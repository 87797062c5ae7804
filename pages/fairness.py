import streamlit as st

from pages import _common

st.title("Fairness")
_common.not_landed(5, "The Fairness dashboard")
