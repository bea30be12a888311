#pragma once
// Variable-length sequences for the recurrent layers (torch::nn::utils::rnn, as in libtorch):
// PackedSequence, pack_padded_sequence / pad_packed_sequence, pad_sequence and pack_sequence.
// A packed batch stores its sequences time-major with the finished ones dropped: step t holds
// batch_sizes[t] rows (the sequences longer than t, longest first), one after another in data().
//   auto packed = torch::nn::utils::rnn::pack_padded_sequence(x, lengths, /*batch_first=*/true,
//                                                            /*enforce_sorted=*/false);
//   auto [out, hc] = lstm->forward_with_packed_input(packed);
//   auto [padded, lens] = torch::nn::utils::rnn::pad_packed_sequence(out, /*batch_first=*/true);
// The functions are composites over cat / narrow / index_select, so gradients flow through them.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <optional>
#include <string_view>
#include <utility>

namespace torch::nn::utils::rnn {

/// The inverse of a permutation given as an index tensor (undefined in, undefined out).
at::Tensor invert_permutation(const at::Tensor& permutation);

/// A batch of sequences of different lengths, packed time-major (see the top of this file).
/// Make one with pack_padded_sequence or pack_sequence.
class PackedSequence {
 public:
  /// data: (sum of lengths, *); batch_sizes: int64 on the CPU, one count per time step, not
  /// increasing; sorted_indices: the batch order the data is in (undefined: already sorted);
  /// unsorted_indices: its inverse (computed when not given).
  explicit PackedSequence(at::Tensor data, at::Tensor batch_sizes, at::Tensor sorted_indices = {},
                          at::Tensor unsorted_indices = {});

  const at::Tensor& data() const { return data_; }
  const at::Tensor& batch_sizes() const { return batch_sizes_; }
  const at::Tensor& sorted_indices() const { return sorted_indices_; }
  const at::Tensor& unsorted_indices() const { return unsorted_indices_; }

  /// The same sequence with its data (and indices) moved or converted; batch_sizes stay on the CPU.
  PackedSequence to(c10::TensorOptions options) const;
  PackedSequence cuda() const { return to(c10::TensorOptions().device(c10::kCUDA)); }
  PackedSequence cpu() const { return to(c10::TensorOptions().device(c10::kCPU)); }
  bool is_cuda() const { return data_.is_cuda(); }

 private:
  at::Tensor data_;
  at::Tensor batch_sizes_;
  at::Tensor sorted_indices_;
  at::Tensor unsorted_indices_;
};

/// Packs a padded batch: input (T, B, *) or, with batch_first, (B, T, *); lengths (B) integers.
/// With enforce_sorted the lengths must not increase; otherwise the batch is sorted first and
/// the order is remembered (pad_packed_sequence and the RNN layers restore it).
PackedSequence pack_padded_sequence(at::Tensor input, at::Tensor lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

/// Unpacks to (T, B, *) (or (B, T, *) with batch_first) padded with padding_value, T the
/// longest length or total_length; returns it with the int64 lengths, both in the original order.
std::tuple<at::Tensor, at::Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                                       double padding_value = 0.0,
                                                       std::optional<int64_t> total_length = std::nullopt);

/// Stacks sequences (L_i, *) into (max L, B, *) (or (B, max L, *) with batch_first), padding
/// each at its end ("right") or its start ("left") with padding_value.
at::Tensor pad_sequence(at::ArrayRef<at::Tensor> sequences, bool batch_first = false, double padding_value = 0,
                        std::string_view padding_side = "right");

/// Packs a list of sequences (L_i, *): pad_sequence, then pack_padded_sequence.
PackedSequence pack_sequence(at::ArrayRef<at::Tensor> sequences, bool enforce_sorted = true);

}  // namespace torch::nn::utils::rnn

EMBER_PUBLIC_END
