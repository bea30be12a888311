// torch::pickle_save / pickle_load (PyTorch checkpoints): the reference files in tests/data/pickle/ (written by
// libtorch's own pickle_save from the PyPI wheel, and laid out as Python's torch.save by Python's pickle
// module: tools/pickle-crosscheck) compared with values spelled out here; Ember -> Ember round trips of every
// dtype and layout with storage sharing; the archive Ember writes, read by a small zip reader of this file;
// hostile inputs one rule at a time plus a mutation fuzz (every outcome a load or a "[pickle_load]" error);
// load_state_dict; the IValue containers.
#include <torch/torch.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace pickle_test {

using torch::Tensor;

std::vector<char> reference_file(const std::string& name) {
  std::string dir = __FILE__;
  dir = dir.substr(0, dir.rfind('/')) + "/../data/pickle/";
  std::ifstream f(dir + name, std::ios::binary);
  REQUIRE(f.good());
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A string literal with its embedded NUL bytes (a plain const char* stops at the first).
template <size_t N>
std::string B(const char (&lit)[N]) {
  return std::string(lit, N - 1);
}

std::vector<char> vec(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

// ---- a small zip reader and writer, written from the format's description (APPNOTE), apart from Ember's

uint32_t crc32_of(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

uint64_t rd(const std::vector<char>& f, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(f.at(at + i));
  return v;
}

std::string le(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return s;
}

struct ZipRecord {
  std::string name, data;
  uint64_t data_offset;
  uint32_t crc;
  uint64_t method;
};

// The records of an archive without a comment or zip64 fields, through its central directory.
std::vector<ZipRecord> records_of(const std::vector<char>& f) {
  const size_t end = f.size() - 22;
  REQUIRE(rd(f, end, 4) == 0x06054b50u);
  const uint64_t count = rd(f, end + 10, 2);
  size_t pos = rd(f, end + 16, 4);
  std::vector<ZipRecord> out;
  for (uint64_t i = 0; i < count; ++i) {
    REQUIRE(rd(f, pos, 4) == 0x02014b50u);
    ZipRecord r;
    r.method = rd(f, pos + 10, 2);
    r.crc = static_cast<uint32_t>(rd(f, pos + 16, 4));
    const uint64_t size = rd(f, pos + 24, 4), nlen = rd(f, pos + 28, 2), xlen = rd(f, pos + 30, 2),
                   clen = rd(f, pos + 32, 2), local = rd(f, pos + 42, 4);
    r.name.assign(&f[pos + 46], nlen);
    r.data_offset = local + 30 + rd(f, local + 26, 2) + rd(f, local + 28, 2);
    r.data.assign(&f[r.data_offset], size);
    out.push_back(r);
    pos += 46 + nlen + xlen + clen;
  }
  return out;
}

// An archive of stored records (no alignment padding, sizes in the local headers).
std::string zip_of(const std::vector<std::pair<std::string, std::string>>& records) {
  std::string out, dir;
  for (const auto& [name, data] : records) {
    const uint32_t crc = crc32_of(data);
    const std::string common = le(0, 2) + le(0, 2) + le(0, 2) + le(0x21, 2) + le(crc, 4) + le(data.size(), 4) +
                               le(data.size(), 4) + le(name.size(), 2) + le(0, 2);
    dir += le(0x02014b50u, 4) + le(20, 2) + le(20, 2) + common + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
           le(out.size(), 4) + name;
    out += le(0x04034b50u, 4) + le(20, 2) + common + name + data;
  }
  const size_t dir_offset = out.size();
  out += dir;
  out += le(0x06054b50u, 4) + le(0, 2) + le(0, 2) + le(records.size(), 2) + le(records.size(), 2) + le(dir.size(), 4) +
         le(dir_offset, 4) + le(0, 2);
  return out;
}

// ---- pickle opcodes, written from the pickle protocol's description

std::string glob(const std::string& module, const std::string& name) { return "c" + module + "\n" + name + "\n"; }
std::string str(const std::string& s) { return "X" + le(s.size(), 4) + s; }
std::string integer(int64_t v) {
  if (v >= 0 && v < 256) return "K" + le(static_cast<uint64_t>(v), 1);
  if (v >= INT32_MIN && v <= INT32_MAX) return "J" + le(static_cast<uint64_t>(v), 4);
  return "\x8a\x08" + le(static_cast<uint64_t>(v), 8);
}
std::string tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (int64_t x : v) s += integer(x);
  return s + "t";
}
std::string pid(const std::string& type, const std::string& key, int64_t numel) {
  return "(" + str("storage") + glob("torch", type) + str(key) + str("cpu") + integer(numel) + "tQ";
}
std::string tensor_op(const std::string& pid_ops, int64_t offset, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides, const std::string& rg = "\x89") {
  return glob("torch._utils", "_rebuild_tensor_v2") + "(" + pid_ops + integer(offset) + tuple(sizes) + tuple(strides) +
         rg + glob("collections", "OrderedDict") + ")R" + "tR";
}
std::string floats(std::vector<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}
// A checkpoint of one pickle and its storages' records.
std::vector<char> checkpoint(const std::string& pkl, std::vector<std::pair<std::string, std::string>> data = {}) {
  std::vector<std::pair<std::string, std::string>> recs{{"archive/data.pkl", pkl}};
  for (auto& [k, v] : data) recs.emplace_back("archive/data/" + k, v);
  recs.emplace_back("archive/version", "3\n");
  return vec(zip_of(recs));
}
const std::string kOneTensor = "\x80\x02" + tensor_op(pid("FloatStorage", "0", 4), 0, {2, 2}, {2, 1}) + ".";
const std::string kFourFloats = floats({1.f, 2.f, 3.f, 4.f});

// Expects pickle_load(bytes) to raise a c10::Error whose message starts "[pickle_load] " and contains `part`.
void expect_load_error(const std::vector<char>& bytes, const std::string& part) {
  try {
    torch::pickle_load(bytes);
    FAIL("expected a [pickle_load] error containing: " << part);
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.rfind("[pickle_load] ", 0) == 0);
    CHECK(msg.find(part) != std::string::npos);
  }
}

// Loads `bytes`: a value or a "[pickle_load]" c10::Error are both fine; anything else fails.
bool load_or_clean_error(const std::vector<char>& bytes) {
  try {
    torch::pickle_load(bytes);
    return true;
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    if (msg.rfind("[pickle_load] ", 0) != 0) FAIL_CHECK("unprefixed error: " << msg);
    return false;
  } catch (const std::exception& e) {
    FAIL_CHECK("not a c10::Error: " << e.what());
    return false;
  }
}

template <typename T>
std::vector<T> raw(const Tensor& t) {
  Tensor c = t.contiguous();
  std::vector<T> out(static_cast<size_t>(c.numel()));
  if (!out.empty()) std::memcpy(out.data(), c.const_data_ptr(), c.nbytes());
  return out;
}

std::string bytes_of(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::string(static_cast<const char*>(c.const_data_ptr()), c.nbytes());
}

std::vector<int64_t> v64(at::IntArrayRef r) { return r.vec(); }

const c10::IValue& at_key(const c10::impl::GenericDict& d, const std::string& k) { return d.at(c10::IValue(k)); }

std::vector<std::string> keys_of(const c10::impl::GenericDict& d) {
  std::vector<std::string> out;
  for (const auto& e : d) out.push_back(e.key().toStringRef());
  return out;
}


TEST_CASE("pickle_load reads libtorch's pickle_save of a dict of tensors", "[pickle]") {
  c10::IValue v = torch::pickle_load(reference_file("tensors.pt"));
  REQUIRE(v.isGenericDict());
  auto d = v.toGenericDict();
  CHECK(keys_of(d) == std::vector<std::string>{"f32", "f64", "i64", "i32", "i16", "i8", "u8", "bool", "bf16", "f16",
                                               "base", "view", "t", "step", "scalar", "scalar_i64", "empty",
                                               "empty_i64"});
  auto T = [&](const char* k) { return at_key(d, k).toTensor(); };
  CHECK(T("f32").scalar_type() == torch::kFloat);
  CHECK(v64(T("f32").sizes()) == std::vector<int64_t>{2, 3});
  CHECK(v64(T("f32").strides()) == std::vector<int64_t>{3, 1});
  CHECK(raw<uint32_t>(T("f32")) ==
        std::vector<uint32_t>{0x3FC00000u, 0x80000000u, 0x7F7FC99Eu, 0x00000001u, 0x7F800000u, 0xFF800000u});
  auto f64 = raw<double>(T("f64"));
  REQUIRE(f64.size() == 4);
  CHECK(f64[0] == 0.1);
  CHECK(f64[1] == -2.5);
  CHECK(f64[2] == 1e300);
  CHECK(std::isnan(f64[3]));
  CHECK(raw<int64_t>(T("i64")) == std::vector<int64_t>{INT64_MIN, -1, INT64_MAX});
  CHECK(raw<int32_t>(T("i32")) == std::vector<int32_t>{INT32_MIN, 7});
  CHECK(raw<int16_t>(T("i16")) == std::vector<int16_t>{-32768, 32767});
  CHECK(raw<int8_t>(T("i8")) == std::vector<int8_t>{-128, 127, 0});
  CHECK(raw<uint8_t>(T("u8")) == std::vector<uint8_t>{0, 255, 17});
  CHECK(T("bool").scalar_type() == torch::kBool);
  CHECK(raw<uint8_t>(T("bool")) == std::vector<uint8_t>{1, 0, 1});
  CHECK(T("bf16").scalar_type() == torch::kBFloat16);
  CHECK(raw<uint16_t>(T("bf16")) == std::vector<uint16_t>{0x3F80, 0xC020, 0x4049, 0x4380});
  CHECK(T("f16").scalar_type() == torch::kHalf);
  CHECK(raw<uint16_t>(T("f16")) == std::vector<uint16_t>{0x3800, 0xFBFF, 0x0400, 0x3C01});
  // base, view and t: one storage of 12 floats.
  Tensor base = T("base"), view = T("view"), t = T("t");
  CHECK(raw<float>(base) == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(view.is_alias_of(base));
  CHECK(t.is_alias_of(base));
  CHECK(base.storage().nbytes() == 48);
  CHECK(v64(view.sizes()) == std::vector<int64_t>{2, 2});
  CHECK(v64(view.strides()) == std::vector<int64_t>{4, 1});
  CHECK(view.storage_offset() == 5);
  CHECK(raw<float>(view) == std::vector<float>{5, 6, 9, 10});
  CHECK(v64(t.sizes()) == std::vector<int64_t>{4, 3});
  CHECK(v64(t.strides()) == std::vector<int64_t>{1, 4});
  CHECK(raw<float>(t) == std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  base.mul_(2);  // writes through one are seen through the others
  CHECK(raw<float>(view) == std::vector<float>{10, 12, 18, 20});
  Tensor step = T("step");
  CHECK(step.scalar_type() == torch::kDouble);
  CHECK(step.storage().nbytes() == 80);
  CHECK(step.storage_offset() == 1);
  CHECK(v64(step.strides()) == std::vector<int64_t>{3});
  CHECK(raw<double>(step) == std::vector<double>{1, 4, 7});
  CHECK(T("scalar").dim() == 0);
  CHECK(raw<float>(T("scalar")) == std::vector<float>{3.25f});
  CHECK(T("scalar_i64").dim() == 0);
  CHECK(raw<int64_t>(T("scalar_i64")) == std::vector<int64_t>{-7});
  CHECK(v64(T("empty").sizes()) == std::vector<int64_t>{0, 3});
  CHECK(T("empty").scalar_type() == torch::kFloat);
  CHECK(v64(T("empty_i64").sizes()) == std::vector<int64_t>{0});
  CHECK(T("empty_i64").scalar_type() == torch::kLong);
  for (const auto& e : d) CHECK_FALSE(e.value().toTensor().requires_grad());
}

TEST_CASE("pickle_load reads libtorch's pickle_save of scalars, strings and nested containers", "[pickle]") {
  auto d = torch::pickle_load(reference_file("nested.pt")).toGenericDict();
  CHECK(keys_of(d) == std::vector<std::string>{"none", "true", "false", "int", "neg", "u16max", "u16max1", "i32min",
                                               "big", "min", "max", "double", "inf", "str", "empty_str", "list",
                                               "ints", "tuple", "tuple1", "intkeys", "nested", "empty_list",
                                               "empty_dict"});
  CHECK(at_key(d, "none").isNone());
  CHECK(at_key(d, "true").toBool() == true);
  CHECK(at_key(d, "false").toBool() == false);
  CHECK(at_key(d, "int").toInt() == 42);
  CHECK(at_key(d, "neg").toInt() == -3);
  CHECK(at_key(d, "u16max").toInt() == 65535);
  CHECK(at_key(d, "u16max1").toInt() == 65536);
  CHECK(at_key(d, "i32min").toInt() == INT32_MIN);
  CHECK(at_key(d, "big").toInt() == (int64_t{1} << 40));
  CHECK(at_key(d, "min").toInt() == INT64_MIN);
  CHECK(at_key(d, "max").toInt() == INT64_MAX);
  CHECK(at_key(d, "double").toDouble() == -0.125);
  CHECK(at_key(d, "inf").toDouble() == std::numeric_limits<double>::infinity());
  CHECK(at_key(d, "str").toStringRef() == "h\xc3\xa9llo\n");
  CHECK(at_key(d, "empty_str").toStringRef().empty());
  auto l = at_key(d, "list").toList();
  REQUIRE(l.size() == 5);
  CHECK(l[0].toInt() == 1);
  CHECK(l[1].toDouble() == 2.5);
  CHECK(l[2].toStringRef() == "x");
  CHECK(l[3].toTensor().scalar_type() == torch::kInt);
  CHECK(raw<int32_t>(l[3].toTensor()) == std::vector<int32_t>{1, 2});
  auto inner = l[4].toList();
  REQUIRE(inner.size() == 2);
  CHECK(inner[0].isNone());
  CHECK(inner[1].toBool() == false);
  CHECK(at_key(d, "ints").isIntList());  // libtorch tags it build_intlist
  CHECK(at_key(d, "ints").toIntVector() == std::vector<int64_t>{1, -2, 3});
  const auto& tup = at_key(d, "tuple").toTupleRef().elements();
  REQUIRE(tup.size() == 4);
  CHECK(tup[0].toInt() == 1);
  CHECK(tup[1].toStringRef() == "a");
  CHECK(tup[2].toDouble() == 2.0);
  CHECK(tup[3].isNone());
  REQUIRE(at_key(d, "tuple1").toTupleRef().size() == 1);
  CHECK(at_key(d, "tuple1").toTupleRef().elements()[0].toInt() == 7);
  auto ik = at_key(d, "intkeys").toGenericDict();
  REQUIRE(ik.size() == 2);
  CHECK(ik.at(1).toStringRef() == "one");
  CHECK(ik.at(-2).toStringRef() == "minus two");
  auto nested = at_key(d, "nested").toGenericDict();
  CHECK(at_key(nested, "a").toTensor().dim() == 0);
  CHECK(raw<double>(at_key(nested, "a").toTensor()) == std::vector<double>{0.5});
  auto n2 = at_key(nested, "inner").toGenericDict();
  CHECK(at_key(n2, "b").toList().empty());
  CHECK(at_key(d, "empty_list").toList().empty());
  CHECK(at_key(d, "empty_dict").toGenericDict().empty());
}

TEST_CASE("pickle_load reads libtorch's tensor lists and single tensors", "[pickle]") {
  c10::IValue v = torch::pickle_load(reference_file("tensor_list.pt"));
  REQUIRE(v.isList());
  auto l = v.toList();
  REQUIRE(l.size() == 3);
  Tensor x = l[0].toTensor(), xt = l[1].toTensor(), xs = l[2].toTensor();
  CHECK(raw<int64_t>(x) == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(xt.is_alias_of(x));
  CHECK(xs.is_alias_of(x));
  CHECK(v64(xt.strides()) == std::vector<int64_t>{1, 3});
  CHECK(raw<int64_t>(xt) == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  CHECK(xs.storage_offset() == 1);
  CHECK(raw<int64_t>(xs) == std::vector<int64_t>{1, 2, 4, 5});

  Tensor t = torch::pickle_load(reference_file("tensor.pt")).toTensor();
  CHECK(t.scalar_type() == torch::kBFloat16);
  CHECK(v64(t.sizes()) == std::vector<int64_t>{3, 2});
  CHECK(v64(t.strides()) == std::vector<int64_t>{1, 3});
  // 1..6 in bfloat16: 0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0, read transposed
  CHECK(raw<uint16_t>(t) == std::vector<uint16_t>{0x3F80, 0x4080, 0x4000, 0x40A0, 0x4040, 0x40C0});
}

TEST_CASE("pickle_load reads a state_dict laid out as Python's torch.save writes it", "[pickle]") {
  auto sd = torch::pickle_load(reference_file("python_state_dict.pt"));
  auto d = sd.toGenericDict();  // an OrderedDict whose _metadata attribute is dropped
  CHECK(keys_of(d) == std::vector<std::string>{"weight", "bias"});
  CHECK(raw<float>(at_key(d, "weight").toTensor()) == std::vector<float>{-1, -0.5, 0, 0.5, 1, 1.5});
  CHECK(raw<float>(at_key(d, "bias").toTensor()) == std::vector<float>{0.25f, -0.75f});
  torch::nn::Linear fc(3, 2);
  torch::load_state_dict(fc, sd);
  CHECK(raw<float>(fc->weight) == std::vector<float>{-1, -0.5, 0, 0.5, 1, 1.5});
  CHECK(raw<float>(fc->bias) == std::vector<float>{0.25f, -0.75f});
  CHECK(fc->weight.requires_grad());

  auto m = torch::pickle_load(reference_file("python_misc.pt")).toGenericDict();
  auto words = at_key(m, "words").toList();
  REQUIRE(words.size() == 300);
  CHECK(words[299].toStringRef() == "w299");
  Tensor a = at_key(m, "a").toTensor(), a_t = at_key(m, "a_t").toTensor(), tail = at_key(m, "tail").toTensor();
  CHECK(a.scalar_type() == torch::kBFloat16);
  CHECK(raw<uint16_t>(a) == std::vector<uint16_t>{0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0});
  CHECK(a_t.is_alias_of(a));
  CHECK(tail.is_alias_of(a));
  CHECK(raw<uint16_t>(a_t) == std::vector<uint16_t>{0x3F80, 0x4080, 0x4000, 0x40A0, 0x4040, 0x40C0});
  CHECK(raw<uint16_t>(tail) == std::vector<uint16_t>{0x40A0, 0x40C0});
  CHECK(raw<int64_t>(at_key(m, "ids").toTensor()) == std::vector<int64_t>{int64_t{1} << 40, -5});
  CHECK(at_key(m, "big").toInt() == (int64_t{1} << 62));
  CHECK(at_key(m, "neg").toInt() == -(int64_t{1} << 40));
  CHECK(at_key(m, "f").toDouble() == 1.5);
  CHECK(at_key(m, "t").toTupleRef().size() == 4);
}

TEST_CASE("pickle_save round trips every dtype and layout, keeping shared storages", "[pickle]") {
  for (auto dtype : {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16, torch::kLong, torch::kInt,
                     torch::kShort, torch::kChar, torch::kByte, torch::kBool}) {
    INFO(c10::dtypeName(dtype));
    Tensor base = torch::arange(24, torch::kDouble).sub(7).reshape({2, 3, 4});
    base = dtype == torch::kBool ? base.remainder(2).to(dtype) : base.to(dtype);
    c10::impl::GenericDict d;
    d.insert("contig", base);
    d.insert("transposed", base.transpose(0, 2));
    d.insert("step", base.slice(2, 1, 4, 2));
    d.insert("expanded", base.slice(0, 1, 2).expand({3, 3, 4}));  // stride 0
    d.insert("empty", base.narrow(1, 1, 0));
    d.insert("scalar", base.select(0, 1).select(0, 2).select(0, 3));
    d.insert("own", torch::zeros({0}, dtype));
    auto out = torch::pickle_load(torch::pickle_save(d)).toGenericDict();
    REQUIRE(keys_of(out) == keys_of(d));
    Tensor first = at_key(out, "contig").toTensor();
    for (const auto& e : d) {
      const std::string& k = e.key().toStringRef();
      INFO(k);
      Tensor want = e.value().toTensor(), got = at_key(out, k).toTensor();
      CHECK(got.scalar_type() == dtype);
      CHECK(v64(got.sizes()) == v64(want.sizes()));
      CHECK(v64(got.strides()) == v64(want.strides()));
      CHECK(got.storage_offset() == want.storage_offset());
      CHECK(got.storage().nbytes() == want.storage().nbytes());
      CHECK(bytes_of(got) == bytes_of(want));
      if (k != "own") CHECK(got.is_alias_of(first));
    }
    CHECK_FALSE(at_key(out, "own").toTensor().is_alias_of(first));
  }
}

TEST_CASE("pickle_save round trips scalars, strings and containers", "[pickle]") {
  c10::impl::GenericDict d;
  d.insert("none", c10::IValue());
  d.insert("b", true);
  for (int64_t v : {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65535}, int64_t{65536}, int64_t{-1},
                    int64_t{INT32_MIN}, int64_t{INT32_MAX}, int64_t{INT32_MAX} + 1, INT64_MIN, INT64_MAX})
    d.insert("i" + std::to_string(v), v);
  d.insert("d", -0.0);
  d.insert("nan", std::numeric_limits<double>::quiet_NaN());
  d.insert("s", std::string("a\0b", 3));
  c10::impl::GenericList l;
  l.push_back(1);
  l.push_back(c10::impl::GenericList());
  l.push_back(c10::ivalue::Tuple::create({}));
  l.push_back(c10::ivalue::Tuple::create({1, 2, 3, 4, 5}));
  d.insert("l", l);
  d.insert("ints", std::vector<int64_t>{4, 5});
  c10::impl::GenericDict keys;
  keys.insert(3, "three");
  keys.insert(false, "no");
  keys.insert(1.5, "x");
  d.insert("keys", keys);
  auto out = torch::pickle_load(torch::pickle_save(d)).toGenericDict();
  CHECK(keys_of(out) == keys_of(d));
  CHECK(at_key(out, "none").isNone());
  CHECK(at_key(out, "b").toBool());
  for (int64_t v : {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65535}, int64_t{65536}, int64_t{-1},
                    int64_t{INT32_MIN}, int64_t{INT32_MAX}, int64_t{INT32_MAX} + 1, INT64_MIN, INT64_MAX})
    CHECK(at_key(out, "i" + std::to_string(v)).toInt() == v);
  CHECK(std::signbit(at_key(out, "d").toDouble()));
  CHECK(std::isnan(at_key(out, "nan").toDouble()));
  CHECK(at_key(out, "s").toStringRef() == std::string("a\0b", 3));
  auto ol = at_key(out, "l").toList();
  REQUIRE(ol.size() == 4);
  CHECK(ol[1].toList().empty());
  CHECK(ol[2].toTupleRef().size() == 0);
  CHECK(ol[3].toTupleRef().elements()[4].toInt() == 5);
  CHECK(at_key(out, "ints").isList());  // written as a plain list: comes back generic
  CHECK(at_key(out, "ints").toList()[1].toInt() == 5);
  auto ok = at_key(out, "keys").toGenericDict();
  CHECK(ok.at(3).toStringRef() == "three");
  CHECK(ok.at(false).toStringRef() == "no");
  CHECK(ok.at(1.5).toStringRef() == "x");
  // A top-level tensor and a tensor list.
  Tensor t = torch::arange(6, torch::kFloat).reshape({2, 3}).t();
  Tensor back = torch::pickle_load(torch::pickle_save(t)).toTensor();
  CHECK(v64(back.strides()) == std::vector<int64_t>{1, 3});
  CHECK(raw<float>(back) == raw<float>(t));
  auto tl = torch::pickle_load(torch::pickle_save(std::vector<Tensor>{t, t.t()})).toList();
  CHECK(tl[0].toTensor().is_alias_of(tl[1].toTensor()));
  // requires_grad is kept.
  Tensor g = torch::ones({2}).set_requires_grad(true);
  CHECK(torch::pickle_load(torch::pickle_save(g)).toTensor().requires_grad());
}

TEST_CASE("pickle_save writes the archive torch.load reads", "[pickle]") {
  Tensor a = torch::arange(5, torch::kFloat), b = torch::arange(3, torch::kLong);
  c10::impl::GenericDict d;
  d.insert("a", a);
  d.insert("a2", a.slice(0, 1, 3));
  d.insert("b", b);
  const std::vector<char> f = torch::pickle_save(d);
  REQUIRE(f.size() > 4);
  CHECK(std::string(f.data(), 4) == "PK\x03\x04");
  auto recs = records_of(f);
  std::vector<std::string> names;
  for (const auto& r : recs) {
    names.push_back(r.name);
    INFO(r.name);
    CHECK(r.method == 0);
    CHECK(r.data_offset % 64 == 0);
    CHECK(r.crc == crc32_of(r.data));
  }
  CHECK(names == std::vector<std::string>{"archive/data.pkl", "archive/byteorder", "archive/data/0", "archive/data/1",
                                          "archive/version"});
  CHECK(recs[1].data == "little");
  CHECK(recs[2].data == floats({0, 1, 2, 3, 4}));
  CHECK(recs[3].data.size() == 24);
  CHECK(recs[4].data == "3\n");
  // The pickle, opcode by opcode: protocol 2, a dict of _rebuild_tensor_v2 calls on persistent ids.
  const std::string& p = recs[0].data;
  const std::string head = "\x80\x02}(" + str("a") + glob("torch._utils", "_rebuild_tensor_v2") + B("q\x00((") +
                           str("storage") + glob("torch", "FloatStorage") + "q\x01" + str("0") + str("cpu") + "K\x05" +
                           B("tQq\x02K\x00K\x05\x85K\x01\x85\x89") + glob("collections", "OrderedDict") + "q\x03)RtR";
  CHECK(p.substr(0, head.size()) == head);
  CHECK(p.back() == '.');
  // The view "a2" gets the storage back from the memo (BINGET 3), as libtorch's writer does.
  const std::string a2 = str("a2") + B("h\x00(h\x02K\x01K\x02\x85K\x01\x85\x89h\x03)RtR");
  CHECK(p.find(a2) != std::string::npos);
  CHECK(p.find(glob("torch", "LongStorage")) != std::string::npos);
}

TEST_CASE("pickle_load rejects hostile archives with [pickle_load] errors", "[pickle]") {
  // The hand-made checkpoint loads.
  const auto good = checkpoint(kOneTensor, {{"0", kFourFloats}});
  CHECK(raw<float>(torch::pickle_load(good).toTensor()) == std::vector<float>{1, 2, 3, 4});

  SECTION("truncated at every byte") {
    for (size_t n = 0; n < good.size(); ++n)
      CHECK_FALSE(load_or_clean_error(std::vector<char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n))));
    const auto lt = reference_file("nested.pt");
    for (size_t n = 0; n < lt.size(); n += 7)
      CHECK_FALSE(load_or_clean_error(std::vector<char>(lt.begin(), lt.begin() + static_cast<std::ptrdiff_t>(n))));
  }
  SECTION("pickle truncated at every byte") {
    for (size_t n = 0; n < kOneTensor.size(); ++n)
      CHECK_FALSE(load_or_clean_error(checkpoint(kOneTensor.substr(0, n), {{"0", kFourFloats}})));
  }
  SECTION("not a zip") {
    expect_load_error(vec("XK\x03\x04 and more bytes after it"), "expected a zip archive");
    expect_load_error(vec("\x80\x02N."), "bare pickle");
    expect_load_error({}, "expected a zip archive");
    auto f = good;
    f[f.size() - 22] = 'Q';  // the end-of-directory signature
    expect_load_error(f, "end-of-central-directory");
  }
  SECTION("zip structure") {
    expect_load_error(vec(zip_of({{"archive/version", "3\n"}})), "data.pkl");
    expect_load_error(vec(zip_of({{"a/data.pkl", "\x80\x02N."}, {"b/data.pkl", "\x80\x02N."}})), "one '<archive>/data.pkl'");
    expect_load_error(vec(zip_of({{"archive/data.pkl", "\x80\x02N."}, {"archive/data.pkl", "\x80\x02N."}})), "unique");
    auto f = good;
    const auto recs = records_of(f);
    f[recs[1].data_offset] ^= 1;  // a storage byte: CRC mismatch
    expect_load_error(f, "CRC-32");
    // A compressed record (method 8): the central directory's method field.
    auto g = good;
    const size_t dir = static_cast<size_t>(rd(g, g.size() - 22 + 16, 4));
    g[dir + 10] = 8;
    expect_load_error(g, "compression method 8");
    // A central directory claiming more entries than fit in it.
    auto h = good;
    h[h.size() - 22 + 10] = '\xff';
    h[h.size() - 22 + 8] = '\xff';
    expect_load_error(h, "entries");
    // A record whose size runs past the end of the archive.
    auto s = good;
    s[dir + 24] = '\xff';
    s[dir + 25] = '\xff';
    s[dir + 20] = '\xff';
    s[dir + 21] = '\xff';
    expect_load_error(s, "inside the archive");
    expect_load_error(vec(zip_of({{"archive/data.pkl", kOneTensor}, {"archive/byteorder", "big"}})), "little-endian");
  }
  SECTION("opcodes and stack") {
    expect_load_error(checkpoint("\x80\x02\xff."), "opcode");
    expect_load_error(checkpoint("\x80\x02\x80\x09."), "protocol");
    expect_load_error(checkpoint("\x80\x02."), "exactly one object");
    expect_load_error(checkpoint("\x80\x02NN."), "exactly one object");
    expect_load_error(checkpoint("\x80\x02(N."), "MARK");
    expect_load_error(checkpoint("\x80\x02t."), "MARK");
    expect_load_error(checkpoint("\x80\x02h\x05."), "memo entry 5");
    expect_load_error(checkpoint("\x80\x02" "a."), "expected an object on the stack");
    expect_load_error(checkpoint("\x80\x02NNa."), "expected a list");
    expect_load_error(checkpoint("\x80\x02}]Ns."), "dict keys");
    expect_load_error(checkpoint("\x80\x02}(Nu."), "odd number");
    expect_load_error(checkpoint("\x80\x02\x8a\x09" + std::string(9, '\x01') + "."), "at most 8 bytes");
    expect_load_error(checkpoint("\x80\x02X\xff\xff\xff\x7f" + std::string("abc")), "bytes of a string");
    expect_load_error(checkpoint("\x80\x02" + std::string("cos\nsystem")), "newline");
    expect_load_error(checkpoint("\x80\x02N" + std::string("b.")), "BUILD");
  }
  SECTION("globals outside the allow-list") {
    expect_load_error(checkpoint("\x80\x02" + glob("os", "system") + "(" + str("echo") + "tR."), "'os.system'");
    expect_load_error(checkpoint("\x80\x02" + glob("builtins", "eval") + "."), "'builtins.eval'");
    expect_load_error(checkpoint("\x80\x02" + glob("torch", "load") + "."), "'torch.load'");
    expect_load_error(checkpoint("\x80\x02" + glob("torch", "FloatStorage") + ")R."), "storage type only inside");
    expect_load_error(checkpoint("\x80\x02" + glob("collections", "OrderedDict") + "(K\x01tR."), "no arguments");
    expect_load_error(checkpoint("\x80\x02NK\x01R."), "global to call");
  }
  SECTION("cycles and depth") {
    expect_load_error(checkpoint(B("\x80\x02]q\x00h\x00" "a.")), "inside itself");
    expect_load_error(checkpoint(B("\x80\x02]q\x00]h\x00" "aa.")), "already inside another container");
    expect_load_error(checkpoint(B("\x80\x02}q\x00K\x01h\x00s.")), "inside itself");
    expect_load_error(checkpoint("\x80\x02" + std::string(1100, ']') + std::string(1099, 'a') + "."), "nested at most");
    // 1000 levels load (and free without deep recursion trouble).
    auto v = torch::pickle_load(checkpoint("\x80\x02" + std::string(1001, ']') + std::string(1000, 'a') + "."));
    CHECK(v.toList().size() == 1);
  }
  SECTION("storages and tensors") {
    auto one = [&](const std::string& pid_ops, int64_t off, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                   std::vector<std::pair<std::string, std::string>> data) {
      return checkpoint("\x80\x02" + tensor_op(pid_ops, off, sizes, strides) + ".", std::move(data));
    };
    const std::vector<std::pair<std::string, std::string>> d0{{"0", kFourFloats}};
    expect_load_error(one(pid("FloatStorage", "1", 4), 0, {4}, {1}, d0), "'archive/data/1'");
    expect_load_error(one(pid("FloatStorage", "0", 5), 0, {4}, {1}, d0), "it holds 16 bytes");
    expect_load_error(one(pid("DoubleStorage", "0", 4), 0, {4}, {1}, d0), "it holds 16 bytes");
    expect_load_error(one(pid("FloatStorage", "0", int64_t{1} << 62), 0, {4}, {1}, d0), "it holds 16 bytes");
    expect_load_error(one(pid("FloatStorage", "0", -1), 0, {4}, {1}, d0), "storage size");
    expect_load_error(one(pid("ComplexFloatStorage", "0", 4), 0, {4}, {1}, d0), "ComplexFloatStorage");
    expect_load_error(one(pid("FloatStorage", "0", 4), 10, {1}, {1}, d0), "inside its storage");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {5}, {1}, d0), "inside its storage");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {2, 2}, {3, 1}, d0), "reach element 4");
    expect_load_error(one(pid("FloatStorage", "0", 4), -1, {1}, {1}, d0), "storage offset");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {-1}, {1}, d0), "ints >= 0");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {2}, {-1}, d0), "ints >= 0");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {int64_t{1} << 40, int64_t{1} << 40}, {1, 1}, d0), "fits in int64");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {int64_t{1} << 62}, {1}, d0), "inside its storage");
    expect_load_error(one(pid("FloatStorage", "0", 4), 0, {2}, {1, 1}, d0), "as many strides");
    expect_load_error(one(pid("FloatStorage", "0", 4), 5, {0}, {1}, d0), "storage offset within");
    expect_load_error(one(pid("BoolStorage", "0", 4), 0, {4}, {1}, {{"0", std::string("\x01\x00\x02\x00", 4)}}), "0 or 1");
    // Empty tensors anywhere inside (or at the end of) the storage are fine.
    CHECK(torch::pickle_load(one(pid("FloatStorage", "0", 4), 4, {0, 5}, {5, 1}, d0)).toTensor().numel() == 0);
    // One key read as two dtypes.
    expect_load_error(checkpoint("\x80\x02(" + tensor_op(pid("FloatStorage", "0", 4), 0, {4}, {1}) +
                                     tensor_op(pid("IntStorage", "0", 4), 0, {4}, {1}) + "t.", d0),
                      "one dtype");
    // Arguments of the wrong kinds.
    expect_load_error(checkpoint("\x80\x02" + glob("torch._utils", "_rebuild_tensor_v2") + B("(K\x00K\x00)") + ")\x89}}tR.", d0),
                      "expected a storage");
    expect_load_error(checkpoint("\x80\x02" + glob("torch._utils", "_rebuild_tensor_v2") + B("(K\x00tR."), d0), "6 or 7 arguments");
    expect_load_error(checkpoint("\x80\x02" + tensor_op(pid("LongStorage", "0", 2), 0, {2}, {1}, "\x88") + ".", d0),
                      "requires_grad only on floating-point");
    expect_load_error(checkpoint("\x80\x02(" + str("storage") + "K\x01" + str("0") + str("cpu") + "K\x04tQ.", d0),
                      "storage type");
    expect_load_error(checkpoint("\x80\x02" + glob("torch._utils", "_rebuild_tensor_v2") + "(" + pid("FloatStorage", "0", 4) +
                                     B("K\x00(K\x04t(K\x01t\x89}K\x01K\x02stR."),
                                 d0),
                      "no backward hooks");
    expect_load_error(checkpoint("\x80\x02" + pid("FloatStorage", "0", 4) + "."), "'archive/data/0'");
    expect_load_error(checkpoint("\x80\x02" + pid("FloatStorage", "0", 4) + ".", d0), "to be a value");
  }
}

