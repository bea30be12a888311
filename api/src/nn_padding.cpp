// Padding layers and F::pad (torch/nn/padding.h): the mode tags mapped onto at::pad's mode
// strings, and libtorch's printing.
#include <torch/nn/padding.h>
#include <ostream>
#include <string>

namespace torch::nn {
namespace functional {

at::Tensor pad(const at::Tensor& input, const PadFuncOptions& options) {
  const char* mode = std::visit(
      [](const auto& tag) -> const char* {
        using T = std::decay_t<decltype(tag)>;
        if constexpr (std::is_same_v<T, enumtype::kConstant>) return "constant";
        else if constexpr (std::is_same_v<T, enumtype::kReflect>) return "reflect";
        else if constexpr (std::is_same_v<T, enumtype::kReplicate>) return "replicate";
        else return "circular";
      },
      options.mode());
  // As libtorch: a value of 0 counts as "no value", so the non-constant modes accept the default.
  std::optional<double> value;
  if (options.value() != 0.0) value = options.value();
  return at::pad(input, options.pad(), mode, value);
}

}  // namespace functional

namespace detail {

at::Tensor pad_layer(const at::Tensor& input, at::IntArrayRef padding, const char* mode, double value) {
  if (std::string(mode) == "constant") return at::constant_pad_nd(input, padding, value);
  return at::pad(input, padding, mode, std::nullopt);
}

void print_pad_layer(std::ostream& stream, const char* name, at::IntArrayRef padding, const double* value) {
  stream << name << "(padding=[";
  for (size_t i = 0; i < padding.size(); ++i) stream << (i ? ", " : "") << padding[i];
  stream << "]";
  if (value) stream << ", value=" << *value;
  stream << ")";
}

}  // namespace detail
}  // namespace torch::nn
