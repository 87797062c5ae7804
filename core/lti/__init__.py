"""FairMark as an LTI 1.3 tool (issue 25): the launch (keys, platforms, login, links) and the
Advantage services.

- `tokens`: the OAuth2 client-credentials grant the services need (a JWT client assertion signed
  with the tool's key), cached per platform and scopes.
- `grades`: Assignment and Grade Services: a release's scores and comments to the LMS gradebook,
  retried with backoff, each post once and audited.
- `roster`: Names and Role Provisioning Services: the LMS course's students into the course's
  roster (and so into the masking of names before any model call).
"""