TEST_CASE("pickle_load survives mutated pickles", "[pickle]") {
  // Every single-byte change of two real pickles (libtorch's and Ember's), re-zipped with a valid CRC: each
  // either loads or raises a "[pickle_load]" c10::Error; nothing else is thrown, nothing crashes.
  c10::impl::GenericDict d;
  Tensor b = torch::arange(6, torch::kFloat).reshape({2, 3});
  d.insert("b", b);
  d.insert("v", b.t());
  d.insert("l", std::vector<int64_t>{1, 2});
  d.insert("s", std::string("text"));
  for (const auto& file : {reference_file("tensors.pt"), torch::pickle_save(d)}) {
    std::vector<std::pair<std::string, std::string>> recs;
    size_t pkl = 0;
    for (const auto& r : records_of(file)) {
      if (r.name.size() >= 8 && r.name.compare(r.name.size() - 8, 8, "data.pkl") == 0) pkl = recs.size();
      recs.emplace_back(r.name, r.data);
    }
    const std::string original = recs[pkl].second;
    int loaded = 0, rejected = 0;
    for (size_t i = 0; i < original.size(); ++i) {
      for (int x : {0x01, 0x80, 0xff, 0x40}) {
        recs[pkl].second = original;
        recs[pkl].second[i] = static_cast<char>(recs[pkl].second[i] ^ x);
        (load_or_clean_error(vec(zip_of(recs))) ? loaded : rejected)++;
      }
    }
    CHECK(rejected > 0);
    CHECK(loaded > 0);
  }
}

