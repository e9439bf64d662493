"""The package against a live project (started by tests/integration/python_package_test.cpp:
MariaDB, Apache, the daemons, simulated volunteers with faults). Graphs are submitted
together and awaited together, so the volunteers work on them at once."""
from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

import tharsis
import tharsis.tensor as tt
from helpers import close, rand, scaled

pytestmark = pytest.mark.live

EXAMPLE_INPUT = "seed {}\niterations 50\nterms 2000\n"


def test_a_wrong_authenticator_raises_auth_error(live):
    url, _ = live
    stranger = tharsis.Client(url, "not_an_authenticator")
    assert stranger.ping()  # ping needs no account
    with pytest.raises(tharsis.AuthError, match="bad authenticator"):
        stranger.query_batches()
    with pytest.raises(tharsis.AuthError):
        stranger.upload_data([b"data"])
    with pytest.raises(tharsis.AuthError):
        stranger.get_batch_outputs(1)


def test_a_wrong_authenticator_cannot_run_tensors(live, graph_ops):
    url, _ = live
    with pytest.raises(tharsis.AuthError):
        tt.ones(3).execute(tharsis.Session(url, "not_an_authenticator"))
    with pytest.raises(tharsis.AuthError):
        tharsis.Client(url, "not_an_authenticator").get_graph_output(1)


def test_a_batch_is_submitted_waited_on_downloaded_and_retired(client, tmp_path):
    tag = uuid.uuid4().hex[:8]
    first = tmp_path / "input0"
    first.write_text(EXAMPLE_INPUT.format(f"py{tag}0"))  # uploaded through job_file.php
    jobs = [tharsis.Job(inputs=[first], name=f"py{tag}_0")]
    jobs += [tharsis.Job(inputs=[EXAMPLE_INPUT.format(f"py{tag}{i}").encode()], name=f"py{tag}_{i}")
             for i in range(1, 6)]
    batch = client.submit_batch("example", jobs, batch_name=f"pybatch_{tag}")
    assert any(b.id == batch.id for b in client.query_batches())
    info = batch.wait(progress=True, timeout=scaled(300), poll=0.5)
    assert info.njobs == 6 and info.njobs_done == 6 and info.nerror_jobs == 0
    assert info.state == tharsis.BatchState.COMPLETED and info.fraction_done == 1.0
    assert {j.status for j in batch.jobs()} == {"done"}
    files = batch.download(tmp_path / "outputs")
    assert sorted(p.parent.name for p in files) == sorted(j.name for j in jobs)
    for job in jobs:  # the zip holds what get_output.php serves for the canonical instance
        done = client.query_completed_job(job.name)
        instance = [i for i in client.query_job(job.name) if i.id == done.canonical_resultid][0]
        output = next(p for p in files if p.parent.name == job.name).read_bytes()
        assert output and output == client.get_output_file(instance.name)
    batch.retire()
    assert all(b.id != batch.id for b in client.query_batches())


def test_a_large_request_goes_as_multipart(client):
    jobs = [tharsis.Job(inputs=[EXAMPLE_INPUT.format(i).encode()], rsc_fpops_est=1e9) for i in range(3000)]
    sent = client.transport.bytes_sent
    assert client.estimate_batch("example", jobs) > 0
    assert client.transport.bytes_sent - sent > 64 * 1024


def test_tensors_match_numpy(session, graph_ops):
    a, av = rand((60, 40), (20, 20), 1)
    b, bv = rand((60, 40), (20, 20), 2)
    c, cv = rand((40, 30), (20, 15), 3)
    k, kv = rand((6, 20, 10), (3, 10, 5), 4)
    user = np.random.default_rng(9).normal(size=(60, 40))
    x = tt.tensor(user, chunk_size=20)
    cases = {
        "elementwise chain": ((a + b) * 2 - a / (b + 1) + tt.maximum(a, 0.5) * (a > b) - 3,
                              (av + bv) * 2 - av / (bv + 1) + np.maximum(av, 0.5) * (av > bv) - 3),
        "matmul chain": ((a @ c) @ (c.T @ a.T) / 100, (av @ cv) @ (cv.T @ av.T) / 100),
        "transposes": (k.T.sum(axis=2) + k.sum(axis=0).T, kv.T.sum(axis=2) + kv.sum(axis=0).T),
        "transposed matmul": (a.T @ b, av.T @ bv),
        "user's array": ((x - x.mean(axis=0)) * a, (user - user.mean(axis=0)) * av),
        "user's array as is": (x, user),
        "broadcast": (a + tt.ones((60, 1), chunk_size=20) * b.sum(axis=0), av + bv.sum(axis=0)),
    }
    for op in ("sum", "mean", "max", "min"):
        for axis in (None, 0, 1, 2):
            cases[f"{op} axis {axis}"] = (getattr(k, op)(axis=axis), getattr(kv, op)(axis=axis))
    futures = {name: t.execute(session, wait=False) for name, (t, _) in cases.items()}
    for name, future in futures.items():
        got = future.result(timeout=scaled(600))
        assert future.done() and future.progress() == 1.0
        try:
            close(got, cases[name][1])
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
    uploaded = session.bytes_uploaded
    close(x.sum(axis=1).execute(session, timeout=scaled(300)), user.sum(axis=1))
    assert session.bytes_uploaded == uploaded  # the chunks were reused, not sent again


def test_a_cancelled_future_stops_the_graph_on_the_server(session, graph_ops):
    big = tt.random.rand(2000, 2000, chunk_size=250, seed=5)
    future = (big @ big @ big).sum().execute(session, wait=False)
    assert not future.done()
    assert future.cancel()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        info = session.client.query_graph(future.graph_id)
        if info.state == "cancelled":
            break
        time.sleep(0.5)
    assert info.state == "cancelled" and info.failure_reason == "cancelled"
    for live_state in ("unscheduled", "ready", "running", "cancelling"):
        assert info.operands.get(live_state, 0) == 0, info.operands
    assert future.cancelled() and future.done()
    with pytest.raises(tharsis.JobFailed, match="cancelled"):
        future.result(timeout=10)


def test_a_failing_graph_raises_with_the_servers_reason(session, graph_ops):
    project = os.environ.get("THARSIS_PROJECT_DIR")
    if not project:
        pytest.skip("needs THARSIS_PROJECT_DIR (the launcher sets it)")
    data = np.random.default_rng(11).normal(size=(40, 40))
    x = tt.tensor(data + 1000.0)  # a fresh upload, one chunk
    slow, _ = rand((400, 400), (100, 100), 6)
    future = ((slow @ slow @ slow).sum() + x).execute(session, wait=False)
    name = x.chunk_files()[0][0]
    lost = [p for p in Path(project, "download").rglob(name)]
    assert lost, f"{name} was not uploaded"
    for path in lost:
        path.unlink()  # the project loses the user's data before the graph needs it
    with pytest.raises(tharsis.JobFailed) as failure:
        future.result(timeout=scaled(300))
    assert name in failure.value.reason
