"""Make tests/data/release_db.sqlite: a small database written by a released FairMark, through
its own command line, for tests/test_release_db.py to migrate to the current head.

    git worktree add /tmp/fairmark-release <commit of the release>
    python tests/data/make_release_db.py /tmp/fairmark-release tests/data/release_db.sqlite
    git worktree remove /tmp/fairmark-release

It holds two users (an admin with a password, an instructor with an e-mail and a course grant),
the synthetic demo course (4 assignments, 28 students, 112 reflections with expert scores), an
offline run over 6 reflections of the first assignment (drafts, call log), 2 of them approved
by the instructor and released. The file is rewritten compactly (1 KB pages, no WAL) so it
stays small in the repository.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

PASSWORD = "correct horse battery"   # the admin's (tests/factories.py's PASSWORD)
COURSE = "AI Literacy for Professionals (synthetic demo)"
ASSIGNMENT = "How LLMs work and what temperature does"


def main(release: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "release.db"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FAIRMARK_", "OPENAI_", "AZURE_OPENAI"))}
        env.update(FAIRMARK_DB=str(path), FAIRMARK_SECRETS=str(Path(tmp) / "no-secrets.toml"))

        def cli(*args: str, stdin: str | None = None) -> None:
            subprocess.run([sys.executable, "-m", "core", *args], cwd=release, env=env, input=stdin, text=True,
                           check=True, stdout=subprocess.DEVNULL)

        cli("user", "add", "ada", "--role", "admin", "--password-stdin", stdin=PASSWORD + "\n")
        cli("demo")
        cli("user", "add", "tom", "--role", "instructor", "--no-password", "--email", "tom@example.edu",
            "--display-name", "Tom Teacher")
        cli("user", "grant", "tom", "--course", COURSE)
        cli("assess", "--course", COURSE, "--assignment", ASSIGNMENT, "--provider", "offline", "--limit", "6")
        for submission in ("1", "2"):
            cli("review", "show", submission, "--as", "tom")      # opens it, as the review page does
            cli("review", "approve", submission, "--version", "1", "--as", "tom")
        cli("release", "--course", COURSE, "--assignment", ASSIGNMENT, "--as", "tom")
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("PRAGMA page_size = 1024")
        conn.execute("VACUUM")
        conn.close()
        out.write_bytes(path.read_bytes())
    print(f"{out}: {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
