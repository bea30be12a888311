// torch::safetensors: Hugging Face's safetensors format (docs/embedding.md).
//
// Layout: an 8-byte little-endian header length N, N bytes of UTF-8 JSON, then the data buffer. The JSON is
// an object: each key but "__metadata__" names a tensor {"dtype": "F32", "shape": [..], "data_offsets":
// [begin, end]} whose bytes are buffer[begin, end), row-major, little-endian; "__metadata__" maps strings to
// strings. See Note [safetensors validation] for what a file must satisfy before any tensor is built.
#include <torch/safetensors.h>

#include <ATen/core/GradMode.h>
#include <c10/util/Exception.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static_assert(std::endian::native == std::endian::little,
              "safetensors stores little-endian data; a big-endian host would need byte swaps");

namespace torch::safetensors {
namespace {

// The format's own limit (the reference reader refuses larger headers): a 100 MB header is already about a
// million tensors.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// As for Ember's own archives: more dimensions than this is a corrupt file, not a tensor.
constexpr size_t kMaxDims = 64;

struct DtypeInfo {
  const char* name;
  c10::ScalarType type;
  // Writers put tensors of larger elements first (then order by name), so that every tensor of a file whose
  // buffer starts 8-byte aligned is aligned for its dtype. The format's reference writer orders by this rank,
  // descending; it follows the format's dtype list.
  int rank;
};

constexpr DtypeInfo kDtypes[] = {
    {"BOOL", c10::kBool, 0},  {"U8", c10::kByte, 1},    {"I8", c10::kChar, 2},   {"I16", c10::kShort, 5},
    {"F16", c10::kHalf, 7},   {"BF16", c10::kBFloat16, 8}, {"I32", c10::kInt, 9}, {"F32", c10::kFloat, 11},
    {"F64", c10::kDouble, 12}, {"I64", c10::kLong, 13},
};
// Names the format defines that Ember has no dtype for: refused with their own message.
constexpr std::string_view kUnsupportedDtypes[] = {"U16",     "U32",     "U64",     "F8_E5M2", "F8_E4M3",
                                                   "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4",      "C64"};

const DtypeInfo* dtype_by_name(std::string_view name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

const DtypeInfo& dtype_info(c10::ScalarType t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d;
  EMBER_CHECK(false, "[safetensors] dtype ", t, " has no safetensors name");
  __builtin_unreachable();
}

std::string supported_list() {
  std::string s;
  for (const auto& d : kDtypes) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

std::string errno_text() { return std::strerror(errno); }

struct Entry {
  std::string name;
  c10::ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

struct Header {
  std::vector<Entry> entries;  // ascending data offset
  Metadata metadata;
  size_t buffer_start = 0;     // 8 + N: where the data buffer begins
};

// Note [safetensors validation]
// A file is refused, with a "[safetensors]" c10::Error, unless: it has the 8-byte length; N <= 100,000,000
// and N bytes follow it; those bytes are one JSON object (UTF-8, no key twice in any object); "__metadata__",
// if present, maps strings to strings; every other value is an object with exactly "dtype" (a name Ember
// has a dtype for), "shape" (at most 64 integers >= 0 whose product, counting zeros as ones, fits in int64)
// and "data_offsets" ([begin, end], integers, begin <= end, end - begin == numel * element size); the
// ranges, sorted, tile the rest of the file exactly (no gap, no overlap, nothing left over); and every byte
// of a BOOL tensor is 0 or 1 (any other value would be undefined behaviour in C++ code reading a bool).
// Only then are tensors built, so a refused file leaves nothing behind.

// A JSON value for an error message. Never dump() a structured value from a file: it could be nested a
// million levels deep (dump recurses) or be megabytes long.
std::string describe(const nlohmann::json& v) {
  if (v.is_array()) {
    bool flat = v.size() <= 16;
    for (const auto& x : v) flat = flat && !x.is_structured() && !x.is_string();
    if (flat) return v.dump();
    return "an array of " + std::to_string(v.size()) + " elements";
  }
  if (v.is_object()) return "an object";
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

[[noreturn]] void fail_json(const std::string& what) {
  EMBER_CHECK(false, "[safetensors] expected the header to be valid JSON; got an error: ", what);
  __builtin_unreachable();
}

uint64_t as_offset(const nlohmann::json& v, const std::string& name) {
  EMBER_CHECK(v.is_number_unsigned(), "[safetensors] tensor '", name,
              "': expected data_offsets of two non-negative integers; got ", describe(v));
  return v.get<uint64_t>();
}

Entry parse_entry(const std::string& name, const nlohmann::json& v) {
  EMBER_CHECK(v.is_object(), "[safetensors] tensor '", name,
              "': expected an object with dtype, shape and data_offsets; got ", v.type_name());
  for (const auto& [key, _] : v.items())
    EMBER_CHECK(key == "dtype" || key == "shape" || key == "data_offsets", "[safetensors] tensor '", name,
                "': expected only the keys dtype, shape and data_offsets; got '", key, "'");
  EMBER_CHECK(v.contains("dtype") && v.contains("shape") && v.contains("data_offsets"), "[safetensors] tensor '",
              name, "': expected the keys dtype, shape and data_offsets");
  Entry e;
  e.name = name;
  const auto& dt = v.at("dtype");
  EMBER_CHECK(dt.is_string(), "[safetensors] tensor '", name, "': expected a dtype string; got ", describe(dt));
  const std::string dname = dt.get<std::string>();
  const DtypeInfo* info = dtype_by_name(dname);
  if (!info) {
    const bool known = std::find(std::begin(kUnsupportedDtypes), std::end(kUnsupportedDtypes), dname) !=
                       std::end(kUnsupportedDtypes);
    EMBER_CHECK(false, "[safetensors] tensor '", name, "': expected one of the dtypes ", supported_list(), "; got '",
                dname, "'", known ? " (a safetensors dtype Ember has no equivalent for)" : " (not a safetensors dtype)");
  }
  e.dtype = info->type;

  const auto& sh = v.at("shape");
  EMBER_CHECK(sh.is_array(), "[safetensors] tensor '", name, "': expected a shape array; got ", describe(sh));
  EMBER_CHECK(sh.size() <= kMaxDims, "[safetensors] tensor '", name, "': expected at most ", kMaxDims,
              " dimensions; got ", sh.size());
  int64_t bound = 1;  // product of max(size, 1): must fit, as contiguous strides do
  uint64_t numel = 1;
  for (const auto& d : sh) {
    EMBER_CHECK(d.is_number_unsigned() && d.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX),
                "[safetensors] tensor '", name, "': expected a shape of non-negative integers; got ", describe(sh));
    const int64_t s = static_cast<int64_t>(d.get<uint64_t>());
    EMBER_CHECK(!__builtin_mul_overflow(bound, std::max<int64_t>(s, 1), &bound), "[safetensors] tensor '", name,
                "': expected a shape whose element count fits in int64; got ", describe(sh));
    numel *= static_cast<uint64_t>(s);  // cannot overflow: bounded by `bound` or zero
    e.shape.push_back(s);
  }

  const auto& off = v.at("data_offsets");
  EMBER_CHECK(off.is_array() && off.size() == 2, "[safetensors] tensor '", name,
              "': expected data_offsets [begin, end]; got ", describe(off));
  e.begin = as_offset(off[0], name);
  e.end = as_offset(off[1], name);
  EMBER_CHECK(e.begin <= e.end, "[safetensors] tensor '", name, "': expected data_offsets begin <= end; got [",
              e.begin, ", ", e.end, "]");
  uint64_t nbytes = 0;
  const size_t item = c10::elementSize(e.dtype);
  EMBER_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(item), &nbytes) && nbytes == e.end - e.begin,
              "[safetensors] tensor '", name, "': expected ", e.end - e.begin, " bytes (data_offsets [", e.begin, ", ",
              e.end, "]) to hold shape ", c10::IntArrayRef(e.shape), " of ", dname, " (", numel, " x ", item,
              " bytes)");
  return e;
}

Header parse_header(const unsigned char* data, size_t size) {
  EMBER_CHECK(size >= 8, "[safetensors] expected at least 8 bytes (the header length); got ", size);
  uint64_t n = 0;
  std::memcpy(&n, data, 8);
  EMBER_CHECK(n <= kMaxHeaderBytes, "[safetensors] expected a header length of at most ", kMaxHeaderBytes,
              " bytes; got ", n);
  EMBER_CHECK(n <= size - 8, "[safetensors] the header length is ", n, " bytes but only ", size - 8,
              " bytes follow it: the file is truncated or not a safetensors file");
  const char* text = reinterpret_cast<const char*>(data + 8);
  // Valid JSON never holds a raw NUL byte, and the JSON library takes one for the end of its input (it
  // would ignore whatever follows), so refuse it here.
  if (const void* nul = std::memchr(text, 0, static_cast<size_t>(n)))
    fail_json("a NUL byte at header offset " + std::to_string(static_cast<const char*>(nul) - text));

  // Reject a key repeated within one object (the JSON library would keep the last one silently).
  std::vector<std::unordered_set<std::string>> open_objects;
  auto on_event = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) {
      open_objects.emplace_back();
    } else if (event == E::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == E::key && !open_objects.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      EMBER_CHECK(open_objects.back().insert(key).second, "[safetensors] expected unique keys in the header; got '",
                  key, "' twice in one object");
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, text + n, on_event, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::exception& e) {
    fail_json(e.what());
  }
  EMBER_CHECK(j.is_object(), "[safetensors] expected the header to be a JSON object; got ", j.type_name());

  Header h;
  h.buffer_start = 8 + static_cast<size_t>(n);
  for (const auto& [key, value] : j.items()) {
    if (key == "__metadata__") {
      EMBER_CHECK(value.is_object(), "[safetensors] expected __metadata__ to be an object of strings; got ",
                  value.type_name());
      for (const auto& [mk, mv] : value.items()) {
        EMBER_CHECK(mv.is_string(), "[safetensors] expected __metadata__ values to be strings; got ", describe(mv),
                    " for '", mk, "'");
        h.metadata.emplace(mk, mv.get<std::string>());
      }
      continue;
    }
    h.entries.push_back(parse_entry(key, value));
  }

  std::sort(h.entries.begin(), h.entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  const uint64_t buffer_size = size - h.buffer_start;
  uint64_t covered = 0;
  const Entry* prev = nullptr;
  for (const auto& e : h.entries) {
    EMBER_CHECK(e.begin <= covered, "[safetensors] expected the tensors' data to tile the buffer; got a gap of ",
                e.begin - covered, " bytes before tensor '", e.name, "' (data_offsets [", e.begin, ", ", e.end, "])");
    EMBER_CHECK(e.begin == covered, "[safetensors] expected the tensors' data not to overlap; got tensor '", e.name,
                "' (data_offsets [", e.begin, ", ", e.end, "]) overlapping '", prev ? prev->name : "", "'");
    covered = e.end;
    if (e.end > e.begin) prev = &e;
  }
  EMBER_CHECK(covered <= buffer_size, "[safetensors] expected the tensors' data to fit in the ", buffer_size,
              " bytes after the header; got data_offsets up to ", covered, ": the file is truncated");
  EMBER_CHECK(covered == buffer_size, "[safetensors] expected the tensors' data to fill the ", buffer_size,
              " bytes after the header; got ", buffer_size - covered, " bytes not covered by any tensor");

  const unsigned char* buffer = data + h.buffer_start;
  for (const auto& e : h.entries) {
    if (e.dtype != c10::kBool) continue;
    for (uint64_t k = e.begin; k < e.end; ++k)
      EMBER_CHECK(buffer[k] <= 1, "[safetensors] tensor '", e.name, "': expected BOOL bytes of 0 or 1; got ",
                  static_cast<int>(buffer[k]), " at element ", k - e.begin);
  }
  return h;
}

// ---------------------------------------------------------------- reading

// Note [safetensors mapping lifetime]
// A file is mapped once, MAP_PRIVATE (writes into a tensor copy the page; the file never changes). Each
// zero-copy tensor gets its own non-resizable storage over its bytes whose DataPtr holds a reference to the
// shared Mapping; the last storage freed unmaps the file. Views share their base's storage, so they keep the
// mapping alive as well.
struct Mapping {
  void* addr = nullptr;
  size_t length = 0;
  ~Mapping() {
    if (addr) ::munmap(addr, length);
  }
};

void release_mapping(void* ctx) { delete static_cast<std::shared_ptr<Mapping>*>(ctx); }

at::Tensor copy_tensor(const Entry& e, const unsigned char* buffer) {
  at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(e.dtype));
  if (e.end > e.begin) std::memcpy(t._mutable_data_ptr_internal(), buffer + e.begin, e.end - e.begin);
  return t;
}

at::Tensor map_tensor(const Entry& e, unsigned char* buffer, const std::shared_ptr<Mapping>& mapping) {
  c10::DataPtr ptr(buffer + e.begin, new std::shared_ptr<Mapping>(mapping), &release_mapping,
                   c10::Device(c10::DeviceType::CPU));
  auto storage = c10::make_intrusive<c10::StorageImpl>(static_cast<size_t>(e.end - e.begin), std::move(ptr),
                                                       c10::GetCPUAllocator(), /*resizable=*/false);
  auto impl = c10::make_intrusive<c10::TensorImpl>(c10::Storage(std::move(storage)), e.dtype);
  impl->set_sizes_contiguous(e.shape);
  return at::Tensor(std::move(impl));
}

TensorDict build(const Header& h, const unsigned char* data, const std::shared_ptr<Mapping>& mapping) {
  TensorDict out("Tensor");
  const unsigned char* buffer = data + h.buffer_start;
  for (const auto& e : h.entries) {
    const auto addr = reinterpret_cast<uintptr_t>(buffer + e.begin);
    const bool zero_copy = mapping && e.end > e.begin && addr % c10::elementSize(e.dtype) == 0;
    out.insert(e.name, zero_copy ? map_tensor(e, const_cast<unsigned char*>(buffer), mapping) : copy_tensor(e, buffer));
  }
  return out;
}

std::shared_ptr<Mapping> map_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, "[safetensors] cannot open '", path, "': ", errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string reason = errno_text();
    ::close(fd);
    EMBER_CHECK(false, "[safetensors] cannot stat '", path, "': ", reason);
  }
  if (!S_ISREG(st.st_mode) || st.st_size < 8) {
    ::close(fd);
    EMBER_CHECK(S_ISREG(st.st_mode), "[safetensors] expected '", path, "' to be a regular file");
    EMBER_CHECK(false, "[safetensors] expected at least 8 bytes (the header length) in '", path, "'; got ",
                st.st_size);
  }
  auto m = std::make_shared<Mapping>();
  m->length = static_cast<size_t>(st.st_size);
  // Private and writable: tensors may be written (copy-on-write pages), the file never is. NORESERVE: only
  // the pages actually written need swap space.
  void* addr = ::mmap(nullptr, m->length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, fd, 0);
  const std::string reason = addr == MAP_FAILED ? errno_text() : "";
  ::close(fd);  // the mapping keeps the file
  EMBER_CHECK(addr != MAP_FAILED, "[safetensors] cannot map '", path, "' (", m->length, " bytes): ", reason);
  m->addr = addr;
  return m;
}

