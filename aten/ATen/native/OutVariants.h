#pragma once
// Note [Composite out= variants]
// A dispatch or composite op whose ops.yaml entry says `out: true` gets an out= form,
// at::<name>_out(out, args...) / at::<name>_outf(args..., out), as libtorch has for it. The generator
// writes its kernel (build/generated/src/OutVariants.cpp) over these two helpers: it computes the
// functional op, then write_out() puts the value into `out`. That costs one temporary and one copy
// next to a kernel that writes `out` directly (the pointwise ops' out= forms do), and buys exact
// agreement with the functional result and freedom from aliasing: `out` may be one of the inputs.
// The rules, per op named in the message:
//   - `out` is on the result's device, of a dtype the result's can be cast to (can_cast, as for the
//     pointwise out= forms), and gets the result converted. An op with a `ScalarType? dtype` argument
//     left unset computes in out's dtype, as libtorch's sum/mean/prod/cumsum/... do: sum_out of
//     int32 into int32, of float into double accumulates in that dtype. (More lenient than libtorch
//     elsewhere: its mm_out, index_select_out... refuse an out of another dtype, this converts.)
//   - an `out` of another shape is resized to the result's (an empty one is the usual way to call);
//     one of the same shape keeps its strides and is written through them;
//   - under grad mode no input and not `out` may require grad: an out= call records no history;
//   - `out` may be an input (libtorch refuses that for some ops, cat_out(x, {x, x})): the value is
//     computed before `out` is written;
//   - the version counter of `out` moves once, by the copy (Functions.cpp adds no bump for these).
// A factory (zeros, arange, linspace, rand, randint, randperm, normal(mean, std, size), ...) takes no
// dtype/layout/device in its out= form, as in libtorch: it is made in out's dtype on out's device,
// then written into out. A random factory draws into that fresh tensor, so an out of its size and
// contiguous holds libtorch's numbers for a seed (libtorch draws into out itself; a non-contiguous
// out gets the same distribution in another order).
// An op with several results (max.dim, sort, topk, aminmax, var_mean, native_layer_norm, ...) names
// its out tensors in ops.yaml as libtorch does (`out: {overload: dim_max, names: [max, max_values]}`:
// at::max_out(max, max_values, self, dim, keepdim)) and goes through write_outs(), which differs:
//   - each out must already have its result's dtype (libtorch's structured kernels, which most of these
//     are, refuse any other; indices written into a float tensor would be a silent conversion);
//   - no two outs may share memory (the second write would overwrite the first result);
//   - every out is checked before any is written, so a refusal leaves all of them as they were;
//   - an undefined result (a part the op was asked not to compute) leaves its out untouched.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>

namespace at::native {

/// Throws `[op] ...` when `inputs_require_grad` (torch::autograd::compute_requires_grad of the inputs:
/// grad mode on and one of them requires grad).
void check_out_records_no_history(const char* op, bool inputs_require_grad);

/// Writes `result` into `out` (same device, a dtype the result's can be cast to; resized when its
/// shape differs).
void write_out(const char* op, const Tensor& result, Tensor& out);

/// Writes the results of a several-result op into its outs (named `names` in messages): each of its
/// result's dtype, none sharing memory with another, all checked before any is written.
void write_outs(const char* op, ArrayRef<const char*> names, ArrayRef<Tensor> results, ArrayRef<Tensor*> outs);

}  // namespace at::native

EMBER_PUBLIC_END
