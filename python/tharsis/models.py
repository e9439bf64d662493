"""What the server answers, as dataclasses (field names are the protocol's element names)."""
from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar, get_type_hints

T = TypeVar("T")


class BatchState(IntEnum):
    """BOINC's batch states (batch.state)."""

    INIT = 0
    IN_PROGRESS = 1
    COMPLETED = 2
    ABORTED = 3
    RETIRED = 4


def from_xml(cls: type[T], element: ET.Element) -> T:
    """An instance of the dataclass `cls` from the children of `element` named like its
    fields; missing children keep the field's default, unknown ones are ignored."""
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        child = element.find(f.name)
        if child is None:
            continue
        text = (child.text or "").strip()
        kind = hints[f.name]
        try:
            if kind is int or kind is BatchState:
                values[f.name] = kind(int(float(text))) if text else kind(0)
            elif kind is float:
                values[f.name] = float(text) if text else 0.0
            elif kind is str:
                values[f.name] = child.text or ""
        except ValueError as e:
            raise ValueError(f"<{element.tag}><{f.name}>: expected {kind.__name__}, found {text!r}") from e
    return cls(**values)


@dataclass
class BatchInfo:
    """One batch as query_batches / query_batch report it."""

    id: int = 0
    name: str = ""
    app_name: str = ""
    state: BatchState = BatchState.INIT
    njobs: int = 0
    njobs_done: int = 0
    nerror_jobs: int = 0
    njobs_in_progress: int = 0
    fraction_done: float = 0.0
    create_time: int = 0
    expire_time: int = 0
    est_completion_time: float = 0.0
    completion_time: int = 0
    credit_estimate: float = 0.0
    credit_canonical: float = 0.0

    @property
    def settled(self) -> bool:
        """Every job done or in error, or the batch aborted."""
        return (self.state in (BatchState.COMPLETED, BatchState.ABORTED, BatchState.RETIRED)
                or (self.njobs > 0 and self.njobs_done + self.nerror_jobs >= self.njobs))


@dataclass
class JobInfo:
    """One job of a batch; `status` (queued, in_progress, done, error) with job details."""

    id: int = 0
    name: str = ""
    canonical_instance_id: int = 0
    status: str = ""


@dataclass
class BatchDetail:
    batch: BatchInfo
    jobs: list[JobInfo] = field(default_factory=list)


@dataclass
class JobInstance:
    """One result (instance) of a job; state: unsent, in_progress, completed, error, ..."""

    id: int = 0
    name: str = ""
    state: str = ""


@dataclass
class CompletedJob:
    error_mask: int = 0
    canonical_resultid: int = 0
    error_resultid: int = 0
    exit_status: int = 0
    elapsed_time: float = 0.0
    cpu_time: float = 0.0
    stderr_out: str = ""


@dataclass
class Templates:
    input_template: str = ""
    output_template: str = ""


@dataclass
class JobCounts:
    """server_status.php?counts=1."""

    results_ready_to_send: int = 0
    results_in_progress: int = 0
    results_need_file_delete: int = 0
    wus_need_validate: int = 0
    wus_need_assimilate: int = 0
    wus_need_file_delete: int = 0


# Graph states as the endpoint names them.
GRAPH_OVER = ("done", "failed", "cancelled")


@dataclass
class GraphInfo:
    """One operand graph as query_graph / query_graphs report it."""

    id: int = 0
    name: str = ""
    state: str = ""
    create_time: int = 0
    finish_time: int = 0
    noperands: int = 0
    noperands_finished: int = 0
    fraction_done: float = 0.0
    staged_bytes: int = 0
    failure_reason: str = ""
    operands: dict[str, int] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        return self.state in GRAPH_OVER


def graph_from_xml(element: ET.Element) -> GraphInfo:
    info = from_xml(GraphInfo, element)
    counts = element.find("operands")
    if counts is not None:
        info.operands = {c.tag: int((c.text or "0").strip() or 0) for c in counts}
    return info


@dataclass
class SubmittedGraph:
    """submit_graph's reply."""

    graph_id: int = 0
    name: str = ""
    operand_count: int = 0
