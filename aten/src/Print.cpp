// Tensor printing in libtorch's format: values (a column for 1-D, a matrix for 2-D, "(i,.,.) ="
// blocks beyond), then "[ CPUFloatType{2,3} ]".
#include <ATen/ATen.h>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace at {
namespace {

// Note [How a tensor prints]
// libtorch's layout, rebuilt from its observed output. One format serves a whole 1-D or 2-D
// tensor, and each 2-D slice of a larger one (every slice chooses its own):
//  - all finite values integral ("integer mode"): width = digits of the largest magnitude + 1,
//    printed in the stream's default float style (so 1e+06 for a million); more than nine
//    digits switch to scientific (integer dtypes too);
//  - otherwise with E = floor(log10 |x|) + 1 over the finite non-zero magnitudes: a spread of
//    max E - min E above 4 prints scientific (width 11, 4 decimals); else fixed with 4 decimals,
//    width max E + 6 (7 when max E <= 0), and when max E > 5 or max E < 0 a common factor
//    10^(max E - 1) is printed first ("0.001 *") and divided out.
// Rows wider than 80 columns are cut into "Columns a to b" chunks; inside a slice of a tensor
// of more than two dimensions, rows after the first are indented by one space. 0-dim tensors
// print their value alone with 17 significant digits.
struct Format {
  enum Kind { kInteger, kFixed, kScientific } kind = kInteger;
  double scale = 1;
  int width = 2;
};

Format choose_format(const double* v, int64_t n, bool integer_dtype) {
  Format f;
  bool integral = true;
  double maxabs = 0, minabs = INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    const double x = v[i];
    if (!std::isfinite(x)) continue;
    const double a = std::fabs(x);
    maxabs = std::max(maxabs, a);
    if (a > 0) minabs = std::min(minabs, a);
    if (x != std::nearbyint(x)) integral = false;
  }
  if (integer_dtype || integral) {
    const int digits = maxabs > 0 ? static_cast<int>(std::floor(std::log10(maxabs))) + 1 : 1;
    if (digits > 9) {
      f.kind = Format::kScientific;
      f.width = 11;
    } else {
      f.width = digits + 1;
    }
    return f;
  }
  const int e_max = maxabs > 0 ? static_cast<int>(std::floor(std::log10(maxabs))) + 1 : 1;
  const int e_min = minabs < INFINITY ? static_cast<int>(std::floor(std::log10(minabs))) + 1 : 1;
  if (e_max - e_min > 4) {
    f.kind = Format::kScientific;
    f.width = 11;
    return f;
  }
  f.kind = Format::kFixed;
  if (e_max > 5 || e_max < 0) {
    f.scale = std::pow(10.0, e_max - 1);
    f.width = 7;
  } else {
    f.width = e_max <= 0 ? 7 : e_max + 6;
  }
  return f;
}

void print_value(std::ostream& os, double x, const Format& f) {
  os << std::setw(f.width);
  if (std::isnan(x)) { os << "nan"; return; }
  if (std::isinf(x)) { os << (x > 0 ? "inf" : "-inf"); return; }
  switch (f.kind) {
    case Format::kInteger: os << std::defaultfloat << std::setprecision(6) << x; break;
    case Format::kScientific: os << std::scientific << std::setprecision(4) << x; break;
    case Format::kFixed: os << std::fixed << std::setprecision(4) << x / f.scale; break;
  }
}

// One rows x cols matrix (row-major values); indent > 0 inside a slice of a larger tensor.
void print_matrix(std::ostream& os, const double* v, int64_t rows, int64_t cols, bool integer_dtype, int indent) {
  const Format f = choose_format(v, rows * cols, integer_dtype);
  if (f.scale != 1) os << std::defaultfloat << std::setprecision(10) << f.scale << " *\n";
  constexpr int64_t kLineWidth = 80;
  const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / (f.width + 1));
  const bool chunked = cols > per_line;
  for (int64_t c0 = 0; c0 < cols; c0 += per_line) {
    const int64_t c1 = std::min(cols, c0 + per_line);
    if (chunked) {
      if (c0 > 0) os << "\n";
      os << "Columns " << c0 + 1 << " to " << c1;
    }
    for (int64_t i = 0; i < rows; ++i) {
      if (i > 0) os << std::string(static_cast<size_t>(indent), ' ');
      for (int64_t j = c0; j < c1; ++j) {
        print_value(os, v[i * cols + j], f);
        if (j + 1 < c1) os << ' ';
      }
      os << "\n";
    }
  }
}

const char* backend_name(Device d) {
  switch (d.type()) {
    case DeviceType::CPU: return "CPU";
    case DeviceType::CUDA: return "CUDA";
    case DeviceType::Meta: return "Meta";
    case DeviceType::PrivateUse1: return "PrivateUse1";
  }
  return "Unknown";
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  std::ostringstream os;
  if (!t.defined()) {
    out << "[ Tensor (undefined) ]";
    return out;
  }
  if (t.is_meta()) {
    // No data to show (Note [Meta storage] in kernels/meta/meta_tensor.cpp): what there is.
    os << "tensor(..., device='meta', size=" << t.sizes() << ", dtype=" << c10::dtypeName(t.scalar_type()) << ")\n[ "
       << backend_name(t.device()) << c10::toString(t.scalar_type()) << "Type{";
    for (int64_t i = 0; i < t.dim(); ++i) os << (i ? "," : "") << t.size(i);
    os << "} ]";
    return out << os.str();
  }
  const Tensor c = t.to(kCPU).to(kDouble).contiguous();
  const double* v = c.const_data_ptr<double>();
  const bool integer_dtype = !t.is_floating_point();
  const auto sizes = t.sizes();
  if (t.dim() == 0) {
    os << std::defaultfloat << std::setprecision(17) << v[0] << "\n";
  } else if (t.numel() > 0) {
    const int64_t cols = sizes.back();
    const int64_t rows = t.dim() >= 2 ? sizes[t.dim() - 2] : 1;
    if (t.dim() == 1) {
      const Format f = choose_format(v, cols, integer_dtype);
      if (f.scale != 1) os << std::defaultfloat << std::setprecision(10) << f.scale << " *\n";
      for (int64_t j = 0; j < cols; ++j) {
        print_value(os, v[j], f);
        os << "\n";
      }
    } else if (t.dim() == 2) {
      print_matrix(os, v, rows, cols, integer_dtype, 0);
    } else {
      const int64_t mats = t.numel() / (rows * cols);
      for (int64_t m = 0; m < mats; ++m) {
        os << "(";
        int64_t rem = m;
        std::vector<int64_t> idx(t.dim() - 2);
        for (int64_t d = t.dim() - 3; d >= 0; --d) { idx[d] = rem % sizes[d]; rem /= sizes[d]; }
        for (size_t d = 0; d < idx.size(); ++d) os << idx[d] + 1 << ",";
        os << ".,.) = \n";
        print_matrix(os, v + m * rows * cols, rows, cols, integer_dtype, 1);
        if (m + 1 < mats) os << "\n";
      }
    }
  }
  os << "[ " << backend_name(t.device()) << c10::toString(t.scalar_type()) << "Type{";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? "," : "") << sizes[i];
  os << "} ]";
  return out << os.str();
}

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  return c10::str(backend_name(device()), c10::toString(scalar_type()), "Type");
}

void Tensor::print() const { std::cout << *this << std::endl; }

}  // namespace at
