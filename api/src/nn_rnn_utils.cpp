// torch::nn::utils::rnn: packing and padding of variable-length sequences, composed from cat,
// narrow, stack and index_select (so the gradient reaches the padded input). The batch sizes and
// lengths are small int64 CPU tensors; they are read into std::vector once per call.
#include <torch/nn/utils/rnn.h>
#include <algorithm>
#include <numeric>
#include <vector>

namespace torch::nn::utils::rnn {
namespace {

std::vector<int64_t> to_vector(const at::Tensor& t) {
  at::Tensor c = t.to(at::kCPU).to(at::kLong).contiguous();
  const int64_t* p = c.const_data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

at::Tensor from_vector(const std::vector<int64_t>& v) {
  at::Tensor t = at::empty({static_cast<int64_t>(v.size())}, at::TensorOptions().dtype(at::kLong));
  std::copy(v.begin(), v.end(), t._mutable_data_ptr_internal<int64_t>());
  return t;
}

// `n` rows of padding_value shaped like the rows of `like` from dimension `dim` on.
at::Tensor padding_block(const at::Tensor& like, int64_t dim, int64_t n, double padding_value) {
  std::vector<int64_t> shape(like.sizes().begin(), like.sizes().end());
  shape[dim] = n;
  return at::full(shape, padding_value, like.options());
}

}  // namespace

at::Tensor invert_permutation(const at::Tensor& permutation) {
  if (!permutation.defined()) return {};
  EMBER_CHECK(permutation.dim() == 1, "[invert_permutation] expected a 1-D index tensor; got ", permutation.dim(),
              "-D");
  at::Tensor inverse = at::empty_like(permutation);
  inverse.scatter_(0, permutation, at::arange(permutation.numel(), permutation.options()));
  return inverse;
}

PackedSequence::PackedSequence(at::Tensor data, at::Tensor batch_sizes, at::Tensor sorted_indices,
                               at::Tensor unsorted_indices) {
  EMBER_CHECK(batch_sizes.defined() && batch_sizes.device().type() == c10::kCPU,
              "[PackedSequence] batch_sizes must be a CPU tensor (make packed sequences with pack_padded_sequence or "
              "pack_sequence)");
  if (!unsorted_indices.defined()) unsorted_indices = invert_permutation(sorted_indices);
  data_ = std::move(data);
  batch_sizes_ = std::move(batch_sizes);
  sorted_indices_ = std::move(sorted_indices);
  unsorted_indices_ = std::move(unsorted_indices);
}

PackedSequence PackedSequence::to(c10::TensorOptions options) const {
  at::Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  auto move_index = [&](const at::Tensor& index) {
    return index.defined() ? index.to(data.device()) : at::Tensor();
  };
  return PackedSequence(data, batch_sizes_, move_index(sorted_indices_), move_index(unsorted_indices_));
}

PackedSequence pack_padded_sequence(at::Tensor input, at::Tensor lengths, bool batch_first, bool enforce_sorted) {
  EMBER_CHECK(input.dim() >= 2, "[pack_padded_sequence] expected input of at least 2 dimensions (time and batch); got ",
              input.dim(), "-D");
  EMBER_CHECK(lengths.dim() == 1, "[pack_padded_sequence] expected 1-D lengths; got ", lengths.dim(), "-D");
  const int64_t batch_dim = batch_first ? 0 : 1;
  const int64_t time_dim = 1 - batch_dim;
  EMBER_CHECK(lengths.numel() == input.size(batch_dim), "[pack_padded_sequence] expected one length per sequence (",
              input.size(batch_dim), "); got ", lengths.numel(), " lengths");
  EMBER_CHECK(!at::isFloatingType(lengths.scalar_type()) && lengths.scalar_type() != at::kBool,
              "[pack_padded_sequence] expected integer lengths; got ", lengths.scalar_type());
  std::vector<int64_t> len = to_vector(lengths);
  at::Tensor sorted_indices;
  if (enforce_sorted) {
    for (size_t i = 1; i < len.size(); ++i)
      EMBER_CHECK(len[i] <= len[i - 1],
                  "[pack_padded_sequence] with enforce_sorted=true the lengths must not increase; got ", len[i - 1],
                  " then ", len[i], " (pass enforce_sorted=false to pack an unsorted batch)");
  } else {
    std::vector<int64_t> order(len.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return len[a] > len[b]; });
    std::vector<int64_t> sorted(len.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = len[order[i]];
    len = std::move(sorted);
    sorted_indices = from_vector(order).to(input.device());
    input = input.index_select(batch_dim, sorted_indices);
  }
  EMBER_CHECK(!len.empty(), "[pack_padded_sequence] cannot pack an empty batch (no sequences)");
  EMBER_CHECK(len.back() > 0, "[pack_padded_sequence] every sequence needs at least one step; got a length of ",
              len.back());
  EMBER_CHECK(len.front() <= input.size(time_dim), "[pack_padded_sequence] a length (", len.front(),
              ") exceeds the padded input's ", input.size(time_dim), " time steps");
  if (batch_first) input = input.transpose(0, 1);
  // Step t keeps the sequences longer than t: a prefix of the (sorted) batch.
  std::vector<int64_t> batch_sizes;
  std::vector<at::Tensor> steps;
  int64_t alive = static_cast<int64_t>(len.size());
  for (int64_t t = 0; t < len.front(); ++t) {
    while (len[alive - 1] <= t) --alive;
    batch_sizes.push_back(alive);
    steps.push_back(input.select(0, t).narrow(0, 0, alive));
  }
  return PackedSequence(at::cat(steps, 0), from_vector(batch_sizes), sorted_indices, {});
}

std::tuple<at::Tensor, at::Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                                       double padding_value, std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = to_vector(sequence.batch_sizes());
  const at::Tensor& data = sequence.data();
  const auto steps = static_cast<int64_t>(batch_sizes.size());
  int64_t out_steps = steps;
  if (total_length.has_value()) {
    EMBER_CHECK(*total_length >= steps, "[pad_packed_sequence] total_length (", *total_length,
                ") must be at least the longest sequence's length (", steps, ")");
    out_steps = *total_length;
  }
  EMBER_CHECK(steps > 0, "[pad_packed_sequence] the packed sequence has no time steps");
  EMBER_CHECK(data.dim() >= 1, "[pad_packed_sequence] expected packed data of at least 1 dimension; got 0-D");
  const int64_t batch = batch_sizes[0];
  std::vector<at::Tensor> rows;
  rows.reserve(static_cast<size_t>(out_steps));
  int64_t offset = 0;
  for (int64_t b : batch_sizes) {
    at::Tensor step = data.narrow(0, offset, b);
    offset += b;
    rows.push_back(b < batch ? at::cat({step, padding_block(step, 0, batch - b, padding_value)}, 0) : step);
  }
  at::Tensor padded = at::stack(rows, 0);
  if (out_steps > steps) padded = at::cat({padded, padding_block(padded, 0, out_steps - steps, padding_value)}, 0);
  if (batch_first) padded = padded.transpose(0, 1);
  // Sequence i (in packed order) lasts as long as the steps whose batch still includes it.
  std::vector<int64_t> lengths(static_cast<size_t>(batch), 0);
  for (int64_t b : batch_sizes)
    for (int64_t i = 0; i < b; ++i) ++lengths[static_cast<size_t>(i)];
  at::Tensor lengths_t = from_vector(lengths);
  const at::Tensor& unsorted = sequence.unsorted_indices();
  if (unsorted.defined()) {
    padded = padded.index_select(batch_first ? 0 : 1, unsorted);
    lengths_t = lengths_t.index_select(0, unsorted.to(at::kCPU));
  }
  return {padded, lengths_t};
}

at::Tensor pad_sequence(at::ArrayRef<at::Tensor> sequences, bool batch_first, double padding_value,
                        std::string_view padding_side) {
  EMBER_CHECK(padding_side == "right" || padding_side == "left",
              "[pad_sequence] padding_side must be \"right\" or \"left\"; got \"", std::string(padding_side), "\"");
  EMBER_CHECK(!sequences.empty(), "[pad_sequence] expected at least one sequence; got none");
  int64_t longest = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const at::Tensor& s = sequences[i];
    EMBER_CHECK(s.dim() >= 1, "[pad_sequence] sequence ", i, " is 0-D; expected (length, *)");
    EMBER_CHECK(s.sizes().slice(1) == sequences[0].sizes().slice(1), "[pad_sequence] sequence ", i, " has shape ",
                s.sizes(), " but sequence 0 has ", sequences[0].sizes(), "; all must agree after the first dimension");
    longest = std::max(longest, s.size(0));
  }
  std::vector<at::Tensor> padded;
  padded.reserve(sequences.size());
  for (const at::Tensor& s : sequences) {
    if (s.size(0) == longest) {
      padded.push_back(s);
      continue;
    }
    at::Tensor pad = padding_block(s, 0, longest - s.size(0), padding_value);
    padded.push_back(padding_side == "right" ? at::cat({s, pad}, 0) : at::cat({pad, s}, 0));
  }
  return at::stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(at::ArrayRef<at::Tensor> sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const at::Tensor& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), from_vector(lengths), /*batch_first=*/false, enforce_sorted);
}

}  // namespace torch::nn::utils::rnn
