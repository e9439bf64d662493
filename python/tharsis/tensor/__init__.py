"""tharsis.tensor, used as `import tharsis.tensor as tt`: lazy float64 tensors in the style
of mars.tensor, computed by a Tharsis project's volunteers.

    t = tt.random.rand(4000, 4000, chunk_size=1000, seed=1)
    u = (t @ t.T - 0.5).max(axis=0)
    u.execute(session)                  # numpy array
    future = u.execute(session, wait=False); future.progress(); future.result(timeout=60)
"""
from __future__ import annotations

from typing import Any

from . import random
from .core import Tensor, full, graph_json, matmul, normalize_chunks, ones, tensor, zeros
from .core import _binary, _reduce

__all__ = ["Tensor", "tensor", "ones", "zeros", "full", "random", "dot", "matmul", "maximum", "minimum",
           "sum", "mean", "max", "min", "transpose", "less", "less_equal", "greater", "greater_equal", "equal",
           "not_equal", "add", "subtract", "multiply", "divide", "negative", "graph_json", "normalize_chunks"]


def dot(a: Any, b: Any) -> Tensor:
    return matmul(a, b)


def maximum(a: Any, b: Any) -> Tensor: return _binary("maximum", a, b)
def minimum(a: Any, b: Any) -> Tensor: return _binary("minimum", a, b)
def add(a: Any, b: Any) -> Tensor: return _binary("add", a, b)
def subtract(a: Any, b: Any) -> Tensor: return _binary("sub", a, b)
def multiply(a: Any, b: Any) -> Tensor: return _binary("mul", a, b)
def divide(a: Any, b: Any) -> Tensor: return _binary("div", a, b)
def less(a: Any, b: Any) -> Tensor: return _binary("less", a, b)
def less_equal(a: Any, b: Any) -> Tensor: return _binary("less_equal", a, b)
def greater(a: Any, b: Any) -> Tensor: return _binary("greater", a, b)
def greater_equal(a: Any, b: Any) -> Tensor: return _binary("greater_equal", a, b)
def equal(a: Any, b: Any) -> Tensor: return _binary("equal", a, b)
def not_equal(a: Any, b: Any) -> Tensor: return _binary("not_equal", a, b)
def negative(a: Tensor) -> Tensor: return -a
def transpose(a: Tensor) -> Tensor: return a.transpose()
def sum(a: Tensor, axis: int | None = None) -> Tensor: return _reduce("sum", a, axis)  # noqa: A001
def mean(a: Tensor, axis: int | None = None) -> Tensor: return _reduce("mean", a, axis)
def max(a: Tensor, axis: int | None = None) -> Tensor: return _reduce("max", a, axis)  # noqa: A001
def min(a: Tensor, axis: int | None = None) -> Tensor: return _reduce("min", a, axis)  # noqa: A001
