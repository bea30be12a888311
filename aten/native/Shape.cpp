// Composites over views and copies: tensor_split, repeat_interleave, diag, trace, addmv, einsum.
#include <ATen/native/NativeFunctions.h>
#include <algorithm>
#include <map>
#include <string>

namespace at::native {

std::vector<Tensor> tensor_split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[tensor_split] expected a tensor of at least 1 dim; got a 0-dim tensor");
  EMBER_CHECK(sections > 0, "[tensor_split] expected a positive number of sections; got ", sections);
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t n = self.size(dim), base = n / sections, extra = n % sections;
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(self.slice(dim, start, start + len));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split_indices(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[tensor_split] expected a tensor of at least 1 dim; got a 0-dim tensor");
  dim = maybe_wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t idx : indices) {
    out.push_back(self.slice(dim, start, idx));  // slice clamps; an end before start gives an empty piece
    start = idx;
  }
  out.push_back(self.slice(dim, start, std::nullopt));
  return out;
}

Tensor repeat_interleave_self_int(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                  std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "[repeat_interleave] expected a non-negative repeat count; got ", repeats);
  Tensor x = dim ? self : self.flatten();
  const int64_t d = dim ? maybe_wrap_dim(*dim, std::max<int64_t>(x.dim(), 1)) : 0;
  if (x.dim() == 0) x = x.unsqueeze(0);
  if (output_size)
    EMBER_CHECK(*output_size == x.size(d) * repeats, "[repeat_interleave] expected output_size ", x.size(d) * repeats,
                "; got ", *output_size);
  // Each slice along d is followed by its copies: a new dim of size `repeats` after d, merged into d.
  std::vector<int64_t> expanded = x.sizes().vec();
  expanded.insert(expanded.begin() + d + 1, repeats);
  std::vector<int64_t> merged = x.sizes().vec();
  merged[static_cast<size_t>(d)] *= repeats;
  return x.unsqueeze(d + 1).expand(expanded).reshape(merged);
}

Tensor repeat_interleave_Tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, "[repeat_interleave] expected 1-dim repeats; got ", repeats.dim(), " dims");
  return repeat_interleave_self_Tensor(at::arange(repeats.size(0), repeats.options()), repeats, 0, output_size);
}

Tensor repeat_interleave_self_Tensor(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size) {
  EMBER_CHECK(!at::isFloatingType(repeats.scalar_type()) && repeats.scalar_type() != kBool,
              "[repeat_interleave] expected integer repeats; got ", repeats.scalar_type());
  EMBER_CHECK(repeats.dim() <= 1, "[repeat_interleave] expected 0-dim or 1-dim repeats; got ", repeats.dim(), " dims");
  if (repeats.dim() == 0) return repeat_interleave_self_int(self, repeats.item<int64_t>(), dim, output_size);
  Tensor x = dim ? self : self.flatten();
  const int64_t d = dim ? maybe_wrap_dim(*dim, std::max<int64_t>(x.dim(), 1)) : 0;
  if (x.dim() == 0) x = x.unsqueeze(0);
  EMBER_CHECK(repeats.size(0) == x.size(d) || repeats.size(0) == 1, "[repeat_interleave] expected ", x.size(d),
              " repeats (one per slice) or 1; got ", repeats.size(0));
  if (repeats.size(0) == 1) return repeat_interleave_self_int(self, repeats[0].item<int64_t>(), dim, output_size);
  const Tensor r = repeats.to(kCPU).to(kLong).contiguous();
  const int64_t* rp = r.const_data_ptr<int64_t>();
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < r.numel(); ++i) {
    EMBER_CHECK(rp[i] >= 0, "[repeat_interleave] expected non-negative repeats; got ", rp[i], " at ", i);
    idx.insert(idx.end(), static_cast<size_t>(rp[i]), i);
  }
  if (output_size)
    EMBER_CHECK(*output_size == static_cast<int64_t>(idx.size()), "[repeat_interleave] expected output_size ",
                idx.size(), "; got ", *output_size);
  Tensor index = at::empty({static_cast<int64_t>(idx.size())}, TensorOptions().dtype(kLong));
  std::copy(idx.begin(), idx.end(), index._mutable_data_ptr_internal<int64_t>());
  return x.index_select(d, index.to(x.device()));
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  if (self.dim() == 1) {
    const int64_t n = self.size(0) + (diagonal >= 0 ? diagonal : -diagonal);
    Tensor out = at::zeros({n, n}, self.options());
    out.diagonal(diagonal).copy_(self);
    return out;
  }
  EMBER_CHECK(self.dim() == 2, "[diag] expected a 1-D or 2-D tensor; got ", self.dim(), " dims");
  return self.diagonal(diagonal).clone();
}

Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "[trace] expected a 2-D matrix; got ", self.dim(), " dims");
  return self.diagonal().sum();
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "[addmv] expected a 2-D matrix and a 1-D vector; got ", mat.dim(),
              "-D and ", vec.dim(), "-D");
  EMBER_CHECK(self.dim() <= 1, "[addmv] expected self of at most 1 dim (broadcast to ", mat.size(0), "); got ",
              self.sizes());
  Tensor prod = at::mv(mat, vec);
  if (!(alpha.isIntegral(true) && alpha.toLong() == 1)) prod = at::mul(prod, alpha);
  // beta == 0 ignores self entirely (NaN and inf in it do not propagate).
  const bool beta_zero = beta.isIntegral(true) ? beta.toLong() == 0 : beta.toDouble() == 0;
  if (beta_zero) return at::add(prod, at::zeros_like(self));
  return at::add(prod, self, beta);
}

