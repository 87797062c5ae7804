import streamlit as st

from pages import _common

st.title("Review")
_common.not_landed(4, "The review queue")
