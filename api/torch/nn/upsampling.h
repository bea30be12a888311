#pragma once
// Resizing: nn::Upsample, UpsampleOptions, F::interpolate with InterpolateFuncOptions, choosing
// among at::upsample_nearest{1,2,3}d, upsample_linear1d, upsample_bilinear2d,
// upsample_trilinear3d (aten/native/Upsample.cpp) and adaptive_avg_pool2d (kArea) as libtorch's
// F::interpolate does.
//   auto y = F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2})
//                                  .mode(torch::kBilinear).align_corners(false));
// kBicubic, kNearestExact, kArea on 3-D / 5-D inputs and antialias are not supported yet and raise.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/enum.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <optional>
#include <ostream>
#include <variant>
#include <vector>

namespace torch::nn {

/// Options of nn::Upsample: either size or scale_factor (one value per spatial dim), the mode and,
/// for the linear modes, align_corners.
struct UpsampleOptions {
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  typedef std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic, enumtype::kTrilinear>
      mode_t;
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {

/// Options of F::interpolate (libtorch's; recompute_scale_factor passes the computed output size
/// instead of the scale factors to the op).
struct InterpolateFuncOptions {
  typedef std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic, enumtype::kTrilinear,
                       enumtype::kArea, enumtype::kNearestExact>
      mode_t;
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
  TORCH_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  TORCH_ARG(bool, antialias) = false;
};

/// Resizes the spatial dims of a 3-D (N, C, W), 4-D or 5-D input to `size`, or by `scale_factor`
/// (output = floor(input * scale)), with the given mode.
at::Tensor interpolate(const at::Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace functional

/// Resizes its input as F::interpolate (no parameters).
class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UpsampleOptions options;
};
TORCH_MODULE(Upsample);

}  // namespace torch::nn

EMBER_PUBLIC_END
