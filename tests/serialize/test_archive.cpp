// torch::save / torch::load of tensors and raw archives: round trips of every dtype and layout, the byte
// layout of docs/serialization.md (checked against bytes assembled here by hand, with a CRC32 written apart
// from zlib's), and the atomic temporary-file-and-rename save.
#include <torch/torch.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using torch::Tensor;

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), bit by bit: an independent reference for zlib's crc32.
uint32_t crc32_reference(const std::string& bytes, size_t from) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = from; i < bytes.size(); ++i) {
    crc ^= static_cast<unsigned char>(bytes[i]);
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t get_u32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

// A header + payload as docs/serialization.md describes it.
std::string frame(const std::string& payload, uint32_t version = 1) {
  std::string out("\x89" "EMBR\r\n\x1a", 8);
  put_u32(out, version);
  put_u32(out, crc32_reference(payload, 0));
  put_u64(out, payload.size());
  return out + payload;
}

std::string save_to_string(const Tensor& t) {
  std::ostringstream os;
  torch::save(t, os);
  return os.str();
}

Tensor load_from_string(const std::string& bytes) {
  std::istringstream is(bytes);
  Tensor t;
  torch::load(t, is);
  return t;
}

// Same dtype, shape and bytes (bitwise: NaN payloads and -0.0 must survive).
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  Tensor ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.const_data_ptr(), bc.const_data_ptr(), ac.nbytes()) == 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A fresh empty directory under /tmp.
std::string temp_dir() {
  char tmpl[] = "/tmp/ember-serialize-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    ::closedir(d);
  }
  return out;
}

void remove_dir(const std::string& dir) {
  for (const auto& n : dir_entries(dir)) std::remove((dir + "/" + n).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace

TEST_CASE("serialize: every dtype round-trips bit for bit", "[serialize]") {
  const auto base = torch::tensor({0.0, -0.0, 1.5, -2.25, 1e-40, 120.0, -7.0, 3.0, 100.0, -1.0, 0.5, 42.0},
                                  torch::TensorOptions().dtype(torch::kDouble))
                        .reshape({3, 4});
  for (auto dtype : {torch::kByte, torch::kChar, torch::kShort, torch::kInt, torch::kLong, torch::kHalf, torch::kFloat,
                     torch::kDouble, torch::kBool, torch::kBFloat16}) {
    INFO(dtype);
    Tensor t = c10::isFloatingType(dtype) ? base.to(dtype) : base.abs().to(dtype);
    Tensor back = load_from_string(save_to_string(t));
    CHECK(back.scalar_type() == dtype);
    CHECK(back.device().is_cpu());
    CHECK(same_bits(back, t));
  }
  // Non-finite floating values keep their bits.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (auto dtype : {torch::kHalf, torch::kFloat, torch::kDouble, torch::kBFloat16}) {
    Tensor t = torch::tensor({inf, -inf, nan, -0.0}, torch::TensorOptions().dtype(torch::kDouble)).to(dtype);
    CHECK(same_bits(load_from_string(save_to_string(t)), t));
  }
}

TEST_CASE("serialize: 0-dim, empty and non-contiguous tensors are saved as contiguous values", "[serialize]") {
  Tensor scalar = torch::tensor(3.25);
  Tensor s = load_from_string(save_to_string(scalar));
  CHECK(s.dim() == 0);
  CHECK(s.item<double>() == 3.25);

  Tensor empty = torch::zeros({0, 3}, torch::TensorOptions().dtype(torch::kLong));
  Tensor e = load_from_string(save_to_string(empty));
  CHECK(e.sizes() == empty.sizes());
  CHECK(e.scalar_type() == torch::kLong);

  Tensor m = torch::arange(24, torch::TensorOptions().dtype(torch::kFloat)).reshape({4, 6});
  for (const Tensor& view : {m.t(), m.slice(1, 1, 6, 2), m.select(1, 3), m[0].unsqueeze(0).expand({5, 6})}) {
    REQUIRE_FALSE(view.is_contiguous());
    Tensor back = load_from_string(save_to_string(view));
    CHECK(back.is_contiguous());
    CHECK(back.sizes() == view.sizes());
    CHECK(torch::equal(back, view));
  }
  // A slice of a larger storage saves only its own elements.
  Tensor row = m[2];
  CHECK(save_to_string(row).size() == save_to_string(torch::zeros({6})).size());
}

TEST_CASE("serialize: vectors of tensors and loading into a defined tensor", "[serialize]") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/tensors.ember";
  std::vector<Tensor> in{torch::arange(5), torch::ones({2, 2}, torch::kBool), torch::tensor(1.5), Tensor()};
  torch::save(in, path);
  std::vector<Tensor> out{torch::zeros({9})};
  torch::load(out, path);
  REQUIRE(out.size() == 4);
  CHECK(torch::equal(out[0], in[0]));
  CHECK(torch::equal(out[1], in[1]));
  CHECK(out[2].item<double>() == 1.5);
  CHECK_FALSE(out[3].defined());

  // torch::load(tensor) replaces the tensor (any shape), as libtorch's does.
  Tensor t = torch::zeros({7});
  torch::save(torch::arange(3), path);
  torch::load(t, path);
  CHECK(torch::equal(t, torch::arange(3)));
  remove_dir(dir);
}

