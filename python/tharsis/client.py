"""tharsis.Client: every operation of a project's remote submission endpoint
(docs/remote_submission.md) — batches, jobs, files, outputs and operand graphs — with
replies as dataclasses. Batch and Graph are handles that wait, download and cancel."""
from __future__ import annotations

import hashlib
import io
import os
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import JobFailed, TransportError
from .jobs import Job, LocalFile, as_input, chunk_name, job_xml
from .models import (BatchDetail, BatchInfo, BatchState, CompletedJob, GraphInfo, JobCounts, JobInfo,
                     JobInstance, SubmittedGraph, Templates, from_xml, graph_from_xml)
from .progress import Progress
from .transport import (JOB_FILE_PAGE, OUTPUT_PAGE, STATUS_PAGE, SUBMIT_PAGE, Transport, parse_reply, tag, tags,
                        text_of)

# Files per job_file.php request are sent in groups of at most this many bytes (the
# server's request limit is 64 MiB by default).
UPLOAD_GROUP_BYTES = 32 * 1024 * 1024


class Client:
    """A submitter's connection to one project: its master URL and the account's
    authenticator (the key its volunteer client uses; the admin grants it submit access)."""

    def __init__(self, url: str, authenticator: str, timeout: float = 60.0) -> None:
        self.transport = Transport(url, timeout)
        self.authenticator = authenticator

    @property
    def url(self) -> str:
        return self.transport.url

    def _call(self, operation: str, body: str = "", page: str = SUBMIT_PAGE, files=None):
        return self.transport.rpc(page, operation, tag("authenticator", self.authenticator) + body, files)

    # --- the endpoint -------------------------------------------------------------------
    def ping(self) -> bool:
        """True when the server and its database answer (needs no authenticator)."""
        root = self.transport.rpc(SUBMIT_PAGE, "ping", "")
        return text_of(root, "success") == "1"

    def get_templates(self, app_name: str | None = None, job_name: str | None = None) -> Templates:
        body = tag("app_name", app_name) if app_name else tag("job_name", job_name or "")
        root = self._call("get_templates", body)
        templates = root.find("templates")
        if templates is None:
            return Templates()
        parts = [ET.tostring(child, encoding="unicode") for child in templates]
        return Templates(*(parts + ["", ""])[:2])

    def estimate_batch(self, app_name: str, jobs: Sequence[Job]) -> float:
        """Seconds the project expects the jobs to take."""
        body = "<batch>" + tag("app_name", app_name) + "".join(job_xml(j, {}) for j in jobs) + "</batch>"
        return float(text_of(self._call("estimate_batch", body), "seconds") or 0)

    def create_batch(self, app_name: str, name: str, expire_time: int = 0) -> "Batch":
        body = tag("app_name", app_name) + tag("batch_name", name) + tag("expire_time", expire_time)
        return Batch(self, int(text_of(self._call("create_batch", body), "batch_id")))

    def submit_batch(self, app_name: str, jobs: Sequence[Job], batch_name: str | None = None,
                     batch: "Batch | int | None" = None, priority: int | None = None,
                     output_template: str | None = None, job_params: dict[str, float] | None = None) -> "Batch":
        """Submits the jobs as one batch (all or none). Local files among the inputs are
        uploaded first (only those the project lacks)."""
        locals_ = sorted({as_input(i).path for j in jobs for i in j.inputs if isinstance(as_input(i), LocalFile)})
        staged = dict(zip(locals_, self.upload_files(locals_))) if locals_ else {}
        body = "<batch>" + tag("app_name", app_name)
        if batch is not None:
            body += tag("batch_id", batch.id if isinstance(batch, Batch) else int(batch))
        if batch_name:
            body += tag("batch_name", batch_name)
        if priority is not None:
            body += tag("priority", int(priority))
        if output_template:
            body += tag("output_template_filename", output_template)
        if job_params:
            body += "<job_params>" + "".join(tag(k, v) for k, v in job_params.items()) + "</job_params>"
        body += "".join(job_xml(j, staged) for j in jobs) + "</batch>\n"
        return Batch(self, int(text_of(self._call("submit_batch", body), "batch_id")))

    def query_batches(self) -> list[BatchInfo]:
        """The account's batches that are not retired, newest first."""
        return [from_xml(BatchInfo, b) for b in self._call("query_batches", tag("get_cpu_time", 0)).iter("batch")]

    def query_batch(self, batch: "Batch | int | str", job_details: bool = False) -> BatchDetail:
        root = self._call("query_batch", _batch_ref(batch) + (tag("get_job_details", 1) if job_details else ""))
        return BatchDetail(from_xml(BatchInfo, root), [from_xml(JobInfo, j) for j in root.iter("job")])

    def query_job(self, job: int | str) -> list[JobInstance]:
        ref = tag("job_id", job) if isinstance(job, int) else tag("job_name", job)
        return [from_xml(JobInstance, i) for i in self._call("query_job", ref).iter("instance")]

    def query_completed_job(self, job_name: str) -> CompletedJob:
        root = self._call("query_completed_job", tag("job_name", job_name))
        done = root.find("completed_job")
        return from_xml(CompletedJob, done if done is not None else root)

    def abort_batch(self, batch: "Batch | int") -> None:
        self._call("abort_batch", tag("batch_id", _batch_id(batch)))

    def abort_jobs(self, job_names: Iterable[str]) -> None:
        self._call("abort_jobs", tags("job_name", job_names))

    def retire_batch(self, batch: "Batch | int | str") -> None:
        self._call("retire_batch", _batch_ref(batch))

    def set_expire_time(self, batch: "Batch | int", expire_time: int) -> None:
        self._call("set_expire_time", tag("batch_id", _batch_id(batch)) + tag("expire_time", expire_time))

    # --- files ------------------------------------------------------------------------
    def query_files(self, names: Sequence[str]) -> list[str]:
        """Of `names`, those the project does not hold yet."""
        if not names:
            return []
        root = self._call("query_files", tags("phys_name", names), page=JOB_FILE_PAGE)
        return [names[int(f.text)] for f in root.iter("file") if f.text and f.text.strip().isdigit()]

    def upload_data(self, blobs: Sequence[bytes]) -> list[str]:
        """Puts each blob in the project's download/ area as jf_<md5>, sending only those
        it lacks; returns the names in order."""
        names = [chunk_name(b) for b in blobs]
        by_name = dict(zip(names, blobs))
        self.send_files([(name, by_name[name]) for name in self.query_files(list(by_name))])
        return names

    def send_files(self, files: Sequence[tuple[str, bytes]]) -> None:
        """Uploads (jf_<md5 of content>, content) pairs through job_file.php, in requests
        of at most UPLOAD_GROUP_BYTES (one file may exceed it alone)."""
        groups: list[list[tuple[str, bytes]]] = []
        size = 0
        for name, data in files:
            if not groups or (groups[-1] and size + len(data) > UPLOAD_GROUP_BYTES):
                groups.append([])
                size = 0
            groups[-1].append((name, data))
            size += len(data)
        for group in groups:
            self._call("upload_files", tags("phys_name", [n for n, _ in group]), page=JOB_FILE_PAGE, files=group)

    def upload_files(self, paths: Sequence[str | os.PathLike]) -> list[str]:
        """upload_data for files on this machine; returns their jf_ names in order."""
        return self.upload_data([Path(p).read_bytes() for p in paths])

    # --- outputs ----------------------------------------------------------------------
    def _auth_str(self, signed: str) -> str:
        return hashlib.md5((self.authenticator + signed).encode()).hexdigest()

    def get_output_file(self, result_name: str, file_num: int = 0) -> bytes:
        """Output `file_num` of one job instance (result)."""
        return self.transport.get(OUTPUT_PAGE, {"cmd": "result_file", "result_name": result_name,
                                                "file_num": file_num, "auth_str": self._auth_str(result_name)})

    def get_batch_outputs(self, batch: "Batch | int") -> bytes:
        """The canonical outputs of the batch's assimilated jobs as one zip
        (entries <job name>/<file name>)."""
        batch_id = _batch_id(batch)
        return self.transport.get(OUTPUT_PAGE, {"cmd": "batch_files", "batch_id": batch_id,
                                                "auth_str": self._auth_str(str(batch_id))})

    def job_counts(self) -> JobCounts:
        """The project's queue counts (server_status.php?counts=1)."""
        root = parse_reply(self.transport.get(STATUS_PAGE, {"counts": 1}), "job_counts")
        return from_xml(JobCounts, root)

    # --- operand graphs ---------------------------------------------------------------
    def submit_graph(self, graph_json: str | None = None, expression: str | None = None, name: str | None = None,
                     app_name: str | None = None, **params: float) -> "Graph":
        """Submits an operand graph (the JSON graph, or the expression language); `params`
        are the optional job parameters (min_quorum, target_nresults, max_error_results,
        max_total_results, delay_bound, rsc_fpops_est, prefer_seconds)."""
        if (graph_json is None) == (expression is None):
            raise ValueError("submit_graph takes exactly one of graph_json and expression")
        body = tag("app_name", app_name) if app_name else ""
        if name:
            body += tag("graph_name", name)
        body += tag("graph_json", graph_json) if graph_json is not None else tag("expression", expression)
        body += "".join(tag(k, v) for k, v in params.items())
        reply = from_xml(SubmittedGraph, self._call("submit_graph", body))
        return Graph(self, reply.graph_id, reply.name, reply.operand_count)

    def query_graph(self, graph: "Graph | int") -> GraphInfo:
        root = self._call("query_graph", tag("graph_id", _graph_id(graph)))
        element = root.find("graph")
        return graph_from_xml(element if element is not None else root)

    def query_graphs(self) -> list[GraphInfo]:
        return [graph_from_xml(g) for g in self._call("query_graphs").iter("graph")]

    def get_graph_output(self, graph: "Graph | int") -> np.ndarray:
        """The result tensor of a done graph."""
        graph_id = _graph_id(graph)
        content = self.transport.get(OUTPUT_PAGE, {"cmd": "graph_output", "graph_id": graph_id,
                                                   "auth_str": self._auth_str(f"graph{graph_id}")})
        try:
            return np.load(io.BytesIO(content), allow_pickle=False)
        except ValueError as e:
            raise TransportError(f"graph {graph_id}: the output is not a .npy file: {e}") from e

    def abort_graph(self, graph: "Graph | int") -> None:
        self._call("abort_graph", tag("graph_id", _graph_id(graph)))

    # --- clustered tasks ----------------------------------------------------------------
    def submit_tasks(self, app_name: str, tasks: Mapping[str, str] | Iterable[tuple[str, str]]) -> int:
        """Hands tasks (key -> one-line payload) to the project's clusterer, which packs them
        k per job (docs/reclustering.md); all or none. Returns how many were accepted."""
        pairs = tasks.items() if isinstance(tasks, Mapping) else tasks
        body = tag("app_name", app_name) + "".join(
            "<task>" + tag("key", key) + tag("payload", payload) + "</task>" for key, payload in pairs)
        return int(text_of(self._call("submit_tasks", body), "ntasks") or 0)

    # --- handles ----------------------------------------------------------------------
    def batch(self, batch_id: int) -> "Batch":
        return Batch(self, batch_id)

    def graph(self, graph_id: int) -> "Graph":
        return Graph(self, graph_id)


