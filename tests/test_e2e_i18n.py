"""The interface's language in a real browser (`streamlit run app.py`, Chromium): a browser set
to Swedish gets the Swedish sign-in form from its first request (st.context.locale), a user's
own choice in the sidebar turns the pages Russian, and it stays with the account in a new
browser whose language is Swedish."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from e2e_support import new_page, sign_in, streamlit_server

pytestmark = pytest.mark.slow   # a real `streamlit run` (docs/testing.md)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e_i18n")
    with streamlit_server(tmp / "fairmark.db", tmp) as url:
        yield url


def _sign_in_in_swedish(page, url: str) -> None:
    sign_in(page, url, labels=("Användarnamn", "Lösenord", "Logga in"))


def test_the_browsers_language_then_the_users_own(browser, server):
    page = new_page(browser, locale="sv-SE")
    page.goto(server)
    expect(page.get_by_text("Logga in för att se dina kurser.")).to_be_visible()
    _sign_in_in_swedish(page, server)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("link", name="Inställningar")).to_be_visible()
    expect(sidebar.get_by_role("button", name="Logga ut")).to_be_visible()
    sidebar.get_by_role("combobox", name="Språk").click()
    page.get_by_role("option", name="Русский").click()
    expect(sidebar.get_by_role("button", name="Выйти")).to_be_visible()
    expect(sidebar.get_by_role("link", name="Настройки")).to_be_visible()
    page.context.close()
    again = new_page(browser, locale="sv-SE")                 # another browser, still Swedish
    _sign_in_in_swedish(again, server)
    expect(again.get_by_test_id("stSidebar").get_by_role("button", name="Выйти")).to_be_visible()
    again.context.close()
