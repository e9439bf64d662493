"""tt.random: tensors of uniform [0, 1) values, generated where they are used.

Element i (C order over the whole tensor) of a tensor with seed s is a pure function of
(s, i) — the project's counter-based generator (lib/operand/counter_random.h) — so every
chunk is made on its own, and rand_values() gives the very same numbers here."""
from __future__ import annotations

import math
import secrets
from typing import Any

import numpy as np

from .core import Tensor, rand as _rand

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SEED_XOR = np.uint64(0x6A09E667F3BCC909)


def _mix64(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


def rand_values(seed: int, shape: Any) -> np.ndarray:
    """The values rand(..., seed=seed) of this shape holds, computed here."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    with np.errstate(over="ignore"):
        key = _mix64(np.array([seed], dtype=np.uint64) ^ _SEED_XOR)[0]
        index = np.arange(math.prod(shape), dtype=np.uint64)
        bits = _mix64(key + (index + np.uint64(1)) * _GOLDEN)
    return ((bits >> np.uint64(11)).astype(np.float64) * 2.0 ** -53).reshape(shape)


def rand(*shape: Any, chunk_size: Any = None, seed: int | None = None) -> Tensor:
    """Uniform [0, 1) values: rand(4000, 4000, chunk_size=1000, seed=1) (or a shape tuple).
    Without a seed one is drawn here, so the tensor is still the same wherever it is computed."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    if seed is None:
        seed = secrets.randbelow(1 << 53)
    return _rand(shape, seed, chunk_size)


def random(size: Any, chunk_size: Any = None, seed: int | None = None) -> Tensor:
    """numpy's name for the same: random(size=(3, 4))."""
    return rand(size, chunk_size=chunk_size, seed=seed)
