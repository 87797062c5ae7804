"""One migration, recorded in the database by its name: never rename or edit it once released."""
from sqlite_utils import Database


def m025a_lti_launch(conn: Database) -> None:
    """FairMark as an LTI 1.3 tool: the platforms (LMSs) an admin registered and their
    deployments, the tool's own signing keys (the private key encrypted), the login states and
    used nonces of launches, and what a launch links: the LMS context to a FairMark course, the
    LMS user to a FairMark user (or, for a learner, to a student of the course), the resource
    link to an assignment with its grade and roster service endpoints."""
    for stmt in _LTI.split(";\n"):
        if stmt.strip():
            conn.execute(stmt)


_LTI = """
CREATE TABLE lti_platforms (
    id INTEGER PRIMARY KEY,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    auth_url TEXT NOT NULL,
    token_url TEXT NOT NULL,
    jwks_url TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (issuer, client_id)
);
CREATE TABLE lti_deployments (
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    deployment_id TEXT NOT NULL,
    PRIMARY KEY (platform_id, deployment_id)
);
CREATE TABLE lti_keys (
    kid TEXT PRIMARY KEY,
    public_jwk TEXT NOT NULL,                  -- JSON, served at /lti/jwks
    private_key TEXT NOT NULL,                 -- AES-GCM sealed with FAIRMARK_LTI_KEY_SECRET, never plain
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    retired_at TEXT                            -- a rotated key: still published until it can sign nothing in flight
);
CREATE TABLE lti_states (
    state TEXT PRIMARY KEY,                    -- the OIDC state sent to the platform
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    nonce TEXT NOT NULL,
    browser_hash TEXT NOT NULL,                -- SHA-256 of the state cookie: the state is bound to that browser
    target_link_uri TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    used_at TEXT
);
CREATE TABLE lti_nonces (
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    nonce TEXT NOT NULL,
    expires_at TEXT NOT NULL,                  -- kept while a token carrying it could still be valid
    PRIMARY KEY (platform_id, nonce)
);
CREATE TABLE lti_contexts (
    id INTEGER PRIMARY KEY,
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    context_id TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    course_id INTEGER REFERENCES courses(id),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (platform_id, context_id)
);
CREATE INDEX idx_lti_contexts_course ON lti_contexts (course_id);
CREATE TABLE lti_users (
    id INTEGER PRIMARY KEY,
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    sub TEXT NOT NULL,                         -- the LMS user id
    context_row INTEGER NOT NULL REFERENCES lti_contexts(id),
    user_id INTEGER REFERENCES users(id),      -- staff: the FairMark user made for them in this course
    student_id INTEGER REFERENCES students(id),-- learners: the course's student, when known
    role TEXT NOT NULL CHECK (role IN ('instructor', 'ta', 'student')),
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    sourcedid TEXT NOT NULL DEFAULT '',        -- lis_person_sourcedid (the SIS id)
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    last_launch_at TEXT,
    UNIQUE (platform_id, sub, context_row)
);
CREATE INDEX idx_lti_users_user ON lti_users (user_id);
CREATE INDEX idx_lti_users_student ON lti_users (student_id);
CREATE INDEX idx_lti_users_context ON lti_users (context_row);
CREATE TABLE lti_links (
    id INTEGER PRIMARY KEY,
    platform_id INTEGER NOT NULL REFERENCES lti_platforms(id),
    resource_link_id TEXT NOT NULL,
    context_row INTEGER NOT NULL REFERENCES lti_contexts(id),
    assignment_id INTEGER REFERENCES assignments(id),
    title TEXT NOT NULL DEFAULT '',
    lineitem_url TEXT,
    lineitems_url TEXT,
    ags_scopes TEXT NOT NULL DEFAULT '[]',     -- JSON list
    nrps_url TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (platform_id, resource_link_id)
);
CREATE INDEX idx_lti_links_assignment ON lti_links (assignment_id);
CREATE INDEX idx_lti_links_context ON lti_links (context_row)
"""
