// torch::nn::init: the initialisers. Fan and gain rules follow libtorch so models start from the
// same distributions.
#include <torch/nn/init.h>
#include <ATen/core/GradMode.h>
#include <cmath>

namespace torch::nn::init {

namespace {
struct GainOf {
  double param;
  double operator()(const enumtype::kTanh&) const { return 5.0 / 3.0; }
  double operator()(const enumtype::kReLU&) const { return std::sqrt(2.0); }
  double operator()(const enumtype::kLeakyReLU&) const { return std::sqrt(2.0 / (1.0 + param * param)); }
  template <typename Other>  // linear, conv*, sigmoid
  double operator()(const Other&) const { return 1.0; }
};

double fan_of(const at::Tensor& tensor, const FanModeType& mode) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  return static_cast<double>(std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out);
}
}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  return std::visit(GainOf{param}, nonlinearity);
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const at::Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2, "[init] fan in and fan out need a tensor of at least 2 dims; got ", tensor.dim(),
              " dims, sizes ", tensor.sizes());
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

at::Tensor constant_(at::Tensor tensor, at::Scalar value) {
  at::NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

at::Tensor zeros_(at::Tensor tensor) {
  at::NoGradGuard no_grad;
  tensor.zero_();
  return tensor;
}

at::Tensor ones_(at::Tensor tensor) { return constant_(std::move(tensor), 1); }

at::Tensor eye_(at::Tensor matrix) {
  EMBER_CHECK(matrix.dim() == 2, "[eye_] expected a 2-d tensor; got ", matrix.dim(), " dims, sizes ", matrix.sizes());
  at::NoGradGuard no_grad;
  matrix.copy_(at::eye(matrix.size(0), matrix.size(1), matrix.options()));
  return matrix;
}

at::Tensor uniform_(at::Tensor tensor, double low, double high) {
  at::NoGradGuard no_grad;
  tensor.uniform_(low, high);
  return tensor;
}

at::Tensor normal_(at::Tensor tensor, double mean, double std) {
  at::NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

at::Tensor xavier_uniform_(at::Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -a, a);
}

at::Tensor xavier_normal_(at::Tensor tensor, double gain) {
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std);
}

at::Tensor kaiming_uniform_(at::Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  if (tensor.numel() == 0) return tensor;  // nothing to fill, and the fan would be 0
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan_of(tensor, mode));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

at::Tensor kaiming_normal_(at::Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  if (tensor.numel() == 0) return tensor;
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan_of(tensor, mode));
  return normal_(std::move(tensor), 0, std);
}

}  // namespace torch::nn::init
