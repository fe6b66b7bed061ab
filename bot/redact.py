"""The one mask of a URL's secrets, below every module that prints a setting."""


def masked_url(url: str) -> str:
    """The URL with its user info (everything up to the last `@` after the scheme) as `***`."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    _, at, host = rest.rpartition("@")
    return f"{scheme}{sep}***@{host}" if at else url
