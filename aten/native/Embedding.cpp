// Embedding lookups: embedding (a gather of weight rows, written in ATen ops and registered for
// CPU and CUDA alike; its gradient is the composite embedding_backward, so padding_idx and
// scale_grad_by_freq act on the gradient only, as in libtorch) and the composite embedding_bag
// (sum / mean / max over bags of lookups).
//
// embedding_bag gathers every bag into a padded (bags, longest bag, dim) block (slots past a bag's
// end and lookups of padding_idx masked out) and reduces over the middle dim; autograd comes
// through index_select, where and the reduction.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <algorithm>
#include <limits>
#include <vector>

namespace at::native {
namespace {

using matmul_utils::describe;

void check_indices(const char* op, const Tensor& indices) {
  EMBER_CHECK(indices.defined(), "[", op, "] expected a defined indices tensor");
  EMBER_CHECK(indices.scalar_type() == kLong || indices.scalar_type() == kInt, "[", op,
              "] expected int64 or int32 indices; got ", describe(indices));
}

// Indices are checked against the table on the CPU (on CUDA the gather's own bound check raises,
// without a device-to-host copy here).
void check_index_range(const char* op, const Tensor& idx, int64_t rows) {
  if (!idx.device().is_cpu() || idx.numel() == 0) return;
  const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
  EMBER_CHECK(lo >= 0 && hi < rows, "[", op, "] expected indices in [0, ", rows, ") (the rows of weight); got values from ",
              lo, " to ", hi);
}

}  // namespace

Tensor embedding_aten(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                      bool /*sparse*/) {
  const char* op = "embedding";
  EMBER_CHECK(weight.defined() && weight.dim() == 2, "[", op, "] expected a 2-D weight (num_embeddings, embedding_dim); got ",
              weight.defined() ? describe(weight) : std::string("an undefined tensor"));
  check_indices(op, indices);
  const Tensor idx = indices.reshape({-1}).to(kLong);
  check_index_range(op, idx, weight.size(0));
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  return weight.index_select(0, idx).reshape(shape);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  const char* op = "embedding_backward";
  EMBER_CHECK(!sparse, "[", op, "] expected sparse=false (Ember has no sparse tensors, the gradient is dense); got sparse=true");
  check_indices(op, indices);
  EMBER_CHECK(num_weights >= 0, "[", op, "] expected a non-negative num_weights; got ", num_weights);
  EMBER_CHECK(grad.dim() == indices.dim() + 1, "[", op, "] expected grad of shape indices.sizes() + [embedding_dim]; got grad ",
              describe(grad), ", indices ", describe(indices));
  const Tensor idx = indices.reshape({-1}).to(kLong);
  const int64_t n = idx.numel(), dim = grad.size(-1);
  Tensor rows = grad.reshape({n, dim});
  // Lookups of padding_idx contribute nothing (masked, not multiplied: a NaN gradient stays out).
  if (padding_idx >= 0) rows = rows.masked_fill(idx.eq(padding_idx).unsqueeze(1), 0);
  if (scale_grad_by_freq) {
    const Tensor counts = at::zeros({num_weights}, grad.options()).scatter_add(0, idx, at::ones({n}, grad.options()));
    rows = rows.mul(counts.index_select(0, idx).reciprocal().unsqueeze(1));
  }
  const Tensor target = idx.unsqueeze(1).expand({n, dim}).contiguous();
  return at::zeros({num_weights, dim}, grad.options()).scatter_add(0, target, rows);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_padding_idx(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq, int64_t mode, bool sparse,
    const std::optional<Tensor>& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  EMBER_CHECK(weight.defined() && weight.dim() == 2, "[", op, "] expected a 2-D weight (num_embeddings, embedding_dim); got ",
              weight.defined() ? describe(weight) : std::string("an undefined tensor"));
  check_indices(op, indices);
  EMBER_CHECK(indices.dim() == 1, "[", op, "] expected 1-D indices (with offsets marking the bags); got ", describe(indices));
  EMBER_CHECK(offsets.defined() && offsets.dim() == 1 && (offsets.scalar_type() == kLong || offsets.scalar_type() == kInt),
              "[", op, "] expected 1-D int64 or int32 offsets; got ",
              offsets.defined() ? describe(offsets) : std::string("an undefined tensor"));
  EMBER_CHECK(mode >= 0 && mode <= 2, "[", op, "] expected mode 0 (sum), 1 (mean) or 2 (max); got ", mode);
  EMBER_CHECK(!sparse, "[", op, "] expected sparse=false (Ember has no sparse tensors); got sparse=true");
  EMBER_CHECK(!scale_grad_by_freq, "[", op, "] scale_grad_by_freq=true is not supported by Ember's embedding_bag (issue #6)");
  const int64_t rows = weight.size(0), dim = weight.size(1), n = indices.numel();
  const Tensor psw = per_sample_weights.has_value() ? *per_sample_weights : Tensor();
  if (psw.defined()) {
    EMBER_CHECK(mode == 0, "[", op, "] per_sample_weights are only supported with mode 0 (sum); got mode ", mode);
    EMBER_CHECK(psw.sizes() == indices.sizes(), "[", op, "] expected per_sample_weights of the indices' shape ", indices.sizes(),
                "; got ", describe(psw));
  }
  int64_t pad = -1;
  if (padding_idx.has_value()) {
    EMBER_CHECK(*padding_idx >= -rows && *padding_idx < rows, "[", op, "] expected padding_idx in [", -rows, ", ", rows,
                "); got ", *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + rows : *padding_idx;
  }
  const Tensor idx = indices.to(kLong);
  check_index_range(op, idx, rows);

  const Device dev = weight.device();
  int64_t bags = 0, longest = 0;
  Tensor slot_t, used_t, offset2bag;
  if (offsets.is_meta()) {
    // Meta offsets have no values: the bags' count is known from their shape, the longest bag is
    // not, and no result's shape depends on it (a meta block has one slot per bag).
    EMBER_CHECK(!include_last_offset || offsets.numel() > 0, "[", op,
                "] expected at least one offset with include_last_offset=true");
    bags = include_last_offset ? offsets.numel() - 1 : offsets.numel();
    longest = 1;
    const TensorOptions meta = TensorOptions().device(dev);
    slot_t = at::empty({bags * longest}, meta.dtype(kLong));
    used_t = at::empty({bags, longest}, meta.dtype(kBool));
    offset2bag = at::empty({n}, meta.dtype(kLong));
  } else {
    // The bags, from the offsets (read on the host).
    const Tensor off_cpu = offsets.to(kLong).to(Device(kCPU)).contiguous();
    std::vector<int64_t> off(off_cpu.const_data_ptr<int64_t>(), off_cpu.const_data_ptr<int64_t>() + off_cpu.numel());
    EMBER_CHECK(!include_last_offset || !off.empty(), "[", op, "] expected at least one offset with include_last_offset=true");
    bags = include_last_offset ? int64_t(off.size()) - 1 : int64_t(off.size());
    if (!off.empty()) EMBER_CHECK(off[0] == 0, "[", op, "] expected offsets[0] == 0; got ", off[0]);
    for (size_t i = 0; i < off.size(); ++i)
      EMBER_CHECK(off[i] <= n && (i == 0 || off[i] >= off[i - 1]), "[", op,
                  "] expected non-decreasing offsets no larger than the number of indices (", n, "); got ", offsets.sizes(),
                  " offsets with offsets[", i, "] = ", off[i]);
    std::vector<int64_t> begin(static_cast<size_t>(bags)), end(static_cast<size_t>(bags));
    for (int64_t b = 0; b < bags; ++b) {
      begin[size_t(b)] = off[size_t(b)];
      end[size_t(b)] = size_t(b + 1) < off.size() ? off[size_t(b + 1)] : n;
      longest = std::max(longest, end[size_t(b)] - begin[size_t(b)]);
    }
    // Padded (bags, longest) positions into indices; slots past a bag's end repeat position 0.
    std::vector<int64_t> slot(static_cast<size_t>(bags * longest), 0), bag_of(static_cast<size_t>(n), std::max<int64_t>(bags - 1, 0));
    std::vector<bool> used(static_cast<size_t>(bags * longest), false);
    for (int64_t b = 0; b < bags; ++b)
      for (int64_t p = begin[size_t(b)]; p < end[size_t(b)]; ++p) {
        slot[size_t(b * longest + p - begin[size_t(b)])] = p;
        used[size_t(b * longest + p - begin[size_t(b)])] = true;
        bag_of[size_t(p)] = b;
      }
    slot_t = at::tensor(slot, TensorOptions().dtype(kLong)).to(dev);
    used_t = at::tensor(std::vector<bool>(used.begin(), used.end())).reshape({bags, longest}).to(dev);
    offset2bag = at::tensor(bag_of, TensorOptions().dtype(kLong)).to(dev);
  }
  const Tensor looked = n > 0 ? idx.index_select(0, slot_t) : at::zeros({bags * longest}, idx.options());
  Tensor valid = used_t;
  if (pad >= 0) valid = valid.logical_and(looked.reshape({bags, longest}).ne(pad));
  Tensor block = weight.index_select(0, looked).reshape({bags, longest, dim});
  const Tensor count = valid.sum(std::vector<int64_t>{1}, false, kLong);  // lookups per bag (padding_idx not counted)
  const Tensor keep = valid.unsqueeze(2);
  Tensor out, max_indices;
  if (mode == 2 && longest == 0) {
    out = at::zeros({bags, dim}, weight.options());
    max_indices = at::zeros({bags, dim}, idx.options());
  } else if (mode == 2) {
    block = at::where(keep, block, at::full({}, -std::numeric_limits<double>::infinity(), block.options()));
    auto [best, arg] = block.max(1);
    const Tensor nonempty = count.gt(0).unsqueeze(1);
    out = at::where(nonempty, best, at::zeros({}, best.options()));
    max_indices = at::where(nonempty, looked.reshape({bags, longest}).gather(1, arg), at::zeros({}, arg.options()));
  } else {
    if (psw.defined()) block = block.mul(psw.index_select(0, slot_t).reshape({bags, longest, 1}).to(block.scalar_type()));
    block = at::where(keep, block, at::zeros({}, block.options()));
    out = block.sum(std::vector<int64_t>{1});
    if (mode == 1) out = out.div(count.clamp_min(1).to(out.scalar_type()).unsqueeze(1));
    max_indices = count.clone();
  }
  return std::make_tuple(out, offset2bag, count, max_indices);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                                                         bool scale_grad_by_freq, int64_t mode, bool sparse,
                                                         const std::optional<Tensor>& per_sample_weights,
                                                         bool include_last_offset) {
  return at::embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                           include_last_offset, std::nullopt);
}

}  // namespace at::native
