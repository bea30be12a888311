// torch::safetensors: files compared byte for byte with bytes written here by hand from the format's
// description (the independent reference), round trips of every dtype and layout, zero-copy loading checked
// against /proc/self/maps, the format's validation rules one by one, a mutation fuzz over valid files
// (every outcome a correct load or a "[safetensors]" c10::Error), and loading into a module.
#include <torch/torch.h>
#include <torch/safetensors.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace safetensors_test {

using torch::Tensor;
namespace st = torch::safetensors;

std::string le64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return s;
}

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

// A file from a JSON header (padded by the caller or not) and a data buffer.
std::string file_of(const std::string& json, const std::string& data) { return le64(json.size()) + json + data; }

// A directory for this process's files, removed with its files at exit.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/ember_safetensors_XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (d) path = d;
  }
  ~TempDir() {
    if (path.empty()) return;
    if (DIR* dir = ::opendir(path.c_str())) {
      while (const dirent* e = ::readdir(dir))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
          ::unlink((path + "/" + e->d_name).c_str());
      ::closedir(dir);
    }
    ::rmdir(path.c_str());
  }
};

std::string temp_dir() {
  static TempDir dir;
  REQUIRE(!dir.path.empty());
  return dir.path;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
}

std::string raw_bytes(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::string(static_cast<const char*>(c.const_data_ptr()), c.nbytes());
}

// The address ranges /proc/self/maps lists for `path`.
std::vector<std::pair<uintptr_t, uintptr_t>> mappings_of(const std::string& path) {
  std::vector<std::pair<uintptr_t, uintptr_t>> out;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos || line.substr(slash) != path) continue;
    uintptr_t lo = 0, hi = 0;
    std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi);
    out.emplace_back(lo, hi);
  }
  return out;
}

bool inside_mapping(const Tensor& t, const std::string& path) {
  const auto p = reinterpret_cast<uintptr_t>(t.const_data_ptr());
  for (auto [lo, hi] : mappings_of(path))
    if (p >= lo && p + t.nbytes() <= hi) return true;
  return false;
}

// Runs `fn`; returns "" if it succeeded, the message of a c10::Error otherwise. Anything else fails the test.
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const c10::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("expected a c10::Error, got another exception: " << e.what());
  }
  return "";
}

void check_refused(const std::string& file, const std::string& expected_part) {
  INFO("file bytes: " << file.size() << ", expected error containing: " << expected_part);
  const std::string msg = error_of([&] { st::load_from_buffer(file.data(), file.size()); });
  INFO("got: " << msg);
  CHECK(msg.rfind("[safetensors] ", 0) == 0);
  CHECK(msg.find(expected_part) != std::string::npos);
}

// Deterministic pseudo-random bytes (a 64-bit LCG's high bits).
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
};

Tensor patterned(c10::ScalarType dtype, std::vector<int64_t> shape, uint64_t seed) {
  Tensor t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  Lcg g{seed};
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(dtype == torch::kBool ? g.next() & 1 : g.next());
  return t;
}

const c10::ScalarType kAllDtypes[] = {torch::kByte, torch::kChar,  torch::kShort,  torch::kInt,  torch::kLong,
                                      torch::kHalf, torch::kFloat, torch::kDouble, torch::kBool, torch::kBFloat16};

// The hand-written reference files (format: 8-byte LE length, JSON, buffer).
// 1. One float tensor; its 64-byte header needs no padding.
const std::string kJson1 = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
const std::string kData1 = bytes({0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40,
                                  0, 0, 0xa0, 0x40});  // 0, 1, 2, 3, 4, 5 as float32
// 2. Metadata first, then tensors by the format's dtype order (I64, F64, BF16, F16, I8, BOOL: larger elements
//    first), 0-dim and 0-size tensors, one space of padding to 360 bytes.
const std::string kJson2 =
    R"({"__metadata__":{"format":"pt"},)"
    R"("d":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
    R"("a":{"dtype":"F64","shape":[],"data_offsets":[8,16]},)"
    R"("c":{"dtype":"BF16","shape":[1],"data_offsets":[16,18]},)"
    R"("f":{"dtype":"F16","shape":[1],"data_offsets":[18,20]},)"
    R"("b":{"dtype":"I8","shape":[2],"data_offsets":[20,22]},)"
    R"("e":{"dtype":"BOOL","shape":[0],"data_offsets":[22,22]}} )";
