#include "lib/operand/kernels.h"

#include <cmath>

#include "lib/operand/counter_random.h"

namespace tharsis::operand {

namespace {

std::string step_where(const OperandStep& step) { return std::string(step_kind_name(step.kind)) + " step"; }

Status check_same_shapes(const OperandStep& step, const std::vector<const NdArray*>& inputs) {
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i]->shape != inputs[0]->shape) {
      return make_error(step_where(step) + ": input " + std::to_string(i) + " has shape " +
                        shape_text(inputs[i]->shape) + ", input 0 has " + shape_text(inputs[0]->shape));
    }
  }
  return Status::success();
}

NdArray fill_random(const OperandStep& step) {
  NdArray out = filled(step.shape, 0.0);
  for (size_t i = 0; i < out.data.size(); ++i) {
    Shape global = unflatten_index(step.shape, static_cast<int64_t>(i));
    for (size_t axis = 0; axis < global.size(); ++axis) global[axis] += step.offset[axis];
    out.data[i] = counter_uniform(step.seed, static_cast<uint64_t>(flat_index(step.tensor_shape, global)));
  }
  return out;
}

Status check_random(const OperandStep& step) {
  const size_t rank = step.shape.size();
  if (step.tensor_shape.size() != rank || step.offset.size() != rank) {
    return make_error("rand step: shape " + shape_text(step.shape) + ", tensor " +
                      shape_text(step.tensor_shape) + " and offset " + shape_text(step.offset) +
                      " must have the same rank");
  }
  for (size_t axis = 0; axis < rank; ++axis) {
    if (step.offset[axis] < 0 || step.offset[axis] > step.tensor_shape[axis] - step.shape[axis]) {
      return make_error("rand step: chunk at " + shape_text(step.offset) + " of shape " +
                        shape_text(step.shape) + " lies outside tensor " + shape_text(step.tensor_shape));
    }
  }
  return Status::success();
}

// numpy.maximum/minimum: a NaN on either side is the answer.
double larger(double x, double y) { return std::isnan(x) || x > y ? x : y; }
double smaller(double x, double y) { return std::isnan(x) || x < y ? x : y; }

double truth(bool b) { return b ? 1.0 : 0.0; }

double apply(StepKind kind, double x, double y) {
  switch (kind) {
    case StepKind::Add:
    case StepKind::ScalarAdd:
      return x + y;
    case StepKind::Sub:
    case StepKind::ScalarSub:
      return x - y;
    case StepKind::ScalarRsub:
      return y - x;
    case StepKind::Mul:
    case StepKind::ScalarMul:
      return x * y;
    case StepKind::Div:
    case StepKind::ScalarDiv:
      return x / y;
    case StepKind::ScalarRdiv:
      return y / x;
    case StepKind::Less:
    case StepKind::ScalarLess:
      return truth(x < y);
    case StepKind::LessEqual:
    case StepKind::ScalarLessEqual:
      return truth(x <= y);
    case StepKind::Greater:
    case StepKind::ScalarGreater:
      return truth(x > y);
    case StepKind::GreaterEqual:
    case StepKind::ScalarGreaterEqual:
      return truth(x >= y);
    case StepKind::Equal:
    case StepKind::ScalarEqual:
      return truth(x == y);
    case StepKind::NotEqual:
    case StepKind::ScalarNotEqual:
      return truth(x != y);
    case StepKind::Maximum:
    case StepKind::ScalarMaximum:
    case StepKind::MaxN:
    case StepKind::Max:
      return larger(x, y);
    case StepKind::Minimum:
    case StepKind::ScalarMinimum:
    case StepKind::MinN:
    case StepKind::Min:
      return smaller(x, y);
    default:
      return 0;
  }
}

