// torch::nn convolution layers (Conv1d/2d/3d, ConvTranspose1d/2d/3d) and MaxPool2d: parameter
// creation, libtorch's default initialisation, the non-zero padding modes, output_size for the
// transposed layers, printing.
#include <torch/nn/conv.h>
#include <torch/nn/init.h>
#include <torch/nn/modules.h>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace torch::nn {

namespace {

template <size_t D>
std::string layer_name(const char* kind) {
  return std::string(kind) + std::to_string(D) + "d";
}

template <size_t D>
bool all_equal(const ExpandingArray<D>& a, int64_t v) {
  for (int64_t x : *a)
    if (x != v) return false;
  return true;
}

void check_channels(const std::string& name, int64_t in, int64_t out, int64_t groups, at::IntArrayRef kernel) {
  EMBER_CHECK(in > 0 && out > 0, "[", name, "] expected positive in_channels and out_channels; got ", in, " and ", out);
  EMBER_CHECK(groups > 0 && in % groups == 0 && out % groups == 0, "[", name, "] expected groups (", groups,
              ") > 0 dividing in_channels (", in, ") and out_channels (", out, ")");
  for (int64_t k : kernel) EMBER_CHECK(k > 0, "[", name, "] expected a positive kernel_size; got ", kernel);
}

// Weight and bias as libtorch initialises them: kaiming_uniform_ with a = sqrt(5) gives the bound
// 1/sqrt(fan_in); the bias takes the same bound.
void init_conv(at::Tensor& weight, at::Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fans = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = std::get<0>(fans) > 0 ? 1.0 / std::sqrt(static_cast<double>(std::get<0>(fans))) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

// Note [Convolution padding modes]
// reflect, replicate and circular padding are written here as one gather per padded dim: output
// position j of a dim of size n (j running from -low to n + high - 1) reads input position
// reflect: |j| folded back from the far end (2 (n - 1) - j), replicate: j clamped to [0, n - 1],
// circular: j mod n. index_select carries the gradient back (positions read twice add up).
at::Tensor pad_by_mode(const std::string& name, const at::Tensor& input, int64_t nd, const std::vector<int64_t>& low,
                       const std::vector<int64_t>& high, const detail::conv_padding_mode_t& mode) {
  const bool reflect = std::holds_alternative<enumtype::kReflect>(mode);
  const bool circular = std::holds_alternative<enumtype::kCircular>(mode);
  at::Tensor out = input;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = input.dim() - nd + i, n = input.size(dim), lo = low[i], hi = high[i];
    if (lo == 0 && hi == 0) continue;
    EMBER_CHECK(n > 0, "[", name, "] expected non-empty spatial dims to pad; got input ", input.sizes());
    if (reflect)
      EMBER_CHECK(lo < n && hi < n, "[", name, "] expected reflect padding (", lo, ", ", hi,
                  ") smaller than the padded dim's size (", n, "); got input ", input.sizes());
    if (circular)
      EMBER_CHECK(lo <= n && hi <= n, "[", name, "] expected circular padding (", lo, ", ", hi,
                  ") at most the padded dim's size (", n, "); got input ", input.sizes());
    std::vector<int64_t> idx;
    idx.reserve(static_cast<size_t>(n + lo + hi));
    for (int64_t j = -lo; j < n + hi; ++j) {
      int64_t src = j;
      if (circular) src = ((j % n) + n) % n;
      else if (reflect) src = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
      else src = std::min(std::max<int64_t>(j, 0), n - 1);
      idx.push_back(src);
    }
    const at::Tensor index = at::tensor(idx, at::TensorOptions().dtype(at::kLong)).to(input.device());
    out = out.index_select(dim, index);
  }
  return out;
}

template <size_t D>
void print_padding_mode(std::ostream& stream, const detail::conv_padding_mode_t& mode) {
  if (!std::holds_alternative<enumtype::kZeros>(mode)) stream << ", padding_mode=" << enumtype::get_enum_name(mode);
}

}  // namespace

// ---------------------------------------------------------------- Conv1d/2d/3d

