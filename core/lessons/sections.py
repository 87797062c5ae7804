"""A lesson's Markdown as sections (a heading and its body) and sentences, each with its place
in the text, so a fix can replace exactly one section and a flag can point at one sentence.

>>> text = "# Rain\\nIntro here.\\n\\n## Why it rains\\nWater falls. It is wet!\\n"
>>> [(s.title, s.body) for s in split(text)]
[('Rain', 'Intro here.'), ('Why it rains', 'Water falls. It is wet!')]
>>> [s.text for s in sentences("Water falls. It is wet! Dr. Rain came at 3.5 km.")]
['Water falls.', 'It is wet!', 'Dr. Rain came at 3.5 km.']
>>> replace_body(text, split(text)[1], "Clouds let go of water.")
'# Rain\\nIntro here.\\n\\n## Why it rains\\nClouds let go of water.\\n'
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
# A sentence ends at . ! ? followed by space/end, but not after a common abbreviation or an
# initial, and not inside a number (3.5).
_ABBREV = ("dr", "mr", "mrs", "ms", "st", "e.g", "i.e", "etc", "vs", "fig", "no", "approx", "ca")
_END = re.compile(r"[.!?]+(?=\s|$)|\n\s*\n")


@dataclass(frozen=True)
class Section:
    index: int
    title: str          # the heading's text ("" for text before the first heading)
    level: int          # 0 for text before the first heading
    start: int          # where the body starts in the text
    end: int            # where the body ends (exclusive, trailing blank lines excluded)
    body: str

    @property
    def name(self) -> str:
        """How a teacher and the fixer refer to it."""
        return self.title or ("the opening" if self.index == 0 else f"part {self.index + 1}")


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str


def split(text: str) -> list[Section]:
    """Sections by Markdown heading; a text without headings is split into paragraphs instead
    (a plain-text lesson still has an introduction, a body and a conclusion)."""
    heads = list(_HEADING.finditer(text))
    if not heads:
        return _paragraphs(text)
    spans: list[tuple[str, int, int, int]] = []
    if text[:heads[0].start()].strip():
        spans.append(("", 0, 0, heads[0].start()))
    for i, h in enumerate(heads):
        body_start = h.end() + 1 if text[h.end():h.end() + 1] == "\n" else h.end()
        body_end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        spans.append((h.group(2).strip(), len(h.group(1)), body_start, body_end))
    return [_section(text, i, title, level, a, b) for i, (title, level, a, b) in enumerate(spans)]


def _paragraphs(text: str) -> list[Section]:
    out, pos = [], 0
    for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*\Z)", text, re.DOTALL):
        out.append(Section(len(out), "", 0, m.start(), m.end(), m.group(0)))
        pos = m.end()
    return out or [Section(0, "", 0, 0, len(text), text)]


def _section(text: str, index: int, title: str, level: int, start: int, end: int) -> Section:
    body = text[start:end]
    stripped = body.rstrip()
    lead = len(body) - len(body.lstrip("\n"))
    return Section(index, title, level, start + lead, start + len(stripped), stripped.lstrip("\n"))


def replace_body(text: str, section: Section, new_body: str) -> str:
    """The text with only this section's body replaced (heading and every other section kept
    byte for byte)."""
    return text[:section.start] + new_body.strip("\n") + text[section.end:]


def sentences(text: str, offset: int = 0) -> list[Sentence]:
    """Sentences with their character positions (plus `offset`), skipping headings, list
    bullets' markers and empty pieces."""
    out: list[Sentence] = []
    start = 0
    for m in _END.finditer(text):
        piece_end = m.end() if m.group(0).strip() else m.start()
        if m.group(0).strip() == "." and _is_abbreviation(text, m.start()):
            continue
        _add(out, text, start, piece_end, offset)
        start = m.end()
    _add(out, text, start, len(text), offset)
    return out


def _is_abbreviation(text: str, dot: int) -> bool:
    word = re.search(r"([A-Za-z.]+)$", text[max(0, dot - 8):dot])
    if not word:
        return False
    w = word.group(1).lower().strip(".")
    return w in _ABBREV or (len(w) == 1 and w.isalpha() and text[dot - 1].isupper())


def _add(out: list[Sentence], text: str, a: int, b: int, offset: int) -> None:
    piece = text[a:b]
    lead = len(piece) - len(piece.lstrip())
    piece = piece.strip()
    # Headings and list markers are not sentences of their own; skip their markup.
    m = re.match(r"(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+)", piece)
    if m and piece.startswith("#") and "\n" in piece:
        head_len = piece.index("\n") + 1
        rest = piece[head_len:]
        lead2 = len(rest) - len(rest.lstrip())
        return _add(out, text, a + lead + head_len + lead2, b, offset) if rest.strip() else None
    if m and piece.startswith("#"):
        return None
    if m:
        lead += m.end()
        piece = piece[m.end():]
    if re.search(r"[^\W_]", piece):
        out.append(Sentence(a + lead + offset, a + lead + len(piece) + offset, piece))
