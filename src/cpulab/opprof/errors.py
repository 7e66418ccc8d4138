"""The one error type of `cpulab opprof`: what went wrong, in words a user can act on.

Each layer raises it with the fact it knows (the file, the flag, perf's own message);
the command line prints it and exits in one place (cli.main).
"""

from __future__ import annotations


class OpprofError(RuntimeError):
    """A profile cannot be made; `hint` says what to do about it (may be empty)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}\n  hint: {self.hint}" if self.hint else base