template <size_t D, typename Derived>
ConvNdImpl<D, Derived>::ConvNdImpl(ConvOptions<D> options_) : options(std::move(options_)) {
  const std::string name = layer_name<D>("Conv");
  check_channels(name, options.in_channels(), options.out_channels(), options.groups(), options.kernel_size());
  if (std::holds_alternative<enumtype::kSame>(options.padding()))
    EMBER_CHECK(all_equal<D>(options.stride(), 1), "[", name, "] expected stride 1 with padding kSame; got stride ",
                options.stride());
  reset();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset() {
  std::vector<int64_t> shape{options.out_channels(), options.in_channels() / options.groups()};
  for (int64_t k : *options.kernel_size()) shape.push_back(k);
  weight = this->register_parameter("weight", at::empty(shape));
  if (options.bias())
    bias = this->register_parameter("bias", at::empty({options.out_channels()}));
  else
    bias = this->register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init_conv(weight, bias);
}

template <size_t D, typename Derived>
at::Tensor ConvNdImpl<D, Derived>::forward(const at::Tensor& input) {
  functional::ConvFuncOptions<D> f;
  f.bias(bias).stride(options.stride()).dilation(options.dilation()).groups(options.groups());
  if (std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    f.padding(options.padding());
    if constexpr (D == 1) return functional::conv1d(input, weight, f);
    else if constexpr (D == 2) return functional::conv2d(input, weight, f);
    else return functional::conv3d(input, weight, f);
  }
  // Pad by the mode, then convolve without padding (Note [Convolution padding modes]).
  std::vector<int64_t> low(D, 0), high(D, 0);
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&options.padding())) {
    for (size_t i = 0; i < D; ++i) low[i] = high[i] = (**sizes)[i];
  } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    for (size_t i = 0; i < D; ++i) {
      const int64_t total = (*options.dilation())[i] * ((*options.kernel_size())[i] - 1);
      low[i] = total / 2, high[i] = total - total / 2;  // the odd element on the high side, as "same" does
    }
  }
  const std::string name = layer_name<D>("Conv");
  EMBER_CHECK(input.dim() == static_cast<int64_t>(D) + 1 || input.dim() == static_cast<int64_t>(D) + 2, "[", name,
              "] expected a ", D + 1, "-D (unbatched) or ", D + 2, "-D input; got input of shape ", input.sizes());
  const at::Tensor padded = pad_by_mode(name, input, static_cast<int64_t>(D), low, high, options.padding_mode());
  f.padding(ExpandingArray<D>(0));
  if constexpr (D == 1) return functional::conv1d(padded, weight, f);
  else if constexpr (D == 2) return functional::conv2d(padded, weight, f);
  else return functional::conv3d(padded, weight, f);
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::" << layer_name<D>("Conv") << "(" << options.in_channels() << ", "
         << options.out_channels() << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&options.padding())) {
    if (!all_equal<D>(*sizes, 0)) stream << ", padding=" << *sizes;
  } else {
    stream << ", padding=" << (std::holds_alternative<enumtype::kSame>(options.padding()) ? "'same'" : "'valid'");
  }
  if (!all_equal<D>(options.dilation(), 1)) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  print_padding_mode<D>(stream, options.padding_mode());
  stream << ")";
}

// ---------------------------------------------------------------- ConvTranspose1d/2d/3d

template <size_t D, typename Derived>
ConvTransposeNdImpl<D, Derived>::ConvTransposeNdImpl(ConvTransposeOptions<D> options_) : options(std::move(options_)) {
  check_channels(layer_name<D>("ConvTranspose"), options.in_channels(), options.out_channels(), options.groups(),
                 options.kernel_size());
  reset();
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::reset() {
  std::vector<int64_t> shape{options.in_channels(), options.out_channels() / options.groups()};
  for (int64_t k : *options.kernel_size()) shape.push_back(k);
  weight = this->register_parameter("weight", at::empty(shape));
  if (options.bias())
    bias = this->register_parameter("bias", at::empty({options.out_channels()}));
  else
    bias = this->register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::reset_parameters() {
  init_conv(weight, bias);
}

template <size_t D, typename Derived>
at::Tensor ConvTransposeNdImpl<D, Derived>::forward(const at::Tensor& input, const std::optional<at::IntArrayRef>& output_size) {
  const std::string name = layer_name<D>("ConvTranspose");
  EMBER_CHECK(std::holds_alternative<enumtype::kZeros>(options.padding_mode()), "[", name,
              "] expected padding_mode kZeros (the only one a transposed convolution supports); got ",
              enumtype::get_enum_name(options.padding_mode()));
  ExpandingArray<D> output_padding = options.output_padding();
  if (output_size) {
    // The output_padding that turns the smallest output size into the requested one.
    const int64_t nd = static_cast<int64_t>(D);
    EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, "[", name, "] expected a ", nd + 1, "-D (unbatched) or ", nd + 2,
                "-D input; got input of shape ", input.sizes());
    at::IntArrayRef req = *output_size;
    EMBER_CHECK(static_cast<int64_t>(req.size()) == nd || static_cast<int64_t>(req.size()) == input.dim(), "[", name,
                "] expected output_size to have ", nd, " values (one per spatial dim) or ", input.dim(),
                " (the whole output shape); got ", req);
    req = req.slice(req.size() - D);
    for (size_t i = 0; i < D; ++i) {
      const int64_t in = input.size(input.dim() - nd + static_cast<int64_t>(i));
      const int64_t s = (*options.stride())[i], p = (*options.padding())[i], d = (*options.dilation())[i],
                    k = (*options.kernel_size())[i];
      const int64_t smallest = (in - 1) * s - 2 * p + d * (k - 1) + 1, largest = smallest + s - 1;
      EMBER_CHECK(req[i] >= smallest && req[i] <= largest, "[", name, "] expected each output_size between the smallest (",
                  smallest, ") and largest (", largest, ") size this input gives in its dim; got output_size ", *output_size,
                  " for input of shape ", input.sizes());
      (*output_padding)[i] = req[i] - smallest;
    }
  }
  functional::ConvTransposeFuncOptions<D> f;
  f.bias(bias).stride(options.stride()).padding(options.padding()).output_padding(output_padding).groups(options.groups())
      .dilation(options.dilation());
  if constexpr (D == 1) return functional::conv_transpose1d(input, weight, f);
  else if constexpr (D == 2) return functional::conv_transpose2d(input, weight, f);
  else return functional::conv_transpose3d(input, weight, f);
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::" << layer_name<D>("ConvTranspose") << "(" << options.in_channels() << ", "
         << options.out_channels() << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!all_equal<D>(options.padding(), 0)) stream << ", padding=" << options.padding();
  if (!all_equal<D>(options.dilation(), 1)) stream << ", dilation=" << options.dilation();
  if (!all_equal<D>(options.output_padding(), 0)) stream << ", output_padding=" << options.output_padding();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  print_padding_mode<D>(stream, options.padding_mode());
  stream << ")";
}

template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;
template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

// ---------------------------------------------------------------- MaxPool2d

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::MaxPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode()
         << ")";
}

}  // namespace torch::nn
