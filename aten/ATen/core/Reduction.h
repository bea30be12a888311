#pragma once
// How a loss reduces its per-element values (libtorch's at::Reduction): passed as an int64 so the
// op schemas stay plain (`int reduction=Mean`).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
namespace at::Reduction {
enum Reduction { None, Mean, Sum, END };
}  // namespace at::Reduction

EMBER_PUBLIC_END
