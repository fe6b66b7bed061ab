"""The one mask of secrets in what the bot prints: below every module that names a setting (the
settings, the storage's messages, the logs), so each masks a URL the same way."""

from __future__ import annotations


def masked_url(url: str) -> str:
    """The URL with its whole user info (user and password, whatever characters they hold)
    replaced by `***`, for messages and logs: everything up to the last `@` after the scheme."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    at = rest.rfind("@")
    if at < 0:
        return url
    return f"{scheme}{sep}***@{rest[at + 1 :]}"
