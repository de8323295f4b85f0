"""One error tree; each error knows its HTTP status and OpenAI error type."""

from __future__ import annotations

from typing import Any


class ShadowswitchError(Exception):
    status_code = 500
    error_type = "server_error"

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.headers: dict[str, str] = {}

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.error_type,
                "param": self.param,
                "code": self.code,
            }
        }


class BadRequest(ShadowswitchError):
    status_code = 400
    error_type = "invalid_request_error"


class Unprocessable(BadRequest):
    status_code = 422


class PayloadTooLarge(BadRequest):
    status_code = 413


class Unauthorized(ShadowswitchError):
    status_code = 401
    error_type = "authentication_error"


class Forbidden(ShadowswitchError):
    status_code = 403
    error_type = "permission_error"


class Conflict(BadRequest):
    """The request is well formed but the state does not allow it (e.g. pausing a stopped ramp)."""

    status_code = 409


class NotFound(ShadowswitchError):
    status_code = 404
    error_type = "not_found_error"


class UpstreamError(ShadowswitchError):
    """The generative upstream failed; `status_code` is 502, 504 or the upstream's own 4xx.

    `retryable`: trying again may help and cannot do harm (the upstream was unreachable,
    or answered 500/502/503); the generative engine retries those a bounded number of times.
    """

    status_code = 502
    error_type = "upstream_error"

    def __init__(
        self,
        message: str,
        *,
        status_code: int = 502,
        code: str | None = "upstream_error",
        retryable: bool = False,
    ):
        super().__init__(message, code=code)
        self.status_code = status_code
        self.retryable = retryable


class UpstreamTimeout(UpstreamError):
    def __init__(self, message: str):
        super().__init__(message, status_code=504, code="upstream_timeout")


class ServiceUnavailable(ShadowswitchError):
    """Not now: shutting down, or the database cannot take a change; the client may retry."""

    status_code = 503
    error_type = "server_error"


class UpstreamRateLimited(UpstreamError):
    """The upstream answered 429: passed to the agent with its `Retry-After`, never retried here
    (the agent's own client retries, and retrying here too would multiply the load)."""

    error_type = "rate_limit_error"

    def __init__(self, message: str, retry_after: str | None):
        super().__init__(message, status_code=429, code="rate_limit_exceeded")
        if retry_after:
            self.headers["Retry-After"] = retry_after


class PolicyError(ShadowswitchError):
    """A policy file is invalid; `problems` are `file:line: field: message` lines."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class EngineError(ShadowswitchError):
    """The local engine failed on a request (counted by the breaker)."""


class UnsupportedRequest(EngineError):
    """The local engine cannot handle this request (a tool schema it cannot read, say): the
    request goes generative as an abstention with this reason, not as an engine failure."""


class EngineUnavailable(EngineError):
    """The engine process that `serve --workers N` shares cannot be reached (stopped, restarting,
    loading a model): the request goes generative, and the breaker does not count it, since the
    local answer was never wrong."""
