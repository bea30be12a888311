#pragma once
// TensorIter: the one iteration engine under every elementwise kernel (PyTorch's TensorIterator
// idea, small). It broadcasts the inputs, applies type promotion, allocates or checks the output,
// orders dimensions by memory layout, coalesces them, and runs a 1-D inner loop over raw pointers
// and byte strides -- optionally split across OpenMP threads.
//
//   ember::TensorIter it;
//   it.build_pointwise({"add", ember::Promote::Default}, /*out=*/nullptr, {&a, &b}, {}, at::kCPU);
//   it.for_each([](char** data, const int64_t* strides, int64_t n) {
//     for (int64_t i = 0; i < n; ++i)
//       *(float*)(data[0] + i * strides[0]) = *(float*)(data[1] + i * strides[1]) + *(float*)(data[2] + i * strides[2]);
//   });
//   at::Tensor result = it.output();
//
// Operand 0 is the output; inputs follow. After build, every input has the common dtype.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <initializer_list>
#include <type_traits>

namespace ember {

/// How a pointwise op picks its computation dtype (PyTorch's ELEMENTWISE_TYPE_PROMOTION_KIND).
enum class Promote : uint8_t {
  Default,     ///< the promoted type of the inputs
  IntToFloat,  ///< like Default, but integers/bool compute in the default float dtype
  AlwaysBool,  ///< compute in the promoted type, write bool (comparisons)
  None,        ///< compute in self's dtype; other inputs are cast to it
};

struct PointwiseSpec {
  const char* name;
  Promote promote;
};

/// The dtype PyTorch's promotion gives these operands: dimensioned tensors outrank zero-dim
/// tensors, which outrank Python-style scalars, unless a lower group has a higher category.
at::ScalarType result_type(std::initializer_list<const at::Tensor*> tensors, c10::ArrayRef<at::Scalar> scalars);
/// True when a value of dtype `from` may be written into a tensor of dtype `to` (torch.can_cast).
bool can_cast(at::ScalarType from, at::ScalarType to);
/// The broadcast shape of two shapes; `op` names the op in the error.
std::vector<int64_t> broadcast_shapes(const char* op, at::IntArrayRef a, at::IntArrayRef b);

/// The promoting Scalars of an op whose Scalars may be absent (clamp's min/max): only the given
/// ones take part in type promotion.
class WrappedScalars {
 public:
  template <typename... A>
  explicit WrappedScalars(const A&... args) { (add(args), ...); }
  // Parentheses, not braces: a braced list would pick ArrayRef's initializer_list constructor.
  operator c10::ArrayRef<at::Scalar>() const { return c10::ArrayRef<at::Scalar>(v_, n_); }

 private:
  void add(const at::Scalar& s) { v_[n_++] = s; }
  void add(const std::optional<at::Scalar>& s) { if (s) v_[n_++] = *s; }
  at::Scalar v_[4];
  size_t n_ = 0;
};

class TensorIter {
 public:
  static constexpr int kMaxOperands = 5;
  static constexpr int kMaxDims = 25;
  /// One call covers `rows` rows of n elements: row r of operand k starts at data[k] + r * outer[k]
  /// (Note [Rows per loop call]).
  using Loop = void (*)(void* ctx, int ntensors, char** data, const int64_t* strides, int64_t n, int64_t rows,
                        const int64_t* outer);

  /// Sets up an elementwise op. `out` is null (allocate), or the tensor to write (in-place / out=).
  void build_pointwise(const PointwiseSpec& spec, at::Tensor* out, std::initializer_list<const at::Tensor*> inputs,
                       c10::ArrayRef<at::Scalar> wrapped, at::DeviceType backend);
  /// Sets up dst <- src with dtype conversion (no promotion; src broadcasts to dst).
  void build_copy(const at::Tensor& dst, const at::Tensor& src);
  /// Sets up an iteration over pre-shaped operands (all with the same sizes); no dtype changes.
  void build_raw(std::initializer_list<const at::Tensor*> operands);

  at::ScalarType common_dtype() const { return common_; }
  TensorIter() = default;
  TensorIter(const TensorIter&) = delete;
  TensorIter& operator=(const TensorIter&) = delete;

  at::ScalarType dtype(int arg) const { return ops_[arg]->scalar_type(); }
  const at::Tensor& output() const { return *ops_[0]; }
  /// The output, moved out of the iterator when it owns it (saves a refcount round trip).
  at::Tensor take_output() { return ops_[0] == &owned_[0] ? std::move(owned_[0]) : *ops_[0]; }
  const at::Tensor& operand(int i) const { return *ops_[i]; }
  /// Copies the result into the caller's out= tensor when it had to be computed elsewhere.
  void finish();

  int ntensors() const { return ntensors_; }
  int ndim() const { return ndim_; }
  int64_t numel() const { return numel_; }
  /// Sizes, innermost dim first.
  const int64_t* shape() const { return shape_; }
  /// Byte strides of operand `arg`, innermost dim first.
  const int64_t* strides(int arg) const { return strides_[arg]; }
  char* data(int arg) const { return static_cast<char*>(ops_[arg]->unsafeGetTensorImpl()->data()); }
  /// True when the whole iteration is one inner loop with element-sized strides.
  bool is_contiguous() const;

  /// Runs `loop(data, strides, n)` over the whole iteration space, in parallel when large. A loop
  /// that also takes `(int64_t rows, const int64_t* outer)` gets several rows per call (Note [Rows
  /// per loop call]); any other is called once per row from an inlined loop.
  template <typename F>
  void for_each(const F& loop, int64_t grain = at::kGrainSize) const {
    run(&invoke<F>, const_cast<F*>(&loop), grain);
  }
  /// Runs over the linear element range [begin, end) on this thread.
  template <typename F>
  void serial_for_each(const F& loop, int64_t begin, int64_t end) const {
    run_range(&invoke<F>, const_cast<F*>(&loop), begin, end);
  }

 private:
  template <typename F>
  static void invoke(void* ctx, int ntensors, char** data, const int64_t* strides, int64_t n, int64_t rows,
                     const int64_t* outer) {
    F& f = *static_cast<F*>(ctx);
    if constexpr (std::is_invocable_v<F&, char**, const int64_t*, int64_t, int64_t, const int64_t*>) {
      f(data, strides, n, rows, outer);
    } else {
      if (rows == 1) return f(data, strides, n);
      char* p[kMaxOperands];
      for (int64_t r = 0; r < rows; ++r) {
        for (int k = 0; k < ntensors; ++k) p[k] = data[k] + r * outer[k];
        f(p, strides, n);
      }
    }
  }
  void run(Loop loop, void* ctx, int64_t grain) const;
  void run_range(Loop loop, void* ctx, int64_t begin, int64_t end) const;
  void compute_layout(bool allocate_output, at::IntArrayRef out_sizes, at::ScalarType out_dtype, const char* name);

  // Operands: borrowed from the caller, or owned here (allocated outputs, cast inputs).
  const at::Tensor* ops_[kMaxOperands] = {};
  at::Tensor owned_[kMaxOperands];
  at::Tensor user_out_;  // out= tensor that receives a copy in finish()
  int ntensors_ = 0;
  int ndim_ = 0;
  int64_t numel_ = 0;
  int64_t shape_[kMaxDims];
  int64_t strides_[kMaxOperands][kMaxDims];
  at::ScalarType common_ = at::ScalarType::Undefined;
};

}  // namespace ember

EMBER_PUBLIC_END
