"""Refusals: a stable `code`, a message a player understands, and the SPEC rule it rests on."""

from __future__ import annotations


class RefereeError(Exception):
    def __init__(self, code: str, message: str, rule: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule


class SetupError(RefereeError):
    """A match set-up (rules, players, options) that cannot be played."""


class Refusal(RefereeError):
    """An event the rules do not allow. The state is unchanged."""

    def __init__(self, code: str, message: str, rule: str | None = None):
        if rule and rule not in message:
            message = f"{message} (rule {rule})"
        super().__init__(code, message, rule)
