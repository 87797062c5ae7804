import streamlit as st

from pages import _common


def render(conn) -> None:
    _common.not_landed(3, "Language-model settings")
