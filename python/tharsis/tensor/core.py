"""Lazy tensors (mars.tensor's shape): each Tensor is a node of a graph built on this
machine; nothing runs until execute(). The graph is sent as the JSON graph submit_graph
takes (docs/operand_graphs.md), one named entry per node, so shared subexpressions stay
shared. Shapes and chunkings are checked here by the server's rules, so a mistake shows
where it is written."""
from __future__ import annotations

import hashlib
import io
import json
import math
import numbers
from typing import Any, Iterable, Sequence

import numpy as np

Shape = tuple[int, ...]
Chunks = tuple[tuple[int, ...], ...]  # chunk extents along each axis (mars: nsplits)

# Default chunks hold at most this many elements (8 MiB of float64).
DEFAULT_CHUNK_ELEMENTS = 1 << 20
MAX_RANK = 8

# Python operator -> the graph language's function, and its mirror for reflected operands.
_ELEMENTWISE = {"add", "sub", "mul", "div", "less", "less_equal", "greater", "greater_equal", "equal",
                "not_equal", "maximum", "minimum"}


def _as_shape(shape: Any, what: str = "shape") -> Shape:
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    out = tuple(int(s) for s in shape)
    if len(out) > MAX_RANK or any(s < 1 for s in out):
        raise ValueError(f"{what} {out}: at most {MAX_RANK} axes, each of extent >= 1")
    return out


def _chunk_extents(extent: int, size: int) -> tuple[int, ...]:
    full, rest = divmod(extent, size)
    return (size,) * full + ((rest,) if rest else ())


def normalize_chunks(shape: Shape, chunk_size: Any = None) -> Chunks:
    """The chunking of `shape`: chunk_size an int (every axis), a tuple (per axis; None is
    the whole axis), or None (halve the largest chunk extent until a chunk holds at most
    DEFAULT_CHUNK_ELEMENTS elements: the same shape always gets the same chunks)."""
    if chunk_size is None:
        size = list(shape)
        while math.prod(size) > DEFAULT_CHUNK_ELEMENTS:
            axis = max(range(len(size)), key=lambda a: size[a])
            size[axis] = (size[axis] + 1) // 2
    elif isinstance(chunk_size, numbers.Integral):
        size = [min(int(chunk_size), s) for s in shape]
    else:
        if len(chunk_size) != len(shape):
            raise ValueError(f"chunk_size {tuple(chunk_size)} needs one extent per axis of shape {shape}")
        size = [s if c is None else min(int(c), s) for c, s in zip(chunk_size, shape)]
    if any(c < 1 for c in size):
        raise ValueError(f"chunk_size {chunk_size}: extents must be >= 1")
    return tuple(_chunk_extents(s, c) for s, c in zip(shape, size))


def broadcast(a: "Tensor", b: "Tensor", op: str) -> tuple[Shape, Chunks]:
    """numpy broadcasting of shapes; along an axis both have in full, equal chunkings."""
    rank = max(a.ndim, b.ndim)
    shape: list[int] = []
    chunks: list[tuple[int, ...]] = []
    for k in range(rank, 0, -1):
        ea = a.shape[-k] if k <= a.ndim else None
        eb = b.shape[-k] if k <= b.ndim else None
        extent = max(e for e in (ea, eb) if e is not None)
        if (ea not in (None, 1, extent)) or (eb not in (None, 1, extent)):
            raise ValueError(f"{op}: shapes {a.shape} and {b.shape} do not broadcast")
        a_full = ea == extent
        b_full = eb == extent
        if a_full and b_full and a.chunks[-k] != b.chunks[-k]:
            raise ValueError(f"{op}: chunkings {a.chunks[-k]} and {b.chunks[-k]} differ along axis "
                             f"{rank - k}; give both tensors the same chunk_size")
        shape.append(extent)
        chunks.append(a.chunks[-k] if a_full else b.chunks[-k])
    return tuple(shape), tuple(chunks)


def _number(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"the graph language has no {number}: use finite numbers")
    return number


