"""Typed errors of the rules engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final


class ScoringError(ValueError):
    """A user's input the rules cannot accept; in a file or message, at 1-based `line` (0: all)."""

    def __init__(
        self,
        code: str,
        span: str = "",
        params: Mapping[str, str] | None = None,
        example: str = "",
        line: int = 0,
        text: str = "",  # the line at fault, as written
    ) -> None:
        self.code = code
        self.span = span
        self.params: dict[str, str] = dict(params or {})
        self.example = example
        self.line = line
        self.text = text
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
    """A protocol or paper-sheet file that cannot be read."""

    @classmethod
    def at(cls, line: int, error: ScoringError) -> ProtocolError:
        return cls(error.code, error.span, error.params, error.example, line)


class InvariantError(AssertionError):
    """A rule of arithmetic the program itself broke (balances not summing to zero…): a bug."""


# Every code a ScoringError may carry; the locales must name each as `error-<code>` (a test checks).
# Add a code here when you raise a new one.
ERROR_CODES: Final = frozenset(
    " ".join(
        (
            # options and conventions
            "unknown-convention unknown-option bad-option-value incoherent-options",
            # notation (syntax)
            "empty-deal unknown-word unknown-player ambiguous-player same-player-twice",
            "declarer-defends bad-level bad-tricks tricks-not-ten result-contradicts-tricks",
            "missing-result missing-defenders half-whist-on-high half-beside-whist",
            "two-half-whists not-played-with-tricks bad-misere-tricks bad-prikup bad-adjust",
            "me-outside-chat missing-level missing-declarer missing-tricks missing-dealer",
            "too-many-defenders repeated-word missing-colon bad-option-line unterminated-note",
            # against the game
            "dealer-in-play player-not-active prikup-not-allowed three-down-not-allowed",
            "game-finished not-a-player",
            # protocol and paper-sheet files
            "bad-header bad-players bad-json bad-sheet",
            # the inline mode: a deal priced under every convention (scoring.pricing)
            "not-a-deal",
            # /calc, a paper sheet typed as a message (scoring.calc)
            "calc-unknown-word calc-bad-number calc-missing-number calc-repeated",
            "calc-player-count calc-bad-name calc-same-name calc-negative calc-whists-self",
            "calc-unknown-name",
        )
    ).split()
)