// ---------------------------------------------------------------- einsum
namespace {

constexpr int kEllipsis = -1;

// Labels of one operand's subscript: letters as 0..51, "..." as kEllipsis.
std::vector<int> parse_subscript(const std::string& s, const std::string& equation) {
  std::vector<int> out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(s.compare(i, 3, "...") == 0, "[einsum] expected '...' in '", equation, "'; got a lone '.'");
      EMBER_CHECK(std::find(out.begin(), out.end(), kEllipsis) == out.end(), "[einsum] expected at most one '...' per operand in '",
                  equation, "'");
      out.push_back(kEllipsis);
      i += 2;
    } else if (c >= 'a' && c <= 'z') {
      out.push_back(c - 'a');
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(26 + c - 'A');
    } else {
      throw c10::Error(c10::str("[einsum] expected subscripts of letters, ',', '->' and '...'; got '", c, "' in '",
                                equation, "'"));
    }
  }
  return out;
}

}  // namespace

Tensor einsum(c10::string_view equation_view, TensorList tensors, OptionalIntArrayRef path) {
  (void)path;  // the contraction order is this implementation's (left to right)
  const std::string equation(equation_view);
  EMBER_CHECK(!tensors.empty(), "[einsum] expected at least one operand; got none");
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> subs;
  for (size_t a = 0;;) {
    const size_t b = lhs.find(',', a);
    subs.push_back(parse_subscript(lhs.substr(a, b == std::string::npos ? std::string::npos : b - a), equation));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  EMBER_CHECK(subs.size() == tensors.size(), "[einsum] expected ", subs.size(), " operands for '", equation, "'; got ",
              tensors.size());
  // Ellipsis dims: as many as the widest operand's; aligned from the right, broadcast.
  int64_t ell = 0;
  std::vector<int64_t> ell_of(tensors.size(), 0);
  std::map<int, int64_t> count;  // label -> occurrences over all operands
  for (size_t k = 0; k < subs.size(); ++k) {
    const bool has_ell = std::find(subs[k].begin(), subs[k].end(), kEllipsis) != subs[k].end();
    const int64_t named = static_cast<int64_t>(subs[k].size()) - (has_ell ? 1 : 0);
    if (has_ell) {
      EMBER_CHECK(tensors[k].dim() >= named, "[einsum] expected operand ", k, " to have at least ", named,
                  " dims for its subscript; got ", tensors[k].dim());
      ell_of[k] = tensors[k].dim() - named;
    } else {
      EMBER_CHECK(tensors[k].dim() == named, "[einsum] expected operand ", k, " to have ", named,
                  " dims for its subscript; got ", tensors[k].dim());
    }
    ell = std::max(ell, ell_of[k]);
    for (int l : subs[k]) if (l != kEllipsis) ++count[l];
  }
  // Output labels: as written, or the ellipsis then the labels used once, alphabetically.
  std::vector<int> out_labels;
  bool out_ell = true;
  if (arrow != std::string::npos) {
    out_labels = parse_subscript(equation.substr(arrow + 2), equation);
    out_ell = std::find(out_labels.begin(), out_labels.end(), kEllipsis) != out_labels.end();
    for (int l : out_labels) {
      if (l == kEllipsis) continue;
      EMBER_CHECK(count.count(l), "[einsum] expected output subscripts that appear in an input; got '",
                  static_cast<char>(l < 26 ? 'a' + l : 'A' + l - 26), "' in '", equation, "'");
      EMBER_CHECK(std::count(out_labels.begin(), out_labels.end(), l) == 1,
                  "[einsum] expected each output subscript once; got '", static_cast<char>(l < 26 ? 'a' + l : 'A' + l - 26),
                  "' twice in '", equation, "'");
    }
  } else {
    out_labels.push_back(kEllipsis);
    for (const auto& [l, c] : count) if (c == 1) out_labels.push_back(l);
  }
  // Global dim order: ellipsis dims, output letters, then the contracted letters.
  std::vector<int> order;  // letters only
  for (int l : out_labels) if (l != kEllipsis) order.push_back(l);
  const size_t n_out_letters = order.size();
  for (const auto& [l, c] : count)
    if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  const int64_t total = ell + static_cast<int64_t>(order.size());
  auto pos_of = [&](int l) { return ell + (std::find(order.begin(), order.end(), l) - order.begin()); };

  // Align each operand to the global order: repeated labels become diagonals, missing ones size 1.
  std::vector<Tensor> aligned;
  for (size_t k = 0; k < subs.size(); ++k) {
    Tensor t = tensors[k];
    std::vector<int64_t> where;  // global position of each current dim
    for (int l : subs[k]) {
      if (l == kEllipsis) {
        for (int64_t e = 0; e < ell_of[k]; ++e) where.push_back(ell - ell_of[k] + e);
      } else {
        where.push_back(pos_of(l));
      }
    }
    // Diagonals for labels repeated within this operand (diagonal() appends the merged dim).
    for (bool again = true; again;) {
      again = false;
      for (size_t i = 0; i < where.size() && !again; ++i)
        for (size_t j = i + 1; j < where.size() && !again; ++j)
          if (where[i] == where[j]) {
            EMBER_CHECK(t.size(static_cast<int64_t>(i)) == t.size(static_cast<int64_t>(j)),
                        "[einsum] expected dims of one subscript to match in operand ", k, "; got ",
                        t.size(static_cast<int64_t>(i)), " and ", t.size(static_cast<int64_t>(j)));
            t = t.diagonal(0, static_cast<int64_t>(i), static_cast<int64_t>(j));
            const int64_t g = where[i];
            where.erase(where.begin() + static_cast<int64_t>(j));
            where.erase(where.begin() + static_cast<int64_t>(i));
            where.push_back(g);
            again = true;
          }
    }
    std::vector<int64_t> perm(where.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return where[a] < where[b]; });
    t = t.permute(perm);
    std::vector<int64_t> shape(static_cast<size_t>(total), 1);
    for (size_t i = 0; i < perm.size(); ++i) shape[static_cast<size_t>(where[perm[i]])] = t.size(static_cast<int64_t>(i));
    aligned.push_back(t.reshape(shape));
  }
  // Multiply left to right; a contracted letter is summed out once no later operand uses it.
  Tensor acc = aligned[0];
  auto used_later = [&](int l, size_t after) {
    for (size_t k = after + 1; k < subs.size(); ++k)
      if (std::find(subs[k].begin(), subs[k].end(), l) != subs[k].end()) return true;
    return false;
  };
  std::vector<bool> summed(order.size(), false);
  for (size_t k = 0; k < aligned.size(); ++k) {
    if (k > 0) acc = at::mul(acc, aligned[k]);
    std::vector<int64_t> dims;
    for (size_t i = n_out_letters; i < order.size(); ++i)
      if (!summed[i] && !used_later(order[i], k)) {
        dims.push_back(ell + static_cast<int64_t>(i));
        summed[i] = true;
      }
    if (!dims.empty()) acc = acc.sum(dims, /*keepdim=*/true);
  }
  // Drop the summed dims, put the output in its written order (ellipsis where it was written).
  std::vector<int64_t> keep_shape;
  for (int64_t e = 0; e < ell; ++e) keep_shape.push_back(acc.size(e));
  for (size_t i = 0; i < n_out_letters; ++i) keep_shape.push_back(acc.size(ell + static_cast<int64_t>(i)));
  if (!out_ell && ell > 0) {
    // The ellipsis dims are summed when the output leaves them out.
    std::vector<int64_t> edims;
    for (int64_t e = 0; e < ell; ++e) edims.push_back(e);
    acc = acc.sum(edims, /*keepdim=*/true);
    keep_shape.erase(keep_shape.begin(), keep_shape.begin() + ell);
  }
  Tensor res = acc.reshape(keep_shape);
  std::vector<int64_t> perm;
  int64_t letter = 0;
  const int64_t e0 = out_ell ? ell : 0;
  for (int l : out_labels) {
    if (l == kEllipsis) {
      for (int64_t e = 0; e < ell; ++e) perm.push_back(e);
    } else {
      perm.push_back(e0 + letter++);
    }
  }
  return res.permute(perm).contiguous();
}

}  // namespace at::native
