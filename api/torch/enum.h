#pragma once
// Tag types for libtorch's enum-like options (`torch::kMean`, `torch::kFanIn`, `torch::kReLU`):
// each is an empty struct with a constant of the same name, so options can hold a std::variant of
// the tags that are valid for them.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <string>
#include <variant>

#define EMBER_ENUM_TAG(Name)                                         \
  namespace enumtype {                                               \
  struct k##Name {                                                   \
    k##Name() {}                                                     \
    static const char* name() { return "k" #Name; }                  \
  };                                                                 \
  }                                                                  \
  inline const enumtype::k##Name k##Name{};

namespace torch {
EMBER_ENUM_TAG(Linear)
EMBER_ENUM_TAG(Conv1D)
EMBER_ENUM_TAG(Conv2D)
EMBER_ENUM_TAG(Conv3D)
EMBER_ENUM_TAG(ConvTranspose1D)
EMBER_ENUM_TAG(ConvTranspose2D)
EMBER_ENUM_TAG(ConvTranspose3D)
EMBER_ENUM_TAG(Sigmoid)
EMBER_ENUM_TAG(Tanh)
EMBER_ENUM_TAG(ReLU)
EMBER_ENUM_TAG(GELU)
EMBER_ENUM_TAG(SiLU)
EMBER_ENUM_TAG(Mish)
EMBER_ENUM_TAG(LeakyReLU)
EMBER_ENUM_TAG(FanIn)
EMBER_ENUM_TAG(FanOut)
EMBER_ENUM_TAG(Sum)
EMBER_ENUM_TAG(Mean)
EMBER_ENUM_TAG(None)
EMBER_ENUM_TAG(BatchMean)
EMBER_ENUM_TAG(Zeros)
EMBER_ENUM_TAG(Reflect)
EMBER_ENUM_TAG(Replicate)
EMBER_ENUM_TAG(Circular)
EMBER_ENUM_TAG(Valid)
EMBER_ENUM_TAG(Same)
EMBER_ENUM_TAG(LSTM)
EMBER_ENUM_TAG(GRU)
EMBER_ENUM_TAG(RNN_TANH)
EMBER_ENUM_TAG(RNN_RELU)
EMBER_ENUM_TAG(Constant)
EMBER_ENUM_TAG(Nearest)
EMBER_ENUM_TAG(NearestExact)
EMBER_ENUM_TAG(Bilinear)
EMBER_ENUM_TAG(Bicubic)
EMBER_ENUM_TAG(Trilinear)
EMBER_ENUM_TAG(Area)
EMBER_ENUM_TAG(Max)

namespace enumtype {
/// The tag's spelling ("kMean") for messages and pretty printing.
template <typename V>
std::string get_enum_name(const V& v) {
  return std::visit([](const auto& tag) { return std::string(tag.name()); }, v);
}
}  // namespace enumtype
}  // namespace torch

EMBER_PUBLIC_END
