"""FairMark's own HTTP routes, served by the Streamlit server beside the app (issue 25).

app.py hands `core.web.server.routes()` to `st.App(__file__, routes=...)` when `streamlit run app.py` imports
it as the server's ASGI app. Handlers are Starlette's (core may import starlette, never
streamlit) and thin: parse the request, call core, answer.

- core.web.session: /auth/session (a one-time code -> the HttpOnly session cookie) and
  /auth/signout (ends the session, clears the cookie); `start_response` for other sign-ins.
- core.lti.web: /lti/login, /lti/launch, /lti/jwks (LTI 1.3: the LMS's launch and the tool's keys).
"""
