// nn::Fold, Unfold, PixelShuffle, PixelUnshuffle (torch/nn/fold.h), nn::Bilinear and
// nn::Unflatten (torch/nn/linear.h): construction, forward and libtorch's printing.
#include <torch/nn/fold.h>
#include <torch/nn/init.h>
#include <torch/nn/linear.h>
#include <cmath>
#include <ostream>

namespace torch::nn {

void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Fold(output_size=" << options.output_size() << ", kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  EMBER_CHECK(options.in1_features() >= 0 && options.in2_features() >= 0 && options.out_features() >= 0,
              "[Bilinear] expected non-negative feature counts; got in1_features ", options.in1_features(), ", in2_features ",
              options.in2_features(), ", out_features ", options.out_features());
  reset();
}

void BilinearImpl::reset() {
  weight = register_parameter("weight", at::empty({options.out_features(), options.in1_features(), options.in2_features()}));
  if (options.bias())
    bias = register_parameter("bias", at::empty({options.out_features()}));
  else
    bias = register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = options.in1_features() > 0 ? 1.0 / std::sqrt(static_cast<double>(options.in1_features())) : 0.0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
         << ", bias=" << options.bias() << ")";
}

at::Tensor UnflattenImpl::forward(const at::Tensor& input) {
  const int64_t nd = input.dim();
  int64_t d = options.dim();
  EMBER_CHECK(d >= -nd && d < nd, "[Unflatten] expected dim in [", -nd, ", ", nd, ") for a ", nd, "-D input; got ", d);
  if (d < 0) d += nd;
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().begin() + d);
  shape.insert(shape.end(), options.sizes().begin(), options.sizes().end());
  shape.insert(shape.end(), input.sizes().begin() + d + 1, input.sizes().end());
  int64_t known = 1, inferred = 0;
  for (int64_t s : options.sizes()) {
    if (s == -1) ++inferred;
    else known *= s;
  }
  EMBER_CHECK(inferred <= 1 && (inferred ? known != 0 && input.size(d) % known == 0 : known == input.size(d)), "[Unflatten] sizes ",
              at::IntArrayRef(options.sizes()), " do not multiply to the size ", input.size(d), " of dim ", d);
  return input.view(shape);
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) stream << (i ? ", " : "") << options.sizes()[i];
  stream << "})";
}

}  // namespace torch::nn
