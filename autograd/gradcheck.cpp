// Finite-difference checks of autograd's gradients. See gradcheck.h.
#include <torch/autograd.h>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace torch::autograd {
namespace {

std::vector<double> flat(const at::Tensor& t) {
  at::Tensor c = t.detach().to(at::kCPU).to(at::kDouble).contiguous();
  return std::vector<double>(c._mutable_data_ptr_internal<double>(), c._mutable_data_ptr_internal<double>() + c.numel());
}

// Differentiable outputs (floating, defined) of fn, detached copies flattened for the numerics.
variable_list diff_outputs(const variable_list& outs) {
  variable_list r;
  for (const auto& o : outs)
    if (o.defined() && o.is_floating_point()) r.push_back(o);
  return r;
}

// Memory offsets (in elements, from data_ptr) of t's elements in row-major logical order. Any
// strides work as long as no two elements share memory: perturbing a shared element would move
// several entries of the input at once.
std::vector<int64_t> element_offsets(const at::Tensor& t, size_t which) {
  if (t.numel() == 0) return {};
  const int64_t rank = t.dim();
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) dims[static_cast<size_t>(d)] = d;
  // Sorted by stride, the extents must nest: each stride at least the span of the smaller ones.
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.stride(a) < t.stride(b); });
  int64_t span = 1;
  for (int64_t d : dims) {
    if (t.size(d) == 1) continue;
    EMBER_CHECK(t.stride(d) >= span, "[gradcheck] expected inputs whose elements do not share memory; input ", which,
                " has sizes ", t.sizes(), " and strides ", t.strides());
    span = t.stride(d) * t.size(d);
  }
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (auto& off : out) {
    off = 0;
    for (int64_t d = 0; d < rank; ++d) off += idx[static_cast<size_t>(d)] * t.stride(d);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < t.size(d)) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& opts, std::string* report) {
  std::vector<size_t> wrt;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) wrt.push_back(i);
  EMBER_CHECK(!wrt.empty(), "[gradcheck] no input requires grad");
  for (size_t i : wrt)
    EMBER_CHECK(inputs[i].scalar_type() == at::kDouble, "[gradcheck] inputs should be float64 for an accurate check; input ",
                i, " is ", c10::dtypeName(inputs[i].scalar_type()));

  variable_list outs = diff_outputs(fn(inputs));
  // Numerical Jacobian columns: perturb each input element in place (without recording).
  // num[o][i] is a (numel(out) x numel(in)) matrix, row-major.
  std::vector<std::vector<std::vector<double>>> num(outs.size(), std::vector<std::vector<double>>(inputs.size()));
  for (size_t i : wrt) {
    at::Tensor x = inputs[i].detach();  // shares storage: edits are seen by fn
    const int64_t n = x.numel();
    const std::vector<int64_t> at_k = element_offsets(x, i);
    double* base = x._mutable_data_ptr_internal<double>();
    for (size_t o = 0; o < outs.size(); ++o) num[o][i].assign(static_cast<size_t>(outs[o].numel() * n), 0.0);
    for (int64_t k = 0; k < n; ++k) {
      double* p = base + at_k[static_cast<size_t>(k)];
      const double orig = *p;
      // Read each output right away: it may alias the perturbed input (views, pass-through grads).
      // Grad mode stays as it is: the checked function may itself call autograd (gradgradcheck).
      std::vector<std::vector<double>> plus, minus;
      *p = orig + opts.eps;
      for (const auto& t : diff_outputs(fn(inputs))) plus.push_back(flat(t));
      *p = orig - opts.eps;
      for (const auto& t : diff_outputs(fn(inputs))) minus.push_back(flat(t));
      *p = orig;
      for (size_t o = 0; o < outs.size(); ++o) {
        const auto& fp = plus[o];
        const auto& fm = minus[o];
        for (size_t j = 0; j < fp.size(); ++j) num[o][i][j * n + k] = (fp[j] - fm[j]) / (2 * opts.eps);
      }
    }
  }
  // Analytical Jacobian rows: one backward per output element.
  // The report names the worst element: the largest error among the failing ones when any fails,
  // else the largest error overall.
  double worst = 0;
  std::string where;
  bool ok = true, where_bad = false;
  variable_list wrt_inputs;
  for (size_t i : wrt) wrt_inputs.push_back(inputs[i]);
  for (size_t o = 0; o < outs.size(); ++o) {
    const int64_t m = outs[o].numel();
    for (int64_t j = 0; j < m; ++j) {
      variable_list g(wrt.size());
      if (outs[o].requires_grad()) {  // else: an output that does not depend on the inputs (zero row)
        at::Tensor seed = at::zeros(outs[o].sizes(), outs[o].options());
        seed.view({-1}).select(0, j).fill_(1.0);
        g = grad({outs[o]}, wrt_inputs, {seed}, /*retain_graph=*/true, false, /*allow_unused=*/true);
      }
      for (size_t w = 0; w < wrt.size(); ++w) {
        const size_t i = wrt[w];
        const int64_t n = inputs[i].numel();
        std::vector<double> a = g[w].defined() ? flat(g[w]) : std::vector<double>(static_cast<size_t>(n), 0.0);
        for (int64_t k = 0; k < n; ++k) {
          double an = a[k], nu = num[o][i][j * n + k];
          double err = std::fabs(an - nu);
          double bound = opts.atol + opts.rtol * std::fabs(nu);
          bool bad = !(err <= bound);  // NaN fails
          if (bad) ok = false;
          const double e = std::isnan(err) ? INFINITY : err;
          if (where.empty() || (bad && !where_bad) || (bad == where_bad && e > worst)) {
            worst = e;
            where_bad = bad;
            std::ostringstream os;
            os << "output " << o << " element " << j << ", input " << i << " element " << k << ": analytical " << an
               << ", numerical " << nu << ", |difference| " << err << " (tolerance " << bound << ")";
            where = os.str();
          }
        }
      }
    }
  }
  if (report) *report = (ok ? "ok; largest difference at " : "Jacobian mismatch at ") + where;
  return ok;
}

bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& opts, std::string* report) {
  variable_list outs = diff_outputs(fn(inputs));
  // grad_outputs are extra inputs of the checked function, so their derivatives are checked too.
  variable_list all = inputs;
  std::vector<size_t> wrt;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) wrt.push_back(i);
  for (const auto& o : outs) {
    at::Tensor go = at::randn(o.sizes(), at::TensorOptions().dtype(at::kDouble));
    go.requires_grad_(true);
    all.push_back(go);
  }
  const size_t n_in = inputs.size();
  GradcheckFn first = [&](const variable_list& xs) {
    variable_list ins(xs.begin(), xs.begin() + n_in);
    variable_list gos(xs.begin() + n_in, xs.end());
    variable_list o = diff_outputs(fn(ins));
    variable_list w;
    for (size_t i : wrt) w.push_back(ins[i]);
    variable_list g = grad(o, w, gos, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
    variable_list r;
    for (auto& t : g)
      if (t.defined()) r.push_back(t);
    return r;
  };
  return gradcheck(first, all, opts, report);
}

}  // namespace torch::autograd
