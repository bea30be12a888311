// The multi-class margin losses, multi_margin_loss and multilabel_margin_loss, as composites of
// gather, where and sums: autograd differentiates through the parts on every device.
//
// Both take one row of class scores per sample ((N, C), or one (C) sample) and add hinge terms
// max(0, margin - (x[y] - x[i])) over pairs (target class y, other class i), divided by C. A hinge
// is kept only where margin - (x[y] - x[i]) > 0, as a `where` rather than a clamp: a NaN term
// then adds nothing, and a term exactly at the kink passes no gradient, as in libtorch.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>

namespace at::native {
namespace {

void check_reduction(const char* op, int64_t reduction) {
  EMBER_CHECK(reduction == Reduction::None || reduction == Reduction::Mean || reduction == Reduction::Sum, "[", op,
              "] expected reduction None (0), Mean (1) or Sum (2); got ", reduction);
}

/// Rows and classes of a (C) or (N, C) score tensor, after the checks both losses share.
struct Scores {
  int64_t N = 1, C = 1;
};

Scores check_scores(const char* op, const Tensor& self, const Tensor& target) {
  using matmul_utils::describe;
  EMBER_CHECK(self.defined() && target.defined(), "[", op, "] expected defined input and target tensors");
  EMBER_CHECK(isFloatingType(self.scalar_type()), "[", op, "] expected a floating point input; got ", describe(self));
  EMBER_CHECK(target.scalar_type() == kLong, "[", op, "] expected an int64 target of class indices; got ", describe(target));
  const int64_t nd = self.dim();
  EMBER_CHECK((nd <= 1 && self.numel() > 0) || (nd == 2 && self.size(1) > 0), "[", op,
              "] expected a non-empty 1-D (C) or 2-D (N, C) input (N may be 0); got ", describe(self));
  Scores s;
  s.N = nd == 2 ? self.size(0) : 1;
  s.C = nd == 2 ? self.size(1) : self.numel();
  return s;
}

}  // namespace

Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p, const Scalar& margin,
                         const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "multi_margin_loss";
  using matmul_utils::describe;
  check_reduction(op, reduction);
  const Scores s = check_scores(op, self, target);
  const int64_t N = s.N, C = s.C;
  EMBER_CHECK(target.dim() <= 1 && target.numel() == N, "[", op, "] expected a target of ", N,
              " class indices (one per row of the input ", self.sizes(), "); got ", describe(target));
  const double pv = p.toDouble();
  EMBER_CHECK(pv == 1 || pv == 2, "[", op, "] expected p to be 1 or 2; got ", pv);
  const bool weighted = weight.has_value() && weight->defined();
  if (weighted) {
    EMBER_CHECK(weight->dim() <= 1 && weight->numel() == C, "[", op, "] expected a weight of ", C,
                " elements (one per class); got ", describe(*weight));
  }
  const Tensor y = target.reshape({N, 1});
  if (N > 0 && !y.is_meta()) {  // (meta tensors have no values to check)
    const bool in_range = at::logical_and(y >= 0, y < C).all().item<bool>();
    EMBER_CHECK(in_range, "[", op, "] expected target class indices in [0, ", C, "); got a value outside, target ",
                describe(target));
  }
  const Tensor x = self.reshape({N, C});
  const Tensor z = at::rsub(x.gather(1, y), margin) + x;  // margin - x[y] + x[i], (N, C)
  Tensor h = pv == 1 ? z : z * z;
  if (weighted) h = h * weight->reshape({C}).index_select(0, y.reshape({N})).reshape({N, 1});
  const Tensor others = at::arange(C, TensorOptions().dtype(kLong).device(self.device())).reshape({1, C}) != y;
  const Tensor rows = at::where(at::logical_and(others, z > 0), h, at::zeros({}, h.options())).sum(std::vector<int64_t>{1}) / C;
  switch (reduction) {
    case Reduction::None: return target.dim() > 0 ? rows : rows.reshape({});
    case Reduction::Mean: return rows.mean();
    default: return rows.sum();
  }
}

Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  const char* op = "multilabel_margin_loss";
  using matmul_utils::describe;
  check_reduction(op, reduction);
  const Scores s = check_scores(op, self, target);
  const int64_t N = s.N, C = s.C;
  if (self.dim() <= 1) {
    EMBER_CHECK(target.dim() <= 1 && target.numel() == C, "[", op, "] expected a target of the input's shape ", self.sizes(),
                "; got ", describe(target));
  } else {
    EMBER_CHECK(target.dim() == 2 && target.size(0) == N && target.size(1) == C, "[", op,
                "] expected a target of the input's shape ", self.sizes(), "; got ", describe(target));
  }
  const Tensor y = target.reshape({N, C});
  // Every entry, listed or not, must be a class or -1 (as libtorch checks).
  if (N > 0 && !y.is_meta()) {  // (meta tensors have no values to check)
    const bool in_range = at::logical_and(y >= -1, y < C).all().item<bool>();
    EMBER_CHECK(in_range, "[", op, "] expected target values in [-1, ", C, ") (class indices, -1 ending a row's list); got one outside, target ",
                describe(target));
  }
  // A row lists its target classes up to its first -1.
  const Tensor listed = (y < 0).to(kLong).cumsum(1).eq(0);
  const Tensor idx = at::where(listed, y, at::zeros({}, y.options()));
  const Tensor is_target = at::zeros({N, C}, y.options()).scatter_add(1, idx, listed.to(kLong)).gt(0);
  const Tensor x = self.reshape({N, C});
  // z[n, k, i] = 1 - x[y_k] + x[i] for the k-th listed class and every class i.
  const Tensor z = at::rsub(x.gather(1, idx), 1).unsqueeze(2) + x.unsqueeze(1);
  const Tensor keep = at::logical_and(at::logical_and(listed.unsqueeze(2), is_target.logical_not().unsqueeze(1)), z > 0);
  // Each row's hinges are added in float64 (libtorch accumulates them in double too).
  const Tensor rows =
      at::where(keep, z, at::zeros({}, z.options())).to(kDouble).sum(std::vector<int64_t>{1, 2}).div(static_cast<double>(C));
  switch (reduction) {
    case Reduction::None: return (target.dim() <= 1 ? rows.reshape({}) : rows).to(self.scalar_type());
    case Reduction::Mean: return rows.mean().to(self.scalar_type());
    default: return rows.sum().to(self.scalar_type());
  }
}

}  // namespace at::native
