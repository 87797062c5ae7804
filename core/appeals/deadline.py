"""An assignment's appeal deadline: stored as a UTC timestamp, None (the default) = appeals off.
A teacher types a date (the whole day counts: appeals close at its end, UTC) or a date and time
(UTC unless it names its offset); "none" turns appeals off.

    >>> parse("2026-12-20"), parse("2026-12-20 17:30"), parse("2026-12-20T17:30+01:00"), parse("none")
    ('2026-12-20T23:59:59Z', '2026-12-20T17:30:00Z', '2026-12-20T16:30:00Z', None)
    >>> is_open("2026-12-20T23:59:59Z", now=datetime(2026, 12, 20, 12, tzinfo=timezone.utc)), is_open(None)
    (True, False)
"""
from __future__ import annotations

from datetime import date, datetime, time, timezone

from core.errors import FairMarkError
from core.language.interface import Message

OFF = ("", "none", "off")


def parse(value) -> str | None:
    """A deadline as stored ("YYYY-MM-DDTHH:MM:SSZ"), from a date, a datetime or their text;
    None for "none" / empty (appeals off). Anything else is refused saying what to type."""
    if value is None or (isinstance(value, str) and value.strip().lower() in OFF):
        return None
    if isinstance(value, datetime):
        at = value
    elif isinstance(value, date):
        at = datetime.combine(value, time(23, 59, 59))
    else:
        text = str(value).strip()
        try:
            at = (datetime.combine(date.fromisoformat(text), time(23, 59, 59)) if len(text) == 10
                  else datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError as e:
            raise FairMarkError(Message("appeal deadline {text!r}: give a date such as 2026-12-20 (appeals close at "
                                        "the end of that day, UTC), a date and time such as 2026-12-20 17:00, or none "
                                        "to turn appeals off", text=text)) from e
    at = at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def as_datetime(deadline: str | None) -> datetime | None:
    return None if not deadline else datetime.fromisoformat(deadline.replace("Z", "+00:00"))


def is_open(deadline: str | None, *, now: datetime | None = None) -> bool:
    """Whether appeals are accepted now: a deadline is set and has not passed."""
    at = as_datetime(deadline)
    return at is not None and (now or datetime.now(timezone.utc)) <= at