const std::string kData2 = bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // int64 -2
                                  0, 0, 0, 0, 0, 0, 0xf8, 0x3f,                    // double 1.5
                                  0x80, 0x3f,                                      // bfloat16 1.0
                                  0x00, 0x3c,                                      // float16 1.0
                                  0x01, 0xff});                                    // int8 1, -1

std::vector<std::pair<std::string, Tensor>> reference2_tensors() {
  auto opt = [](c10::ScalarType t) { return torch::TensorOptions().dtype(t); };
  // Given in an order unrelated to the file's: save() orders them.
  return {{"b", torch::tensor({1, -1}, opt(torch::kChar))},
          {"e", torch::zeros({0}, opt(torch::kBool))},
          {"a", torch::tensor(1.5, opt(torch::kDouble))},
          {"f", torch::ones({1}, opt(torch::kHalf))},
          {"c", torch::ones({1}, opt(torch::kBFloat16))},
          {"d", torch::tensor({-2}, opt(torch::kLong))}};
}

// After a successful load of `file`, the tensors in returned order must be exactly the data buffer.
void check_loaded_consistently(const std::string& file, const st::TensorDict& d) {
  uint64_t n = 0;
  std::memcpy(&n, file.data(), 8);
  std::string concat;
  for (const auto& it : d) {
    CHECK(it.value().nbytes() == static_cast<size_t>(it.value().numel()) * it.value().itemsize());
    concat += raw_bytes(it.value());
  }
  CHECK(concat == file.substr(8 + n));
}

struct StNet : torch::nn::Module {
  StNet() {
    fc = register_module("fc", torch::nn::Linear(3, 4));
    bn = register_module("bn", torch::nn::BatchNorm1d(4));
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
};


TEST_CASE("safetensors: save writes the bytes the format prescribes", "[safetensors]") {
  Tensor t = torch::arange(6, torch::TensorOptions().dtype(torch::kFloat)).reshape({1, 2, 3});
  CHECK(st::save_to_buffer({{"attn.0", t}}) == file_of(kJson1, kData1));
  CHECK(st::save_to_buffer(reference2_tensors(), {{"format", "pt"}}) == file_of(kJson2, kData2));
  // Nothing at all: "{}" padded with six spaces; metadata alone.
  CHECK(st::save_to_buffer(std::vector<std::pair<std::string, Tensor>>{}) == file_of("{}      ", ""));
  CHECK(st::save_to_buffer(std::vector<std::pair<std::string, Tensor>>{}, {{"framework", "pt"}}) ==
        file_of(R"({"__metadata__":{"framework":"pt"}})" "     ", ""));
  // Through a file, and through the TensorDict and unordered_map overloads.
  const std::string path = temp_dir() + "/ref2.safetensors";
  st::TensorDict dict;
  for (auto& [k, v] : reference2_tensors()) dict.insert(k, v);
  st::save(dict, path, {{"format", "pt"}});
  CHECK(read_file(path) == file_of(kJson2, kData2));
  std::unordered_map<std::string, Tensor> um;
  for (auto& [k, v] : reference2_tensors()) um.emplace(k, v);
  st::save(um, path, {{"format", "pt"}});
  CHECK(read_file(path) == file_of(kJson2, kData2));
  // Non-ASCII names are written as UTF-8, control characters escaped.
  const std::string name = "w\xc3\xa9ight\n";
  const std::string out = st::save_to_buffer({{name, torch::zeros({0}, torch::TensorOptions().dtype(torch::kByte))}});
  CHECK(out.find("\"w\xc3\xa9ight\\n\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}") != std::string::npos);
  CHECK(st::load_from_buffer(out.data(), out.size()).contains(name));
}

TEST_CASE("safetensors: hand-written files load with their values, order and metadata", "[safetensors]") {
  const std::string f2 = file_of(kJson2, kData2);
  st::Metadata meta;
  const auto d = st::load_from_buffer(f2.data(), f2.size(), &meta);
  CHECK(meta == st::Metadata{{"format", "pt"}});
  REQUIRE(d.keys() == std::vector<std::string>{"d", "a", "c", "f", "b", "e"});
  CHECK(d["d"].scalar_type() == torch::kLong);
  CHECK(d["d"].sizes() == c10::IntArrayRef{1});
  CHECK(d["d"].item<int64_t>() == -2);
  CHECK(d["a"].dim() == 0);
  CHECK(d["a"].item<double>() == 1.5);
  CHECK(d["c"].scalar_type() == torch::kBFloat16);
  CHECK(d["c"].item<float>() == 1.0f);
  CHECK(d["f"].scalar_type() == torch::kHalf);
  CHECK(d["f"].item<float>() == 1.0f);
  CHECK(d["b"].scalar_type() == torch::kChar);
  CHECK(d["b"][1].item<int64_t>() == -1);
  CHECK(d["e"].scalar_type() == torch::kBool);
  CHECK(d["e"].sizes() == c10::IntArrayRef{0});

  const std::string path = temp_dir() + "/hand2.safetensors";
  write_file(path, f2);
  st::Metadata meta2;
  const auto m = st::load(path, &meta2);
  CHECK(meta2 == meta);
  CHECK(st::load_metadata(path) == meta);
  REQUIRE(m.keys() == d.keys());
  for (const auto& it : d) CHECK(raw_bytes(m[it.key()]) == raw_bytes(it.value()));

  const std::string f1 = file_of(kJson1, kData1);
  const auto one = st::load_from_buffer(f1.data(), f1.size());
  CHECK(torch::equal(one["attn.0"], torch::arange(6, torch::TensorOptions().dtype(torch::kFloat)).reshape({1, 2, 3})));
  // A header that is not padded, with tensors in any order and whitespace: still a valid file.
  const std::string loose = file_of(R"( { "y" : {"data_offsets":[2,6], "shape":[1], "dtype":"I32"},
      "x": {"shape": [2], "dtype": "U8", "data_offsets": [0, 2]} })", bytes({7, 8, 1, 0, 0, 0}));
  const auto l = st::load_from_buffer(loose.data(), loose.size());
  CHECK(l.keys() == std::vector<std::string>{"x", "y"});
  CHECK(l["y"].item<int64_t>() == 1);
  CHECK(l["x"][1].item<int64_t>() == 8);
}

