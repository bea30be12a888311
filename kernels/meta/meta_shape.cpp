// Meta kernels ("shape functions") of the ops with hand-written CPU kernels: each runs the
// argument checks the CPU and CUDA kernels share (ATen/native/*Utils.h) and returns empty meta
// tensors of the result's sizes, strides and dtype, laid out as the CPU kernel lays them out
// (tests/meta_*.cpp compares every sample with the CPU). They do no arithmetic and are not
// templated on dtypes. Ops whose result shape depends on data are `Meta: raise` in ops.yaml.
#include <ATen/native/NativeFunctions.h>
#include <ATen/TensorIterator.h>
#include <ATen/Utils.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/IndexUtils.h>
#include <ATen/native/MatmulUtils.h>
#include <ATen/native/ReduceUtils.h>
#include <ATen/native/SearchUtils.h>
#include <ATen/native/SortUtils.h>

namespace at::native {
namespace {
using reduce::Geom;

void check_meta(const char* op, const Tensor& t) {
  EMBER_CHECK(!t.defined() || t.is_meta(), "[", op, "] expected meta tensors; got one on ", t.device());
}

// A reduction's result: `dt` of the reduced shape (keepdim: a view with size-1 dims kept, as the
// CPU kernels return it).
Tensor reduced(const Tensor& self, const std::vector<bool>& mask, bool keepdim, ScalarType dt) {
  const Geom g = reduce::make_geom(self, mask, false);
  return reduce::shape_out(reduce::new_out(g, dt, self.device()), g, keepdim);
}

Tensor extreme(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  check_meta(op, self);
  const Geom g = reduce::make_geom(self, mask, false);
  EMBER_CHECK(g.N > 0 || g.M == 0, "[", op, "] expected a non-empty reduction: the reduced dims of input ", self.sizes(),
              " have zero elements and the reduction has no identity");
  return reduce::shape_out(reduce::new_out(g, self.scalar_type(), self.device()), g, keepdim);
}

std::tuple<Tensor, Tensor> arg_extreme(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  check_meta(op, self);
  const Geom g = reduce::make_geom(self, mask, true);
  EMBER_CHECK(g.N > 0, "[", op, "] expected a non-empty reduction: the reduced dims of input ", self.sizes(),
              " have zero elements");
  return {reduce::shape_out(reduce::new_out(g, self.scalar_type(), self.device()), g, keepdim),
          reduce::shape_out(reduce::new_out(g, kLong, self.device()), g, keepdim)};
}

void check_floating(const char* op, const Tensor& self) {
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ",
              c10::dtypeName(self.scalar_type()));
}
}  // namespace

