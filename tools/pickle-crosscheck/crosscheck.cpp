// Cross-check of PyTorch checkpoints between libtorch and Ember (tools/pickle-crosscheck/run): one source,
// compiled against libtorch (-DPK_LIBTORCH, the PyPI wheel's) and against Ember.
//   crosscheck write DIR     pickle_save the cases below into DIR/<case>.pt
//   crosscheck dump FILE     pickle_load FILE and print its value in a canonical text form
//   crosscheck resave IN OUT pickle_load IN and pickle_save the value into OUT (torch_save_refs.py checks those)
// The run script compares the dumps of both libraries over the files each of them wrote.
#include <torch/torch.h>
#ifdef PK_LIBTORCH
#include <torch/csrc/jit/serialization/pickle.h>
#endif

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace {

// ---- the few calls that differ between the libraries: generic containers
#ifdef PK_LIBTORCH
c10::impl::GenericDict new_dict() { return c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get()); }
c10::impl::GenericDict new_int_dict() { return c10::impl::GenericDict(c10::IntType::get(), c10::AnyType::get()); }
c10::impl::GenericList new_list() { return c10::impl::GenericList(c10::AnyType::get()); }
c10::IValue int_list(std::vector<int64_t> v) { return c10::List<int64_t>(v); }
c10::IValue tensor_list(std::vector<at::Tensor> v) { return c10::List<at::Tensor>(v); }
#else
c10::impl::GenericDict new_dict() { return c10::impl::GenericDict(); }
c10::impl::GenericDict new_int_dict() { return c10::impl::GenericDict(); }
c10::impl::GenericList new_list() { return c10::impl::GenericList(); }
c10::IValue int_list(std::vector<int64_t> v) { return c10::IValue(std::move(v)); }
c10::IValue tensor_list(std::vector<at::Tensor> v) { return c10::IValue(std::move(v)); }
#endif

at::Tensor tensor_of(std::vector<double> v, at::ScalarType t) { return torch::tensor(v, torch::kDouble).to(t); }

/// "tensors": every dtype, views sharing one storage, a step-sliced tensor, 0-dim and empty tensors.
std::vector<std::pair<std::string, at::Tensor>> tensors_case() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, at::Tensor>> d;
  d.emplace_back("f32", tensor_of({1.5, -0.0, 3.4e38, 1.401298464324817e-45, inf, -inf}, torch::kFloat).reshape({2, 3}));
  d.emplace_back("f64", tensor_of({0.1, -2.5, 1e300, nan}, torch::kDouble));
  d.emplace_back("i64", torch::tensor(std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -1,
                                                           std::numeric_limits<int64_t>::max()}));
  d.emplace_back("i32", tensor_of({-2147483648.0, 7}, torch::kInt));
  d.emplace_back("i16", tensor_of({-32768, 32767}, torch::kShort));
  d.emplace_back("i8", tensor_of({-128, 127, 0}, torch::kChar));
  d.emplace_back("u8", tensor_of({0, 255, 17}, torch::kByte));
  d.emplace_back("bool", tensor_of({1, 0, 1}, torch::kBool));
  d.emplace_back("bf16", tensor_of({1.0, -2.5, 3.140625, 256.0}, torch::kBFloat16));
  d.emplace_back("f16", tensor_of({0.5, -65504.0, 6.103515625e-05, 1.0009765625}, torch::kHalf));
  at::Tensor base = torch::arange(12, torch::kFloat).reshape({3, 4});
  d.emplace_back("base", base);
  d.emplace_back("view", base.slice(0, 1, 3).slice(1, 1, 3));  // [2, 2], strides [4, 1], offset 5
  d.emplace_back("t", base.t());                              // [4, 3], strides [1, 4]
  d.emplace_back("step", torch::arange(10, torch::kDouble).slice(0, 1, 10, 3));  // [3], stride 3, offset 1
  d.emplace_back("scalar", torch::tensor(3.25, torch::kFloat).reshape({}));
  d.emplace_back("scalar_i64", torch::tensor(std::vector<int64_t>{-7}).reshape({}));
  d.emplace_back("empty", torch::zeros({0, 3}, torch::kFloat));
  d.emplace_back("empty_i64", torch::zeros({0}, torch::kLong));
  return d;
}

