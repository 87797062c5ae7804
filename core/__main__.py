"""python -m core: the command line (core.cli)."""
import sys

from core.cli import build_parser, main  # noqa: F401  (build_parser: read by the CLI reference's test)

if __name__ == "__main__":
    sys.exit(main())
