#pragma once
// torch:: sees all of at:: (Tensor, the operators, the dtypes), the standard optional under
// libtorch's old names, and the fixed-width and short dtype spellings libtorch defines here.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <c10/util/Optional.h>
#include <optional>

namespace torch {
using namespace at;  // torch::Tensor, torch::zeros, torch::kFloat, ...
using std::nullopt;
using std::optional;
using Dtype = at::ScalarType;

constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kU8 = kUInt8;
constexpr auto kI8 = kInt8;
constexpr auto kI16 = kInt16;
constexpr auto kI32 = kInt32;
constexpr auto kI64 = kInt64;
constexpr auto kF16 = kFloat16;
constexpr auto kF32 = kFloat32;
constexpr auto kF64 = kFloat64;
}  // namespace torch

EMBER_PUBLIC_END
