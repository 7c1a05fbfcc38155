"""The Python client of mnemo, long-term memory for AI agents.

    import mnemo
    m = mnemo.Client(base_url="http://127.0.0.1:7077", api_key=key, agent_id="support-bot")
    m.remember(content="The user prefers dark mode", key="/user/prefs/theme")
    m.recall(query="which theme?")

Answers are typed by the TypedDicts of mnemo.types (Memory, WriteResult,
RecallResult, ...), generated from the server's /openapi.json.
"""

from . import types
from ._client import AsyncClient, Client
from ._errors import (
    ConflictError,
    ForbiddenError,
    InternalError,
    InvalidInputError,
    MnemoError,
    ModelMismatchError,
    NotFoundError,
    RateLimitedError,
    TooLargeError,
    UnauthorizedError,
    UnavailableError,
)

__all__ = [
    "AsyncClient",
    "Client",
    "ConflictError",
    "ForbiddenError",
    "InternalError",
    "InvalidInputError",
    "MnemoError",
    "ModelMismatchError",
    "NotFoundError",
    "RateLimitedError",
    "TooLargeError",
    "UnauthorizedError",
    "UnavailableError",
    "types",
]
