"""`streamlit run app.py` retries a failed LMS grade by itself (app.py gives st.App the lifespan
of core.web.server): a grade the test platform refused is in its gradebook once, a few seconds
after the server started, with no request to the server and nobody signed in."""
from __future__ import annotations

import time

import pytest

from core.signoff import release
from e2e_support import streamlit_server
from lti_support import SECRET, client, lti_env, platform  # noqa: F401  (fixtures)
from test_lti_grades import TEACHER, approve, lms  # noqa: F401  (the linked course, its fixture)

# It starts its own server process: with the browser tests' worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_the_running_server_sends_a_failed_grade_by_itself(conn, db_path, tmp_path, lms):
    svc, c, subs = lms
    svc.fail_scores = 1
    approve(conn, subs[0])
    assert release.release(conn, c["assignment_id"], actor=TEACHER)["lms"]["failed"]
    conn.execute("UPDATE lti_passbacks SET next_try = '2000-01-01T00:00:00.000000Z'")   # its time has come
    assert svc.scores == []
    with streamlit_server(db_path, tmp_path, env_extra={"FAIRMARK_LTI_KEY_SECRET": SECRET,
                                                        "FAIRMARK_LTI_RETRY_MINUTES": "0.02"}):   # every 1.2 s
        deadline = time.monotonic() + 60
        while not svc.scores and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3)                                                     # a few more rounds
    assert len(svc.scores_for("lms-0")) == 1
    row = conn.execute("SELECT status FROM lti_passbacks").fetchone()
    assert row[0] == "posted"
    who = conn.execute("SELECT actor FROM audit_log WHERE action = 'lti_post' ORDER BY id DESC LIMIT 1").fetchone()
    assert who[0] == "FairMark (automatic retry)"