// ---------------------------------------------------------------- reductions
Tensor sum_dim_meta(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_meta("sum", self);
  return reduced(self, reduce::dim_mask("sum", self.dim(), dim), keepdim, reduce::sum_dtype(self, dtype));
}
Tensor prod_meta(const Tensor& self, std::optional<ScalarType> dtype) {
  check_meta("prod", self);
  return reduced(self, reduce::dim_mask("prod", self.dim(), std::nullopt), false, reduce::sum_dtype(self, dtype));
}
Tensor prod_dim_meta(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_meta("prod", self);
  return reduced(self, reduce::one_dim_mask("prod", self.dim(), dim), keepdim, reduce::sum_dtype(self, dtype));
}
Tensor max_meta(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0, "[max] expected a non-empty input to reduce over all elements; got sizes ", self.sizes(),
              " (pass dim= to reduce one dimension)");
  return extreme("max", self, reduce::dim_mask("max", self.dim(), std::nullopt), false);
}
Tensor min_meta(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0, "[min] expected a non-empty input to reduce over all elements; got sizes ", self.sizes(),
              " (pass dim= to reduce one dimension)");
  return extreme("min", self, reduce::dim_mask("min", self.dim(), std::nullopt), false);
}
std::tuple<Tensor, Tensor> max_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_extreme("max", self, reduce::one_dim_mask("max", self.dim(), dim), keepdim);
}
std::tuple<Tensor, Tensor> min_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_extreme("min", self, reduce::one_dim_mask("min", self.dim(), dim), keepdim);
}
Tensor amax_meta(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme("amax", self, reduce::dim_mask("amax", self.dim(), dim), keepdim);
}
Tensor amin_meta(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme("amin", self, reduce::dim_mask("amin", self.dim(), dim), keepdim);
}
Tensor argmax_meta(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[argmax] expected a numeric tensor; got Bool");
  auto mask = dim ? reduce::one_dim_mask("argmax", self.dim(), *dim) : reduce::dim_mask("argmax", self.dim(), std::nullopt);
  return std::get<1>(arg_extreme("argmax", self, mask, keepdim));
}
Tensor argmin_meta(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CHECK(self.scalar_type() != kBool, "[argmin] expected a numeric tensor; got Bool");
  auto mask = dim ? reduce::one_dim_mask("argmin", self.dim(), *dim) : reduce::dim_mask("argmin", self.dim(), std::nullopt);
  return std::get<1>(arg_extreme("argmin", self, mask, keepdim));
}
Tensor var_correction_meta(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  (void)correction;
  check_meta("var", self);
  check_floating("var", self);
  return reduced(self, reduce::dim_mask("var", self.dim(), dim), keepdim, self.scalar_type());
}
Tensor std_correction_meta(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  (void)correction;
  check_meta("std", self);
  check_floating("std", self);
  return reduced(self, reduce::dim_mask("std", self.dim(), dim), keepdim, self.scalar_type());
}
Tensor norm_meta(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(!p || !std::isnan(p->toDouble()), "[norm] expected a non-NaN order p; got ", p->toDouble());
  check_meta("norm", self);
  check_floating("norm", self);
  return reduced(self, reduce::dim_mask("norm", self.dim(), dim), keepdim, self.scalar_type());
}
Tensor logsumexp_meta(const Tensor& self, IntArrayRef dim, bool keepdim) {
  check_meta("logsumexp", self);
  return reduced(self, reduce::dim_mask("logsumexp", self.dim(), dim), keepdim,
                 isFloatingType(self.scalar_type()) ? self.scalar_type() : kFloat);
}
namespace {
Tensor logical(const char* op, const Tensor& self, const std::vector<bool>& mask, bool keepdim) {
  check_meta(op, self);
  return reduced(self, mask, keepdim, self.scalar_type() == kByte ? kByte : kBool);
}
Tensor scan(const char* op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  check_meta(op, self);
  maybe_wrap_dim(dim, self.dim(), op);
  return at::empty(self.sizes(), self.options().dtype(reduce::sum_dtype(self, dtype)));
}
}  // namespace
Tensor all_meta(const Tensor& self) { return logical("all", self, reduce::dim_mask("all", self.dim(), std::nullopt), false); }
Tensor any_meta(const Tensor& self) { return logical("any", self, reduce::dim_mask("any", self.dim(), std::nullopt), false); }
Tensor all_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return logical("all", self, reduce::one_dim_mask("all", self.dim(), dim), keepdim);
}
Tensor any_dim_meta(const Tensor& self, int64_t dim, bool keepdim) {
  return logical("any", self, reduce::one_dim_mask("any", self.dim(), dim), keepdim);
}
Tensor cumsum_meta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return scan("cumsum", self, dim, dtype); }
Tensor cumprod_meta(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return scan("cumprod", self, dim, dtype); }

namespace {
Tensor softmax_like(const char* op, const Tensor& self, int64_t dim, bool half_to_float) {
  check_meta(op, self);
  check_floating(op, self);
  maybe_wrap_dim(dim, self.dim(), op);
  // The CPU refuses half_to_float (a CUDA-only path in libtorch); meta follows the CPU.
  EMBER_CHECK(!half_to_float, "[", op, "] expected half_to_float=false (convert with softmax(x, dim, kFloat) instead); got true");
  return at::empty(self.sizes(), self.options());
}
}  // namespace
Tensor softmax_meta(const Tensor& self, int64_t dim, bool half_to_float) { return softmax_like("softmax", self, dim, half_to_float); }
Tensor log_softmax_meta(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_like("log_softmax", self, dim, half_to_float);
}

std::tuple<Tensor, Tensor> sort_meta(const Tensor& self, int64_t dim, bool descending) {
  (void)descending;
  check_meta("sort", self);
  maybe_wrap_dim(dim, self.dim(), "sort");
  return {at::empty(self.sizes(), self.options()), at::empty(self.sizes(), self.options().dtype(kLong))};
}
std::tuple<Tensor, Tensor> topk_meta(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)largest, (void)sorted;
  check_meta("topk", self);
  const auto shape = sort_utils::topk_shape(self, k, dim);
  return {at::empty(shape.second, self.options()), at::empty(shape.second, self.options().dtype(kLong))};
}

