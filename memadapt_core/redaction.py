"""Credentials out of everything memadapt prints: a URL may carry them (``https://user:password@host``, or a
``?api_key=`` in its query), and a URL ends up in error messages, log lines, reprs, ``stats()`` and dumped settings.
``redact_url`` is the one place that knows how to hide them; call it wherever a URL is formatted.
``redact_shared`` does it to a record every user of an agent reads (an experience, a tool guide)."""

from __future__ import annotations

import re

from .models import MemoryRecord

__all__ = ["REDACTED", "redact_shared", "redact_url", "redact_urls"]

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


def redact_shared(record: MemoryRecord) -> MemoryRecord:
    """``record`` with the credentials of the URLs in its text and its metadata's strings hidden: a lesson drawn
    from one user's trajectory must not hand that user's signed link or API key to every user of the agent."""
    metadata = {k: redact_urls(v) if isinstance(v, str) else v for k, v in record.metadata.items()}
    text = redact_urls(record.text)
    if text == record.text and metadata == record.metadata:
        return record
    return record.model_copy(update={"text": text, "metadata": metadata})
