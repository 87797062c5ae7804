"""FairMark as an LTI 1.3 tool (the core specification; the Advantage services are
core.lti.tokens, core.lti.roster and core.lti.grades).

- keys: the tool's own RSA keys (sealed in the database), `sign` and the public `jwks`.
- platforms: what an admin registers (issuer, client id, deployments, the platform's URLs).
- platform_keys: the platforms' public keys, fetched over HTTP and cached.
- verify: one id_token checked claim by claim, each refusal a message an admin can act on.
- launch: the OIDC login (state bound to the browser, nonce) and the launch itself.
- people: a good launch's roles, user, course and assignment.
- links: what the grade and roster services read of a link.
- web: the Starlette routes /lti/login, /lti/launch and /lti/jwks.
"""