TEST_CASE("serialize: OutputArchive/InputArchive nest archives and check keys", "[serialize]") {
  torch::serialize::OutputArchive root, child, grandchild;
  grandchild.write("deep", torch::full({2}, 7.0));
  child.write("w", torch::ones({2, 3}));
  child.write("running", torch::zeros({3}), /*is_buffer=*/true);
  child.write("inner", grandchild);
  root.write("child", child);
  root.write("top", torch::tensor(int64_t{5}));
  CHECK_THROWS_WITH(root.write("top", torch::zeros({1})), Catch::Contains("'top' was already written"));
  std::ostringstream os;
  root.save_to(os);

  torch::serialize::InputArchive in;
  std::istringstream is(os.str());
  in.load_from(is);
  CHECK(in.keys() == std::vector<std::string>{"child", "top"});
  torch::serialize::InputArchive c, g;
  in.read("child", c);
  CHECK(c.keys() == std::vector<std::string>{"w", "running", "inner"});
  CHECK(c.path() == "child");
  Tensor w, running, deep;
  c.read("w", w);
  CHECK(torch::equal(w, torch::ones({2, 3})));
  c.read("running", running, /*is_buffer=*/true);
  CHECK(torch::equal(running, torch::zeros({3})));
  c.read("inner", g);
  g.read("deep", deep);
  CHECK(torch::equal(deep, torch::full({2}, 7.0)));

  Tensor x;
  CHECK_FALSE(c.try_read("nope", x));
  CHECK_THROWS_WITH(c.read("nope", x), Catch::Contains("no tensor named 'child.nope'"));
  CHECK_THROWS_WITH(c.read("w", x, /*is_buffer=*/true),
                    Catch::Contains("'child.w' was saved as a parameter but is read as a buffer"));
  CHECK_THROWS_WITH(c.read("inner", x), Catch::Contains("'child.inner' is a nested archive, not a tensor"));
  CHECK_THROWS_WITH(in.read("top", g), Catch::Contains("'top' is a tensor, not a nested archive"));
  // A defined destination receives the values in place and must have the stored shape.
  Tensor dest = torch::zeros({2, 3}, torch::kDouble);
  Tensor alias = dest;
  c.read("w", dest);
  CHECK(alias.is_same(dest));
  CHECK(dest.scalar_type() == torch::kDouble);
  CHECK(torch::equal(dest, torch::ones({2, 3}, torch::kDouble)));
  Tensor wrong = torch::zeros({3, 2});
  CHECK_THROWS_WITH(c.read("w", wrong), Catch::Contains("destination has shape [3, 2] but the archive holds shape [2, 3]"));
}

TEST_CASE("serialize: the file layout is the documented one", "[serialize]") {
  // One float32 parameter "w" = [1, -2] and a nested archive "n" holding an int64 buffer "b" = 3 (0-dim).
  torch::serialize::OutputArchive root, nested;
  nested.write("b", torch::tensor(int64_t{3}), /*is_buffer=*/true);
  root.write("w", torch::tensor({1.0f, -2.0f}));
  root.write("n", nested);
  std::ostringstream os;
  root.save_to(os);

  std::string payload;
  put_u32(payload, 2);                                 // two records
  put_u32(payload, 1); payload += "w";                 // key
  payload.push_back(1);                                // kind: tensor
  payload.push_back(0);                                // flags: parameter
  payload.push_back(6);                                // dtype code 6: float32
  payload.push_back(1);                                // one dimension
  put_u64(payload, 2);                                 // size 2
  put_u64(payload, 8);                                 // 8 data bytes
  payload += std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);  // 1.0f, -2.0f little-endian
  put_u32(payload, 1); payload += "n";
  payload.push_back(2);                                // kind: archive
  put_u32(payload, 1);                                 // one record
  put_u32(payload, 1); payload += "b";
  payload.push_back(1);
  payload.push_back(1);                                // flags: buffer
  payload.push_back(4);                                // dtype code 4: int64
  payload.push_back(0);                                // 0-dim
  put_u64(payload, 8);
  payload += std::string("\x03\x00\x00\x00\x00\x00\x00\x00", 8);
  const std::string expected = frame(payload);
  CHECK(os.str() == expected);

  // And the hand-assembled bytes load.
  torch::serialize::InputArchive in;
  in.load_from(expected.data(), expected.size());
  Tensor w;
  in.read("w", w);
  CHECK(torch::equal(w, torch::tensor({1.0f, -2.0f})));
}

