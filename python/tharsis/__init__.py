"""Submit work to a Tharsis volunteer-computing project from Python.

    import tharsis
    client = tharsis.Client("http://host/proj/", authenticator)
    batch = client.submit_batch("example", [tharsis.Job(inputs=[b"seed 1\\n"])])
    batch.wait(progress=True); batch.download("outputs"); batch.retire()

    import tharsis.tensor as tt
    session = tharsis.new_session("http://host/proj/", authenticator)
    a = tt.random.rand(2000, 2000, chunk_size=500, seed=1)
    (a @ a.T).sum(axis=0).execute(session)
"""
from __future__ import annotations

from .client import Batch, Client, Graph
from .errors import AuthError, JobFailed, RemoteError, TharsisError, TransportError
from .jobs import Inline, Job, LocalFile, Remote, Staged
from .models import (BatchDetail, BatchInfo, BatchState, CompletedJob, GraphInfo, JobCounts, JobInfo,
                     JobInstance, SubmittedGraph, Templates)
from .session import LocalSession, Session, TensorFuture, default_session, new_session

__version__ = "0.1.0"

__all__ = ["Client", "Batch", "Graph", "Job", "Inline", "Staged", "Remote", "LocalFile", "BatchInfo",
           "BatchDetail", "BatchState", "JobInfo", "JobInstance", "CompletedJob", "Templates", "JobCounts",
           "GraphInfo", "SubmittedGraph", "RemoteError", "AuthError", "JobFailed", "TransportError",
           "TharsisError", "Session", "LocalSession", "TensorFuture", "new_session", "default_session"]