TEST_CASE("safetensors: every dtype and layout round-trips bit for bit", "[safetensors]") {
  const std::string path = temp_dir() + "/all.safetensors";
  std::vector<std::pair<std::string, Tensor>> in;
  uint64_t seed = 1;
  for (auto dtype : kAllDtypes) {
    const std::string dn = c10::toString(dtype);
    in.emplace_back(dn + ".matrix", patterned(dtype, {3, 5}, seed++));
    in.emplace_back(dn + ".scalar", patterned(dtype, {}, seed++));
    in.emplace_back(dn + ".empty", patterned(dtype, {0, 4}, seed++));
    in.emplace_back(dn + ".odd", patterned(dtype, {7}, seed++));  // odd byte counts misalign what follows, unless sorted
    Tensor big = patterned(dtype, {4, 6}, seed++);
    in.emplace_back(dn + ".transposed", big.t());
    in.emplace_back(dn + ".stepped", big.slice(1, 1, 6, 2));
    in.emplace_back(dn + ".expanded", big[1].unsqueeze(0).expand({3, 6}));
    in.emplace_back(dn + ".offset_row", big[2]);
  }
  // Special floating values keep their bits.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (auto dtype : {torch::kHalf, torch::kFloat, torch::kDouble, torch::kBFloat16})
    in.emplace_back(std::string(c10::toString(dtype)) + ".special",
                    torch::tensor({inf, -inf, nan, -0.0, 0.0, 1e-40, 65504.0}, torch::TensorOptions().dtype(torch::kDouble)).to(dtype));
  st::save(in, path, {{"k", "v"}, {"empty", ""}});
  st::Metadata meta;
  const auto out = st::load(path, &meta);
  CHECK(meta == st::Metadata{{"k", "v"}, {"empty", ""}});
  REQUIRE(out.size() == in.size());
  for (const auto& [name, t] : in) {
    INFO(name);
    const Tensor* back = out.find(name);
    REQUIRE(back != nullptr);
    CHECK(back->scalar_type() == t.scalar_type());
    CHECK(back->sizes() == t.sizes());
    CHECK(back->is_contiguous());
    CHECK(raw_bytes(*back) == raw_bytes(t));
    // Written sorted by element size, every tensor of a saved file is aligned, hence mapped, not copied.
    if (t.numel() > 0) CHECK(inside_mapping(*back, path));
  }
  // The buffer path gives the same.
  const std::string file = read_file(path);
  const auto out2 = st::load_from_buffer(file.data(), file.size());
  for (const auto& [name, t] : in) CHECK(raw_bytes(out2[name]) == raw_bytes(t));
  // CUDA tensors are written from their CPU copies.
  if (torch::cuda::is_available()) {
    Tensor g = patterned(torch::kFloat, {5}, 99);
    const std::string b = st::save_to_buffer({{"g", g.to(torch::Device(torch::kCUDA, 0))}});
    CHECK(b == st::save_to_buffer({{"g", g}}));
  }
}

