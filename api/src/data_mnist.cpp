// torch::data::datasets::MNIST: the IDX image/label files, plain or gzip-compressed.
#include <torch/data/datasets.h>

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace torch {
namespace data {
namespace datasets {
namespace {

constexpr uint32_t kImageMagic = 2051;  // 0x00000803: unsigned bytes, 3 dimensions
constexpr uint32_t kLabelMagic = 2049;  // 0x00000801: unsigned bytes, 1 dimension
constexpr int64_t kSide = 28;

bool exists(const std::string& path) { return std::ifstream(path).good(); }

std::string join(const std::string& root, const std::string& name) {
  if (root.empty() || root.back() == '/') return root + name;
  return root + "/" + name;
}

// The decompressed bytes of `root/name`, or of `root/name.gz` when only that exists. zlib's gz*
// functions read uncompressed files unchanged, so one path serves both.
std::vector<uint8_t> read_idx_file(const std::string& root, const std::string& name, std::string& path) {
  path = join(root, name);
  if (!exists(path) && exists(path + ".gz")) path += ".gz";
  gzFile f = gzopen(path.c_str(), "rb");
  EMBER_CHECK(f != nullptr, "[MNIST] cannot open ", join(root, name), " (nor ", name,
              ".gz there); expected the MNIST IDX files in ", root);
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> chunk(1 << 20);
  for (;;) {
    int n = gzread(f, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n <= 0) {
      int code = Z_OK;
      const char* msg = n < 0 ? gzerror(f, &code) : nullptr;
      std::string why = msg ? msg : "";
      if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);  // zlib prefixes the path
      // A stream cut short reads as a clean end of data in some zlib versions: ask explicitly.
      if (n == 0) {
        gzerror(f, &code);
        if (code == Z_BUF_ERROR) why = "unexpected end of the compressed data";
      }
      gzclose(f);
      EMBER_CHECK(why.empty(), "[MNIST] ", path, " is not a readable gzip file: ", why);
      break;
    }
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + n);
  }
  return bytes;
}

uint32_t big_endian_u32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | uint32_t(b[at + 3]);
}

at::Tensor read_images(const std::string& root, bool train) {
  std::string path;
  auto bytes = read_idx_file(root, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte", path);
  EMBER_CHECK(bytes.size() >= 16, "[MNIST] ", path, " is truncated: an image file starts with a 16-byte header; got ",
              bytes.size(), " bytes");
  uint32_t magic = big_endian_u32(bytes, 0);
  EMBER_CHECK(magic == kImageMagic, "[MNIST] ", path, " is not an IDX image file: expected magic number ",
              kImageMagic, "; got ", magic);
  int64_t count = big_endian_u32(bytes, 4), rows = big_endian_u32(bytes, 8), cols = big_endian_u32(bytes, 12);
  EMBER_CHECK(rows == kSide && cols == kSide, "[MNIST] ", path, ": expected ", kSide, "x", kSide, " images; got ",
              rows, "x", cols);
  size_t want = 16 + static_cast<size_t>(count * rows * cols);
  EMBER_CHECK(bytes.size() == want, "[MNIST] ", path, (bytes.size() < want ? " is truncated" : " has trailing data"),
              ": its header announces ", count, " images (", want, " bytes); got ", bytes.size(), " bytes");
  at::Tensor raw = at::empty({count, 1, rows, cols}, at::kByte);
  if (count) std::memcpy(raw._mutable_data_ptr_internal(), bytes.data() + 16, want - 16);
  return raw.to(at::kFloat).div_(255);
}

at::Tensor read_labels(const std::string& root, bool train) {
  std::string path;
  auto bytes = read_idx_file(root, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte", path);
  EMBER_CHECK(bytes.size() >= 8, "[MNIST] ", path, " is truncated: a label file starts with an 8-byte header; got ",
              bytes.size(), " bytes");
  uint32_t magic = big_endian_u32(bytes, 0);
  EMBER_CHECK(magic == kLabelMagic, "[MNIST] ", path, " is not an IDX label file: expected magic number ", kLabelMagic,
              "; got ", magic);
  int64_t count = big_endian_u32(bytes, 4);
  size_t want = 8 + static_cast<size_t>(count);
  EMBER_CHECK(bytes.size() == want, "[MNIST] ", path, (bytes.size() < want ? " is truncated" : " has trailing data"),
              ": its header announces ", count, " labels (", want, " bytes); got ", bytes.size(), " bytes");
  at::Tensor raw = at::empty({count}, at::kByte);
  if (count) std::memcpy(raw._mutable_data_ptr_internal(), bytes.data() + 8, static_cast<size_t>(count));
  return raw.to(at::kLong);
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  images_ = read_images(root, train_);
  targets_ = read_labels(root, train_);
  EMBER_CHECK(images_.size(0) == targets_.size(0), "[MNIST] the ", train_ ? "train" : "t10k", " files in ", root,
              " disagree: ", images_.size(0), " images but ", targets_.size(0), " labels");
}

Example<> MNIST::get(size_t index) {
  EMBER_CHECK(index < static_cast<size_t>(images_.size(0)), "[MNIST] index ", index, " is out of range for ",
              images_.size(0), " images");
  return {images_[static_cast<int64_t>(index)], targets_[static_cast<int64_t>(index)]};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }
bool MNIST::is_train() const noexcept { return train_; }
const at::Tensor& MNIST::images() const { return images_; }
const at::Tensor& MNIST::targets() const { return targets_; }

}  // namespace datasets
}  // namespace data
}  // namespace torch
