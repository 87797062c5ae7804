"""The project's error hierarchy, as core/, pages/ and the command line import it.

The classes are defined in `db.errors` (db/ raises them too and imports nothing from core/);
this module is their public name outside db/.
"""
from db.errors import (  # noqa: F401
    ConfigError,
    ConflictError,
    FairMarkError,
    GateError,
    IngestError,
    LLMAuthError,
    LLMBadRequest,
    LLMConfigFault,
    LLMConnectionError,
    LLMError,
    LLMInvalidOutput,
    LLMNotFound,
    LLMRateLimited,
    LLMRefusal,
    LLMServerError,
    LLMTimeout,
    LLMTruncated,
    NotFound,
    RubricError,
)
