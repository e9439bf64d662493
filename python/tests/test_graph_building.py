"""The package on its own: tensors build the JSON graph the server reads, with the
server's shape and chunking rules; replies and errors parse into dataclasses."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

import tharsis
import tharsis.tensor as tt
from tharsis.models import BatchInfo, BatchState, from_xml, graph_from_xml
from tharsis.transport import parse_reply


def test_chunk_sizes_follow_mars_conventions():
    assert tt.normalize_chunks((10, 7), 4) == ((4, 4, 2), (4, 3))
    assert tt.normalize_chunks((10, 7), (None, 3)) == ((10,), (3, 3, 1))
    assert tt.normalize_chunks((4000, 4000)) == ((1000,) * 4, (1000,) * 4)  # 1 Mi elements each
    with pytest.raises(ValueError, match="one extent per axis"):
        tt.normalize_chunks((10, 7), (2,))


def test_shapes_and_chunks_are_inferred_as_the_server_does():
    a = tt.random.rand(6, 4, chunk_size=2, seed=1)
    r = tt.ones(4, chunk_size=2)
    c = tt.zeros((6, 1), chunk_size=2)
    assert (a + r).shape == (6, 4)
    assert (c * r).shape == (6, 4) and (c * r).chunks == ((2, 2, 2), (2, 2))
    assert (a @ a.T).shape == (6, 6)
    assert a.sum(axis=0).shape == (4,) and a.max().shape == ()
    assert a.mean(axis=-1).chunks == ((2, 2, 2),)
    assert (2 < a).op == "greater"  # Python reflects 2 < a into a > 2
    with pytest.raises(ValueError, match="do not broadcast"):
        a + tt.ones(3)
    with pytest.raises(ValueError, match="chunkings"):
        a + tt.ones(4, chunk_size=3)
    with pytest.raises(ValueError, match="column chunks"):
        a @ tt.ones((4, 2), chunk_size=3)
    with pytest.raises(ValueError, match="out of range"):
        a.sum(axis=2)
    with pytest.raises(TypeError, match="truth value"):
        bool(a > 0)


def test_the_json_graph_names_each_node_once():
    a = tt.random.rand(4, 4, chunk_size=2, seed=7)
    b = a * 2
    graph = json.loads((b + b).to_json())
    ops = [entry["op"] for entry in graph["tensors"].values()]
    assert ops == ["rand", "mul", "add"]  # b is shared, not written twice
    assert graph["tensors"]["t1"] == {"op": "mul", "args": ["t0", 2.0]}
    assert graph["tensors"]["t0"] == {"op": "rand", "shape": [4, 4], "chunk": [2, 2], "seed": 7}
    assert graph["result"] == "t2"


def test_a_long_chain_builds_without_recursion():
    x = tt.ones(3)
    for _ in range(20000):
        x = x + 1
    graph = json.loads(x.to_json())
    assert len(graph["tensors"]) == 20001


def test_input_chunks_are_npy_files_named_by_md5():
    data = np.arange(12.0).reshape(3, 4)
    t = tt.tensor(data, chunk_size=(2, 3))
    files = t.chunk_files()
    assert len(files) == 4
    name, content = files[0]
    assert name.startswith("jf_") and len(name) == 35
    np.testing.assert_array_equal(np.load(io.BytesIO(content)), data[:2, :3])
    np.testing.assert_array_equal(np.load(io.BytesIO(files[3][1])), data[2:, 3:])
    entry = json.loads(t.to_json())["tensors"]["t0"]
    assert entry == {"op": "input", "shape": [3, 4], "chunk": [2, 3], "files": [f for f, _ in files]}
    data[0, 0] = 99  # the tensor took a copy
    assert np.load(io.BytesIO(t.chunk_files()[0][1]))[0, 0] == 0


def test_numpy_arrays_mix_with_tensors():
    a = tt.random.rand(4, 6, chunk_size=(2, 3), seed=2)
    mixed = np.ones(6) + a
    assert isinstance(mixed, tt.Tensor) and mixed.shape == (4, 6)
    arg = mixed.args[0]
    assert arg.op == "input" and arg.chunks == ((3, 3),)  # chunked like a along the shared axis


def test_non_finite_numbers_are_refused_in_the_graph():
    with pytest.raises(ValueError, match="finite"):
        tt.ones(2) * float("inf")


def test_rand_values_are_reproducible_and_uniform():
    v = tt.random.rand_values(1, (1000,))
    assert v.shape == (1000,) and 0 <= v.min() and v.max() < 1
    np.testing.assert_array_equal(v, tt.random.rand_values(1, 1000))
    assert abs(v.mean() - 0.5) < 0.05
    assert not np.array_equal(v, tt.random.rand_values(2, 1000))


def test_replies_become_dataclasses_and_errors_exceptions():
    root = parse_reply(b"<query_batch><id>3</id><state>2</state><njobs>4</njobs><njobs_done>3</njobs_done>"
                       b"<nerror_jobs>1</nerror_jobs><fraction_done>1</fraction_done><name>b</name>"
                       b"<unknown>x</unknown></query_batch>", "query_batch")
    info = from_xml(BatchInfo, root)
    assert info.id == 3 and info.state is BatchState.COMPLETED and info.settled and info.name == "b"
    with pytest.raises(tharsis.AuthError, match="bad authenticator"):
        parse_reply(b"<query_batches><error><error_num>-1</error_num><error_msg>bad authenticator</error_msg>"
                    b"</error></query_batches>", "query_batches")
    with pytest.raises(tharsis.RemoteError) as caught:
        parse_reply(b"<error><error_num>-1</error_num><error_msg>no such batch</error_msg></error>", "x")
    assert caught.value.num == -1 and caught.value.msg == "no such batch"
    assert not isinstance(caught.value, tharsis.AuthError)
    with pytest.raises(tharsis.TransportError, match="DOCTYPE"):
        parse_reply(b'<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>', "x")
    graph = graph_from_xml(parse_reply(
        b"<graph><id>5</id><state>failed</state><noperands>4</noperands><failure_reason>why</failure_reason>"
        b"<operands><finished>3</finished><fatal>1</fatal></operands></graph>", "graph"))
    assert graph.over and graph.operands == {"finished": 3, "fatal": 1} and graph.failure_reason == "why"


def test_jobs_render_their_inputs():
    from tharsis.jobs import job_xml
    xml = job_xml(tharsis.Job(inputs=[b"seed 1 & 2", tharsis.Staged("jf_x"),
                                      tharsis.Remote("http://h/f", 10, "ab")], name="j1"), {})
    assert "<mode>inline</mode><source>seed 1 &amp; 2</source>" in xml
    assert "<mode>local_staged</mode><source>jf_x</source>" in xml
    assert "<url>http://h/f</url><nbytes>10</nbytes><md5>ab</md5>" in xml
    with pytest.raises(ValueError, match="UTF-8"):
        job_xml(tharsis.Job(inputs=[b"\xff\xfe"]), {})


def test_execute_without_a_session_says_how_to_get_one():
    import tharsis.session as s
    s._default = None
    with pytest.raises(tharsis.TharsisError, match="new_session"):
        tt.ones(2).execute()


def test_requests_carry_the_authenticator_and_the_operations_fields(monkeypatch):
    import xml.etree.ElementTree as ET
    client = tharsis.Client("http://127.0.0.1:1/p", "key&1")
    sent = []

    def rpc(page, operation, body, files=None):
        sent.append((page, operation, body))
        return ET.fromstring(f"<{operation}><ntasks>2</ntasks><batch_id>7</batch_id><graph_id>9</graph_id>"
                             f"<name>g</name><operand_count>4</operand_count></{operation}>")

    monkeypatch.setattr(client.transport, "rpc", rpc)
    assert client.submit_tasks("tasks", {"a": "1 2", "b": "x<y"}) == 2
    assert sent[-1] == ("submit_rpc_handler.php", "submit_tasks",
                        "<authenticator>key&amp;1</authenticator><app_name>tasks</app_name>"
                        "<task><key>a</key><payload>1 2</payload></task><task><key>b</key><payload>x&lt;y</payload></task>")
    graph = client.submit_graph(graph_json=tt.ones(2).to_json(), name="g", min_quorum=2)
    assert (graph.id, graph.name, graph.operand_count) == (9, "g", 4)
    assert "<graph_name>g</graph_name><graph_json>" in sent[-1][2] and sent[-1][2].endswith("<min_quorum>2</min_quorum>")
    batch = client.submit_batch("example", [tharsis.Job(inputs=[b"seed 1\n"], name="j")], batch_name="b")
    assert batch.id == 7 and "<batch_name>b</batch_name>" in sent[-1][2]
