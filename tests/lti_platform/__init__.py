"""An LTI 1.3 platform on this machine, for the tests: one real HTTP server on 127.0.0.1
(uvicorn in a thread, a Starlette app) with its own RSA key (joserfc), its JWKS, the OIDC
authorization endpoint of a launch (tests/lti_platform/launch.py) and the Advantage services
the launch's claims point at: the token endpoint, NRPS memberships and AGS line items and
scores (tests/lti_platform/services.py, `platform.services`). One platform tells the whole
story: a launch, the roster it reads, the grades it receives.

    with serve() as platform:
        platform.launches["default"] = launch_claims(platform)
        platform.login_params()   # what the LMS sends to FairMark's /lti/login
        platform.services.tool_jwks = ...   # where its token endpoint reads FairMark's public keys
"""
from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import uvicorn
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.routing import Route

from lti_platform import launch as _launch
from lti_platform.launch import launch_claims, mint  # noqa: F401  (the helpers tests use)
from lti_platform.services import Services
from lti_platform.services import routes as service_routes


class Platform:
    def __init__(self, url: str, *, client_id: str = "fairmark-client", deployment_id: str = "dep-1"):
        self.url = url
        self.issuer = url
        self.client_id = client_id
        self.deployment_id = deployment_id
        self.key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)
        self.keys = [self.key]            # what /jwks publishes
        self.launches: dict[str, dict] = {}
        self.auth_requests: list[dict] = []
        self.jwks_fetches = 0
        self.tool_login_url = "http://testserver/lti/login"   # where /tool-launch/<hint> posts the login
        # The Advantage services; until a test says where FairMark's keys are, no assertion verifies.
        self.services = Services(client_id=client_id, tool_jwks=lambda: {"keys": []}, base_url=url)

    @property
    def urls(self) -> dict:
        return {"auth_url": f"{self.url}/auth", "token_url": f"{self.url}/token", "jwks_url": f"{self.url}/jwks"}

    def register(self, conn, actor) -> dict:
        """Register this platform with FairMark (what the admin does)."""
        from core.lti import platforms

        added = platforms.add(conn, issuer=self.issuer, client_id=self.client_id, deployment_ids=[self.deployment_id],
                              **self.urls, actor=actor)
        self.services.platform_id = added["platform_id"]
        return added

    @property
    def platform_id(self) -> int | None:
        """FairMark's id of this platform, once registered."""
        return self.services.platform_id

    def rotate(self) -> RSAKey:
        """A new signing key, published beside the old one."""
        self.key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, auto_kid=True)
        self.keys.append(self.key)
        return self.key

    def login_params(self, hint: str = "default", **extra) -> dict:
        return {"iss": self.issuer, "login_hint": "hint-user", "target_link_uri": "http://testserver/lti/launch",
                "lti_message_hint": hint, "client_id": self.client_id, "lti_deployment_id": self.deployment_id,
                **extra}

    @staticmethod
    def auth_query(location: str) -> dict:
        """The OIDC request FairMark's login redirected to."""
        return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def app_for(platform: Platform) -> Starlette:
    app = Starlette(routes=[Route("/auth", _launch.auth, methods=["GET", "POST"]),
                            Route("/jwks", _launch.jwks, methods=["GET"]),
                            Route("/tool-launch/{hint}", _launch.tool_launch, methods=["GET"]),
                            *service_routes(platform.services)])
    app.state.platform = platform
    return app


@contextmanager
def serve(**kwargs):
    """A platform serving over HTTP on 127.0.0.1 until the block ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    platform = Platform(f"http://127.0.0.1:{sock.getsockname()[1]}", **kwargs)
    server = uvicorn.Server(uvicorn.Config(app_for(platform), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test LTI platform did not start")
        time.sleep(0.02)
    try:
        yield platform
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