// x op y with numpy broadcasting (shapes aligned from the right; an axis of extent 1, or
// a missing one, repeats). The caller checked that the shapes broadcast.
NdArray elementwise(StepKind kind, const NdArray& x, const NdArray& y) {
  const Shape shape = broadcast_shape(x.shape, y.shape).value_or(Shape{});
  NdArray out{shape, std::vector<double>(static_cast<size_t>(element_count(shape)))};
  if (x.shape == y.shape) {  // the common case: no index arithmetic
    for (size_t i = 0; i < out.data.size(); ++i) out.data[i] = apply(kind, x.data[i], y.data[i]);
    return out;
  }
  // Each input's stride along each output axis; 0 where the input repeats.
  const size_t rank = shape.size();
  auto strides_of = [&](const Shape& in) {
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (size_t k = 0; k < in.size(); ++k) {
      const int64_t extent = in[in.size() - 1 - k];
      strides[rank - 1 - k] = extent == 1 ? 0 : stride;
      stride *= extent;
    }
    return strides;
  };
  const std::vector<int64_t> sx = strides_of(x.shape);
  const std::vector<int64_t> sy = strides_of(y.shape);
  Shape position(rank, 0);
  int64_t ix = 0;
  int64_t iy = 0;
  for (double& value : out.data) {
    value = apply(kind, x.data[static_cast<size_t>(ix)], y.data[static_cast<size_t>(iy)]);
    // Odometer step over the output positions, moving both input offsets along.
    for (size_t axis = rank; axis-- > 0;) {
      ix += sx[axis];
      iy += sy[axis];
      if (++position[axis] < shape[axis]) break;
      ix -= sx[axis] * shape[axis];
      iy -= sy[axis] * shape[axis];
      position[axis] = 0;
    }
  }
  return out;
}

NdArray with_scalar(StepKind kind, const NdArray& x, double s) {
  NdArray out{x.shape, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = apply(kind, x.data[i], s);
  return out;
}

// AddN, MaxN, MinN: the inputs combined elementwise, left to right.
NdArray combine_all(StepKind kind, const std::vector<const NdArray*>& inputs) {
  NdArray out = *inputs[0];
  for (size_t k = 1; k < inputs.size(); ++k) {
    if (kind == StepKind::AddN) {
      for (size_t i = 0; i < out.data.size(); ++i) out.data[i] += inputs[k]->data[i];
    } else {
      for (size_t i = 0; i < out.data.size(); ++i) out.data[i] = apply(kind, out.data[i], inputs[k]->data[i]);
    }
  }
  return out;
}

// Sum, Max or Min over step.axis (all axes: kAllAxes), in index order. A sum starts
// from 0; Max and Min from the first element along the axis.
Result<NdArray> reduce(const OperandStep& step, const NdArray& x) {
  const bool sum = step.kind == StepKind::Sum;
  if (step.axis == kAllAxes) {
    if (sum) {
      double total = 0;
      for (double v : x.data) total += v;
      return NdArray{{}, {total}};
    }
    double best = x.data.empty() ? 0 : x.data[0];
    for (double v : x.data) best = apply(step.kind, best, v);
    return NdArray{{}, {best}};
  }
  if (step.axis < 0 || static_cast<size_t>(step.axis) >= x.shape.size()) {
    return make_error(step_where(step) + ": axis " + std::to_string(step.axis) +
                      " is out of range for shape " + shape_text(x.shape));
  }
  const auto axis = static_cast<size_t>(step.axis);
  Shape reduced = x.shape;
  reduced.erase(reduced.begin() + static_cast<std::ptrdiff_t>(axis));
  NdArray out = filled(reduced, 0.0);
  // x viewed as (outer, extent, inner); the reduction runs over the middle index in order.
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.shape.size(); ++a) inner *= x.shape[a];
  const int64_t extent = x.shape[axis];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < extent; ++k) {
      for (int64_t i = 0; i < inner; ++i) {
        double& slot = out.data[static_cast<size_t>(o * inner + i)];
        const double v = x.data[static_cast<size_t>((o * extent + k) * inner + i)];
        slot = sum ? slot + v : (k == 0 ? v : apply(step.kind, slot, v));
      }
    }
  }
  return out;
}

