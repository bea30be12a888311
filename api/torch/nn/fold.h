#pragma once
// Sliding blocks and sub-pixel shuffles: nn::Fold / nn::Unfold (over at::col2im / at::im2col),
// nn::PixelShuffle / nn::PixelUnshuffle, their options (libtorch's) and F::fold, F::unfold,
// F::pixel_shuffle, F::pixel_unshuffle. (F::unfold is the 4-D sliding-block one, not
// Tensor::unfold.)
//   auto cols = F::unfold(x, F::UnfoldFuncOptions({3, 3}).padding(1));   // (N, C*9, H*W)
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/expanding_array.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>

namespace torch::nn {

/// Options of nn::Fold: the image size the blocks are summed into, and the block geometry.
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  TORCH_ARG(ExpandingArray<2>, output_size);
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, stride) = 1;
};

/// Options of nn::Unfold: the block geometry.
struct UnfoldOptions {
  /* implicit */ UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, stride) = 1;
};

/// Options of nn::PixelShuffle.
struct PixelShuffleOptions {
  /* implicit */ PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}
  TORCH_ARG(int64_t, upscale_factor);
};

/// Options of nn::PixelUnshuffle.
struct PixelUnshuffleOptions {
  /* implicit */ PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}
  TORCH_ARG(int64_t, downscale_factor);
};

namespace functional {

using FoldFuncOptions = FoldOptions;
using UnfoldFuncOptions = UnfoldOptions;
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;

/// Sums (N, C * kh * kw, L) or unbatched blocks into (N, C, output_size) (overlaps add up).
inline at::Tensor fold(const at::Tensor& input, const FoldFuncOptions& options) {
  return at::col2im(input, options.output_size(), options.kernel_size(), options.dilation(), options.padding(),
                    options.stride());
}

/// Extracts the sliding blocks of a (N, C, H, W) or (C, H, W) input as (N, C * kh * kw, L) columns.
inline at::Tensor unfold(const at::Tensor& input, const UnfoldFuncOptions& options) {
  return at::im2col(input, options.kernel_size(), options.dilation(), options.padding(), options.stride());
}

/// (*, C r^2, H, W) -> (*, C, H r, W r).
inline at::Tensor pixel_shuffle(const at::Tensor& input, const PixelShuffleFuncOptions& options) {
  return at::pixel_shuffle(input, options.upscale_factor());
}

/// (*, C, H r, W r) -> (*, C r^2, H, W).
inline at::Tensor pixel_unshuffle(const at::Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return at::pixel_unshuffle(input, options.downscale_factor());
}

}  // namespace functional

/// Sums sliding blocks back into an image (no parameters).
class FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size) : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::fold(input, options); }
  void pretty_print(std::ostream& stream) const override;
  FoldOptions options;
};
TORCH_MODULE(Fold);

/// Extracts sliding blocks as columns (no parameters).
class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  explicit UnfoldImpl(const UnfoldOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::unfold(input, options); }
  void pretty_print(std::ostream& stream) const override;
  UnfoldOptions options;
};
TORCH_MODULE(Unfold);

/// Rearranges channel blocks into an upscale_factor-times larger image (no parameters).
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::pixel_shuffle(input, options); }
  void pretty_print(std::ostream& stream) const override;
  PixelShuffleOptions options;
};
TORCH_MODULE(PixelShuffle);

/// The inverse of PixelShuffle (no parameters).
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_) : options(options_) {}
  void reset() override {}
  at::Tensor forward(const at::Tensor& input) { return functional::pixel_unshuffle(input, options); }
  void pretty_print(std::ostream& stream) const override;
  PixelUnshuffleOptions options;
};
TORCH_MODULE(PixelUnshuffle);

}  // namespace torch::nn

EMBER_PUBLIC_END