TEST_CASE("load_state_dict checks names and shapes before copying", "[pickle]") {
  torch::nn::Linear a(3, 2), b(3, 2);
  auto bytes = torch::pickle_save(torch::module_state_dict(a));
  torch::load_state_dict(b, torch::pickle_load(bytes));
  CHECK(raw<float>(b->weight) == raw<float>(a->weight));
  CHECK(raw<float>(b->bias) == raw<float>(a->bias));
  // torch::jit's spelling of the same functions.
  CHECK(torch::jit::pickle_load(torch::jit::pickle_save(c10::IValue(7))).toInt() == 7);

  torch::nn::Linear c(3, 2);
  const auto before = raw<float>(c->weight);
  auto expect_error = [&](const c10::IValue& sd, bool strict, const std::string& part) {
    try {
      torch::load_state_dict(c, sd, strict);
      FAIL("expected a [load_state_dict] error containing: " << part);
    } catch (const c10::Error& e) {
      const std::string msg = e.what();
      INFO(msg);
      CHECK(msg.rfind("[load_state_dict] ", 0) == 0);
      CHECK(msg.find(part) != std::string::npos);
    }
    CHECK(raw<float>(c->weight) == before);  // nothing copied
  };
  c10::impl::GenericDict missing;
  missing.insert("weight", torch::ones({2, 3}));
  expect_error(missing, true, "missing from the state_dict: 'bias'");
  c10::impl::GenericDict extra;
  extra.insert("weight", torch::ones({2, 3}));
  extra.insert("bias", torch::ones({2}));
  extra.insert("running_mean", torch::ones({2}));
  expect_error(extra, true, "not in the module: 'running_mean'");
  c10::impl::GenericDict shape;
  shape.insert("weight", torch::ones({3, 2}));
  shape.insert("bias", torch::ones({2}));
  expect_error(shape, true, "'weight' of shape [2, 3]");
  expect_error(shape, false, "the state_dict has shape [3, 2]");
  c10::impl::GenericDict kind;
  kind.insert("weight", 3);
  kind.insert("bias", torch::ones({2}));
  expect_error(kind, true, "expected a tensor for 'weight'");
  c10::impl::GenericDict ints;
  ints.insert("weight", torch::ones({2, 3}, torch::kLong));
  ints.insert("bias", torch::ones({2}));
  expect_error(ints, true, "floating-point");
  expect_error(c10::IValue(5), true, "expected a dict");
  // Not strict: the names both sides have are copied, dtype converted.
  c10::impl::GenericDict part;
  part.insert("bias", torch::tensor({1.0, 2.0}, torch::kDouble));
  part.insert("other", torch::ones({1}));
  torch::load_state_dict(c, part, /*strict=*/false);
  CHECK(raw<float>(c->bias) == std::vector<float>{1, 2});
  CHECK(raw<float>(c->weight) == before);
}

