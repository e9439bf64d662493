"""The errors the package raises: what the server said, in Python's terms."""
from __future__ import annotations


class TharsisError(Exception):
    """Base of every error this package raises."""


class RemoteError(TharsisError):
    """The server refused a request: BOINC's error number and the server's message."""

    def __init__(self, num: int, msg: str, operation: str = "") -> None:
        self.num = num
        self.msg = msg
        self.operation = operation
        where = f"{operation}: " if operation else ""
        super().__init__(f"{where}{msg} (error {num})")


class AuthError(RemoteError):
    """The authenticator is unknown, or the account may not do this (no submit grant)."""


class JobFailed(TharsisError):
    """A job, batch or graph ended without its result; `reason` is the server's account."""

    def __init__(self, what: str, reason: str) -> None:
        self.what = what
        self.reason = reason
        super().__init__(f"{what} failed: {reason}")


class TransportError(TharsisError):
    """The server could not be reached, or answered something that is not the protocol."""


# The server's messages that mean "who you are" rather than "what you asked".
AUTH_MESSAGES = ("bad authenticator", "no authenticator", "no submit access")


def remote_error(num: int, msg: str, operation: str = "") -> RemoteError:
    """The RemoteError subclass a server error means."""
    if any(msg.startswith(m) for m in AUTH_MESSAGES):
        return AuthError(num, msg, operation)
    return RemoteError(num, msg, operation)
