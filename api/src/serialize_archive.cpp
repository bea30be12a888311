// torch::serialize archives and Ember's checkpoint format (version 1). The byte layout is specified in
// docs/serialization.md; this file is its only writer and reader.
#include <torch/serialize/archive.h>

#include <ATen/core/GradMode.h>
#include <c10/util/Exception.h>

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <istream>
#include <ostream>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// Tensor bytes are copied as they sit in memory; the format stores little-endian values.
static_assert(std::endian::native == std::endian::little,
              "Ember's checkpoint writer assumes a little-endian host (see docs/serialization.md)");

namespace torch::serialize {
namespace detail {

struct ArchiveNode;

// One named entry of an archive: a tensor (possibly undefined) or a nested archive.
struct ArchiveRecord {
  std::string key;
  bool is_archive = false;
  bool is_buffer = false;
  at::Tensor tensor;
  std::shared_ptr<ArchiveNode> child;
};

struct ArchiveNode {
  std::vector<ArchiveRecord> records;
  std::unordered_map<std::string, size_t> index;

  const ArchiveRecord* find(const std::string& key) const {
    auto it = index.find(key);
    return it == index.end() ? nullptr : &records[it->second];
  }
  void add(ArchiveRecord record, const char* who) {
    EMBER_CHECK(!record.key.empty(), "[", who, "] expected a non-empty key");
    EMBER_CHECK(!index.count(record.key), "[", who, "] key '", record.key,
                "' was already written to this archive; each key may be written once");
    index.emplace(record.key, records.size());
    records.push_back(std::move(record));
  }
};

namespace {

constexpr unsigned char kMagic[8] = {0x89, 'E', 'M', 'B', 'R', 0x0D, 0x0A, 0x1A};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 24;  // magic, version, crc32, payload length
constexpr uint8_t kRecordTensor = 1, kRecordArchive = 2;
constexpr uint8_t kFlagBuffer = 1, kFlagUndefined = 2;
constexpr uint32_t kMaxDim = 64, kMaxDepth = 64, kMaxKeyBytes = 4096;

std::atomic<int64_t> g_save_fault{-1};

// File dtype codes. They happen to equal libtorch's ScalarType numbers, but they are the format's own
// constants: changing c10::ScalarType must not change files.
uint8_t dtype_code(c10::ScalarType t) {
  switch (t) {
    case c10::kByte: return 0;
    case c10::kChar: return 1;
    case c10::kShort: return 2;
    case c10::kInt: return 3;
    case c10::kLong: return 4;
    case c10::kHalf: return 5;
    case c10::kFloat: return 6;
    case c10::kDouble: return 7;
    case c10::kBool: return 11;
    case c10::kBFloat16: return 15;
    default: break;
  }
  EMBER_CHECK(false, "[save] dtype ", t, " cannot be written to an Ember archive");
  return 0;
}

bool dtype_from_code(uint8_t code, c10::ScalarType& out) {
  switch (code) {
    case 0: out = c10::kByte; return true;
    case 1: out = c10::kChar; return true;
    case 2: out = c10::kShort; return true;
    case 3: out = c10::kInt; return true;
    case 4: out = c10::kLong; return true;
    case 5: out = c10::kHalf; return true;
    case 6: out = c10::kFloat; return true;
    case 7: out = c10::kDouble; return true;
    case 11: out = c10::kBool; return true;
    case 15: out = c10::kBFloat16; return true;
    default: return false;
  }
}

uint32_t crc32_of(const unsigned char* data, size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {  // zlib takes a uInt length
    const uInt chunk = static_cast<uInt>(std::min<size_t>(n, size_t{1} << 30));
    crc = crc32(crc, data, chunk);
    data += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

// ---------------------------------------------------------------- writing

class Writer {
 public:
  std::vector<unsigned char> bytes;
  void u8(uint8_t v) { bytes.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
  void raw(const void* p, size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    bytes.insert(bytes.end(), c, c + n);
  }
};

void write_table(Writer& w, const ArchiveNode& node, uint32_t depth) {
  EMBER_CHECK(depth <= kMaxDepth, "[save] archives are nested more than ", kMaxDepth,
              " deep (is an archive written into itself?)");
  w.u32(static_cast<uint32_t>(node.records.size()));
  for (const auto& r : node.records) {
    w.u32(static_cast<uint32_t>(r.key.size()));
    w.raw(r.key.data(), r.key.size());
    if (r.is_archive) {
      w.u8(kRecordArchive);
      write_table(w, *r.child, depth + 1);
      continue;
    }
    w.u8(kRecordTensor);
    if (!r.tensor.defined()) {
      w.u8(static_cast<uint8_t>((r.is_buffer ? kFlagBuffer : 0) | kFlagUndefined));
      w.u8(0);
      w.u8(0);
      w.u64(0);
      continue;
    }
    // Values leave as a contiguous CPU copy: views are saved as their values, CUDA tensors via the host.
    at::Tensor t = r.tensor.detach();
    if (!t.device().is_cpu()) t = t.to(c10::Device(c10::kCPU));
    t = t.contiguous();
    EMBER_CHECK(t.dim() <= static_cast<int64_t>(kMaxDim), "[save] tensor '", r.key, "' has ", t.dim(),
                " dimensions; the format stores at most ", kMaxDim);
    w.u8(r.is_buffer ? kFlagBuffer : 0);
    w.u8(dtype_code(t.scalar_type()));
    w.u8(static_cast<uint8_t>(t.dim()));
    for (int64_t s : t.sizes()) w.u64(static_cast<uint64_t>(s));
    w.u64(static_cast<uint64_t>(t.nbytes()));
    if (t.nbytes() > 0) w.raw(t.const_data_ptr(), t.nbytes());
  }
}

// The whole file: header followed by the payload.
std::vector<unsigned char> encode(const ArchiveNode& root) {
  Writer payload;
  write_table(payload, root, 0);
  Writer file;
  file.bytes.reserve(kHeaderSize + payload.bytes.size());
  file.raw(kMagic, sizeof(kMagic));
  file.u32(kFormatVersion);
  file.u32(crc32_of(payload.bytes.data(), payload.bytes.size()));
  file.u64(payload.bytes.size());
  file.raw(payload.bytes.data(), payload.bytes.size());
  return std::move(file.bytes);
}

std::string errno_text() { return std::strerror(errno); }

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", static_cast<unsigned>(v));
  return buf;
}

std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Note [Atomic checkpoint replacement]
// A checkpoint is written to "<name>.tmp-XXXXXX" in the target's directory, fsync'd, closed and renamed over
// the target; rename within one file system replaces the name atomically, so a reader (or a crash) sees the old
// file or the complete new one, never a mix. Any failure removes the temporary file and leaves the target as it
// was. The directory is fsync'd after the rename so the new name itself survives a power cut.
void write_file_atomically(const std::string& filename, const std::vector<unsigned char>& bytes) {
  EMBER_CHECK(!filename.empty(), "[save] expected a file name, got an empty string");
  std::string tmp = filename + ".tmp-XXXXXX";
  std::vector<char> tmpl(tmp.begin(), tmp.end());
  tmpl.push_back('\0');
  const int fd = ::mkstemp(tmpl.data());
  EMBER_CHECK(fd >= 0, "[save] cannot create a temporary file next to '", filename, "': ", errno_text());
  tmp.assign(tmpl.data());
  auto fail = [&](const std::string& what) {
    const std::string reason = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    EMBER_CHECK(false, "[save] writing '", filename, "' failed (", what, ": ", reason,
                "); the previous file, if any, is unchanged");
  };
  // mkstemp creates mode 0600; a checkpoint gets the usual 0644, or the mode of the file it replaces.
  struct stat st {};
  const mode_t mode = ::stat(filename.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  if (::fchmod(fd, mode) != 0) fail("fchmod");
  const int64_t fault = g_save_fault.exchange(-1);
  size_t done = 0;
  while (done < bytes.size()) {
    size_t n = bytes.size() - done;
    if (fault >= 0) {
      if (done >= static_cast<size_t>(fault)) {
        errno = EIO;
        fail("injected test fault");
      }
      n = std::min(n, static_cast<size_t>(fault) - done);
    }
    const ssize_t k = ::write(fd, bytes.data() + done, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<size_t>(k);
  }
  if (fault >= 0 && done >= static_cast<size_t>(fault)) {
    errno = EIO;
    fail("injected test fault");
  }
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const std::string reason = errno_text();
    ::unlink(tmp.c_str());
    EMBER_CHECK(false, "[save] writing '", filename, "' failed (close: ", reason, ")");
  }
  if (::rename(tmp.c_str(), filename.c_str()) != 0) {
    const std::string reason = errno_text();
    ::unlink(tmp.c_str());
    EMBER_CHECK(false, "[save] cannot rename the temporary file onto '", filename, "': ", reason,
                "; the previous file, if any, is unchanged");
  }
  const int dir = ::open(parent_directory(filename).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {  // best effort: some file systems refuse fsync on directories
    (void)::fsync(dir);
    ::close(dir);
  }
}

// ---------------------------------------------------------------- reading

// Bounds-checked cursor over the file; every failure names the file offset.
class Reader {
 public:
  Reader(const unsigned char* data, size_t size, size_t base) : data_(data), size_(size), base_(base) {}
  size_t offset() const { return base_ + pos_; }
  size_t left() const { return size_ - pos_; }
  void need(size_t n, const char* what) const {
    EMBER_CHECK(n <= left(), "[load] the archive is truncated or corrupt: ", what, " at offset ", offset(),
                " needs ", n, " bytes, but only ", left(), " remain");
  }
  uint8_t u8(const char* what) {
    need(1, what);
    return data_[pos_++];
  }
  uint32_t u32(const char* what) {
    need(4, what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  uint64_t u64(const char* what) {
    need(8, what);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += 8;
    return v;
  }
  const unsigned char* take(size_t n, const char* what) {
    need(n, what);
    const unsigned char* p = data_ + pos_;
    pos_ += n;
    return p;
  }

 private:
  const unsigned char* data_;
  size_t size_;
  size_t base_;
  size_t pos_ = 0;
};

std::string join_key(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::shared_ptr<ArchiveNode> read_table(Reader& r, const std::string& path, uint32_t depth,
                                        const std::optional<c10::Device>& device) {
  EMBER_CHECK(depth <= kMaxDepth, "[load] the archive is corrupt: archives nested more than ", kMaxDepth,
              " deep at '", path, "'");
  const uint32_t count = r.u32("a record count");
  // Each record takes at least 6 bytes (key length, one key byte, kind): a count beyond that is corrupt.
  EMBER_CHECK(count <= r.left() / 6, "[load] the archive is truncated or corrupt: table '", path, "' claims ",
              count, " records but only ", r.left(), " bytes remain");
  auto node = std::make_shared<ArchiveNode>();
  node->records.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    ArchiveRecord rec;
    const uint32_t key_len = r.u32("a key length");
    EMBER_CHECK(key_len >= 1 && key_len <= kMaxKeyBytes, "[load] the archive is corrupt: key length ", key_len,
                " at offset ", r.offset() - 4, " (expected 1..", kMaxKeyBytes, ")");
    const unsigned char* key = r.take(key_len, "a key");
    rec.key.assign(reinterpret_cast<const char*>(key), key_len);
    const std::string full = join_key(path, rec.key);
    EMBER_CHECK(!node->index.count(rec.key), "[load] the archive is corrupt: key '", full, "' appears twice");
    const uint8_t kind = r.u8("a record kind");
    if (kind == kRecordArchive) {
      rec.is_archive = true;
      rec.child = read_table(r, full, depth + 1, device);
    } else if (kind == kRecordTensor) {
      const uint8_t flags = r.u8("tensor flags");
      EMBER_CHECK((flags & ~(kFlagBuffer | kFlagUndefined)) == 0, "[load] the archive is corrupt: tensor '", full,
                  "' has unknown flags ", static_cast<int>(flags));
      rec.is_buffer = (flags & kFlagBuffer) != 0;
      const uint8_t code = r.u8("a dtype");
      const uint8_t ndim = r.u8("a dimension count");
      EMBER_CHECK(ndim <= kMaxDim, "[load] the archive is corrupt: tensor '", full, "' has ", static_cast<int>(ndim),
                  " dimensions (at most ", kMaxDim, " are allowed)");
      std::vector<int64_t> sizes(ndim);
      uint64_t numel = 1;
      for (uint8_t d = 0; d < ndim; ++d) {
        const uint64_t s = r.u64("a dimension size");
        EMBER_CHECK(s <= static_cast<uint64_t>(INT64_MAX) && !__builtin_mul_overflow(numel, s, &numel),
                    "[load] the archive is corrupt: tensor '", full, "' has an impossible size ", s, " in dimension ",
                    static_cast<int>(d));
        sizes[d] = static_cast<int64_t>(s);
      }
      const uint64_t nbytes = r.u64("a byte count");
      if (flags & kFlagUndefined) {
        EMBER_CHECK(code == 0 && ndim == 0 && nbytes == 0, "[load] the archive is corrupt: undefined tensor '", full,
                    "' carries a dtype, shape or data");
      } else {
        c10::ScalarType dtype;
        EMBER_CHECK(dtype_from_code(code, dtype), "[load] the archive is corrupt or from a newer Ember: tensor '",
                    full, "' has unknown dtype code ", static_cast<int>(code));
        uint64_t expected = 0;
        EMBER_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(c10::elementSize(dtype)), &expected) &&
                        nbytes == expected,
                    "[load] the archive is corrupt: tensor '", full, "' of shape ", c10::IntArrayRef(sizes), " ",
                    c10::dtypeName(dtype), " needs ", numel, " x ", c10::elementSize(dtype), " bytes, but the record says ",
                    nbytes);
        const unsigned char* data = r.take(static_cast<size_t>(nbytes), "tensor data");
        if (dtype == c10::kBool) {
          for (uint64_t k = 0; k < nbytes; ++k)
            EMBER_CHECK(data[k] <= 1, "[load] the archive is corrupt: bool tensor '", full, "' holds byte ",
                        static_cast<int>(data[k]), " (expected 0 or 1)");
        }
        at::Tensor t = at::empty(sizes, at::TensorOptions().dtype(dtype));
        if (nbytes > 0) std::memcpy(t._mutable_data_ptr_internal(), data, static_cast<size_t>(nbytes));
        if (device.has_value() && *device != t.device()) t = t.to(*device);
        rec.tensor = std::move(t);
      }
    } else {
      EMBER_CHECK(false, "[load] the archive is corrupt: record '", full, "' has unknown kind ", static_cast<int>(kind),
                  " (expected 1 = tensor or 2 = archive)");
    }
    node->index.emplace(rec.key, node->records.size());
    node->records.push_back(std::move(rec));
  }
  return node;
}

std::shared_ptr<ArchiveNode> decode(const unsigned char* data, size_t size, const std::optional<c10::Device>& device) {
  const size_t probe = std::min(size, sizeof(kMagic));
  EMBER_CHECK(probe == 0 || std::memcmp(data, kMagic, probe) == 0,
              "[load] not an Ember archive: the data does not start with Ember's magic bytes (89 45 4D 42 52 0D 0A 1A)");
  EMBER_CHECK(size >= kHeaderSize, "[load] the archive is truncated: it has ", size, " bytes, fewer than the ",
              kHeaderSize, "-byte header");
  Reader header(data, size, 0);
  header.take(sizeof(kMagic), "the magic");
  const uint32_t version = header.u32("the format version");
  EMBER_CHECK(version == kFormatVersion, "[load] unsupported archive format version ", version, ": this Ember reads "
              "version ", kFormatVersion, version > kFormatVersion ? " (the file was written by a newer Ember)" : "");
  const uint32_t stored_crc = header.u32("the checksum");
  const uint64_t length = header.u64("the payload length");
  EMBER_CHECK(length <= header.left(), "[load] the archive is truncated: the header announces ", length,
              " payload bytes, but only ", header.left(), " follow it");
  EMBER_CHECK(length == header.left(), "[load] the archive is corrupt: ", header.left() - length,
              " unexpected bytes follow the ", length, "-byte payload");
  const unsigned char* payload = data + kHeaderSize;
  const uint32_t crc = crc32_of(payload, static_cast<size_t>(length));
  EMBER_CHECK(crc == stored_crc, "[load] checksum mismatch: the header records CRC32 ", hex32(stored_crc),
              " but the payload hashes to ", hex32(crc), "; the file is corrupt");
  Reader body(payload, static_cast<size_t>(length), kHeaderSize);
  auto root = read_table(body, "", 0, device);
  EMBER_CHECK(body.left() == 0, "[load] the archive is corrupt: ", body.left(), " bytes follow the root table");
  return root;
}

}  // namespace

void set_save_fault_for_testing(int64_t bytes) { g_save_fault.store(bytes < 0 ? -1 : bytes); }

}  // namespace detail

// ---------------------------------------------------------------- OutputArchive

OutputArchive::OutputArchive() : root_(std::make_shared<detail::ArchiveNode>()) {}
OutputArchive::OutputArchive(OutputArchive&&) noexcept = default;
OutputArchive& OutputArchive::operator=(OutputArchive&&) noexcept = default;
OutputArchive::~OutputArchive() = default;

void OutputArchive::write(const std::string& key, const at::Tensor& tensor, bool is_buffer) {
  EMBER_CHECK(root_ != nullptr, "[OutputArchive::write] this archive was moved from");
  detail::ArchiveRecord rec;
  rec.key = key;
  rec.is_buffer = is_buffer;
  rec.tensor = tensor;
  root_->add(std::move(rec), "OutputArchive::write");
}

void OutputArchive::write(const std::string& key, OutputArchive& nested_archive) {
  EMBER_CHECK(root_ != nullptr && nested_archive.root_ != nullptr, "[OutputArchive::write] an archive was moved from");
  EMBER_CHECK(nested_archive.root_ != root_, "[OutputArchive::write] cannot nest an archive ('", key, "') in itself");
  detail::ArchiveRecord rec;
  rec.key = key;
  rec.is_archive = true;
  rec.child = nested_archive.root_;
  root_->add(std::move(rec), "OutputArchive::write");
}

void OutputArchive::save_to(const std::string& filename) {
  EMBER_CHECK(root_ != nullptr, "[OutputArchive::save_to] this archive was moved from");
  detail::write_file_atomically(filename, detail::encode(*root_));
}

void OutputArchive::save_to(std::ostream& stream) {
  EMBER_CHECK(root_ != nullptr, "[OutputArchive::save_to] this archive was moved from");
  const auto bytes = detail::encode(*root_);
  stream.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EMBER_CHECK(stream.good(), "[save] writing ", bytes.size(), " bytes to the output stream failed");
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& func) {
  EMBER_CHECK(root_ != nullptr, "[OutputArchive::save_to] this archive was moved from");
  const auto bytes = detail::encode(*root_);
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t n = func(bytes.data() + done, bytes.size() - done);
    EMBER_CHECK(n > 0 && n <= bytes.size() - done, "[save] the writer function accepted ", n, " of ",
                bytes.size() - done, " bytes; expected between 1 and that many");
    done += n;
  }
}

// ---------------------------------------------------------------- InputArchive

InputArchive::InputArchive() : root_(std::make_shared<detail::ArchiveNode>()) {}
InputArchive::InputArchive(InputArchive&&) noexcept = default;
InputArchive& InputArchive::operator=(InputArchive&&) noexcept = default;
InputArchive::~InputArchive() = default;

bool InputArchive::try_read(const std::string& key, at::Tensor& tensor, bool is_buffer) {
  EMBER_CHECK(root_ != nullptr, "[InputArchive::read] this archive was moved from");
  const auto* rec = root_->find(key);
  if (rec == nullptr) return false;
  const std::string full = detail::join_key(path_, key);
  EMBER_CHECK(!rec->is_archive, "[InputArchive::read] '", full, "' is a nested archive, not a tensor");
  EMBER_CHECK(rec->is_buffer == is_buffer, "[InputArchive::read] '", full, "' was saved as a ",
              rec->is_buffer ? "buffer" : "parameter", " but is read as a ", is_buffer ? "buffer" : "parameter");
  if (!tensor.defined() || !rec->tensor.defined()) {
    tensor = rec->tensor;
    return true;
  }
  EMBER_CHECK(tensor.sizes() == rec->tensor.sizes(), "[InputArchive::read] '", full, "': the destination has shape ",
              tensor.sizes(), " but the archive holds shape ", rec->tensor.sizes());
  at::NoGradGuard no_grad;
  tensor.copy_(rec->tensor);
  return true;
}

void InputArchive::read(const std::string& key, at::Tensor& tensor, bool is_buffer) {
  EMBER_CHECK(try_read(key, tensor, is_buffer), "[InputArchive::read] the archive has no ",
              is_buffer ? "buffer" : "tensor", " named '", detail::join_key(path_, key), "'");
}

bool InputArchive::try_read(const std::string& key, InputArchive& archive) {
  EMBER_CHECK(root_ != nullptr, "[InputArchive::read] this archive was moved from");
  const auto* rec = root_->find(key);
  if (rec == nullptr) return false;
  const std::string full = detail::join_key(path_, key);
  EMBER_CHECK(rec->is_archive, "[InputArchive::read] '", full, "' is a tensor, not a nested archive");
  archive.root_ = rec->child;
  archive.path_ = full;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& archive) {
  EMBER_CHECK(try_read(key, archive), "[InputArchive::read] the archive has no nested archive named '",
              detail::join_key(path_, key), "'");
}

void InputArchive::load_from(const std::string& filename, std::optional<c10::Device> device) {
  std::ifstream in(filename, std::ios::binary);
  EMBER_CHECK(in.is_open(), "[load] cannot open '", filename, "' for reading: ", detail::errno_text());
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EMBER_CHECK(!in.bad(), "[load] reading '", filename, "' failed");
  load_from(bytes.data(), bytes.size(), device);
}

void InputArchive::load_from(std::istream& stream, std::optional<c10::Device> device) {
  std::vector<char> bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  EMBER_CHECK(!stream.bad(), "[load] reading the input stream failed");
  load_from(bytes.data(), bytes.size(), device);
}

void InputArchive::load_from(const char* data, size_t size, std::optional<c10::Device> device) {
  EMBER_CHECK(data != nullptr || size == 0, "[load] expected data, got a null pointer with size ", size);
  // Decoded in full before this archive changes: a bad file leaves the archive as it was.
  root_ = detail::decode(reinterpret_cast<const unsigned char*>(data), size, device);
  path_.clear();
}

std::vector<std::string> InputArchive::keys() {
  EMBER_CHECK(root_ != nullptr, "[InputArchive::keys] this archive was moved from");
  std::vector<std::string> out;
  out.reserve(root_->records.size());
  for (const auto& r : root_->records) out.push_back(r.key);
  return out;
}

}  // namespace torch::serialize