TEST_CASE("IValue lists, dicts and tuples", "[pickle]") {
  c10::impl::GenericDict d;
  CHECK(d.insert("b", 1).second);
  CHECK(d.insert("a", 2).second);
  CHECK_FALSE(d.insert("b", 3).second);
  CHECK(d.at("b").toInt() == 1);
  d.insert_or_assign("b", 4);
  CHECK(d.at("b").toInt() == 4);
  CHECK(keys_of(d) == std::vector<std::string>{"b", "a"});
  CHECK(d.contains("a"));
  CHECK_FALSE(d.contains(1));
  CHECK_THROWS_WITH(d.at("zz"), Catch::StartsWith("[Dict] key 'zz'"));
  c10::impl::GenericDict alias = d;  // a handle: both see one dict
  alias.insert("c", 5);
  CHECK(d.size() == 3);
  c10::impl::GenericList l;
  l.push_back(1);
  l.push_back("two");
  CHECK(l.size() == 2);
  CHECK(l.get(1).toStringRef() == "two");
  CHECK_THROWS_WITH(l.get(2), Catch::StartsWith("[List] index 2"));
  c10::IValue v(l);
  CHECK(v.isList());
  CHECK(v.tagKind() == "GenericList");
  CHECK(v.toList().is(l));
  CHECK(c10::IValue(std::vector<int64_t>{1, 2}).toList().get(1).toInt() == 2);
  CHECK_THROWS_WITH(c10::IValue(1).toList(), Catch::StartsWith("[IValue] expected a list; got Int"));
  CHECK_THROWS_WITH(c10::IValue(1).toGenericDict(), Catch::StartsWith("[IValue] expected GenericDict; got Int"));
  auto t = c10::ivalue::Tuple::create({1, "x"});
  c10::IValue tv(t);
  CHECK(tv.isTuple());
  CHECK(tv.toTupleRef().elements()[1].toStringRef() == "x");
  CHECK(tv.toTuple() == t);
}

}  // namespace pickle_test
