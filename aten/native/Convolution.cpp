// Convolution and pooling composites: conv1d/2d/3d (with zero padding given as numbers or as
// "same"/"valid"), conv_transpose1d/2d/3d over convolution, max_pool2d and max_pool3d over
// max_pool2d_with_indices / max_pool3d_with_indices. Their gradients come from the primitives' derivatives. Each entry
// point checks its arguments under its own name before calling the primitive, so that mistakes
// are reported under the name the user called.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <string>
#include <vector>

namespace at::native {

namespace {

using matmul_utils::describe;

const char* const kConvName[] = {"", "conv1d", "conv2d", "conv3d"};
const char* const kConvTransposeName[] = {"", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};

// The rank check shared by the composites: nd spatial dims, with or without the batch dim. Returns
// whether the input is unbatched.
bool check_rank(const char* op, const Tensor& input, int64_t nd) {
  static const char* const kUnbatched[] = {"", "(C, L)", "(C, H, W)", "(C, D, H, W)"};
  static const char* const kBatched[] = {"", "(N, C, L)", "(N, C, H, W)", "(N, C, D, H, W)"};
  EMBER_CHECK(input.defined(), "[", op, "] expected a defined input");
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, "[", op, "] expected a ", nd + 1, "-D ", kUnbatched[nd], " or ",
              nd + 2, "-D ", kBatched[nd], " input; got input ", describe(input));
  return input.dim() == nd + 1;
}

// conv1d/2d/3d with numeric padding; an unbatched input is a batch of one.
Tensor conv_nd(int64_t nd, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
               IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const char* op = kConvName[nd];
  const bool unbatched = check_rank(op, input, nd);
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const std::vector<int64_t> no_output_padding(static_cast<size_t>(nd), 0);
  conv_utils::check_conv(op, x, weight, bias, stride, padding, dilation, false, no_output_padding, groups);
  const Tensor y = at::convolution(x, weight, bias, stride, padding, dilation, false, no_output_padding, groups);
  return unbatched ? y.squeeze(0) : y;
}

// Note [Convolution padding "same"]
// "same" keeps each spatial size (stride 1 only): a dim needs dilation * (kernel - 1) padding in
// all. When that total is odd the extra element goes on the right (high) side: the input is
// first zero-padded by one on the right of those dims, and the convolution pads the rest
// symmetrically, as libtorch does.
Tensor conv_nd_padding(int64_t nd, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, c10::string_view padding, IntArrayRef dilation, int64_t groups) {
  const char* op = kConvName[nd];
  const std::string mode(padding);
  EMBER_CHECK(mode == "same" || mode == "valid", "[", op, "] expected padding \"same\" or \"valid\"; got \"", mode, "\"");
  const std::vector<int64_t> zeros(static_cast<size_t>(nd), 0);
  if (mode == "valid") return conv_nd(nd, input, weight, bias, stride, zeros, dilation, groups);
  check_rank(op, input, nd);
  EMBER_CHECK(weight.defined() && weight.dim() == nd + 2, "[", op, "] expected a ", nd + 2,
              "-D weight (out_channels, in_channels / groups, kernel sizes); got weight ",
              weight.defined() ? describe(weight) : std::string("undefined"));
  const auto s = conv_utils::spatial_arg(op, "stride", stride, nd, 1);
  const auto d = conv_utils::spatial_arg(op, "dilation", dilation, nd, 1);
  for (int64_t i = 3 - nd; i < 3; ++i)
    EMBER_CHECK(s[i] == 1, "[", op, "] expected stride 1 with padding \"same\" (a strided convolution cannot keep the size); got stride ",
                stride);
  std::vector<int64_t> left(static_cast<size_t>(nd));
  std::vector<int64_t> extra;  // constant_pad_nd's list: (low, high) pairs from the last dim backwards
  bool asymmetric = false;
  for (int64_t i = nd - 1; i >= 0; --i) {
    EMBER_CHECK(d[3 - nd + i] > 0, "[", op, "] expected a positive dilation; got ", dilation);
    const int64_t total = d[3 - nd + i] * (weight.size(2 + i) - 1);
    left[i] = total / 2;
    extra.push_back(0);
    extra.push_back(total - 2 * left[i]);
    asymmetric = asymmetric || total % 2 != 0;
  }
  const Tensor x = asymmetric ? at::constant_pad_nd(input, extra, 0) : input;
  return conv_nd(nd, x, weight, bias, stride, left, dilation, groups);
}

// conv_transpose1d/2d/3d; an unbatched input is a batch of one.
Tensor conv_transpose_nd(int64_t nd, const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                         IntArrayRef dilation) {
  const char* op = kConvTransposeName[nd];
  const bool unbatched = check_rank(op, input, nd);
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  conv_utils::check_conv(op, x, weight, bias, stride, padding, dilation, true, output_padding, groups);
  const Tensor y = at::convolution(x, weight, bias, stride, padding, dilation, true, output_padding, groups);
  return unbatched ? y.squeeze(0) : y;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      c10::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_padding(1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      c10::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_padding(2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                      c10::string_view padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_padding(3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(1, input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor conv_transpose2d_input(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(2, input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor conv_transpose3d_input(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                              IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(3, input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                  bool ceil_mode) {
  conv_utils::check_max_pool2d("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode);
  return std::get<0>(at::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                  bool ceil_mode) {
  conv_utils::check_max_pool3d("max_pool3d", self, kernel_size, stride, padding, dilation, ceil_mode);
  return std::get<0>(at::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

}  // namespace at::native