TEST_CASE("safetensors: mapped tensors are zero-copy, private, non-resizable and keep the mapping alive", "[safetensors]") {
  const std::string path = temp_dir() + "/mapped.safetensors";
  Tensor w = torch::arange(12, torch::TensorOptions().dtype(torch::kFloat)).reshape({3, 4});
  Tensor i = torch::arange(5, torch::TensorOptions().dtype(torch::kLong));
  st::save({{"w", w}, {"i", i}}, path);
  const std::string before = read_file(path);
  Tensor view;
  {
    auto d = st::load(path);
    REQUIRE(mappings_of(path).size() >= 1);
    CHECK(inside_mapping(d["w"], path));
    CHECK(inside_mapping(d["i"], path));
    CHECK(reinterpret_cast<uintptr_t>(d["i"].const_data_ptr()) % 8 == 0);
    CHECK(torch::equal(d["w"], w));
    // Non-resizable: growing the storage is refused, with Ember's resize_ error.
    const std::string msg = error_of([&] { d["w"].resize_({100}); });
    CHECK(msg.find("not resizable") != std::string::npos);
    CHECK(torch::equal(d["w"], w));
    // Writes stay in this process (copy-on-write): the file keeps its bytes.
    d["w"].fill_(-1.0);
    d["i"].add_(100);
    CHECK(d["w"].sum().item<double>() == -12.0);
    CHECK(read_file(path) == before);
    view = d["i"].slice(0, 1, 4);  // a view outlives the dictionary
  }
  CHECK(mappings_of(path).size() >= 1);
  CHECK(view.sizes() == c10::IntArrayRef{3});
  CHECK(view[0].item<int64_t>() == 101);
  CHECK(inside_mapping(view, path));
  view = Tensor();
  CHECK(mappings_of(path).empty());  // the last reference unmapped the file
  // Loading a file again after its mapping went away sees the file's bytes, not the old writes.
  CHECK(torch::equal(st::load(path)["w"], w));
}

TEST_CASE("safetensors: tensors not aligned for their dtype are copied", "[safetensors]") {
  // An unpadded header (spaces added here only to put the buffer at file offset 8k + 3): U8 at k*8+3 is
  // aligned, F32 at +1 (8k + 4) too, I16 at +9 (8k + 12) too, F64 at +11 (8k + 14) is not.
  std::string json = R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"f":{"dtype":"F32","shape":[2],)"
                     R"("data_offsets":[1,9]},"h":{"dtype":"I16","shape":[1],"data_offsets":[9,11]},)"
                     R"("g":{"dtype":"F64","shape":[1],"data_offsets":[11,19]}})";
  while ((8 + json.size()) % 8 != 3) json += ' ';
  const std::string data = bytes({5, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0x39, 0x30, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f});
  const std::string path = temp_dir() + "/unaligned.safetensors";
  write_file(path, file_of(json, data));
  auto d = st::load(path);
  CHECK(d["u"].item<int64_t>() == 5);
  CHECK(d["f"][1].item<float>() == 2.0f);
  CHECK(d["h"].item<int64_t>() == 12345);
  CHECK(d["g"].item<double>() == 1.5);
  CHECK(inside_mapping(d["u"], path));
  CHECK(inside_mapping(d["f"], path));
  CHECK(inside_mapping(d["h"], path));
  CHECK_FALSE(inside_mapping(d["g"], path));
  for (const auto& it : d) CHECK(reinterpret_cast<uintptr_t>(it.value().const_data_ptr()) % it.value().itemsize() == 0);
  // The copy is an ordinary tensor: resizable.
  d["g"].resize_({10});
  CHECK(d["g"].numel() == 10);
}

