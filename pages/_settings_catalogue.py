import streamlit as st

from pages import _common


def courses_and_assignments(conn) -> None:
    _common.not_landed(2, "Editing courses and assignments")


def rubrics(conn) -> None:
    _common.not_landed(2, "Rubric management")