// ---------------------------------------------------------------- writing

struct Prepared {
  std::string header;                                   // length prefix + padded JSON
  std::vector<std::pair<std::string, at::Tensor>> data;  // in file order, contiguous CPU tensors
};

Prepared prepare(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const Metadata& metadata) {
  struct Item {
    const std::string* name;
    at::Tensor t;
    int rank;
  };
  std::vector<Item> items;
  items.reserve(tensors.size());
  std::unordered_set<std::string> seen;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(name != "__metadata__", "[safetensors] expected tensor names other than '__metadata__' (the "
                "header's metadata key); got a tensor named so");
    EMBER_CHECK(seen.insert(name).second, "[safetensors] expected unique tensor names; got '", name, "' twice");
    EMBER_CHECK(t.defined(), "[safetensors] expected defined tensors; got an undefined tensor for '", name, "'");
    EMBER_CHECK(t.dim() <= static_cast<int64_t>(kMaxDims), "[safetensors] tensor '", name, "': expected at most ",
                kMaxDims, " dimensions; got ", t.dim());
    at::Tensor c = t.detach();
    if (!c.device().is_cpu()) c = c.cpu();
    items.push_back({&name, c.contiguous(), dtype_info(c.scalar_type()).rank});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.rank != b.rank ? a.rank > b.rank : *a.name < *b.name;
  });

  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    auto& m = j["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
  }
  Prepared p;
  uint64_t offset = 0;
  for (auto& it : items) {
    const uint64_t nbytes = it.t.nbytes();
    nlohmann::ordered_json e = nlohmann::ordered_json::object();
    e["dtype"] = dtype_info(it.t.scalar_type()).name;
    e["shape"] = nlohmann::ordered_json::array();
    for (int64_t s : it.t.sizes()) e["shape"].push_back(s);
    e["data_offsets"] = {offset, offset + nbytes};
    j[*it.name] = std::move(e);
    offset += nbytes;
    p.data.emplace_back(*it.name, std::move(it.t));
  }
  std::string text;
  try {
    text = j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::ordered_json::error_handler_t::strict);
  } catch (const nlohmann::json::exception& e) {
    EMBER_CHECK(false, "[safetensors] expected tensor names and metadata in valid UTF-8; got an error: ", e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');  // the data buffer starts 8-byte aligned
  EMBER_CHECK(text.size() <= kMaxHeaderBytes, "[safetensors] expected a header of at most ", kMaxHeaderBytes,
              " bytes (readers refuse larger ones); got ", text.size());
  const uint64_t n = text.size();
  p.header.resize(8);
  std::memcpy(p.header.data(), &n, 8);
  p.header += text;
  return p;
}

void write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = ::write(fd, p, std::min<size_t>(n, size_t{1} << 30));
    if (k < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "write");
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

std::vector<std::pair<std::string, at::Tensor>> module_tensors(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& it : module.named_parameters()) out.emplace_back(it.key(), it.value());
  for (const auto& it : module.named_buffers()) out.emplace_back(it.key(), it.value());
  return out;
}

