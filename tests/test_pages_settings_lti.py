"""Settings → LMS platforms (AppTest): FairMark's three addresses to paste into the LMS, the
registration form (audited, through core) and its refusal that changes nothing, the LMS courses
linked, shown as text."""
from __future__ import annotations

import pytest

from shown import plain


def _tab(app_test, **kw):
    at = app_test("pages/settings.py", **kw).run()
    assert not at.exception
    return at


def _fill(at, **values):
    for key, value in values.items():
        widget = at.text_area(key="lti_deployments") if key == "deployments" else at.text_input(key=f"lti_{key}")
        widget.set_value(value)
    next(b for b in at.button if b.label == "Register").click().run()
    return at


GOOD = {"issuer": "https://moodle.uni.example", "client_id": "Abc123", "deployments": "1\n2",
        "auth_url": "https://moodle.uni.example/mod/lti/auth.php",
        "token_url": "https://moodle.uni.example/mod/lti/token.php",
        "jwks_url": "https://moodle.uni.example/mod/lti/certs.php"}


def test_the_tab_shows_the_tools_addresses_from_the_public_url(app_test, monkeypatch):
    monkeypatch.setenv("FAIRMARK_PUBLIC_URL", "https://fairmark.uni.example/")
    at = _tab(app_test)
    codes = [c.value for c in at.code]
    assert {"https://fairmark.uni.example/lti/login", "https://fairmark.uni.example/lti/launch",
            "https://fairmark.uni.example/lti/jwks"} <= set(codes)
    assert any("FAIRMARK_LTI_KEY_SECRET" in w.value for w in at.warning)     # LTI is off without the secret


def test_registering_an_lms_through_the_form(app_test, conn):
    at = _fill(_tab(app_test), **GOOD)
    assert not at.exception
    assert plain(at.success[0].value).startswith("Registered https://moodle.uni.example (client id Abc123")
    row = conn.execute("SELECT issuer, client_id, jwks_url FROM lti_platforms").fetchone()
    assert row == ("https://moodle.uni.example", "Abc123", "https://moodle.uni.example/mod/lti/certs.php")
    assert [d for (d,) in conn.execute("SELECT deployment_id FROM lti_deployments ORDER BY 1")] == ["1", "2"]
    assert conn.execute("SELECT actor FROM audit_log WHERE action = 'lti_platform_add'").fetchone()[0] == "test-admin"


def test_a_bad_registration_says_what_to_fix_and_registers_nothing(app_test, conn):
    at = _fill(_tab(app_test), **{**GOOD, "token_url": "ftp://moodle.uni.example/token"})
    assert "token URL must be an https:// address" in plain(at.error[0].value)
    assert conn.execute("SELECT COUNT(*) FROM lti_platforms").fetchone()[0] == 0


def test_an_instructor_has_no_lms_tab_and_core_refuses_them(app_test, conn):
    import factories as f
    from core.errors import Forbidden
    from core.lti import platforms

    at = _tab(app_test, role="instructor")
    assert "LMS platforms" not in [t.label for t in at.tabs]
    with pytest.raises(Forbidden):
        platforms.settings_view(conn, actor=f.user(conn, "ines2", "instructor"), page_url=None)
