"""HTTP to a project's submission pages: an XML request in the form field `request`,
an XML reply whose root is named like the request's (docs/remote_submission.md)."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Iterable, Mapping, Sequence
from xml.sax.saxutils import escape

import requests

from .errors import AuthError, RemoteError, TransportError, remote_error

# Pages under the project's master URL, as BOINC's submit clients name them.
SUBMIT_PAGE = "submit_rpc_handler.php"
JOB_FILE_PAGE = "job_file.php"
OUTPUT_PAGE = "get_output.php"
STATUS_PAGE = "server_status.php"

# Requests longer than this are sent as multipart/form-data.
MULTIPART_ABOVE = 64 * 1024

# Replies larger than this are not the protocol (the biggest, a graph's inline result, is ~1.4 MiB).
MAX_REPLY_BYTES = 64 * 1024 * 1024


def tag(name: str, value: object) -> str:
    """<name>value</name> with the value's text escaped."""
    if isinstance(value, float):
        text = repr(value)
    else:
        text = str(value)
    return f"<{name}>{escape(text)}</{name}>"


def tags(name: str, values: Iterable[object]) -> str:
    return "".join(tag(name, v) for v in values)


class Transport:
    """One project's pages over one HTTP connection pool."""

    def __init__(self, url: str, timeout: float = 60.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"project URL must start with http:// or https://, found {url!r}")
        self.url = url if url.endswith("/") else url + "/"
        self.timeout = timeout
        self.http = requests.Session()
        self.bytes_sent = 0  # request bodies, for the benchmark

    def rpc(self, page: str, operation: str, body: str,
            files: Sequence[tuple[str, bytes]] | None = None) -> ET.Element:
        """POSTs <operation>body</operation>; returns the reply's root element. Server
        errors raise RemoteError (AuthError for the account's), others TransportError."""
        request = f"<{operation}>\n{body}</{operation}>\n"
        try:
            # Large requests go as multipart, as BOINC's C++ client sends them: urlencoding
            # would triple every quote and brace of a JSON graph.
            if files or len(request) > MULTIPART_ABOVE:
                parts = [("request", (None, request.encode()))]
                parts += [(f"file_{i}", (name, data, "application/octet-stream"))
                          for i, (name, data) in enumerate(files or [])]
                prepared = requests.Request("POST", self.url + page, files=parts).prepare()
            else:
                prepared = requests.Request("POST", self.url + page, data={"request": request}).prepare()
            self.bytes_sent += len(prepared.body or b"")
            reply = self.http.send(prepared, timeout=self.timeout, stream=True)
            content = _read_bounded(reply)
        except requests.RequestException as e:
            raise TransportError(f"{operation}: cannot reach {self.url + page}: {e}") from e
        return parse_reply(content, operation, reply.status_code)

    def get(self, page: str, params: Mapping[str, object]) -> bytes:
        """GETs a download page; its errors are 'ERROR: why' as text with status 4xx."""
        try:
            reply = self.http.get(self.url + page, params=params, timeout=self.timeout, stream=True)
            content = _read_bounded(reply)
        except requests.RequestException as e:
            raise TransportError(f"cannot reach {self.url + page}: {e}") from e
        if reply.status_code != 200:
            message = content.decode(errors="replace").strip()
            message = message[len("ERROR: "):] if message.startswith("ERROR: ") else message
            error = AuthError if reply.status_code == 403 else RemoteError
            raise error(reply.status_code, message or f"HTTP {reply.status_code}", page)
        return content


def _read_bounded(reply: requests.Response) -> bytes:
    chunks = []
    total = 0
    for chunk in reply.iter_content(1 << 16):
        total += len(chunk)
        if total > MAX_REPLY_BYTES:
            raise TransportError(f"reply from {reply.url} is over {MAX_REPLY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_reply(content: bytes, operation: str, status: int = 200) -> ET.Element:
    """The reply's root, or the RemoteError its <error> element says."""
    if b"<!DOCTYPE" in content or b"<!ENTITY" in content:
        raise TransportError(f"{operation}: reply declares a DOCTYPE or entities; refused")
    try:
        root = ET.fromstring(content)
    except ET.ParseError as e:
        snippet = content[:200].decode(errors="replace")
        raise TransportError(f"{operation}: HTTP {status}, reply is not XML ({e}): {snippet!r}") from e
    error = root if root.tag == "error" else root.find("error")
    if error is not None:
        num = int(text_of(error, "error_num") or "-1")
        if num != 0:
            raise remote_error(num, text_of(error, "error_msg") or "error", operation)
    return root


def text_of(element: ET.Element, name: str, default: str = "") -> str:
    child = element.find(name)
    if child is None or child.text is None:
        return default
    return child.text.strip()