TEST_CASE("safetensors: each rule of the format is checked", "[safetensors]") {
  const std::string ok_data = bytes({0, 0, 0x80, 0x3f});
  auto one = [](const std::string& entry) { return std::string(R"({"t":)") + entry + "}"; };
  const std::string good = one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})");
  REQUIRE(error_of([&] { auto f = file_of(good, ok_data); st::load_from_buffer(f.data(), f.size()); }).empty());

  check_refused("", "at least 8 bytes");
  check_refused(std::string(7, '\0'), "at least 8 bytes");
  check_refused(le64(100'000'001) + good, "at most 100000000");
  check_refused(le64(~0ull) + good, "at most 100000000");
  check_refused(le64(good.size() + 1) + good, "bytes follow it");
  check_refused(file_of("", ""), "valid JSON");
  check_refused(file_of("{", ""), "valid JSON");
  check_refused(file_of("{\"t\":1,}", ""), "valid JSON");
  check_refused(file_of("{} x", ""), "valid JSON");
  check_refused(file_of(std::string("{\"\xff\":1}"), ""), "valid JSON");  // not UTF-8
  check_refused(file_of(std::string("{}\0", 3), ""), "a NUL byte at header offset 2");
  check_refused(file_of(std::string("{}\0garbage", 10), ""), "a NUL byte");
  check_refused(file_of("[]", ""), "JSON object");
  check_refused(file_of("3", ""), "JSON object");
  check_refused(file_of(std::string(200000, '['), ""), "valid JSON");
  check_refused(file_of(R"({"a":)" + std::string(100000, '[') + std::string(100000, ']') + "}", ""),
                "expected an object");
  check_refused(file_of(good.substr(0, good.size() - 1) + R"(,"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                        ok_data), "'t' twice");
  check_refused(file_of(one(R"({"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]})"), ok_data),
                "'dtype' twice");
  check_refused(file_of(R"({"__metadata__":{"a":"x","a":"y"}})", ""), "'a' twice");
  check_refused(file_of(R"({"__metadata__":{"a":1}})", ""), "values to be strings");
  check_refused(file_of(R"({"__metadata__":["a"]})", ""), "object of strings");
  check_refused(file_of(one("[1]"), ok_data), "expected an object with dtype");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1]})"), ok_data), "expected the keys");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":0})"), ok_data), "got 'x'");
  check_refused(file_of(one(R"({"dtype":"F17","shape":[1],"data_offsets":[0,4]})"), ok_data), "not a safetensors dtype");
  check_refused(file_of(one(R"({"dtype":"U16","shape":[2],"data_offsets":[0,4]})"), ok_data), "Ember has no equivalent");
  check_refused(file_of(one(R"({"dtype":"f32","shape":[1],"data_offsets":[0,4]})"), ok_data), "'f32'");
  check_refused(file_of(one(R"({"dtype":4,"shape":[1],"data_offsets":[0,4]})"), ok_data), "dtype string");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})"), ok_data), "non-negative integers");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1.0],"data_offsets":[0,4]})"), ok_data), "non-negative integers");
  check_refused(file_of(one(R"({"dtype":"F32","shape":["1"],"data_offsets":[0,4]})"), ok_data), "non-negative integers");
  check_refused(file_of(one(R"({"dtype":"F32","shape":1,"data_offsets":[0,4]})"), ok_data), "shape array");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,4]})"), ok_data),
                "non-negative integers");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]})"), ok_data),
                "fits in int64");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[4294967296,4294967296,0],"data_offsets":[0,0]})"), ""),
                "fits in int64");
  {
    std::string dims = "1";
    for (int k = 0; k < 64; ++k) dims += ",1";
    check_refused(file_of(one(R"({"dtype":"F32","shape":[)" + dims + R"(],"data_offsets":[0,4]})"), ok_data),
                  "at most 64 dimensions");
  }
  check_refused(file_of(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})"), ok_data), "to hold shape [2]");
  check_refused(file_of(one(R"({"dtype":"F64","shape":[1],"data_offsets":[0,4]})"), ok_data), "to hold shape [1]");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[4,0]})"), ok_data), "begin <= end");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})"), ok_data), "[begin, end]");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})"), ok_data), "two non-negative");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,18446744073709551616]})"),
                        ok_data), "two non-negative");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[18446744073709551611,18446744073709551615]})"),
                        ok_data), "gap of");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})"), ok_data + ok_data), "gap of 4");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})"), ok_data + "x"), "1 bytes not covered");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})"), ok_data.substr(0, 3)), "truncated");
  check_refused(file_of(one(R"({"dtype":"F32","shape":[0],"data_offsets":[9,9]})"), ""), "gap of 9");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", ok_data), "overlap");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", ok_data + ok_data), "overlap");
  check_refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"U8","shape":[0],"data_offsets":[4,4]}})", ok_data + ok_data), "overlap");
  check_refused(file_of(one(R"({"dtype":"BOOL","shape":[3],"data_offsets":[0,3]})"), bytes({1, 0, 2})),
                "BOOL bytes of 0 or 1; got 2 at element 2");
  // Zero-size tensors may share an offset with each other and with the end of the buffer.
  const std::string zeros = file_of(R"({"a":{"dtype":"F32","shape":[0,3],"data_offsets":[4,4]},)"
                                    R"("b":{"dtype":"I64","shape":[0],"data_offsets":[4,4]},)"
                                    R"("c":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", ok_data);
  CHECK(st::load_from_buffer(zeros.data(), zeros.size()).size() == 3);

  // Files: missing, a directory, too short.
  CHECK(error_of([] { st::load(temp_dir() + "/does-not-exist.safetensors"); }).rfind("[safetensors] cannot open", 0) == 0);
  CHECK(error_of([] { st::load(temp_dir()); }).find("regular file") != std::string::npos);
  write_file(temp_dir() + "/short.safetensors", "abc");
  CHECK(error_of([] { st::load(temp_dir() + "/short.safetensors"); }).find("at least 8 bytes") != std::string::npos);
  CHECK(error_of([] { st::load_from_buffer(nullptr, 8); }).rfind("[safetensors] ", 0) == 0);
}

