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
- tokens: the OAuth2 client-credentials grant the services need (a JWT client assertion signed
  with the tool's key), cached per platform and scopes.
- grades: Assignment and Grade Services: a release's scores and comments to the LMS gradebook,
  retried with backoff, each post once and audited.
- roster: Names and Role Provisioning Services: the LMS course's students into the course's
  roster (and so into the masking of names before any model call).
"""