c10::IValue nested_case() {
  auto g = new_dict();
  g.insert("none", c10::IValue());
  g.insert("true", true);
  g.insert("false", false);
  g.insert("int", 42);
  g.insert("neg", -3);
  g.insert("u16max", 65535);
  g.insert("u16max1", 65536);
  g.insert("i32min", static_cast<int64_t>(std::numeric_limits<int32_t>::min()));
  g.insert("big", static_cast<int64_t>(1) << 40);
  g.insert("min", std::numeric_limits<int64_t>::min());
  g.insert("max", std::numeric_limits<int64_t>::max());
  g.insert("double", -0.125);
  g.insert("inf", std::numeric_limits<double>::infinity());
  g.insert("str", std::string("h\xc3\xa9llo\n"));
  g.insert("empty_str", std::string());
  auto inner = new_list();
  inner.push_back(c10::IValue());
  inner.push_back(false);
  auto l = new_list();
  l.push_back(1);
  l.push_back(2.5);
  l.push_back(std::string("x"));
  l.push_back(tensor_of({1, 2}, torch::kInt));
  l.push_back(inner);
  g.insert("list", l);
  g.insert("ints", int_list({1, -2, 3}));
  g.insert("tuple", c10::ivalue::Tuple::create({1, std::string("a"), 2.0, c10::IValue()}));
  g.insert("tuple1", c10::ivalue::Tuple::create({7}));
  auto ik = new_int_dict();
  ik.insert(1, std::string("one"));
  ik.insert(-2, std::string("minus two"));
  g.insert("intkeys", ik);
  auto n2 = new_dict();
  n2.insert("b", new_list());
  auto n1 = new_dict();
  n1.insert("a", torch::tensor(0.5, torch::kDouble).reshape({}));
  n1.insert("inner", n2);
  g.insert("nested", n1);
  g.insert("empty_list", new_list());
  g.insert("empty_dict", new_dict());
  return g;
}

// ---- canonical dump
struct Dumper {
  std::map<const void*, int> storage_ids;
  std::string out;

  void line(int indent, const std::string& s) { out += std::string(2 * indent, ' ') + s + "\n"; }
  static std::string num(double d) {
    char b[64];
    if (std::isnan(d)) return std::signbit(d) ? "-nan" : "nan";
    std::snprintf(b, sizeof b, "%.17g", d);
    return b;
  }
  static std::string ints(at::IntArrayRef v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }
  void tensor(int indent, const at::Tensor& t) {
    const void* sid = t.storage().unsafeGetStorageImpl();
    auto it = storage_ids.emplace(sid, static_cast<int>(storage_ids.size())).first;
    std::string s = std::string("Tensor ") + c10::toString(t.scalar_type()) + " sizes " + ints(t.sizes()) +
                    " strides " + ints(t.strides()) + " offset " + std::to_string(t.storage_offset()) + " storage#" +
                    std::to_string(it->second) + " (" + std::to_string(t.storage().nbytes()) + " bytes) values [";
    at::Tensor flat = t.to(torch::kDouble).contiguous().reshape({-1});
    const double* p = flat.data_ptr<double>();
    for (int64_t i = 0; i < flat.numel(); ++i) s += (i ? ", " : "") + num(p[i]);
    line(indent, s + "] requires_grad " + (t.requires_grad() ? "1" : "0"));
  }
  void value(int indent, const c10::IValue& v) {
    if (v.isNone()) return line(indent, "None");
    if (v.isBool()) return line(indent, v.toBool() ? "True" : "False");
    if (v.isInt()) return line(indent, "int " + std::to_string(v.toInt()));
    if (v.isDouble()) return line(indent, "float " + num(v.toDouble()));
    if (v.isString()) return line(indent, "str '" + v.toStringRef() + "'");
    if (v.isTensor()) return tensor(indent, v.toTensor());
    if (v.isTuple()) {
      const auto& e = v.toTupleRef().elements();
      line(indent, "tuple " + std::to_string(e.size()));
      for (const auto& x : e) value(indent + 1, x);
      return;
    }
    if (v.isList()) {
      auto l = v.toList();
      line(indent, "list " + std::to_string(l.size()));
      for (size_t i = 0; i < l.size(); ++i) value(indent + 1, l.get(i));
      return;
    }
    if (v.isGenericDict()) {
      auto d = v.toGenericDict();
      line(indent, "dict " + std::to_string(d.size()));
      for (const auto& e : d) {
        value(indent + 1, e.key());
        value(indent + 2, e.value());
      }
      return;
    }
    line(indent, "unknown " + v.tagKind());
  }
};

void write_file(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "write") {
    const std::string dir = argv[2];
#ifdef PK_LIBTORCH
    c10::Dict<std::string, at::Tensor> tensors;  // a typed dict, as libtorch users write one
#else
    auto tensors = new_dict();
#endif
    for (auto& [k, v] : tensors_case()) tensors.insert(k, v);
    write_file(dir + "/tensors.pt", torch::pickle_save(tensors));
    write_file(dir + "/nested.pt", torch::pickle_save(nested_case()));
    at::Tensor x = torch::arange(6, torch::kLong).reshape({2, 3});
    write_file(dir + "/tensor_list.pt", torch::pickle_save(tensor_list({x, x.t(), x.slice(1, 1, 3)})));
    write_file(dir + "/tensor.pt", torch::pickle_save(tensor_of({1, 2, 3, 4, 5, 6}, torch::kBFloat16).reshape({2, 3}).t()));
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "dump") {
    std::ifstream f(argv[2], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    Dumper d;
    d.value(0, torch::pickle_load(bytes));
    std::fputs(d.out.c_str(), stdout);
    return 0;
  }
  if (argc == 4 && std::string(argv[1]) == "resave") {
    std::ifstream f(argv[2], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    write_file(argv[3], torch::pickle_save(torch::pickle_load(bytes)));
    return 0;
  }
  std::fprintf(stderr, "usage: %s write DIR | dump FILE | resave IN OUT\n", argv[0]);
  return 2;
}
