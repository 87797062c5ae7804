"""The project's own error hierarchy.

Everything a page or the command line may need to show a person derives from
FairMarkError and carries a message that says what went wrong and what to do.
SDK and library errors are mapped to these once, at the boundary where they occur.

It lives at the bottom layer so that db/ can raise it without importing core/; code outside
db/ imports the same classes from `core.errors`.
"""
import sqlite3


class FairMarkError(Exception):
    """Base class: the message is meant for a teacher or an admin."""


class ConfigError(FairMarkError):
    """Settings are missing or invalid."""


class RubricError(FairMarkError):
    """A rubric definition is invalid; the message names the problem."""


class IngestError(FairMarkError):
    """An uploaded file cannot be read at all (format, encoding, size)."""


class NotFound(FairMarkError):
    """A course, assignment, submission … does not exist."""


class ConflictError(FairMarkError):
    """Someone else changed the item since it was loaded (optimistic locking)."""


class Forbidden(FairMarkError):
    """The signed-in person's role or grants do not allow this (core/accounts/access.py says which and
    whom to ask)."""


class NotSignedIn(FairMarkError):
    """A sign-in failed, was locked or has expired; the message never says which part was wrong."""


class LaunchRefused(FairMarkError):
    """An LTI launch or login that FairMark refuses: the message says what was wrong and which
    setting (FairMark's or the LMS's) to check; nothing was changed."""


class GateError(FairMarkError):
    """A release or bulk action is refused because a precondition does not hold."""


# --- LLM faults (raised by the LLM boundary in core/; recorded per item by the pipeline) ---
class LLMError(FairMarkError):
    """A call to the language model failed after the allowed retries.

    `config_suspect`: the fault may be a setting rather than this submission (an unknown model,
    an endpoint that never answered). One such fault fails only its item; core.runs.reflections stops the
    run when the same one hits several items in a row (then it is the setting)."""

    retryable = False
    config_suspect = False


class LLMTimeout(LLMError):
    retryable = True


class LLMRateLimited(LLMError):
    retryable = True

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class LLMServerError(LLMError):
    retryable = True


class LLMConnectionError(LLMError):
    retryable = True


class LLMConfigFault(LLMError):
    """A fault every further item would hit too (a setting is wrong, not this submission):
    the pipeline lets it propagate, no draft is written, and the run stops for the admin to fix
    the setting and resume."""


class LLMAuthError(LLMConfigFault):
    """The endpoint refused the API key."""


class LLMBadRequest(LLMError):
    pass


class LLMNotFound(LLMBadRequest):
    """HTTP 404: the endpoint does not know the model, or the base URL is wrong."""

    config_suspect = True


class LLMRefusal(LLMError):
    pass


class LLMTruncated(LLMError):
    pass


class LLMInvalidOutput(LLMError):
    """The answer was not valid JSON for the expected schema, even after a re-ask."""


# Every error class above (core/errors.py re-exports them all).
__all__ = [name for name, obj in list(globals().items()) if isinstance(obj, type) and issubclass(obj, FairMarkError)]


class Busy(sqlite3.OperationalError):
    """A lock asked for only if free was held elsewhere (db.write_transaction's `lock`, on PostgreSQL);
    a "database is locked" error, as SQLite's, for code that does not look for it."""
