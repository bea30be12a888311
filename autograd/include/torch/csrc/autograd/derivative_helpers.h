#pragma once
// Helpers that derivatives.yaml formulas may call (namespace torch::autograd::formulas). Written
// with at:: ops only, so that every backward is itself differentiable.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/csrc/autograd/variable.h>
#include <array>
#include <tuple>

namespace torch::autograd {
/// Marks `view` as a view of `base` (for in-place-on-view checks).
void mark_view(const at::Tensor& view, const at::Tensor& base);
void mark_view(const std::vector<at::Tensor>& views, const at::Tensor& base);
template <typename... T> void mark_view(const std::tuple<T...>&, const at::Tensor&) {}
/// Raises for in-place writes into a view of a leaf that requires grad (libtorch's error).
void check_inplace_view(const at::Tensor& t, const char* op);
/// True when `t` is a view recorded by autograd (its base takes part in the graph).
bool is_autograd_view(const at::Tensor& t);
/// After an in-place op `fn` wrote into a view: moves the history onto the base (CopySlices).
/// See Note [In-place on a view] in autograd/copy_slices.cpp.
void rebase_view_history(const at::Tensor& view, const std::shared_ptr<Node>& fn);
}  // namespace torch::autograd

namespace torch::autograd::formulas {

/// Zeros of a backward input's recorded shape (for outputs that received no gradient).
inline at::Tensor zeros_for(const InputMetadata& m) {
  return at::zeros(m.shape, at::TensorOptions().dtype(m.dtype).device(m.device));
}

inline void assign_grads(variable_list& out, size_t offset, size_t, const at::Tensor& g) { out[offset] = g; }
inline void assign_grads(variable_list& out, size_t offset, size_t count, const std::vector<at::Tensor>& g) {
  for (size_t k = 0; k < count && k < g.size(); ++k) out[offset + k] = g[k];
}

/// Reduces a broadcast gradient to `shape`.
inline at::Tensor sum_to(const at::Tensor& grad, at::IntArrayRef shape) { return torch::autograd::sum_to(grad, shape); }

/// Scalar as a value usable in formulas (complex conjugation is the identity for real types).
inline at::Scalar conj(const at::Scalar& s) { return s; }

/// Re-inserts reduced dims (keepdim=false) so that `grad` broadcasts against the input again.
at::Tensor unsqueeze_reduced(const at::Tensor& grad, int64_t ndim, at::OptionalIntArrayRef dims, bool keepdim);
/// Gradient of sum over `dims`: broadcast back to the input shape.
at::Tensor sum_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::OptionalIntArrayRef dims, bool keepdim);
/// Gradient of a reduction that selected elements (max/min along a dim): scatter into zeros.
at::Tensor select_backward_dim(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& indices, bool keepdim);
/// Gradient of a full max/min/amax/amin: split evenly among the elements equal to the result.
/// Full max()/min(): the gradient is shared evenly by the elements equal to the result, or, when
/// the result is NaN, by the NaN elements (the ones that made it NaN).
at::Tensor extremum_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result);
at::Tensor evenly_distribute_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                                      at::OptionalIntArrayRef dims, bool keepdim);
/// Gradient of var with `correction` over `dims`.
at::Tensor var_backward(const at::Tensor& grad, const at::Tensor& self, at::OptionalIntArrayRef dims,
                        const std::optional<at::Scalar>& correction, bool keepdim);
/// std.correction: var_backward of grad / (2 std), with 0 where std is 0.
at::Tensor std_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                        at::OptionalIntArrayRef dims, const std::optional<at::Scalar>& correction, bool keepdim);
/// Gradient of p-norm.
at::Tensor norm_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Scalar>& p,
                         const at::Tensor& norm, at::OptionalIntArrayRef dims, bool keepdim);
/// Gradient of logsumexp over `dims`.
at::Tensor logsumexp_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result,
                              at::IntArrayRef dims, bool keepdim);
/// Gradient of cumsum: a reversed cumulative sum.
at::Tensor cumsum_backward(const at::Tensor& grad, int64_t dim);
/// Gradient of cumprod (handles zeros).
at::Tensor cumprod_backward(const at::Tensor& grad, const at::Tensor& self, int64_t dim, const at::Tensor& result);
/// Gradient of prod over all elements / one dim (handles zeros).
at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result, std::optional<int64_t> dim,
                         bool keepdim);