std::string list_names(const std::vector<std::string>& names) {
  std::string s;
  const size_t shown = std::min<size_t>(names.size(), 10);
  for (size_t i = 0; i < shown; ++i) s += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > shown) s += " and " + std::to_string(names.size() - shown) + " more";
  return s;
}

}  // namespace

TensorDict load(const std::string& path, Metadata* metadata) {
  auto mapping = map_file(path);
  auto* data = static_cast<unsigned char*>(mapping->addr);
  Header h = parse_header(data, mapping->length);
  if (metadata) *metadata = h.metadata;
  return build(h, data, mapping);
}

TensorDict load_from_buffer(const void* data, size_t nbytes, Metadata* metadata) {
  EMBER_CHECK(data != nullptr || nbytes == 0, "[safetensors] expected a data pointer for ", nbytes, " bytes; got NULL");
  const auto* bytes = static_cast<const unsigned char*>(data);
  Header h = parse_header(bytes, nbytes);
  if (metadata) *metadata = h.metadata;
  return build(h, bytes, nullptr);
}

Metadata load_metadata(const std::string& path) {
  auto mapping = map_file(path);
  return parse_header(static_cast<const unsigned char*>(mapping->addr), mapping->length).metadata;
}

std::string save_to_buffer(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const Metadata& metadata) {
  Prepared p = prepare(tensors, metadata);
  std::string out = std::move(p.header);
  for (const auto& [_, t] : p.data)
    out.append(static_cast<const char*>(t.const_data_ptr()), t.nbytes());
  return out;
}