def _batch_id(batch: "Batch | int") -> int:
    return batch.id if isinstance(batch, Batch) else int(batch)


def _batch_ref(batch: "Batch | int | str") -> str:
    if isinstance(batch, str):
        return tag("batch_name", batch)
    return tag("batch_id", _batch_id(batch))


def _graph_id(graph: "Graph | int") -> int:
    return graph.id if isinstance(graph, Graph) else int(graph)


class Batch:
    """A submitted batch: query it, wait for it, fetch its outputs, cancel or retire it."""

    def __init__(self, client: Client, batch_id: int) -> None:
        self.client = client
        self.id = batch_id

    def __repr__(self) -> str:
        return f"Batch({self.id})"

    def info(self) -> BatchInfo:
        return self.client.query_batch(self.id).batch

    def jobs(self) -> list[JobInfo]:
        """The jobs with their status (queued, in_progress, done, error)."""
        return self.client.query_batch(self.id, job_details=True).jobs

    def wait(self, progress: bool = False, timeout: float | None = None, poll: float = 1.0,
             raise_on_error: bool = True) -> BatchInfo:
        """Polls until every job is done or in error (or the batch is aborted). Raises
        JobFailed when a job ended in error (unless raise_on_error is False), with the
        first failed job's error mask and the end of its stderr; TimeoutError after `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        bar = Progress(f"batch {self.id}", enabled=progress)
        try:
            while True:
                info = self.info()
                bar.update(info.njobs_done + info.nerror_jobs, max(info.njobs, 1),
                           f"{info.njobs_done} done, {info.nerror_jobs} failed")
                if info.settled:
                    break
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"batch {self.id}: not done after {timeout} s "
                                       f"({info.njobs_done + info.nerror_jobs}/{info.njobs} jobs settled)")
                time.sleep(poll)
        finally:
            bar.close()
        if raise_on_error and (info.nerror_jobs > 0 or info.state == BatchState.ABORTED):
            raise JobFailed(f"batch {self.id}", self._failure_reason(info))
        return info

    def _failure_reason(self, info: BatchInfo) -> str:
        if info.state == BatchState.ABORTED and info.nerror_jobs == 0:
            return "the batch was aborted"
        failed = [j for j in self.jobs() if j.status == "error"]
        reason = f"{info.nerror_jobs} of {info.njobs} jobs failed"
        if failed:
            done = self.client.query_completed_job(failed[0].name)
            stderr = done.stderr_out.strip().splitlines()[-3:]
            reason += f"; first {failed[0].name}: error_mask {done.error_mask}, exit status {done.exit_status}"
            if stderr:
                reason += ", stderr: " + " | ".join(stderr)
        return reason

    def download(self, directory: str | os.PathLike) -> list[Path]:
        """Saves the canonical outputs of every assimilated job under
        directory/<job name>/<file name>; returns the paths written."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        written = []
        with zipfile.ZipFile(io.BytesIO(self.client.get_batch_outputs(self.id))) as archive:
            for entry in archive.infolist():
                parts = Path(entry.filename).parts
                if entry.is_dir() or not parts or any(p in ("..", "") or p.startswith("/") for p in parts) \
                        or Path(entry.filename).is_absolute():
                    continue  # only plain <job>/<file> names are written
                path = target.joinpath(*parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(archive.read(entry))
                written.append(path)
        return written

    def abort(self) -> None:
        self.client.abort_batch(self.id)

    def retire(self) -> None:
        self.client.retire_batch(self.id)


class Graph:
    """A submitted operand graph: progress, result, cancel."""

    def __init__(self, client: Client, graph_id: int, name: str = "", operand_count: int = 0) -> None:
        self.client = client
        self.id = graph_id
        self.name = name
        self.operand_count = operand_count

    def __repr__(self) -> str:
        return f"Graph({self.id}, {self.name!r})"

    def info(self) -> GraphInfo:
        return self.client.query_graph(self.id)

    def wait(self, progress: bool = False, timeout: float | None = None, poll: float = 1.0) -> GraphInfo:
        """Polls until the graph is over; raises JobFailed (with the server's reason) unless
        it is done, TimeoutError after `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        bar = Progress(f"graph {self.id}", enabled=progress)
        try:
            while True:
                info = self.info()
                bar.update(info.noperands_finished, max(info.noperands, 1), info.state)
                if info.over:
                    break
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"graph {self.id}: not over after {timeout} s")
                time.sleep(poll)
        finally:
            bar.close()
        if info.state != "done":
            raise JobFailed(f"graph {self.id}", info.failure_reason or info.state)
        return info

    def result(self) -> np.ndarray:
        return self.client.get_graph_output(self.id)

    def abort(self) -> None:
        self.client.abort_graph(self.id)
