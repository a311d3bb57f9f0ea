"""What a client accepts from a farm: the key goes to the configured origin only, and what it reads is bounded.

A client is configured with one base URL; its ``Authorization`` header is sent there and nowhere else.
An episode's ``mcp_url`` comes from the farm's answer, so a misconfigured or hostile farm (or anything
that can answer in its name) could point it at another listener to collect the key:
``require_same_origin`` refuses such a URL with ``ForeignOriginError`` before anything is sent.

Responses are read as a stream and refused past ``MAX_RESPONSE_BYTES`` (``ResponseTooLarge``), and a
paged listing is read through ``Pages``, which stops with ``PagingError`` after ``MAX_PAGES`` pages,
``MAX_ROWS`` rows or ``MAX_LISTING_BYTES`` bytes, or as soon as a page makes no progress (it is not at
the offset asked for, or repeats a page already read): a farm whose pages never end cannot fill the
client's memory.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx

from .errors import ForeignOriginError, PagingError, ResponseTooLarge

#: The most bytes one response may have (decoded); a page of 500 tasks with gold actions is a few MB.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
#: Items asked for per page of a listing.
PAGE_SIZE = 500
#: The most pages, rows and bytes one listing may have: far above a catalog of thousands of tasks.
MAX_PAGES = 400
MAX_ROWS = 200_000
MAX_LISTING_BYTES = 512 * 1024 * 1024

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Decoded bodies are handed on without their transfer headers (they would make httpx decode them again).
_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def origin(url: str | httpx.URL) -> str:
    """``scheme://host:port`` of an absolute URL, the port always written (``http://127.0.0.1:80``)."""
    parsed = httpx.URL(url)
    scheme = parsed.scheme.lower()
    host = parsed.host.lower()
    port = parsed.port or _DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def require_same_origin(url: str, base_url: str) -> str:
    """``url`` made absolute against ``base_url``, if it is on ``base_url``'s origin (scheme, host, port).

    Raises:
        ForeignOriginError: ``url`` is on another origin; nothing should be sent to it with the key.
    """
    absolute = httpx.URL(base_url).join(url)
    if not absolute.host or origin(absolute) != origin(base_url):
        raise ForeignOriginError(url, origin(base_url))
    return str(absolute)


def _check_declared_length(response: httpx.Response, max_bytes: int) -> None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(str(response.request.url), max_bytes)


def _whole(response: httpx.Response, body: bytes) -> httpx.Response:
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_HEADERS]
    return httpx.Response(response.status_code, headers=headers, content=body, request=response.request)


def send(
    http: httpx.Client, method: str, url: str, *, max_bytes: int = MAX_RESPONSE_BYTES, **kwargs: Any
) -> httpx.Response:
    """``http.request(method, url, **kwargs)``, its body read up to ``max_bytes`` (decoded).

    Raises:
        ResponseTooLarge: the body is larger; the connection is closed without reading the rest.
        httpx.TransportError: as ``http.request``.
    """
    response = http.send(http.build_request(method, url, **kwargs), stream=True)
    try:
        _check_declared_length(response, max_bytes)
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise ResponseTooLarge(str(response.request.url), max_bytes)
    finally:
        response.close()
    return _whole(response, bytes(body))


async def asend(
    http: httpx.AsyncClient, method: str, url: str, *, max_bytes: int = MAX_RESPONSE_BYTES, **kwargs: Any
) -> httpx.Response:
    """``await http.request(method, url, **kwargs)``, its body read up to ``max_bytes`` (decoded).

    Raises:
        ResponseTooLarge: the body is larger; the connection is closed without reading the rest.
        httpx.TransportError: as ``http.request``.
    """
    response = await http.send(http.build_request(method, url, **kwargs), stream=True)
    try:
        _check_declared_length(response, max_bytes)
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise ResponseTooLarge(str(response.request.url), max_bytes)
    finally:
        await response.aclose()
    return _whole(response, bytes(body))


class Pages:
    """The items of one paged listing (``{"items", "total", "offset"}`` pages), read within bounds.

    >>> pages = Pages("/tasks")
    >>> pages.add({"items": [{"id": "a"}], "total": 1, "offset": 0}, 40)
    False
    >>> pages.items
    [{'id': 'a'}]
    """

    def __init__(
        self,
        path: str,
        *,
        max_pages: int = MAX_PAGES,
        max_rows: int = MAX_ROWS,
        max_bytes: int = MAX_LISTING_BYTES,
    ) -> None:
        self.path = path
        self.max_pages, self.max_rows, self.max_bytes = max_pages, max_rows, max_bytes
        self.items: list[dict[str, Any]] = []
        self.pages = 0
        self.bytes = 0
        self._seen: set[str] = set()

    @property
    def offset(self) -> int:
        """The offset of the next page to ask for."""
        return len(self.items)

    def add(self, page: Any, size: int) -> bool:
        """Take the page read at ``offset`` (``size`` bytes); whether another page should be read.

        Raises:
            PagingError: the page is malformed, makes no progress, or the listing passed a bound.
        """
        if not (isinstance(page, dict) and isinstance(page.get("items"), list) and isinstance(page.get("total"), int)):
            raise PagingError(self.path, "a page is not an object with a list of items and a total")
        items: list[Any] = page["items"]
        if "offset" in page and page["offset"] != self.offset:
            raise PagingError(self.path, f"asked for offset {self.offset}, the farm sent the page at {page['offset']}")
        if not items:
            return False
        digest = hashlib.sha256(json.dumps(items, sort_keys=True, default=str).encode()).hexdigest()
        if digest in self._seen:
            raise PagingError(self.path, f"the page at offset {self.offset} repeats one already read")
        self._seen.add(digest)
        self.pages += 1
        self.bytes += size
        self.items += items
        more: bool = len(self.items) < page["total"]
        if more and self.pages >= self.max_pages:
            raise PagingError(self.path, f"more than {self.max_pages} pages")
        if len(self.items) > self.max_rows or (more and len(self.items) >= self.max_rows):
            raise PagingError(self.path, f"more than {self.max_rows} rows")
        if self.bytes > self.max_bytes:
            raise PagingError(self.path, f"more than {self.max_bytes} bytes")
        return more
