"""Sessions run tensors: a Session on a project (the graph is submitted with submit_graph,
input tensors uploaded first, each chunk once per session), a LocalSession on this
machine through the graph_eval tool (the project's own compiler and kernels: for tests
and trying a graph before sending it). Futures watch a submitted graph."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .client import Client, Graph
from .errors import JobFailed, TharsisError
from .models import GraphInfo
from .progress import Progress
from .tensor.core import Tensor, graph_json, input_tensors

_default: "Session | LocalSession | None" = None


def default_session() -> "Session | LocalSession":
    if _default is None:
        raise TharsisError("no session: call tharsis.new_session(url, authenticator) or pass one to execute()")
    return _default


class TensorFuture:
    """A tensor being computed by the project (execute(wait=False))."""

    def __init__(self, graph: Graph, shape: tuple[int, ...]) -> None:
        self.graph = graph
        self.shape = shape
        self._info: GraphInfo | None = None
        self._result: np.ndarray | None = None
        self._cancel_requested = False

    @property
    def graph_id(self) -> int:
        return self.graph.id

    def _refresh(self) -> GraphInfo:
        if self._info is None or not self._info.over:
            self._info = self.graph.info()
        return self._info

    def done(self) -> bool:
        """The graph is over: done, failed or cancelled."""
        return self._refresh().over

    def progress(self) -> float:
        """Fraction of the graph's chunk operands finished, 0..1."""
        info = self._refresh()
        return 1.0 if info.state == "done" else info.fraction_done

    def cancelled(self) -> bool:
        return self._refresh().state in ("cancelling", "cancelled")

    def cancel(self) -> bool:
        """Stops the graph on the server (its running jobs are aborted at their hosts' next
        contact); False when it is over already."""
        info = self._refresh()
        if info.over:
            return info.state == "cancelled"
        self.graph.abort()
        self._cancel_requested = True
        self._info = None
        return True

    def result(self, timeout: float | None = None, progress: bool = False, poll: float = 0.5) -> np.ndarray:
        """Waits for the graph (TimeoutError after `timeout` s) and returns the tensor;
        JobFailed with the server's reason when it failed or was cancelled."""
        if self._result is None:
            self._info = self.graph.wait(progress=progress, timeout=timeout, poll=poll)
            self._result = self.graph.result()
        return self._result

    def exception(self, timeout: float | None = None) -> BaseException | None:
        try:
            self.result(timeout)
        except JobFailed as e:
            return e
        return None

    def __repr__(self) -> str:
        state = self._info.state if self._info else "?"
        return f"TensorFuture(graph {self.graph.id}, {state})"


class Session:
    """A project to run tensors on: its URL and the submitter's authenticator. `app_name`
    (default: the project's operand app) and `graph_params` (min_quorum, delay_bound, ...)
    go with every graph."""

    def __init__(self, url: str, authenticator: str, app_name: str | None = None, timeout: float = 60.0,
                 **graph_params: float) -> None:
        self.client = Client(url, authenticator, timeout)
        self.app_name = app_name
        self.graph_params = graph_params
        self._uploaded: set[str] = set()  # chunk files the project holds (sent or found there)
        self.bytes_uploaded = 0

    def upload_inputs(self, result: Tensor) -> None:
        """Sends the input tensors' chunks the project lacks."""
        files: dict[str, bytes] = {}
        for node in input_tensors(result):
            for name, data in node.chunk_files():
                if name not in self._uploaded:
                    files[name] = data
        if files:
            absent = self.client.query_files(list(files))
            self.client.send_files([(name, files[name]) for name in absent])
            self.bytes_uploaded += sum(len(files[name]) for name in absent)
            self._uploaded.update(files)

    def submit(self, result: Tensor, name: str | None = None) -> TensorFuture:
        self.upload_inputs(result)
        graph = self.client.submit_graph(graph_json=graph_json(result), name=name, app_name=self.app_name,
                                         **self.graph_params)
        return TensorFuture(graph, result.shape)

    def run(self, result: Tensor, wait: bool = True, timeout: float | None = None, progress: bool = False,
            name: str | None = None) -> np.ndarray | TensorFuture:
        future = self.submit(result, name)
        if not wait:
            return future
        try:
            return future.result(timeout=timeout, progress=progress)
        except TimeoutError:
            future.cancel()  # nobody will fetch it: stop the volunteers' work
            raise

    def as_default(self) -> "Session":
        global _default
        _default = self
        return self

    def close(self) -> None:
        global _default
        if _default is self:
            _default = None
        self.client.transport.http.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def new_session(url: str, authenticator: str, **kwargs: Any) -> Session:
    """A Session that is also the default for execute() without one."""
    return Session(url, authenticator, **kwargs).as_default()


class LocalSession:
    """Runs tensors on this machine with the project's graph_eval tool (the same parser,
    tiling and kernels the volunteers run), checking the chunked run against a direct
    evaluation. `graph_eval`: the program's path (default: $THARSIS_GRAPH_EVAL, then PATH)."""

    def __init__(self, graph_eval: str | os.PathLike | None = None, fan_in: int = 4) -> None:
        program = graph_eval or os.environ.get("THARSIS_GRAPH_EVAL") or shutil.which("graph_eval")
        if not program or not Path(program).exists():
            raise TharsisError("LocalSession needs the graph_eval program (build/graph_eval); "
                               "pass its path or set THARSIS_GRAPH_EVAL")
        self.program = str(program)
        self.fan_in = fan_in
        self.last_report = ""

    def run(self, result: Tensor, wait: bool = True, timeout: float | None = None, progress: bool = False,
            name: str | None = None) -> np.ndarray:
        bar = Progress("local graph", enabled=progress)
        with tempfile.TemporaryDirectory(prefix="tharsis-local-") as work:
            for node in input_tensors(result):
                for file_name, data in node.chunk_files():
                    Path(work, file_name).write_bytes(data)
            Path(work, "graph.json").write_text(graph_json(result))
            started = time.monotonic()
            run = subprocess.run([self.program, "--graph", str(Path(work, "graph.json")), "--chunks", work,
                                  "--out", str(Path(work, "result.npy")), "--fan_in", str(self.fan_in)],
                                 capture_output=True, text=True, timeout=timeout)
            bar.update(1, 1, f"{time.monotonic() - started:.2f} s")
            bar.close()
            if run.returncode != 0:
                raise JobFailed("local graph", run.stderr.strip() or f"graph_eval exited {run.returncode}")
            self.last_report = run.stdout.strip()
            return np.load(Path(work, "result.npy"))

    def as_default(self) -> "LocalSession":
        global _default
        _default = self
        return self
