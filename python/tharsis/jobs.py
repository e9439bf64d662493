"""What a submitter hands in for a batch: jobs and their input files."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Union

from .transport import tag


@dataclass(frozen=True)
class Inline:
    """A small text file sent inside the request (the server stores it as jf_<md5>)."""

    data: bytes


@dataclass(frozen=True)
class Staged:
    """A file already in the project's download/ area, e.g. one uploaded with
    Client.upload_files (named jf_<md5>)."""

    name: str


@dataclass(frozen=True)
class Remote:
    """A file volunteers download from another server."""

    url: str
    nbytes: int
    md5: str


@dataclass(frozen=True)
class LocalFile:
    """A file on this machine, uploaded through job_file.php before the batch is submitted
    (only if the project lacks it) and then named as Staged."""

    path: str


InputFile = Union[Inline, Staged, Remote, LocalFile]


def as_input(value: object) -> InputFile:
    """bytes -> Inline, str or os.PathLike -> LocalFile, an InputFile as it is."""
    if isinstance(value, (Inline, Staged, Remote, LocalFile)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return Inline(bytes(value))
    if isinstance(value, (str, os.PathLike)):
        return LocalFile(os.fspath(value))
    raise TypeError(f"a job input is bytes, a path, or Inline/Staged/Remote/LocalFile; found {type(value).__name__}")


@dataclass
class Job:
    """One job of a batch. `name` defaults to <app>_<batch id>_<index> on the server."""

    inputs: list[object] = field(default_factory=list)
    name: str | None = None
    command_line: str | None = None
    rsc_fpops_est: float | None = None
    priority: int | None = None


def chunk_name(data: bytes) -> str:
    """The content-addressed name the project stores uploaded data under."""
    return "jf_" + hashlib.md5(data).hexdigest()


def input_xml(item: InputFile, staged_names: dict[str, str]) -> str:
    """<input_file> for one input; LocalFile paths resolve through `staged_names`."""
    if isinstance(item, Inline):
        try:
            text = item.data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError("an Inline input must be UTF-8 text; upload binary data with LocalFile") from e
        return "<input_file>" + tag("mode", "inline") + tag("source", text) + "</input_file>"
    if isinstance(item, Staged):
        return "<input_file>" + tag("mode", "local_staged") + tag("source", item.name) + "</input_file>"
    if isinstance(item, LocalFile):
        return "<input_file>" + tag("mode", "local_staged") + tag("source", staged_names[item.path]) + "</input_file>"
    return ("<input_file>" + tag("mode", "remote") + tag("url", item.url) + tag("nbytes", item.nbytes)
            + tag("md5", item.md5) + "</input_file>")


def job_xml(job: Job, staged_names: dict[str, str]) -> str:
    out = "<job>"
    if job.name is not None:
        out += tag("name", job.name)
    if job.command_line is not None:
        out += tag("command_line", job.command_line)
    if job.rsc_fpops_est is not None:
        out += tag("rsc_fpops_est", float(job.rsc_fpops_est))
    if job.priority is not None:
        out += tag("priority", int(job.priority))
    out += "".join(input_xml(as_input(i), staged_names) for i in job.inputs)
    return out + "</job>\n"