/// Gradients of cat: narrow the gradient back into the pieces. A size of -1 marks a legacy empty
/// 1-d input (shape [0], skipped by cat), whose gradient is an empty [0] tensor.
std::vector<at::Tensor> cat_backward(const at::Tensor& grad, const std::vector<int64_t>& sizes_along_dim, int64_t dim);
/// sizes of each tensor along `dim` (for cat_backward); -1 for legacy empty 1-d tensors.
std::vector<int64_t> sizes_along(const std::vector<at::Tensor>& ts, int64_t dim);
/// Gradient of a strided view: scatter the gradient into zeros shaped like the base.
at::Tensor as_strided_backward(const at::Tensor& grad, at::IntArrayRef base_sizes, at::IntArrayRef base_strides,
                               int64_t base_offset, at::IntArrayRef sizes, at::IntArrayRef strides,
                               std::optional<int64_t> storage_offset);
/// Gradient of unfold.
at::Tensor unfold_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, int64_t size, int64_t step);
/// Gradient of diagonal.
at::Tensor diagonal_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2);
/// Gradient of slice: the gradient at the selected positions, zeros elsewhere.
at::Tensor slice_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step);
/// Gradient of select.int.
at::Tensor select_int_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, int64_t index);
/// Gradient of expand: sum over the expanded dims.
inline at::Tensor expand_backward(const at::Tensor& grad, at::IntArrayRef sizes) { return sum_to(grad, sizes); }
/// Gradient of permute: the inverse permutation.
at::Tensor permute_backward(const at::Tensor& grad, at::IntArrayRef dims);
/// Gradient of squeeze: reshape back.
inline at::Tensor squeeze_backward(const at::Tensor& grad, at::IntArrayRef sizes) { return grad.reshape(sizes); }
/// Gradient of softmax / log_softmax.
at::Tensor softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim);
at::Tensor log_softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim);
/// Gradient of gather / sort / topk: scatter-add the gradient back along dim into zeros of `sizes`.
at::Tensor gather_backward_dim(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& indices);
/// Gradient of index_select.
at::Tensor index_select_backward(const at::Tensor& grad, at::IntArrayRef sizes, int64_t dim, const at::Tensor& index);
/// Gradient of index.Tensor (undefined tensors in `indices` stand for None).
at::Tensor index_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::ScalarType dtype,
                          const c10::List<std::optional<at::Tensor>>& indices);
at::Tensor index_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::ScalarType dtype,
                          const std::vector<at::Tensor>& indices);
/// Gradients of index_put_: self keeps the gradient except where it was overwritten (unless
/// accumulating); values get the gradient at the indexed positions.
at::Tensor index_put_self_backward(const at::Tensor& grad, const std::vector<at::Tensor>& indices, bool accumulate);
at::Tensor index_put_values_backward(const at::Tensor& grad, const std::vector<at::Tensor>& indices);
/// Gradient of masked_select: the gradient at the selected positions (in the broadcast shape).
at::Tensor masked_select_backward(const at::Tensor& grad, at::IntArrayRef self_sizes, const at::Tensor& mask);
/// gather of `grad` along dim, zero-padded up to `sizes` (src of scatter_add_ may exceed index).
at::Tensor gather_to_shape(const at::Tensor& grad, int64_t dim, const at::Tensor& index, at::IntArrayRef sizes);
/// Gradient of scatter_.src for src: like gather_to_shape, but with repeated indices only the
/// element the kernel wrote last (the one that survives) gets the gradient.
at::Tensor scatter_src_backward(const at::Tensor& grad, int64_t dim, const at::Tensor& index, at::IntArrayRef src_sizes);

/// Pointwise helpers.
at::Tensor pow_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& exponent);
at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent);
at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent,
                                 const at::Tensor& result);
/// Gradient of minimum (is_max=false) / maximum for `self` against `other`; ties get half.
at::Tensor min_max_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other, bool is_max);
/// 1 / d, and 0 where d is zero (atan2's gradient at the origin is 0 in libtorch, not NaN).
at::Tensor reciprocal_or_zero(const at::Tensor& d);
/// Gradient of clamp: passes where min < self < max (open interval; NaN gets none).
at::Tensor clamp_backward(const at::Tensor& grad, const at::Tensor& self, const std::optional<at::Scalar>& min,
                          const std::optional<at::Scalar>& max);
