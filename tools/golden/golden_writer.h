#pragma once
// Writes golden records (see tests/golden/README.md for the format) from results computed by the
// library this program is compiled against. Uses the libtorch API only.
#include <ATen/ATen.h>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

namespace golden {

inline const char* dtype_tag(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kLong: return "int64";
    case at::kInt: return "int32";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kBool: return "bool";
    default: return "other";
  }
}

class Writer {
 public:
  Writer(const char* path, const char* reference) : f_(std::fopen(path, "w")) {
    if (!f_) { std::perror(path); std::exit(1); }
    std::fprintf(f_, "# Outputs of %s on the ops.yaml samples, written by tools/golden. Format: tests/golden/README.md\n",
                 reference);
  }
  ~Writer() { std::fclose(f_); }

  /// Runs `f` (one sample's call) and records its outputs, or that it raised.
  template <typename F>
  void run(const std::string& name, F&& f) {
    ++records;
    try {
      auto r = f();
      int k = 0;
      put(name, k, r);
    } catch (const std::exception& e) {
      ++raised;
      std::string m = e.what();
      m = m.substr(0, m.find('\n'));
      for (auto& c : m) if (c == '\t') c = ' ';
      std::fprintf(f_, "%s\t-\traises\t%s\n", name.c_str(), m.c_str());
    }
  }
  /// Gradient records: like run(), but nothing is written when the sample has no input that
  /// requires grad (f returns no tensors).
  template <typename F>
  void run_grad(const std::string& name, F&& f) {
    try {
      std::vector<at::Tensor> g = f();
      if (g.empty()) return;
      ++records;
      ++gradients;
      int k = 0;
      put(name, k, g);
    } catch (const std::exception& e) {
      ++records;
      ++gradients;
      ++raised;
      std::string m = e.what();
      m = m.substr(0, m.find('\n'));
      for (auto& c : m) if (c == '\t') c = ' ';
      std::fprintf(f_, "%s\t-\traises\t%s\n", name.c_str(), m.c_str());
    }
  }
  int records = 0, raised = 0, gradients = 0;

 private:
  void put(const std::string& name, int& k, const at::Tensor& t) {
    std::string line = name + "\t" + std::to_string(k++) + "\tok\t" + dtype_tag(t.scalar_type()) + "\t[";
    for (int64_t d = 0; d < t.dim(); ++d) line += (d ? "," : "") + std::to_string(t.size(d));
    line += "]\t";
    at::Tensor c = t.to(at::kDouble).contiguous();
    const double* p = c.data_ptr<double>();
    char buf[40];
    for (int64_t i = 0; i < c.numel(); ++i) {
      std::snprintf(buf, sizeof buf, "%s%.17g", i ? " " : "", p[i]);
      line += buf;
    }
    std::fprintf(f_, "%s\n", line.c_str());
  }
  void put(const std::string& name, int& k, const std::vector<at::Tensor>& v) { for (const auto& t : v) put(name, k, t); }
  // A bool result (allclose, equal) is recorded as a 0-dim bool tensor.
  void put(const std::string& name, int& k, bool b) {
    std::fprintf(f_, "%s\t%d\tok\tbool\t[]\t%d\n", name.c_str(), k++, b ? 1 : 0);
  }
  template <typename... T>
  void put(const std::string& name, int& k, const std::tuple<T...>& t) {
    std::apply([&](const auto&... x) { (put(name, k, x), ...); }, t);
  }
  std::FILE* f_;
};

}  // namespace golden