TEST_CASE("serialize: corrupt tensor files raise c10::Error naming the problem", "[serialize]") {
  const std::string good = save_to_string(torch::arange(10, torch::TensorOptions().dtype(torch::kFloat)));
  auto load_bytes = [](const std::string& bytes) {
    torch::serialize::InputArchive in;
    in.load_from(bytes.data(), bytes.size());
  };
  for (size_t cut : {size_t{0}, size_t{3}, size_t{8}, size_t{12}, size_t{23}, size_t{24}, size_t{40}, good.size() - 1})
    CHECK_THROWS_WITH(load_bytes(good.substr(0, cut)), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(load_bytes(good + "x"), Catch::Contains("unexpected bytes follow"));
  std::string flipped = good;
  flipped[good.size() - 5] ^= 0x10;
  CHECK_THROWS_WITH(load_bytes(flipped), Catch::Contains("checksum mismatch"));
  std::string magic = good;
  magic[1] = 'X';
  CHECK_THROWS_WITH(load_bytes(magic), Catch::Contains("not an Ember archive"));
  std::string future = good;
  future[8] = 2;
  CHECK_THROWS_WITH(load_bytes(future), Catch::Contains("version 2") && Catch::Contains("newer Ember"));
  CHECK_THROWS_AS(load_bytes(future), c10::Error);

  // Structural damage behind a valid checksum: every single-byte change of the payload either loads or
  // raises c10::Error (bounds-checked reading), and the obvious ones name the field.
  const std::string payload = good.substr(24);
  for (size_t i = 0; i < payload.size(); ++i) {
    for (int delta : {1, 0x80}) {
      std::string p = payload;
      p[i] = static_cast<char>(p[i] ^ delta);
      try {
        load_bytes(frame(p));
      } catch (const c10::Error&) {
      }
    }
  }
  std::string bad_dtype = payload;
  bad_dtype[4 + 4 + 1 + 1 + 1] = 99;  // count, key length, key "0", kind, flags, then the dtype
  CHECK_THROWS_WITH(load_bytes(frame(bad_dtype)), Catch::Contains("unknown dtype code 99"));
  std::string huge_count = payload;
  huge_count[3] = '\x7f';
  CHECK_THROWS_WITH(load_bytes(frame(huge_count)), Catch::Contains("claims"));
  std::string bool_payload = save_to_string(torch::ones({3}, torch::kBool)).substr(24);
  bool_payload[bool_payload.size() - 1] = 2;
  CHECK_THROWS_WITH(load_bytes(frame(bool_payload)), Catch::Contains("expected 0 or 1"));
  CHECK_THROWS_WITH(torch::serialize::InputArchive().load_from("/nonexistent/dir/x.ember"),
                    Catch::Contains("cannot open '/nonexistent/dir/x.ember'"));
}

TEST_CASE("serialize: saving to a path replaces the file atomically", "[serialize]") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/ckpt.ember";
  torch::save(torch::arange(4), path);
  const std::string first = read_file(path);
  CHECK(get_u32(first, 12) == crc32_reference(first, 24));

  // A failure in the middle of writing the temporary file leaves the previous checkpoint and no debris.
  for (int64_t fault : {int64_t{0}, int64_t{10}, int64_t{30}}) {
    torch::serialize::detail::set_save_fault_for_testing(fault);
    CHECK_THROWS_WITH(torch::save(torch::arange(1000), path),
                      Catch::Contains("injected test fault") && Catch::Contains("unchanged"));
    CHECK(read_file(path) == first);
    CHECK(dir_entries(dir) == std::vector<std::string>{"ckpt.ember"});
  }
  // The fault fires once; the next save succeeds and replaces the file.
  torch::save(torch::arange(1000), path);
  Tensor t;
  torch::load(t, path);
  CHECK(t.numel() == 1000);
  CHECK(dir_entries(dir) == std::vector<std::string>{"ckpt.ember"});

  CHECK_THROWS_WITH(torch::save(t, dir + "/missing/ckpt.ember"), Catch::Contains("cannot create a temporary file"));
  if (::geteuid() != 0) {  // root ignores directory permissions
    ::chmod(dir.c_str(), 0555);
    CHECK_THROWS_AS(torch::save(torch::zeros({2}), path), c10::Error);
    ::chmod(dir.c_str(), 0755);
    CHECK(read_file(path).size() > 24);
  }
  remove_dir(dir);
}

TEST_CASE("serialize: CUDA tensors are written from the host and loaded onto the destination's device",
          "[serialize][cuda]") {
  if (!torch::cuda::is_available()) return;
  Tensor g = torch::arange(6, torch::TensorOptions().dtype(torch::kFloat)).reshape({2, 3}).to(torch::kCUDA);
  const std::string bytes = save_to_string(g.t());
  CHECK(bytes == save_to_string(g.t().to(torch::kCPU)));
  Tensor dest = torch::zeros({1}, torch::TensorOptions().device(torch::kCUDA));
  std::istringstream is(bytes);
  torch::load(dest, is);
  CHECK(dest.is_cuda());
  CHECK(torch::equal(dest.to(torch::kCPU), g.t().to(torch::kCPU)));
  torch::serialize::InputArchive in;
  in.load_from(bytes.data(), bytes.size(), torch::Device(torch::kCUDA));
  Tensor x;
  in.read("0", x);
  CHECK(x.is_cuda());
}
