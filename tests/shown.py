"""What a reader sees of the escaped Markdown the pages write (pages/_common.md): backslash
escapes resolved, invisible word joiners and hard-break spaces dropped."""
from __future__ import annotations

import re


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", str(markdown)).replace("\u2060", "").replace("  \n", "\n")