// ---------------------------------------------------------------- matrix products
Tensor mm_meta(const Tensor& self, const Tensor& mat2) {
  return at::empty(matmul_utils::check_mm(self, mat2, kMeta), self.options());
}
Tensor bmm_meta(const Tensor& self, const Tensor& mat2) {
  return at::empty(matmul_utils::check_bmm(self, mat2, kMeta), self.options());
}
Tensor addmm_meta(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  (void)beta, (void)alpha;
  return at::empty(matmul_utils::check_addmm(self, mat1, mat2, kMeta), mat1.options());
}
Tensor baddbmm_meta(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  (void)beta, (void)alpha;
  return at::empty(matmul_utils::check_baddbmm(self, batch1, batch2, kMeta), batch1.options());
}
Tensor dot_meta(const Tensor& self, const Tensor& tensor) {
  matmul_utils::check_dot(self, tensor, kMeta);
  return at::empty({}, self.options());
}

// ---------------------------------------------------------------- joining, indexing
Tensor cat_meta(TensorList tensors, int64_t dim) {
  auto plan = index_detail::plan_cat(tensors, dim, [](const Tensor& t, size_t) { check_meta("cat", t); });
  if (!plan.ref) return at::empty({0}, tensors[0].options().dtype(plan.dtype));
  return at::empty(plan.shape, plan.ref->options().dtype(plan.dtype));
}
Tensor index_select_meta(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = index_detail::check_index_select(self, dim, index);
  index_detail::long_index(index, "index_select");
  std::vector<int64_t> shape = self.sizes().vec();
  if (!shape.empty()) shape[d] = index.numel();
  return at::empty(shape, self.options());
}
Tensor gather_meta(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  (void)sparse_grad;
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "gather");
  EMBER_CHECK(index.scalar_type() == kLong, "[gather] expected index of dtype int64; got ", c10::dtypeName(index.scalar_type()));
  index_detail::check_gather_scatter("gather", self, d, index, nullptr);
  return at::empty(index.sizes(), self.options());
}
Tensor& scatter_src_meta_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  index_detail::check_scatter("scatter_", self, dim, index, &src);
  return self;
}
Tensor& scatter_value_meta_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  (void)value;
  index_detail::check_scatter("scatter_", self, dim, index, nullptr);
  return self;
}
Tensor& scatter_add_meta_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  index_detail::check_scatter("scatter_add_", self, dim, index, &src);
  return self;
}
Tensor& masked_fill_meta_(Tensor& self, const Tensor& mask, const Scalar& value) {
  index_detail::check_masked_fill(self, mask, value);
  return self;
}
Tensor index_meta(const Tensor& self, const c10::List<std::optional<Tensor>>& indices) {
  // A boolean mask becomes its nonzero() positions, whose count depends on data: that raises
  // in nonzero's Meta kernel.
  const auto ai = index_detail::make_advanced_plan("index", self, indices);
  return at::empty(ai.result_shape, self.options());
}
Tensor& index_put_meta_(Tensor& self, const c10::List<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  (void)accumulate;
  const auto ai = index_detail::make_advanced_plan("index_put_", self, indices);
  index_detail::check_index_put_values(ai, self, values);
  return self;
}
Tensor one_hot_meta(const Tensor& self, int64_t num_classes) {
  index_detail::check_one_hot_dtype(self);
  EMBER_CHECK(num_classes != -1, "[one_hot] expected an explicit num_classes for a meta tensor; got -1, which infers the "
              "count from the values (meta tensors have no data)");
  EMBER_CHECK(num_classes > 0 || self.numel() > 0 || num_classes == 0, "[one_hot] num_classes must be non-negative; got ",
              num_classes);
  EMBER_CHECK(num_classes >= 0, "[one_hot] num_classes must be non-negative (or -1 to infer it); got ", num_classes);
  EMBER_CHECK(self.numel() > 0 || num_classes > 0, "[one_hot] expected a positive num_classes for an empty input; got ",
              num_classes);
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  return at::empty(shape, self.options());
}
Tensor& tril_meta_(Tensor& self, int64_t diagonal) {
  (void)diagonal;
  index_detail::check_tri(self, "tril_");
  return self;
}
Tensor& triu_meta_(Tensor& self, int64_t diagonal) {
  (void)diagonal;
  index_detail::check_tri(self, "triu_");
  return self;
}
Tensor flip_meta(const Tensor& self, IntArrayRef dims) {
  index_detail::flip_mask(self.dim(), dims);
  return at::empty(self.sizes(), self.options());
}
Tensor where_meta(const Tensor& condition, const Tensor& self, const Tensor& other) {
  index_detail::check_where_condition(condition);
  auto [dtype, shape] = index_detail::plan_where(condition, self, other);
  return at::empty(shape, self.options().dtype(dtype));
}
Tensor searchsorted_meta(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<c10::string_view> side, const std::optional<Tensor>& sorter) {
  if (sorter.has_value() && sorter->defined()) {
    const Tensor& s = *sorter;
    EMBER_CHECK(s.scalar_type() == kLong, "[searchsorted] expected an int64 sorter; got ", c10::dtypeName(s.scalar_type()));
    EMBER_CHECK(s.sizes() == sorted_sequence.sizes(), "[searchsorted] expected a sorter of the sequence's shape ",
                sorted_sequence.sizes(), "; got ", s.sizes());
  }
  // (The sorter's value range is not checked: a meta tensor has no values.)
  return search_utils::prepare(sorted_sequence, self, out_int32, right, side, std::nullopt, "searchsorted").out;
}

