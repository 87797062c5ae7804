"""The privacy cases, one copy for tests/test_privacy.py and bench/privacy.py: a six-student
roster, reflections naming classmates in many spellings with phone numbers and obfuscated
e-mails, and the search for any of them in what was sent to the model."""
from __future__ import annotations

import json
import re
import unicodedata

ROSTER = [("s1", "Ana López", "ana.lopez@uni.es"), ("s2", "Zoë O'Connor", "zoe.oconnor@uni.ie"),
          ("s3", "José Núñez", "jnunez@uni.mx"), ("s4", "Ana Silva", "ana.silva@uni.pt"),
          ("s5", "Siobhán Ní Bhriain", "siobhan@uni.ie"), ("s6", "Anne-Marie Svensson", "ams@uni.se")]
PHONES = ["+46 70 123 45 67", "070-987 65 43", "(555) 123-4567", "+353 87 765 4321"]
FILLER = ("This week I learned how a language model predicts the next token and how temperature changes "
          "its answers. For example, at work I drafted e-mails with a chatbot and compared the drafts. "
          "I wonder how bias enters the training data, and whether we can trust these tools for hiring. ")
# (the author's student id, what they wrote before the filler)
REFLECTIONS = [
    ("s4", "I worked with Ana López and ana lopez's notes helped; Zoë O'Connor disagreed, and Mr. O'Connor's "
           "example (from Zoe OConnor) was about chess. Call me on +46 70 123 45 67 or mail ana.lopez [at] uni.es."),
    ("s4", "My surname Silva comes from Porto. José Núñez and J. Nunez (the same person) said NÚÑEZ is fine; "
           "reach José at jnunez(at)uni(dot)mx or 070-987 65 43."),
    ("s2", "Siobhán Ní Bhriain and Siobhan talked to Anne-Marie Svensson, also Anne Marie and AnneMarie. "
           "Her number is (555) 123-4567; mine is +353 87 765 4321; write to ams at uni dot se or "
           "zoe.oconnor @ uni.ie."),
]


def fold(text: str) -> str:
    """Accents, case and apostrophes ignored: "Zoë O'Connor" and "zoe oconnor" are the same."""
    text = unicodedata.normalize("NFD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold().replace("'", "").replace("’", "")


def sent(bodies: list) -> str:
    """Every message of every request body, folded."""
    return fold("\n".join(str(m.get("content", "")) for b in bodies for m in json.loads(b).get("messages", [])))


def leaks(text: str) -> dict[str, int]:
    """What of the roster is in `text` (folded): {"name part Ana": 3, "phone ...": 1, ...}; {} is none."""
    digits = re.sub(r"\D", "", text)
    found = {}
    for _, name, email in ROSTER:
        for part in re.split(r"[\s\-]+", name):
            if len(part) >= 3 and (n := len(re.findall(rf"(?<!\w){re.escape(fold(part))}(?!\w)", text))):
                found[f"name part {part}"] = n
        for piece in email.split("@"):
            if fold(piece) in text:
                found[f"e-mail part {piece}"] = text.count(fold(piece))
    for phone in PHONES:
        if n := digits.count(re.sub(r"\D", "", phone)[-7:]):
            found[f"phone {phone}"] = n
    return found
