"""Typed errors of the rules engine.

A user's mistake travels as a code with arguments, never as prose: the bot and the CLI turn
`error-<code>` into a message in the user's language that quotes `span` and shows `example`.
A broken invariant is a bug in this program, not a user's mistake, and is an `InvariantError`.
"""

from __future__ import annotations

from collections.abc import Mapping


class ScoringError(ValueError):
    """A user's input the rules cannot accept.

    `code` names the problem (`unknown-player`), `span` is the part of the input at fault, `params`
    fill the message, `example` is one correct input of the same kind.
    """

    def __init__(
        self,
        code: str,
        span: str = "",
        params: Mapping[str, str] | None = None,
        example: str = "",
    ) -> None:
        self.code = code
        self.span = span
        self.params: dict[str, str] = dict(params or {})
        self.example = example
        super().__init__(f"{code}: {span!r}")


class NotationError(ScoringError):
    """A deal line that cannot be read or cannot be accepted."""


class InvalidDeal(NotationError):
    """The line does not follow the notation (syntax, unknown words, numbers out of range)."""


class IllegalDeal(NotationError):
    """The line reads well but contradicts the game (a dealer in play, the game already ended…)."""


class OptionError(ScoringError):
    """An unknown convention, option or option value."""


class ProtocolError(ScoringError):
    """A protocol or paper-sheet file that cannot be read; `line` is 1-based, 0 for the whole file."""

    def __init__(
        self,
        code: str,
        span: str = "",
        params: Mapping[str, str] | None = None,
        example: str = "",
        line: int = 0,
    ) -> None:
        super().__init__(code, span, params, example)
        self.line = line

    @classmethod
    def at(cls, line: int, error: ScoringError) -> ProtocolError:
        """The same error, placed at a line of a file."""
        return cls(error.code, error.span, error.params, error.example, line)


class InvariantError(AssertionError):
    """A rule of arithmetic the program itself broke (balances not summing to zero…): a bug."""
