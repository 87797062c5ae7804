"""`python -m core lti ...`: FairMark as an LTI 1.3 tool (an admin's).

    python -m core lti platform add --issuer URL --client-id ID --deployment-id ID [--deployment-id ID ...]
                                    --auth-url URL --token-url URL --jwks-url URL
    python -m core lti platform list
    python -m core lti status          platforms, linked LMS courses, grade posts not yet accepted
    python -m core lti keys rotate     a new signing key (the old one stays published 15 minutes)
    python -m core lti push --course C --assignment A    send the grades not yet in the LMS, now
    python -m core lti roster --course C                 read the LMS course's roster now

Each prints one JSON object; a refusal exits 2 with {"error": ...}. The grade and roster
commands (lti push, lti roster) are core.cli.lti_grades' and join this group's subcommands.
"""
from __future__ import annotations

from core.cli import lti_grades
from core.cli.common import actor, add_db_arg, emit, open_db
from core.lti import keys, platforms


def register(sub) -> None:
    p = sub.add_parser("lti", help="LTI 1.3: register LMS platforms, status, grades and roster, the tool's keys")
    groups = p.add_subparsers(dest="group", required=True, metavar="GROUP")
    plat = groups.add_parser("platform", help="register or list LMS platforms")
    verbs = plat.add_subparsers(dest="verb", required=True, metavar="VERB")
    a = verbs.add_parser("add", help="register an LMS (or add deployments to one registered)")
    a.add_argument("--issuer", required=True, help="the LMS's issuer (iss), as its registration of FairMark shows")
    a.add_argument("--client-id", required=True, help="the client id the LMS gave FairMark")
    a.add_argument("--deployment-id", required=True, action="append", dest="deployment_ids",
                   help="a deployment id allowed to launch (repeat for several)")
    a.add_argument("--auth-url", required=True, help="the LMS's OIDC authorization URL")
    a.add_argument("--token-url", required=True, help="the LMS's OAuth 2 token URL")
    a.add_argument("--jwks-url", required=True, help="the LMS's public keyset (JWKS) URL")
    verbs.add_parser("list", help="the registered LMS platforms and their deployments")
    groups.add_parser("status", help="platforms, linked LMS courses, grade posts not yet accepted")
    k = groups.add_parser("keys", help="the tool's signing keys")
    kverbs = k.add_subparsers(dest="verb", required=True, metavar="VERB")
    kverbs.add_parser("rotate", help="make a new signing key; the old one stays published 15 minutes")
    for parser in (*verbs.choices.values(), groups.choices["status"], *kverbs.choices.values()):
        add_db_arg(parser)
        parser.set_defaults(func=run)
    lti_grades.add_parsers(groups)


def run(args) -> int:
    conn = open_db(args)
    try:
        who = actor(args, conn)
        if args.group == "platform" and args.verb == "add":
            emit(platforms.add(conn, issuer=args.issuer, client_id=args.client_id, deployment_ids=args.deployment_ids,
                               auth_url=args.auth_url, token_url=args.token_url, jwks_url=args.jwks_url, actor=who))
        elif args.group == "platform":
            emit({"platforms": platforms.list_all(conn, actor=who)})
        elif args.group == "status":
            emit(platforms.status(conn, actor=who))
        else:
            emit(keys.rotate(conn, actor=who))
        return 0
    finally:
        conn.close()
