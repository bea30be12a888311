#pragma once
// How a loss reduces its per-element values (libtorch's at::Reduction): passed as an int64 so the
// op schemas stay plain (`int reduction=Mean`).
namespace at::Reduction {
enum Reduction { None, Mean, Sum, END };
}  // namespace at::Reduction
