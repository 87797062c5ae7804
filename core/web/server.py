"""The one list of FairMark's HTTP routes that app.py gives `st.App` (its own module, so that
core.lti.web can use core.web.session without an import circle through the package)."""
from __future__ import annotations


def routes() -> list:
    """Every FairMark route (starlette.routing.BaseRoute), in the order they are matched."""
    from core.lti import web as lti_web
    from core.web import session

    return [*session.ROUTES, *lti_web.ROUTES]
