"""One whole LTI 1.3 launch in Chromium: from the test platform's course page (127.0.0.1) into
`streamlit run app.py` (reached as localhost: another site, as an LMS is), through the OIDC
login, the platform's form post and FairMark's own re-post of it, to the Home page signed in
as the instructor of the new course, with a session cookie no script can read; the launch read
the LMS roster (the platform's token endpoint verified FairMark's assertion against the server's
own /lti/jwks). And the tool's public keys from the same server."""
from __future__ import annotations

import json
import urllib.request

import httpx

import pytest
from playwright.sync_api import expect

import db
import factories as f
from e2e_support import TIMEOUT_MS, streamlit_server
from lti_platform import launch_claims, serve
from lti_support import SECRET, member

# Both tests share one server (the module's world): one worker, with the browser tests.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lti-e2e")
    db_path = tmp / "fairmark.db"
    with serve() as platform:
        conn = db.connect(db_path)
        try:
            platform.register(conn, f.actor("admin"))
        finally:
            conn.close()
        platform.launches["default"] = launch_claims(platform, name="Ines <b>Instructor</b>")
        with streamlit_server(db_path, tmp, env_extra={"FAIRMARK_LTI_KEY_SECRET": SECRET}) as url:
            fairmark = url.replace("127.0.0.1", "localhost")
            platform.tool_login_url = f"{fairmark}/lti/login"
            platform.services.tool_jwks = lambda: httpx.get(f"{url}/lti/jwks", timeout=10).json()
            platform.services.members = [member("lms-ana", "Ana López", "ana@school.example")]
            yield {"platform": platform, "url": fairmark, "db": db_path}


def test_the_server_serves_the_tools_public_keys(world):
    with urllib.request.urlopen(f"{world['url']}/lti/jwks", timeout=10) as r:
        keys = json.loads(r.read())["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and "d" not in keys[0]


def test_a_launch_from_the_lms_signs_the_instructor_in_to_their_course(world, browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        launches = []
        page.on("response", lambda r: launches.append(r.status) if r.url.endswith("/lti/launch") else None)
        page.goto(f"{world['platform'].url}/tool-launch/default")
        page.wait_for_url(f"{world['url']}/?course=*", timeout=TIMEOUT_MS)
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar).to_contain_text("Signed in as Ines <b>Instructor</b> (instructor)")   # the name, as text
        # The course and assignment the launch made, chosen in the sidebar.
        expect(sidebar.get_by_role("combobox", name="Course")).to_have_value("Biology 101", timeout=20_000)
        expect(sidebar.get_by_role("combobox", name="Assignment")).to_have_value("Week 1 reflection", timeout=20_000)
        session = [c for c in context.cookies() if c["name"] == "fairmark_session"]
        assert len(session) == 1 and session[0]["httpOnly"] and session[0]["sameSite"] == "Lax"
        assert "fairmark_session" not in page.evaluate("document.cookie")
        # The platform's cross-site post carried no Lax cookie: FairMark's own page posted it again.
        assert launches == [200, 303]
        assert world["platform"].auth_requests[-1]["redirect_uri"] == f"{world['url']}/lti/launch"
    finally:
        context.close()
    conn = db.connect(world["db"])
    try:
        assert conn.execute("SELECT role FROM lti_users").fetchone()[0] == "instructor"
        assert conn.execute("SELECT COUNT(*) FROM lti_nonces").fetchone()[0] == 1
        assert conn.execute("SELECT st.name, r.lms_user_id FROM students st JOIN lti_roster r ON r.student_id = st.id"
                            ).fetchall() == [("Ana López", "lms-ana")]
    finally:
        conn.close()
