"""`python -m core lti platform add|list`, `lti status`, `lti keys rotate`: JSON on stdout,
admins only, refusals exit 2 with {"error": ...} and change nothing."""
from __future__ import annotations

import json

import factories as f
from core.cli import main
from lti_support import client, counts, launch, lti_env, platform  # noqa: F401

ADD = ["lti", "platform", "add", "--issuer", "https://lms.example", "--client-id", "fm-1", "--deployment-id", "d1",
       "--deployment-id", "d2", "--auth-url", "https://lms.example/auth", "--token-url", "https://lms.example/token",
       "--jwks-url", "https://lms.example/jwks"]


def run(capsys, *argv) -> tuple[int, dict]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_platform_add_prints_the_registration_and_list_shows_it(conn, capsys):
    code, out = run(capsys, *ADD)
    assert code == 0 and out == {"platform_id": out["platform_id"], "issuer": "https://lms.example",
                                 "client_id": "fm-1", "deployments": ["d1", "d2"]}
    code, again = run(capsys, *ADD[:8], "d3", *ADD[11:])    # another deployment of the same registration
    assert code == 0 and again["platform_id"] == out["platform_id"] and again["deployments"] == ["d1", "d2", "d3"]
    code, listed = run(capsys, "lti", "platform", "list")
    [p] = listed["platforms"]
    assert code == 0 and p["jwks_url"] == "https://lms.example/jwks" and p["deployments"] == ["d1", "d2", "d3"]
    assert conn.execute("SELECT COUNT(*) FROM audit_log WHERE action LIKE 'lti_%'").fetchone()[0] == 4


def test_a_bad_registration_exits_2_and_changes_nothing(conn, capsys):
    before = counts(conn)
    code, out = run(capsys, *[("http://lms.example/auth" if a == "https://lms.example/auth" else a) for a in ADD])
    assert code == 2 and "authorization URL must be an https:// address" in out["error"]
    assert counts(conn) == before
    run(capsys, *ADD)
    before = counts(conn)
    code, out = run(capsys, *[("https://lms.example/other-keys" if a.endswith("/jwks") else a) for a in ADD])
    assert code == 2 and "registered already with other URLs (jwks_url)" in out["error"] and counts(conn) == before


def test_only_an_admin_registers_or_rotates(conn, capsys):
    f.user(conn, "ines", "instructor")
    before = counts(conn)
    for argv in (ADD, ["lti", "platform", "list"], ["lti", "status"], ["lti", "keys", "rotate"]):
        code, out = run(capsys, *argv, "--as", "ines")
        assert code == 2 and "ask an admin" in out["error"], argv
    assert counts(conn) == before


def test_status_lists_platforms_linked_courses_and_pending_posts(conn, capsys, platform, client):
    assert launch(client, platform)[0].status_code == 303
    code, out = run(capsys, "lti", "status")
    assert code == 0 and set(out) == {"platforms", "contexts", "pending"}
    assert out["contexts"] == [{"context_id": "ctx-1", "title": "Biology 101", "course": "Biology 101"}]
    assert out["platforms"][0]["issuer"] == platform.issuer and out["pending"] == []


def test_keys_rotate_prints_the_new_key_and_the_retired_one(conn, capsys, lti_env):
    code, first = run(capsys, "lti", "keys", "rotate")
    assert code == 0 and first["retired"] == [] and first["old_keys_published_until"] is None
    code, second = run(capsys, "lti", "keys", "rotate")
    assert code == 0 and second["retired"] == [first["kid"]] and second["old_keys_published_until"]


def test_keys_rotate_without_the_secret_says_which_setting(conn, capsys, monkeypatch):
    monkeypatch.delenv("FAIRMARK_LTI_KEY_SECRET", raising=False)
    code, out = run(capsys, "lti", "keys", "rotate")
    assert code == 2 and "FAIRMARK_LTI_KEY_SECRET" in out["error"]