TEST_CASE("safetensors: save refuses what it cannot write and leaves the old file", "[safetensors]") {
  const std::string path = temp_dir() + "/refuse.safetensors";
  Tensor a = torch::ones({2});
  st::save({{"a", a}}, path);
  const std::string before = read_file(path);
  auto refused = [&](const std::vector<std::pair<std::string, Tensor>>& in, const st::Metadata& meta,
                     const std::string& part) {
    const std::string msg = error_of([&] { st::save(in, path, meta); });
    INFO(msg);
    CHECK(msg.rfind("[safetensors] ", 0) == 0);
    CHECK(msg.find(part) != std::string::npos);
    CHECK(read_file(path) == before);
  };
  refused({{"a", a}, {"a", a}}, {}, "'a' twice");
  refused({{"__metadata__", a}}, {}, "__metadata__");
  refused({{"u", Tensor()}}, {}, "undefined tensor");
  refused({{"bad\xff", a}}, {}, "valid UTF-8");
  refused({{"a", a}}, {{"k", "\xc3"}}, "valid UTF-8");
  CHECK(error_of([&] { st::save({{"a", a}}, temp_dir() + "/no/such/dir/x.safetensors"); })
            .find("cannot create a temporary file") != std::string::npos);
  CHECK(error_of([&] { st::save({{"a", a}}, ""); }).find("file name") != std::string::npos);
  // No temporary files are left behind.
  DIR* dir = ::opendir(temp_dir().c_str());
  REQUIRE(dir != nullptr);
  int temporaries = 0;
  while (const dirent* e = ::readdir(dir)) temporaries += std::strstr(e->d_name, ".tmp-") != nullptr;
  ::closedir(dir);
  CHECK(temporaries == 0);
}

