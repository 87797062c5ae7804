"""The command line: python -m core COMMAND (each command prints a JSON summary on stdout)."""
