"""Credentials out of everything memadapt prints: a URL may carry them (``https://user:password@host``, or a
``?api_key=`` in its query), and a URL ends up in error messages, log lines, reprs, ``stats()`` and dumped settings.
``redact_url`` is the one place that knows how to hide them; call it wherever a URL is formatted."""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact_url", "redact_urls"]

REDACTED = "***"
# userinfo: everything between "scheme://" and the last "@" before the host ends (a password may hold "@" or ":").
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*)@")
# a secret-looking query parameter: api_key=, apikey=, key=, token=, access_token=, password=, secret=
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;](?:api[_-]?key|key|token|access[_-]?token|password|passwd|secret)=)(?P<value>[^&;#\s]*)",
    re.IGNORECASE,
)


def redact_url(url: str | None) -> str | None:
    """``url`` with its user name, password and secret query parameters replaced by ``***``; None stays None.
    The scheme, host, port and path stay: they are what a reader needs to tell which server failed."""
    if url is None:
        return None
    return redact_urls(url)


def redact_urls(text: str) -> str:
    """Every URL inside ``text`` (an error message from a client library) redacted as ``redact_url`` does."""
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    return _SECRET_PARAM.sub(lambda m: f"{m['name']}{REDACTED}", text)