TEST_CASE("safetensors: mutated files load correctly or raise [safetensors] errors", "[safetensors]") {
  std::vector<std::string> bases;
  bases.push_back(file_of(kJson2, kData2));
  bases.push_back(file_of(kJson1, kData1));
  bases.push_back(st::save_to_buffer({{"w", patterned(torch::kFloat, {2, 3}, 5)},
                                      {"m", patterned(torch::kBool, {5}, 6)},
                                      {"h", patterned(torch::kBFloat16, {3}, 7)},
                                      {"z", patterned(torch::kLong, {0, 2}, 8)}},
                                     {{"note", "x"}}));
  size_t loaded = 0, refused = 0;
  auto attempt = [&](const std::string& file, bool via_file) {
    try {
      if (via_file) {
        const std::string path = temp_dir() + "/fuzz.safetensors";
        write_file(path, file);
        check_loaded_consistently(file, st::load(path));
      } else {
        check_loaded_consistently(file, st::load_from_buffer(file.data(), file.size()));
      }
      ++loaded;
    } catch (const c10::Error& e) {
      const std::string msg = e.what();
      if (msg.rfind("[safetensors] ", 0) != 0) FAIL("unprefixed error: " << msg);
      ++refused;
    } catch (const std::exception& e) {
      FAIL("not a c10::Error: " << e.what());
    }
  };
  Lcg g{12345};
  for (const std::string& base : bases) {
    uint64_t n = 0;
    std::memcpy(&n, base.data(), 8);
    const size_t header_end = 8 + static_cast<size_t>(n);
    // Every truncation.
    for (size_t len = 0; len < base.size(); ++len) attempt(base.substr(0, len), len % 7 == 0);
    // Every single-bit flip in the length and the header.
    for (size_t at = 0; at < header_end; ++at)
      for (int bit = 0; bit < 8; ++bit) {
        std::string m = base;
        m[at] = static_cast<char>(m[at] ^ (1 << bit));
        attempt(m, false);
      }
    // JSON-significant bytes at every header position.
    for (size_t at = 8; at < header_end; ++at)
      for (char c : std::string("\"{}[],:-09e. \x00\xff\xc3", 17)) {
        std::string m = base;
        m[at] = c;
        attempt(m, false);
      }
    // Hostile lengths.
    for (uint64_t len : {uint64_t{0}, uint64_t{1}, uint64_t{7}, n - 1, n + 1, uint64_t(base.size() - 8),
                         uint64_t(base.size() - 7), uint64_t{100'000'000}, uint64_t{100'000'001}, uint64_t{1} << 32,
                         uint64_t{1} << 63, ~uint64_t{0}}) {
      std::string m = le64(len) + base.substr(8);
      attempt(m, true);
    }
    // Random multi-byte damage anywhere, and random bytes appended.
    for (int k = 0; k < 1500; ++k) {
      std::string m = base;
      const int hits = 1 + static_cast<int>(g.next() % 4);
      for (int h = 0; h < hits; ++h) m[g.next() % m.size()] = static_cast<char>(g.next());
      if (k % 10 == 0) m += std::string(1 + g.next() % 9, static_cast<char>(g.next()));
      attempt(m, k % 100 == 0);
    }
  }
  // Header surgery: swapped, overlapping, huge and negative offsets, duplicate keys, wrong dtypes and shapes.
  const std::string json = kJson2;
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string j = json;
    const auto at = j.find(from);
    REQUIRE(at != std::string::npos);
    j.replace(at, from.size(), to);
    return file_of(j, kData2);
  };
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"[0,8]", "[8,16]"}, {"[8,16]", "[0,8]"}, {"[16,18]", "[18,20]"}, {"[20,22]", "[20,23]"},
      {"[22,22]", "[22,23]"}, {"[22,22]", "[0,0]"}, {"[0,8]", "[0,18446744073709551615]"},
      {"[0,8]", "[18446744073709551608,0]"}, {"[0,8]", "[-8,0]"}, {"[0,8]", "[0,8,16]"}, {"[0,8]", "[]"},
      {"\"d\":", "\"a\":"}, {"\"b\":", "\"__metadata__\":"}, {"\"I64\"", "\"F64\""}, {"\"BF16\"", "\"I16\""},
      {"\"BF16\"", "\"F32\""}, {"\"I8\"", "\"BOOL\""}, {"\"shape\":[1]", "\"shape\":[2]"},
      {"\"shape\":[]", "\"shape\":[1,1,1]"}, {"\"shape\":[0]", "\"shape\":[4294967296,4294967296,0]"},
      {"\"shape\":[2]", "\"shape\":[1,2]"}, {"\"format\":\"pt\"", "\"format\":[]"}};
  for (const auto& [from, to] : edits) {
    INFO(from << " -> " << to);
    attempt(replaced(from, to), true);
  }
  // Changes that keep the file valid still load, and mean what they say.
  {
    const std::string f = replaced("\"shape\":[2]", "\"shape\":[1,2]");
    CHECK(st::load_from_buffer(f.data(), f.size())["b"].sizes() == c10::IntArrayRef{1, 2});
    const std::string g16 = replaced("\"BF16\"", "\"I16\"");
    CHECK(st::load_from_buffer(g16.data(), g16.size())["c"].item<int64_t>() == 0x3f80);
  }
  INFO("loaded " << loaded << ", refused " << refused);
  CHECK(loaded > 100);
  CHECK(refused > 1000);
}

