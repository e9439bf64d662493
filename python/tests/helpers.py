"""What the numpy comparisons share: equality to 1e-9 relative, and a random tensor
with the numbers it holds."""
from __future__ import annotations

import os

import numpy as np

import tharsis.tensor as tt
from tharsis.tensor.random import rand_values


def close(got: np.ndarray, want: np.ndarray) -> None:
    """Equal shapes, each element within 1e-9 relative (1e-12 of the largest absolute), NaN where NaN."""
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    scale = max(1.0, float(np.nanmax(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12 * scale, equal_nan=True)


def rand(shape, chunk, seed):
    """tt.random.rand(*shape, chunk_size=chunk, seed=seed) and its values."""
    return tt.random.rand(*shape, chunk_size=chunk, seed=seed), rand_values(seed, shape)


def scaled(seconds: float) -> float:
    """A wait for the server to get work done, lengthened by THARSIS_TEST_TIME_SCALE (set by
    scripts/sanitizer_suite.sh: instrumented servers run several times slower)."""
    try:
        scale = float(os.environ.get("THARSIS_TEST_TIME_SCALE", "1"))
    except ValueError:
        scale = 1.0
    return seconds * min(max(scale, 1.0), 20.0)