void save(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const std::string& path,
          const Metadata& metadata) {
  EMBER_CHECK(!path.empty(), "[safetensors] expected a file name; got an empty string");
  Prepared p = prepare(tensors, metadata);
  // Written next to the target and renamed over it: a reader never sees half a file, and a failure leaves the
  // previous file as it was.
  std::vector<char> tmpl(path.begin(), path.end());
  const std::string suffix = ".tmp-XXXXXX";
  tmpl.insert(tmpl.end(), suffix.begin(), suffix.end());
  tmpl.push_back('\0');
  const int fd = ::mkstemp(tmpl.data());
  EMBER_CHECK(fd >= 0, "[safetensors] cannot create a temporary file next to '", path, "': ", errno_text());
  const std::string tmp(tmpl.data());
  try {
    struct stat st {};
    const mode_t mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
    if (::fchmod(fd, mode) != 0) throw std::system_error(errno, std::generic_category(), "fchmod");
    write_all(fd, p.header.data(), p.header.size());
    for (const auto& [_, t] : p.data) write_all(fd, t.const_data_ptr(), t.nbytes());
    if (::fsync(fd) != 0) throw std::system_error(errno, std::generic_category(), "fsync");
  } catch (const std::system_error& e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    EMBER_CHECK(false, "[safetensors] writing '", path, "' failed (", e.what(), "); the previous file, if any, is unchanged");
  }
  const bool closed = ::close(fd) == 0;
  const std::string close_reason = closed ? "" : errno_text();
  if (!closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = closed ? errno_text() : close_reason;
    ::unlink(tmp.c_str());
    EMBER_CHECK(false, "[safetensors] writing '", path, "' failed (", closed ? "rename" : "close", ": ", reason,
                "); the previous file, if any, is unchanged");
  }
}