// ---------------------------------------------------------------- convolution and pooling
namespace {
// The CPU kernel's layout choice (kernels/cpu/conv.cpp): channels-last when a 2-d convolution's
// input or weight is densely channels-last (conv_utils::suggests_channels_last).
using conv_utils::suggests_channels_last;
Tensor empty_in_layout(IntArrayRef sizes, const TensorOptions& options, bool cl) {
  if (!cl) return at::empty(sizes, options);
  const int64_t C = std::max<int64_t>(sizes[1], 1), W = std::max<int64_t>(sizes[3], 1), H = std::max<int64_t>(sizes[2], 1);
  return at::empty_strided(sizes, {H * W * C, 1, W * C, C}, options);
}
void check_conv_dtype(const char* op, const Tensor& input) {
  EMBER_CHECK(input.scalar_type() == kFloat || input.scalar_type() == kDouble, "[", op,
              "] expected float32 or float64; got ", c10::dtypeName(input.scalar_type()));
}
}  // namespace

Tensor convolution_meta(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  const conv_utils::ConvGeometry g =
      conv_utils::check_conv("convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  check_conv_dtype("convolution", input);
  const bool cl = g.nd == 2 && (suggests_channels_last(input) || suggests_channels_last(weight));
  return empty_in_layout(g.output_shape(), input.options(), cl);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_meta(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                                             OptionalIntArrayRef bias_sizes, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                                             IntArrayRef output_padding, int64_t groups,
                                                             std::array<bool, 3> output_mask) {
  (void)bias_sizes;
  const char* op = "convolution_backward";
  const conv_utils::ConvGeometry g =
      conv_utils::check_conv(op, input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  check_conv_dtype(op, input);
  conv_utils::check_conv_grad_output(op, grad_output, input, g);
  const bool cl = g.nd == 2 && (suggests_channels_last(input) || suggests_channels_last(weight));
  Tensor gx, gw, gb;
  if (output_mask[0]) gx = empty_in_layout(input.sizes(), input.options(), cl);
  if (output_mask[1]) gw = empty_in_layout(weight.sizes(), weight.options(), cl);
  if (output_mask[2]) gb = at::empty({g.out_channels()}, grad_output.options());
  return {gx, gw, gb};
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const auto g = conv_utils::check_max_pool2d("max_pool2d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  const auto shape = conv_utils::pooled_shape(self, g);
  // Note [Channels-last pooling] (kernels/cpu/pool.cpp): the input's layout.
  const bool cl = self.dim() == 4 && suggests_channels_last(self);
  return {empty_in_layout(shape, self.options(), cl), empty_in_layout(shape, self.options().dtype(kLong), cl)};
}
Tensor max_pool2d_with_indices_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& indices) {
  const auto g = conv_utils::check_max_pool2d("max_pool2d_with_indices_backward", self, kernel_size, stride, padding, dilation, ceil_mode);
  conv_utils::check_max_pool2d_backward("max_pool2d_with_indices_backward", grad_output, self, indices, g);
  return empty_in_layout(self.sizes(), self.options(), self.dim() == 4 && suggests_channels_last(self));
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices_meta(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const auto g = conv_utils::check_max_pool3d("max_pool3d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  const auto shape = conv_utils::pooled_shape(self, g);
  return {at::empty(shape, self.options()), at::empty(shape, self.options().dtype(kLong))};
}
Tensor max_pool3d_with_indices_backward_meta(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                             IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& indices) {
  const auto g = conv_utils::check_max_pool3d("max_pool3d_with_indices_backward", self, kernel_size, stride, padding, dilation, ceil_mode);
  conv_utils::check_max_pool3d_backward("max_pool3d_with_indices_backward", grad_output, self, indices, g);
  return at::empty(self.sizes(), self.options());
}

}  // namespace at::native
