#pragma once
// Padding layers and F::pad: ZeroPad1d/2d/3d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d and
// ReplicationPad1d/2d/3d with libtorch's option classes, over at::pad / constant_pad_nd /
// reflection_padNd / replication_padNd (aten/native/Padding.cpp).
//   torch::nn::ReflectionPad2d pad(torch::nn::ReflectionPad2dOptions({1, 1, 2, 0}));
//   auto y = F::pad(x, F::PadFuncOptions({1, 2}).mode(torch::kReplicate));
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/enum.h>
#include <torch/expanding_array.h>
#include <torch/nn/cloneable.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <ostream>
#include <variant>
#include <type_traits>
#include <vector>

namespace torch::nn {

/// Options of the reflect / replicate / zero padding layers: 2 D values (before, after per dim,
/// last dim first), or one value for every side.
template <size_t D>
struct ReflectionPadOptions {
  /* implicit */ ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

template <size_t D>
struct ReplicationPadOptions {
  /* implicit */ ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

template <size_t D>
struct ZeroPadOptions {
  /* implicit */ ZeroPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
using ZeroPad1dOptions = ZeroPadOptions<1>;
using ZeroPad2dOptions = ZeroPadOptions<2>;
using ZeroPad3dOptions = ZeroPadOptions<3>;

/// Options of the constant padding layers: the padding and the fill value.
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
  TORCH_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

namespace functional {

/// Options of F::pad: the (before, after) pairs (last dim first), the mode and, for kConstant, the fill value.
struct PadFuncOptions {
  typedef std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular> mode_t;
  /* implicit */ PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}
  TORCH_ARG(std::vector<int64_t>, pad);
  TORCH_ARG(mode_t, mode) = torch::kConstant;
  TORCH_ARG(double, value) = 0;
};

/// Pads `input` by options.pad() in the given mode (a value other than 0 with a non-constant mode raises).
at::Tensor pad(const at::Tensor& input, const PadFuncOptions& options);

}  // namespace functional

namespace detail {
template <typename O, typename = void>
struct has_pad_value : std::false_type {};
template <typename O>
struct has_pad_value<O, std::void_t<decltype(std::declval<const O&>().value())>> : std::true_type {};
template <typename O>
double pad_value_of(const O& o) {
  if constexpr (has_pad_value<O>::value)
    return o.value();
  else
    return 0.0;
}
/// Shared by the padding layers: the mode string of at::pad and the printed class name.
at::Tensor pad_layer(const at::Tensor& input, at::IntArrayRef padding, const char* mode, double value);
void print_pad_layer(std::ostream& stream, const char* name, at::IntArrayRef padding, const double* value);
}  // namespace detail

#define EMBER_PAD_LAYER(Name, D, OptionsT, MODE, HAS_VALUE, CTOR)                                                \
  class Name##Impl : public Cloneable<Name##Impl> {                                                               \
   public:                                                                                                         \
    CTOR                                                                                                           \
    explicit Name##Impl(const OptionsT& options_) : options(options_) {}                                           \
    void reset() override {}                                                                                       \
    /** Pads the last D dims of input. */                                                                          \
    at::Tensor forward(const at::Tensor& input) {                                                                  \
      return detail::pad_layer(input, options.padding(), MODE, pad_value());                                       \
    }                                                                                                              \
    void pretty_print(std::ostream& stream) const override {                                                      \
      const double v = pad_value();                                                                                \
      detail::print_pad_layer(stream, "torch::nn::" #Name, options.padding(), HAS_VALUE ? &v : nullptr);           \
    }                                                                                                              \
    OptionsT options;                                                                                              \
                                                                                                                   \
   private:                                                                                                        \
    double pad_value() const { return detail::pad_value_of(options); }                                            \
  };                                                                                                               \
  TORCH_MODULE(Name);

// Reflect padding of the last 1 / 2 / 3 dims (each padding smaller than its dim).
EMBER_PAD_LAYER(ReflectionPad1d, 1, ReflectionPad1dOptions, "reflect", false, ReflectionPad1dImpl(ExpandingArray<1 * 2> padding) : ReflectionPad1dImpl(ReflectionPad1dOptions(padding)) {})
EMBER_PAD_LAYER(ReflectionPad2d, 2, ReflectionPad2dOptions, "reflect", false, ReflectionPad2dImpl(ExpandingArray<2 * 2> padding) : ReflectionPad2dImpl(ReflectionPad2dOptions(padding)) {})
EMBER_PAD_LAYER(ReflectionPad3d, 3, ReflectionPad3dOptions, "reflect", false, ReflectionPad3dImpl(ExpandingArray<3 * 2> padding) : ReflectionPad3dImpl(ReflectionPad3dOptions(padding)) {})
// Edge-replicating padding of the last 1 / 2 / 3 dims.
EMBER_PAD_LAYER(ReplicationPad1d, 1, ReplicationPad1dOptions, "replicate", false, ReplicationPad1dImpl(ExpandingArray<1 * 2> padding) : ReplicationPad1dImpl(ReplicationPad1dOptions(padding)) {})
EMBER_PAD_LAYER(ReplicationPad2d, 2, ReplicationPad2dOptions, "replicate", false, ReplicationPad2dImpl(ExpandingArray<2 * 2> padding) : ReplicationPad2dImpl(ReplicationPad2dOptions(padding)) {})
EMBER_PAD_LAYER(ReplicationPad3d, 3, ReplicationPad3dOptions, "replicate", false, ReplicationPad3dImpl(ExpandingArray<3 * 2> padding) : ReplicationPad3dImpl(ReplicationPad3dOptions(padding)) {})
// Zero padding of the last 1 / 2 / 3 dims.
EMBER_PAD_LAYER(ZeroPad1d, 1, ZeroPad1dOptions, "constant", false, ZeroPad1dImpl(ExpandingArray<1 * 2> padding) : ZeroPad1dImpl(ZeroPad1dOptions(padding)) {})
EMBER_PAD_LAYER(ZeroPad2d, 2, ZeroPad2dOptions, "constant", false, ZeroPad2dImpl(ExpandingArray<2 * 2> padding) : ZeroPad2dImpl(ZeroPad2dOptions(padding)) {})
EMBER_PAD_LAYER(ZeroPad3d, 3, ZeroPad3dOptions, "constant", false, ZeroPad3dImpl(ExpandingArray<3 * 2> padding) : ZeroPad3dImpl(ZeroPad3dOptions(padding)) {})
// Padding of the last 1 / 2 / 3 dims with a constant value.
EMBER_PAD_LAYER(ConstantPad1d, 1, ConstantPad1dOptions, "constant", true, ConstantPad1dImpl(ExpandingArray<1 * 2> padding, double value) : ConstantPad1dImpl(ConstantPad1dOptions(padding, value)) {})
EMBER_PAD_LAYER(ConstantPad2d, 2, ConstantPad2dOptions, "constant", true, ConstantPad2dImpl(ExpandingArray<2 * 2> padding, double value) : ConstantPad2dImpl(ConstantPad2dOptions(padding, value)) {})
EMBER_PAD_LAYER(ConstantPad3d, 3, ConstantPad3dOptions, "constant", true, ConstantPad3dImpl(ExpandingArray<3 * 2> padding, double value) : ConstantPad3dImpl(ConstantPad3dOptions(padding, value)) {})

#undef EMBER_PAD_LAYER

}  // namespace torch::nn

EMBER_PUBLIC_END