void save(const torch::nn::Module& module, const std::string& path, const Metadata& metadata) {
  save(module_tensors(module), path, metadata);
}

void load(torch::nn::Module& module, const std::string& path, bool strict) {
  const TensorDict file = load(path);
  const auto targets = module_tensors(module);
  std::vector<std::string> missing, unexpected;
  std::unordered_set<std::string> wanted;
  for (const auto& [name, t] : targets) {
    wanted.insert(name);
    const at::Tensor* src = file.find(name);
    if (!src) {
      missing.push_back(name);
      continue;
    }
    EMBER_CHECK(src->sizes() == t.sizes(), "[safetensors] '", name, "': expected shape ", t.sizes(),
                " (the module's); got ", src->sizes(), " in '", path, "'");
  }
  for (const auto& it : file)
    if (!wanted.count(it.key())) unexpected.push_back(it.key());
  if (strict) {
    EMBER_CHECK(missing.empty(), "[safetensors] expected '", path, "' to hold every parameter and buffer of the module; ",
                missing.size(), " missing: ", list_names(missing));
    EMBER_CHECK(unexpected.empty(), "[safetensors] expected '", path, "' to hold only the module's parameters and "
                "buffers; ", unexpected.size(), " unexpected: ", list_names(unexpected));
  }
  at::NoGradGuard no_grad;
  for (const auto& [name, t] : targets)
    if (const at::Tensor* src = file.find(name)) t.copy_(*src);
}

}  // namespace torch::safetensors
