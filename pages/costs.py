import streamlit as st

from pages import _common

st.title("Costs")
_common.not_landed(5, "The Costs dashboard")
