"""Every step kind of the graph language against numpy: the package builds the graph,
graph_eval (the project's compiler and kernels, chunked and direct) computes it, numpy
computes the same from the same numbers (tt.random.rand_values reproduces rand)."""
from __future__ import annotations

import numpy as np
import pytest

import tharsis.tensor as tt
from helpers import close, rand


def test_rand_matches_the_servers_generator(local):
    t, v = rand((5, 7), (2, 3), 42)
    close(t.execute(local), v)


def test_elementwise_chain(local):
    a, av = rand((7, 5), (3, 2), 1)
    b, bv = rand((7, 5), (3, 2), 2)
    t = ((a + b) * 2 - a / (b + 1)) * (a > 0.3) + tt.maximum(a, b) - tt.minimum(a, 0.4) - 1 / (a + 0.5)
    want = ((av + bv) * 2 - av / (bv + 1)) * (av > 0.3) + np.maximum(av, bv) - np.minimum(av, 0.4) - 1 / (av + 0.5)
    close(t.execute(local), want)


def test_comparisons_on_both_sides(local):
    a, av = rand((4, 6), (2, 3), 3)
    b, bv = rand((4, 6), (2, 3), 4)
    for t, want in [(a < b, av < bv), (a <= 0.5, av <= 0.5), (0.5 < a, 0.5 < av), (a >= b, av >= bv),
                    (a == a, av == av), (a != b, av != bv), (1 > a, 1 > av), (tt.greater_equal(0.4, a), 0.4 >= av)]:
        close(t.execute(local), want)


def test_matmul_chain(local):
    a, av = rand((6, 4), (3, 2), 5)
    b, bv = rand((4, 5), (2, 2), 6)
    c, cv = rand((5, 3), (2, 3), 7)
    close(((a @ b) @ c).execute(local), (av @ bv) @ cv)
    close(tt.dot(a, b @ c).execute(local), av @ (bv @ cv))
    close((a.T @ a + 1).execute(local), av.T @ av + 1)


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_reductions_along_each_axis(local, op):
    k, kv = rand((4, 5, 6), (3, 2, 4), 8)
    for axis in (None, 0, 1, 2, -1):
        close(getattr(k, op)(axis=axis).execute(local), getattr(kv, op)(axis=axis))
    close(getattr(tt, op)(k - 0.5, axis=1).execute(local), getattr(kv - 0.5, op)(axis=1))


def test_transposes(local):
    k, kv = rand((3, 4, 5), (2, 3, 2), 9)
    close(k.T.execute(local), kv.T)
    close((k.T * 2).sum(axis=0).execute(local), (kv.T * 2).sum(axis=0))
    a, av = rand((5, 3), (2, 3), 10)
    close(tt.transpose(a).execute(local), av.T)


def test_broadcasting(local):
    a, av = rand((6, 4), (2, 2), 11)
    col = tt.tensor(np.arange(6.0).reshape(6, 1), chunk_size=(2, 1))
    row, rv = rand((4,), (2,), 12)
    close((a + col).execute(local), av + np.arange(6.0).reshape(6, 1))
    close((col * row).execute(local), np.arange(6.0).reshape(6, 1) * rv)
    close((a - a.mean(axis=0)).execute(local), av - av.mean(axis=0))
    close((a / a.sum()).execute(local), av / av.sum())


def test_a_users_array_as_input(local):
    data = np.random.default_rng(5).normal(size=(9, 7))
    data[2, 3] = np.nan
    x = tt.tensor(data, chunk_size=(4, 3))
    a, av = rand((9, 7), (4, 3), 13)
    close(x.execute(local), data)
    close((x * a + 1).max(axis=1).execute(local), (data * av + 1).max(axis=1))
    close((x @ x.T.T.T).execute(local), data @ data.T)  # NaN propagates through the product
    mixed = (np.ones(7) + a).execute(local)
    close(mixed, 1 + av)


def test_ones_zeros_full(local):
    close((tt.ones((3, 4), chunk_size=2) * 3 + tt.zeros(4, chunk_size=2)).execute(local), np.full((3, 4), 3.0))
    close(tt.full((2, 5), 2.5, chunk_size=(1, 2)).sum(axis=1).execute(local), np.full(2, 12.5))


def test_the_local_report_shows_chunked_and_direct_agree(local):
    a, _ = rand((8, 8), (3, 3), 14)
    (a @ a).sum().execute(local)
    parts = local.last_report.split()
    assert parts[0] == "operands" and int(parts[1]) > 9
    assert float(parts[5]) <= 1e-12
