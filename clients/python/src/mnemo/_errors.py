"""Typed errors: one class per stable problem code of mnemo's API."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any


class MnemoError(Exception):
    """A failed call: the server's problem+json body, or a connection
    failure (status 0, code "unavailable"). Switch on code, which is stable;
    detail is for people."""

    def __init__(
        self,
        code: str,
        status: int,
        detail: str = "",
        *,
        title: str = "",
        type: str = "",
        instance: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{code} ({status}): {detail or title or 'no detail'}")
        self.code = code
        self.status = status
        self.detail = detail
        self.title = title
        self.type = type
        self.instance = instance
        #: Seconds the server asked to wait (Retry-After), when it did.
        self.retry_after = retry_after


class InvalidInputError(MnemoError):
    pass


class NotFoundError(MnemoError):
    pass


class ConflictError(MnemoError):
    pass


class TooLargeError(MnemoError):
    pass


class UnauthorizedError(MnemoError):
    pass


class ForbiddenError(MnemoError):
    pass


class RateLimitedError(MnemoError):
    pass


class UnavailableError(MnemoError):
    pass


class ModelMismatchError(MnemoError):
    pass


class InternalError(MnemoError):
    pass


ERROR_CLASSES: dict[str, type[MnemoError]] = {
    "invalid_input": InvalidInputError,
    "not_found": NotFoundError,
    "conflict": ConflictError,
    "too_large": TooLargeError,
    "unauthorized": UnauthorizedError,
    "forbidden": ForbiddenError,
    "rate_limited": RateLimitedError,
    "unavailable": UnavailableError,
    "model_mismatch": ModelMismatchError,
    "internal": InternalError,
}

_STATUS_CODES = {
    400: "invalid_input",
    422: "invalid_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "too_large",
    429: "rate_limited",
    502: "unavailable",
    503: "unavailable",
    504: "unavailable",
}


def retry_after_seconds(value: str | None) -> float | None:
    """Parses Retry-After: seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_of(status: int, text: str, retry_after: str | None) -> MnemoError:
    """The typed error of a failed answer; a body that is not a problem
    (a proxy's page) is named by its status."""
    try:
        p: Any = json.loads(text)
    except ValueError:
        p = None
    if not isinstance(p, dict):
        p = {"detail": text[:200]}
    code = p.get("code")
    if not isinstance(code, str) or code not in ERROR_CLASSES:
        code = _STATUS_CODES.get(status, "internal")
    cls = ERROR_CLASSES[code]
    return cls(
        code,
        status,
        str(p.get("detail") or ""),
        title=str(p.get("title") or ""),
        type=str(p.get("type") or ""),
        instance=str(p.get("instance") or ""),
        retry_after=retry_after_seconds(retry_after),
    )
