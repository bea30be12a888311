// F::interpolate and nn::Upsample (torch/nn/upsampling.h): the choice of op follows libtorch's
// F::interpolate (by mode and input rank); output sizes from scale factors are floor(in * scale).
#include <torch/nn/upsampling.h>
#include <cmath>
#include <ostream>
#include <string>

namespace torch::nn {
namespace functional {
namespace {

std::vector<int64_t> output_size_of(const at::Tensor& input, int64_t n, const InterpolateFuncOptions& o) {
  const char* op = "interpolate";
  EMBER_CHECK(o.size().has_value() || o.scale_factor().has_value(), "[", op, "] expected size or scale_factor; got neither");
  EMBER_CHECK(!(o.size().has_value() && o.scale_factor().has_value()), "[", op,
              "] expected only one of size and scale_factor; got both");
  if (o.size().has_value()) {
    EMBER_CHECK(static_cast<int64_t>(o.size()->size()) == n, "[", op, "] expected size of ", n, " values for a ", n + 2,
                "-D input; got ", at::IntArrayRef(*o.size()));
    return *o.size();
  }
  const auto& s = *o.scale_factor();
  EMBER_CHECK(static_cast<int64_t>(s.size()) == n, "[", op, "] expected scale_factor of ", n, " values for a ", n + 2,
              "-D input; got ", s.size(), " values");
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * s[size_t(i)])));
  return out;
}

}  // namespace

at::Tensor interpolate(const at::Tensor& input, const InterpolateFuncOptions& options) {
  const char* op = "interpolate";
  EMBER_CHECK(input.defined(), "[", op, "] expected a defined input");
  const std::string mode = torch::enumtype::get_enum_name(options.mode());
  const bool linear_mode = mode == "kLinear" || mode == "kBilinear" || mode == "kBicubic" || mode == "kTrilinear";
  std::optional<bool> align = options.align_corners();
  if (!linear_mode)
    EMBER_CHECK(!align.has_value(), "[", op, "] align_corners only applies to the linear modes (kLinear, kBilinear, ",
                "kBicubic, kTrilinear); got mode ", mode, " with align_corners set");
  else if (!align.has_value())
    align = false;  // libtorch's default (it warns)
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5, "[", op, "] expected a 3-D, 4-D or 5-D input (N, C, spatial...); got ",
              input.dim(), "-D with mode ", mode);
  EMBER_CHECK(!options.antialias(), "[", op, "] antialias is not supported by Ember yet (issue #6)");
  const int64_t n = input.dim() - 2;
  const std::vector<int64_t> size = output_size_of(input, n, options);
  // The op gets the scale factors themselves unless recompute_scale_factor asks for in / out.
  std::vector<std::optional<double>> scales(static_cast<size_t>(n), std::nullopt);
  if (options.scale_factor().has_value() && !options.recompute_scale_factor().value_or(false))
    for (int64_t i = 0; i < n; ++i) scales[size_t(i)] = (*options.scale_factor())[size_t(i)];
  const int64_t need = mode == "kLinear" ? 1 : mode == "kBilinear" ? 2 : mode == "kTrilinear" ? 3 : n;
  EMBER_CHECK(need == n, "[", op, "] mode ", mode, " needs a ", need + 2, "-D input; got ", input.dim(), "-D");
  if (mode == "kNearest") {
    if (n == 1) return at::upsample_nearest1d(input, size, scales[0]);
    if (n == 2) return at::upsample_nearest2d(input, size, scales[0], scales[1]);
    return at::upsample_nearest3d(input, size, scales[0], scales[1], scales[2]);
  }
  if (mode == "kLinear") return at::upsample_linear1d(input, size, *align, scales[0]);
  if (mode == "kBilinear") return at::upsample_bilinear2d(input, size, *align, scales[0], scales[1]);
  if (mode == "kTrilinear") return at::upsample_trilinear3d(input, size, *align, scales[0], scales[1], scales[2]);
  if (mode == "kArea" && n == 2) return at::adaptive_avg_pool2d(input, size);
  EMBER_CHECK(false, "[", op, "] mode ", mode, " on a ", input.dim(), "-D input is not supported by Ember yet (issue #6)");
  return {};
}

}  // namespace functional

at::Tensor UpsampleImpl::forward(const at::Tensor& input) {
  functional::InterpolateFuncOptions o;
  o.size(options.size()).scale_factor(options.scale_factor()).align_corners(options.align_corners());
  std::visit([&](const auto& tag) { o.mode(tag); }, options.mode());
  return functional::interpolate(input, o);
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Upsample(";
  if (options.scale_factor().has_value()) {
    stream << "scale_factor=[";
    for (size_t i = 0; i < options.scale_factor()->size(); ++i) stream << (i ? ", " : "") << (*options.scale_factor())[i];
    stream << "]";
  } else if (options.size().has_value()) {
    stream << "size=" << at::IntArrayRef(*options.size());
  }
  stream << ", mode=" << torch::enumtype::get_enum_name(options.mode()) << ")";
}

}  // namespace torch::nn
