// Tensor printing in libtorch's format: values (a column for 1-D, a matrix for 2-D, "(i,.,.) ="
// blocks beyond), then "[ CPUFloatType{2,3} ]".
#include <ATen/ATen.h>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace at {
namespace {

struct Format {
  bool integral = true;  // print without decimals
  bool sci = false;
  double scale = 1;
  int width = 1;
  int precision = 4;
};

Format choose_format(const std::vector<double>& v, bool is_int) {
  Format f;
  double maxabs = 0, minabs = INFINITY;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    double a = std::fabs(x);
    maxabs = std::max(maxabs, a);
    if (a > 0) minabs = std::min(minabs, a);
    if (x != std::nearbyint(x)) f.integral = false;
  }
  if (is_int) f.integral = true;
  if (f.integral) {
    int digits = maxabs > 0 ? static_cast<int>(std::floor(std::log10(maxabs))) + 1 : 1;
    if (!is_int && digits > 8) { f.integral = false; f.sci = true; f.width = 11; return f; }
    f.width = digits + 1;
    return f;
  }
  int e_max = maxabs > 0 ? static_cast<int>(std::floor(std::log10(maxabs))) : 0;
  int e_min = minabs < INFINITY ? static_cast<int>(std::floor(std::log10(minabs))) : 0;
  if (e_max - e_min > 4 && (e_max > 4 || e_min < -4)) {
    f.sci = true;
    f.width = 11;
  } else if (e_max >= 1) {
    f.scale = std::pow(10.0, e_max);
    f.width = 7;
  } else {
    f.width = 7;
  }
  return f;
}

void print_value(std::ostream& os, double x, const Format& f) {
  os << std::setw(f.width);
  if (std::isnan(x)) { os << "nan"; return; }
  if (std::isinf(x)) { os << (x > 0 ? "inf" : "-inf"); return; }
  if (f.integral) os << std::fixed << std::setprecision(0) << x;
  else if (f.sci) os << std::scientific << std::setprecision(f.precision) << x;
  else os << std::fixed << std::setprecision(f.precision) << x / f.scale;
}

const char* backend_name(Device d) { return d.is_cpu() ? "CPU" : "CUDA"; }

}  // namespace

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  std::ostringstream os;
  if (!t.defined()) {
    out << "[ Tensor (undefined) ]";
    return out;
  }
  Tensor c = t.to(kCPU).to(kDouble).contiguous();
  std::vector<double> v(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  bool is_int = !t.is_floating_point();
  Format f = choose_format(v, is_int);
  if (t.scalar_type() == kBool) f.width = 1;
  auto sizes = t.sizes();
  if (t.dim() == 0) {
    if (t.scalar_type() == kBool) os << (v[0] != 0 ? "1" : "0");
    else { Format g = f; g.scale = 1; g.width = 0; print_value(os, v[0], g); }
    os << "\n";
  } else if (t.numel() > 0) {
    if (f.scale != 1) os << std::defaultfloat << std::setprecision(0) << std::scientific << f.scale << " *\n";
    int64_t cols = sizes.back();
    int64_t rows = t.dim() >= 2 ? sizes[t.dim() - 2] : 1;
    int64_t mats = t.numel() / std::max<int64_t>(cols * rows, 1);
    for (int64_t m = 0; m < mats; ++m) {
      if (t.dim() > 2) {
        os << "(";
        int64_t rem = m;
        std::vector<int64_t> idx(t.dim() - 2);
        for (int64_t d = t.dim() - 3; d >= 0; --d) { idx[d] = rem % sizes[d]; rem /= sizes[d]; }
        for (size_t d = 0; d < idx.size(); ++d) os << idx[d] + 1 << ",";
        os << ".,.) = \n";
      }
      if (t.dim() == 1) {
        for (int64_t j = 0; j < cols; ++j) { print_value(os, v[j], f); os << "\n"; }
      } else {
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j) {
            if (j) os << ' ';
            print_value(os, v[(m * rows + i) * cols + j], f);
          }
          os << "\n";
        }
      }
      if (t.dim() > 2 && m + 1 < mats) os << "\n";
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