class Tensor:
    """A lazy float64 tensor. Arithmetic, comparisons (1.0 where true), @, .T and the
    reductions build new tensors; execute() runs the graph on a project."""

    __array_ufunc__ = None  # numpy defers to our reflected operators (array + tensor)
    __slots__ = ("op", "args", "params", "shape", "chunks", "data", "_files")

    def __init__(self, op: str, args: Sequence["Tensor | float"], params: dict[str, Any], shape: Shape,
                 chunks: Chunks, data: np.ndarray | None = None) -> None:
        self.op = op
        self.args = tuple(args)
        self.params = params
        self.shape = tuple(shape)
        self.chunks = tuple(chunks)
        self.data = data  # input tensors: the user's array (a private float64 C-order copy)
        self._files: list[tuple[str, bytes]] | None = None

    # --- description ------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float64)

    @property
    def nbytes(self) -> int:
        return 8 * self.size

    @property
    def nsplits(self) -> Chunks:
        return self.chunks

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Tensor(op={self.op}, shape={self.shape}, chunks={self.chunks})"

    def __bool__(self) -> bool:
        raise TypeError("a lazy tensor has no truth value; execute() it first")

    __hash__ = object.__hash__  # == builds a tensor, so identity is the hash

    # --- operators --------------------------------------------------------------------
    def __add__(self, other): return _binary("add", self, other)
    def __radd__(self, other): return _binary("add", other, self)
    def __sub__(self, other): return _binary("sub", self, other)
    def __rsub__(self, other): return _binary("sub", other, self)
    def __mul__(self, other): return _binary("mul", self, other)
    def __rmul__(self, other): return _binary("mul", other, self)
    def __truediv__(self, other): return _binary("div", self, other)
    def __rtruediv__(self, other): return _binary("div", other, self)
    def __lt__(self, other): return _binary("less", self, other)
    def __le__(self, other): return _binary("less_equal", self, other)
    def __gt__(self, other): return _binary("greater", self, other)
    def __ge__(self, other): return _binary("greater_equal", self, other)
    def __eq__(self, other): return _binary("equal", self, other)  # type: ignore[override]
    def __ne__(self, other): return _binary("not_equal", self, other)  # type: ignore[override]
    def __neg__(self): return Tensor("neg", [self], {}, self.shape, self.chunks)
    def __pos__(self): return self
    def __matmul__(self, other): return matmul(self, other)
    def __rmatmul__(self, other): return matmul(other, self)

    @property
    def T(self) -> "Tensor":  # noqa: N802 - numpy's name
        return self.transpose()

    def transpose(self, *axes: Any) -> "Tensor":
        """Reverses the axes (the only permutation the graph language has)."""
        if len(axes) == 1 and not isinstance(axes[0], numbers.Integral):
            axes = tuple(axes[0])
        if axes and tuple(int(a) for a in axes) != tuple(reversed(range(self.ndim))):
            raise ValueError(f"transpose: only the reversal of all axes is supported, found {axes}")
        return Tensor("transpose", [self], {}, self.shape[::-1], self.chunks[::-1])

    def dot(self, other) -> "Tensor":
        return matmul(self, other)

    def sum(self, axis: int | None = None) -> "Tensor": return _reduce("sum", self, axis)
    def mean(self, axis: int | None = None) -> "Tensor": return _reduce("mean", self, axis)
    def max(self, axis: int | None = None) -> "Tensor": return _reduce("max", self, axis)
    def min(self, axis: int | None = None) -> "Tensor": return _reduce("min", self, axis)

    # --- running ----------------------------------------------------------------------
    def execute(self, session=None, wait: bool = True, timeout: float | None = None, progress: bool = False,
                **kwargs: Any):
        """Runs the graph on `session` (default: the last one new_session made). With
        wait: the result as a numpy array; without: a TensorFuture."""
        from ..session import default_session
        session = session or default_session()
        return session.run(self, wait=wait, timeout=timeout, progress=progress, **kwargs)

    def to_json(self) -> str:
        """The JSON graph that computes this tensor (what submit_graph receives)."""
        return graph_json(self)

    def chunk_files(self) -> list[tuple[str, bytes]]:
        """An input tensor's chunks as .npy files (name jf_<md5>, content), C order over the
        chunk grid; made once per tensor."""
        if self.data is None:
            raise ValueError(f"{self!r} is not an input tensor")
        if self._files is None:
            self._files = [_npy_file(block) for block in _blocks(self.data, self.chunks)]
        return self._files


def _blocks(array: np.ndarray, chunks: Chunks) -> Iterable[np.ndarray]:
    starts = [np.cumsum((0,) + c[:-1]) for c in chunks]
    for index in np.ndindex(*[len(c) for c in chunks]):
        yield array[tuple(slice(int(starts[a][i]), int(starts[a][i]) + chunks[a][i]) for a, i in enumerate(index))]


def _npy_file(block: np.ndarray) -> tuple[str, bytes]:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(block, dtype="<f8"), allow_pickle=False)
    data = buffer.getvalue()
    return "jf_" + hashlib.md5(data).hexdigest(), data