/// logit: grad / (x (1 - x)); with eps, 0 where the input was clamped to [eps, 1 - eps].
at::Tensor logit_backward(const at::Tensor& grad, const at::Tensor& self, std::optional<double> eps);
/// sinc: (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0.
at::Tensor sinc_backward(const at::Tensor& grad, const at::Tensor& self);
/// copysign: grad * sign change (result / self), 0 where self is 0.
at::Tensor copysign_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result);
/// fmax / fmin with respect to self: the whole gradient where self is the result alone, half at ties.
at::Tensor fmax_fmin_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& other, bool is_max);
/// xlogy(self, scalar other) with respect to self: log(other), 0 where self is 0 and other <= 0.
at::Tensor xlogy_scalar_other_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& other);
at::Tensor silu_backward(const at::Tensor& grad, const at::Tensor& self);
at::Tensor gelu_erf_backward(const at::Tensor& grad, const at::Tensor& self);
at::Tensor gelu_tanh_backward(const at::Tensor& grad, const at::Tensor& self);

/// Gradients of batch normalisation with batch statistics for (input, weight, bias): the saved
/// batch mean and 1/sqrt(var + eps), recomputed from input when the backward itself records a
/// graph (so that a second derivative sees them depend on input). Undefined weight means 1.
std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward(const at::Tensor& grad, const at::Tensor& input,
                                                                   const at::Tensor& weight, const at::Tensor& save_mean,
                                                                   const at::Tensor& save_invstd, double eps,
                                                                   std::array<bool, 3> grad_input_mask);

/// mean over dims (None or [] = all): the gradient spread evenly over the averaged elements.
at::Tensor mean_backward(const at::Tensor& grad, at::IntArrayRef sizes, at::OptionalIntArrayRef dims, bool keepdim);
/// mse_loss with respect to self: 2 (self - target) grad, divided by the element count for Mean.
at::Tensor mse_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target, int64_t reduction);
/// special_i1 and special_i1e; both derivatives are 1/2 at 0.
at::Tensor i1_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result);
at::Tensor i1e_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result);
/// Raises: the derivative of op with respect to input is not implemented (called only when needed).
at::Tensor not_implemented_input(const char* op, const char* input);
/// clamp with tensor bounds, for (self, min, max); undefined bounds are missing ones.
std::tuple<at::Tensor, at::Tensor, at::Tensor> clamp_tensor_backward(const at::Tensor& grad, const at::Tensor& self,
                                                                     const at::Tensor& min, const at::Tensor& max,
                                                                     std::array<bool, 3> grad_input_mask);

/// nll_loss (any rank) with respect to self: -weight[target] at the target class, 0 where ignored.
at::Tensor nll_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                             const at::Tensor& weight, int64_t reduction, int64_t ignore_index);
/// binary_cross_entropy with respect to self and to target.
at::Tensor binary_cross_entropy_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                         const at::Tensor& weight, int64_t reduction);
at::Tensor binary_cross_entropy_target_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                                const at::Tensor& weight, int64_t reduction);
/// binary_cross_entropy_with_logits for (self, target, pos_weight).
std::tuple<at::Tensor, at::Tensor, at::Tensor> binary_cross_entropy_with_logits_backward(
    const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target, const at::Tensor& weight,
    const at::Tensor& pos_weight, int64_t reduction, std::array<bool, 3> grad_input_mask);
/// native_layer_norm for (input, weight, bias) from the saved mean and 1 / std (recomputed from
/// input when the backward records a graph).
std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_backward(const at::Tensor& grad, const at::Tensor& input,
                                                                   at::IntArrayRef normalized_shape, const at::Tensor& weight,
                                                                   const at::Tensor& mean, const at::Tensor& rstd, double eps,
                                                                   std::array<bool, 3> grad_input_mask);

/// smooth_l1_loss and huber_loss with respect to self (target: the negative).
at::Tensor smooth_l1_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                                  int64_t reduction, double beta);
at::Tensor huber_loss_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
                               int64_t reduction, double delta);
/// native_group_norm for (input, weight, bias) from the saved [N, groups] statistics; the
/// statistics' own gradients (grad_mean, grad_rstd, undefined when unused) reach input too.
std::tuple<at::Tensor, at::Tensor, at::Tensor> group_norm_backward(const at::Tensor& grad, const at::Tensor& grad_mean,
                                                                   const at::Tensor& grad_rstd, const at::Tensor& input,
                                                                   const at::Tensor& weight, const at::Tensor& mean,
                                                                   const at::Tensor& rstd, int64_t n, int64_t channels,
                                                                   int64_t groups, double eps,
                                                                   std::array<bool, 3> grad_input_mask);

}  // namespace torch::autograd::formulas

EMBER_PUBLIC_END