TEST_CASE("safetensors: modules save and load their parameters and buffers by name", "[safetensors]") {
  const std::string path = temp_dir() + "/net.safetensors";
  torch::manual_seed(0);
  StNet a;
  {
    torch::NoGradGuard ng;
    a.bn->running_mean.uniform_();
    a.bn->running_var.uniform_(1, 2);
  }
  st::save(a, path, {{"format", "pt"}});
  const auto file = st::load(path);
  CHECK(file.keys() == std::vector<std::string>{"bn.num_batches_tracked", "bn.bias", "bn.running_mean", "bn.running_var",
                                                "bn.weight", "fc.bias", "fc.weight"});
  StNet b;
  st::load(b, path);
  for (const auto& it : a.named_parameters()) CHECK(torch::equal(b.named_parameters()[it.key()], it.value()));
  for (const auto& it : a.named_buffers()) CHECK(torch::equal(b.named_buffers()[it.key()], it.value()));
  CHECK(b.fc->weight.requires_grad());
  // The module's tensors are its own, not the file's mapping.
  CHECK_FALSE(inside_mapping(b.fc->weight, path));

  // Conversion to the parameter's dtype, like load_state_dict.
  std::vector<std::pair<std::string, Tensor>> doubled;
  for (const auto& it : file) doubled.emplace_back(it.key(), it.value().to(torch::kDouble));
  st::save(doubled, path);
  StNet c;
  st::load(c, path);
  CHECK(c.fc->weight.scalar_type() == torch::kFloat);
  CHECK(torch::equal(c.fc->weight, a.fc->weight));

  // Errors name the tensor, and nothing is copied before every check passed.
  auto refused = [&](std::vector<std::pair<std::string, Tensor>> tensors, bool strict, const std::string& part) {
    st::save(tensors, path);
    StNet d;
    const Tensor before = d.fc->weight.clone();
    const std::string msg = error_of([&] { st::load(d, path, strict); });
    INFO(msg);
    CHECK(msg.rfind("[safetensors] ", 0) == 0);
    CHECK(msg.find(part) != std::string::npos);
    CHECK(torch::equal(d.fc->weight, before));
  };
  auto all = [&] {
    std::vector<std::pair<std::string, Tensor>> v;
    for (const auto& it : file) v.emplace_back(it.key(), it.value());
    return v;
  };
  auto without = all();
  without.erase(without.begin());  // bn.num_batches_tracked
  refused(without, true, "1 missing: 'bn.num_batches_tracked'");
  auto extra = all();
  extra.emplace_back("fc.extra", torch::zeros({1}));
  refused(extra, true, "1 unexpected: 'fc.extra'");
  auto wrong = all();
  for (auto& [k, v] : wrong)
    if (k == "fc.weight") v = torch::zeros({3, 4});
  refused(wrong, true, "'fc.weight': expected shape [4, 3] (the module's); got [3, 4]");
  refused(wrong, false, "'fc.weight': expected shape [4, 3]");
  // Non-strict: what is there is loaded, the rest stays.
  without = all();
  without.erase(without.end() - 1);  // fc.weight
  extra = without;
  extra.emplace_back("other", torch::zeros({1}));
  st::save(extra, path);
  StNet e;
  const Tensor w_before = e.fc->weight.clone();
  st::load(e, path, /*strict=*/false);
  CHECK(torch::equal(e.fc->weight, w_before));
  CHECK(torch::equal(e.fc->bias, a.fc->bias));
}

}  // namespace safetensors_test