Result<NdArray> matmul(const NdArray& a, const NdArray& b) {
  if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0]) {
    return make_error("matmul step: needs (m,k) x (k,n), found " + shape_text(a.shape) + " x " +
                      shape_text(b.shape));
  }
  const int64_t m = a.shape[0];
  const int64_t k = a.shape[1];
  const int64_t n = b.shape[1];
  NdArray out = filled({m, n}, 0.0);
  // i-p-j loop order: rows of b stream through cache; each out element still sums over p
  // in increasing order, so the result does not depend on blocking.
  for (int64_t i = 0; i < m; ++i) {
    double* row = out.data.data() + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const double av = a.data[static_cast<size_t>(i * k + p)];
      const double* brow = b.data.data() + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
    }
  }
  return out;
}

NdArray transpose(const NdArray& x) {
  const Shape reversed(x.shape.rbegin(), x.shape.rend());
  NdArray out = filled(reversed, 0.0);
  for (size_t i = 0; i < x.data.size(); ++i) {
    Shape position = unflatten_index(x.shape, static_cast<int64_t>(i));
    const Shape flipped(position.rbegin(), position.rend());
    out.data[static_cast<size_t>(flat_index(reversed, flipped))] = x.data[i];
  }
  return out;
}

Result<NdArray> compute(const OperandStep& step, const std::vector<const NdArray*>& inputs) {
  switch (step.kind) {
    case StepKind::Rand: {
      if (Status ok = check_random(step); !ok) return Error{ok.error()};
      return fill_random(step);
    }
    case StepKind::Full:
      return filled(step.shape, step.scalar);
    case StepKind::Input:
      return make_error("input step: chunk " + step.file +
                        " is a file the submitter uploaded; it is staged, not computed");
    case StepKind::AddN:
    case StepKind::MaxN:
    case StepKind::MinN:
      return combine_all(step.kind, inputs);
    case StepKind::Sum:
    case StepKind::Max:
    case StepKind::Min:
      return reduce(step, *inputs[0]);
    case StepKind::MatMul:
      return matmul(*inputs[0], *inputs[1]);
    case StepKind::Transpose:
      return transpose(*inputs[0]);
    default:
      if (is_elementwise_step(step.kind)) return elementwise(step.kind, *inputs[0], *inputs[1]);
      return with_scalar(step.kind, *inputs[0], step.scalar);
  }
}

}  // namespace

double apply_step(StepKind kind, double x, double y) { return apply(kind, x, y); }

Result<NdArray> run_step(const OperandStep& step, const std::vector<const NdArray*>& inputs) {
  const int arity = step_input_count(step.kind);
  const bool count_ok = arity < 0 ? !inputs.empty() : inputs.size() == static_cast<size_t>(arity);
  if (!count_ok) {
    return make_error(step_where(step) + ": expected " + (arity < 0 ? "at least 1" : std::to_string(arity)) +
                      " inputs, found " + std::to_string(inputs.size()));
  }
  if (is_elementwise_step(step.kind)) {
    if (!broadcast_shape(inputs[0]->shape, inputs[1]->shape)) {
      return make_error(step_where(step) + ": input shapes " + shape_text(inputs[0]->shape) + " and " +
                        shape_text(inputs[1]->shape) + " do not broadcast");
    }
  } else if (step.kind != StepKind::MatMul) {
    if (Status ok = check_same_shapes(step, inputs); !ok) return Error{ok.error()};
  }
  auto out = compute(step, inputs);
  if (!out.ok()) return out;
  if (out->shape != step.shape) {
    return make_error(step_where(step) + ": output shape " + shape_text(out->shape) +
                      " differs from declared " + shape_text(step.shape));
  }
  return out;
}

Result<NdArray> run_steps(const std::vector<OperandStep>& steps, const std::vector<const NdArray*>& inputs) {
  if (steps.empty()) return make_error("no steps to run");
  auto current = run_step(steps[0], inputs);
  for (size_t i = 1; i < steps.size() && current.ok(); ++i) {
    const NdArray previous = std::move(*current);
    current = run_step(steps[i], {&previous});
  }
  return current;
}

}  // namespace tharsis::operand