# --- building ---------------------------------------------------------------------------
def _coerce(value: Any, like: "Tensor") -> "Tensor | float":
    """A number stays a number; a numpy array becomes an input tensor chunked like `like`
    along the axes they share in full."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (numbers.Real, np.bool_)):
        return _number(value)
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return _number(array)
    chunk: list[int | None] = []
    for k in range(array.ndim, 0, -1):
        same = k <= like.ndim and like.shape[-k] == array.shape[-k]
        chunk.append(like.chunks[-k][0] if same else None)
    return tensor(array, chunk_size=tuple(chunk))


def _binary(op: str, x: Any, y: Any) -> "Tensor":
    like = x if isinstance(x, Tensor) else y
    x = _coerce(x, like)
    y = _coerce(y, like)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise TypeError(f"{op}: needs a tensor")
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        shape, chunks = broadcast(x, y, op)
    else:
        shape, chunks = like.shape, like.chunks
    return Tensor(op, [x, y], {}, shape, chunks)


def _reduce(op: str, x: "Tensor", axis: int | None) -> "Tensor":
    if axis is None:
        return Tensor(op, [x], {}, (), ())
    if not isinstance(axis, numbers.Integral):
        raise ValueError(f"{op}: axis must be one axis or None, found {axis!r}")
    normal = int(axis) + x.ndim if axis < 0 else int(axis)
    if not 0 <= normal < x.ndim:
        raise ValueError(f"{op}: axis {axis} is out of range for shape {x.shape}")
    return Tensor(op, [x], {"axis": normal}, x.shape[:normal] + x.shape[normal + 1:],
                  x.chunks[:normal] + x.chunks[normal + 1:])


def matmul(a: Any, b: Any) -> "Tensor":
    """Matrix product of 2-d tensors; a's column chunks must equal b's row chunks."""
    if not isinstance(a, Tensor):
        a = tensor(np.asarray(a, dtype=np.float64), chunk_size=(None, b.chunks[0][0]))
    if not isinstance(b, Tensor):
        b = tensor(np.asarray(b, dtype=np.float64), chunk_size=(a.chunks[1][0], None))
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: needs (m,k) @ (k,n), found {a.shape} @ {b.shape}")
    if a.chunks[1] != b.chunks[0]:
        raise ValueError(f"matmul: the left operand's column chunks {a.chunks[1]} must equal the right "
                         f"operand's row chunks {b.chunks[0]}")
    return Tensor("matmul", [a, b], {}, (a.shape[0], b.shape[1]), (a.chunks[0], b.chunks[1]))


def _source(op: str, shape: Any, chunk_size: Any, params: dict[str, Any], data: np.ndarray | None = None) -> Tensor:
    shape = _as_shape(shape)
    chunks = normalize_chunks(shape, chunk_size)
    return Tensor(op, [], params, shape, chunks, data)


def full(shape: Any, fill_value: float, chunk_size: Any = None) -> Tensor:
    return _source("full", shape, chunk_size, {"value": _number(fill_value)})


def ones(shape: Any, chunk_size: Any = None) -> Tensor:
    return _source("ones", shape, chunk_size, {})


def zeros(shape: Any, chunk_size: Any = None) -> Tensor:
    return _source("zeros", shape, chunk_size, {})


def tensor(data: Any, chunk_size: Any = None) -> Tensor:
    """A tensor of the user's data (converted to float64), uploaded chunked to the
    project's sandbox when executed (each chunk once per session, by md5)."""
    if isinstance(data, Tensor):
        return data
    array = np.array(data, dtype=np.float64, order="C", copy=True)
    if array.ndim == 0 or array.size == 0:
        raise ValueError(f"tensor: needs at least one axis and one element, found shape {array.shape}")
    array.setflags(write=False)  # NaN and infinities are fine: data travels in .npy files
    return _source("input", array.shape, chunk_size, {}, array)


def rand(shape: Any, seed: int, chunk_size: Any = None) -> Tensor:
    if not 0 <= int(seed) <= 1 << 53:
        raise ValueError(f"rand: seed must be in 0..2**53, found {seed}")
    return _source("rand", shape, chunk_size, {"seed": int(seed)})


# --- the JSON graph ---------------------------------------------------------------------
def topological(result: Tensor) -> list[Tensor]:
    """Every node the result depends on, inputs first (iterative: chains may be long)."""
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(result, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for arg in reversed(node.args):
            if isinstance(arg, Tensor) and id(arg) not in seen:
                stack.append((arg, False))
    return order


def graph_dict(result: Tensor) -> dict[str, Any]:
    names: dict[int, str] = {}
    tensors: dict[str, Any] = {}
    for node in topological(result):
        entry: dict[str, Any] = {"op": node.op}
        if node.args:
            entry["args"] = [names[id(a)] if isinstance(a, Tensor) else a for a in node.args]
        if node.op in ("rand", "full", "ones", "zeros", "input"):
            entry["shape"] = list(node.shape)
            entry["chunk"] = [c[0] for c in node.chunks]
        if node.op == "input":
            entry["files"] = [name for name, _ in node.chunk_files()]
        entry.update(node.params)
        name = f"t{len(names)}"
        names[id(node)] = name
        tensors[name] = entry
    return {"tensors": tensors, "result": names[id(result)]}


def graph_json(result: Tensor) -> str:
    return json.dumps(graph_dict(result), separators=(",", ":"), allow_nan=False)


def input_tensors(result: Tensor) -> list[Tensor]:
    return [node for node in topological(result) if node.op == "input"]
