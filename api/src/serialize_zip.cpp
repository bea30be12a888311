// The zip container of PyTorch checkpoints.
//
// Note [Checkpoint zip]
// torch.save and libtorch's pickle_save write a plain zip archive: every record stored (method 0), its data
// aligned to 64 bytes by padding the local header's extra field (an extra block of id "FB" filled with 'Z'),
// the sizes and CRC-32 sometimes only in the central directory (flag bit 3, data descriptor after the data).
// So the reader trusts the central directory, and uses a local header only to find where the data starts
// (its name and extra lengths), after checking that its name is the record's. Every length and offset is
// checked against the buffer before use; entry counts are checked against the directory's size before
// anything is reserved, so no input makes the reader allocate more than a small multiple of its size.
#include "serialize_zip.h"

#include <c10/util/Exception.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace torch::serialize::zip {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr size_t kLocalSize = 30, kCentralSize = 46, kEndSize = 22, kEnd64Size = 56, kLocator64Size = 20;
constexpr uint64_t kAlign = 64;

uint64_t get_le(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void put_le(std::vector<char>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t crc_of(const void* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (size > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, p, chunk);
    p += chunk;
    size -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

Reader::Reader(const char* data, size_t size, std::string prefix) : data_(data), size_(size), prefix_(std::move(prefix)) {
  const std::string& P = prefix_;
  EMBER_CHECK(size >= kEndSize, P, "expected a zip archive of at least ", kEndSize, " bytes; got ", size, " bytes");
  // The end-of-directory record: the last one, followed by a comment of at most 65535 bytes.
  size_t end = size;  // not found
  const size_t lowest = size - kEndSize > 65535 ? size - kEndSize - 65535 : 0;
  for (size_t pos = size - kEndSize + 1; pos-- > lowest;) {
    if (get_le(data + pos, 4) == kEndSig && pos + kEndSize + get_le(data + pos + 20, 2) == size) {
      end = pos;
      break;
    }
  }
  EMBER_CHECK(end != size, P, "expected a zip archive (an end-of-central-directory record); found none in ", size,
              " bytes");
  const char* e = data + end;
  uint64_t count = get_le(e + 10, 2), dir_size = get_le(e + 12, 4), dir_offset = get_le(e + 16, 4);
  EMBER_CHECK(get_le(e + 4, 2) == 0 && get_le(e + 6, 2) == 0, P, "expected a single-disk zip archive");
  if (count == 0xffff || dir_size == 0xffffffffu || dir_offset == 0xffffffffu) {
    EMBER_CHECK(end >= kLocator64Size && get_le(e - kLocator64Size, 4) == kLocator64Sig, P,
                "expected a zip64 locator before the end-of-central-directory record at ", end);
    const uint64_t at = get_le(e - kLocator64Size + 8, 8);
    EMBER_CHECK(at <= end - kLocator64Size && end - kLocator64Size - at >= kEnd64Size, P,
                "expected the zip64 end record inside the archive; its offset is ", at);
    const char* z = data + at;
    EMBER_CHECK(get_le(z, 4) == kEnd64Sig, P, "expected a zip64 end record at offset ", at);
    count = get_le(z + 32, 8);
    dir_size = get_le(z + 40, 8);
    dir_offset = get_le(z + 48, 8);
    end = at;
  }
  EMBER_CHECK(dir_offset <= end && dir_size <= end - dir_offset, P, "expected the central directory (offset ",
              dir_offset, ", ", dir_size, " bytes) to lie before its end record at ", end);
  EMBER_CHECK(count <= dir_size / kCentralSize, P, "expected at most ", dir_size / kCentralSize,
              " entries in a central directory of ", dir_size, " bytes; it claims ", count);
  records_.reserve(count);
  uint64_t pos = dir_offset;
  const uint64_t dir_end = dir_offset + dir_size;
  for (uint64_t i = 0; i < count; ++i) {
    EMBER_CHECK(dir_end - pos >= kCentralSize && get_le(data + pos, 4) == kCentralSig, P,
                "expected central directory entry ", i, " at offset ", pos);
    const char* c = data + pos;
    const uint64_t flags = get_le(c + 8, 2), method = get_le(c + 10, 2);
    Record r;
    r.crc32 = static_cast<uint32_t>(get_le(c + 16, 4));
    uint64_t csize = get_le(c + 20, 4), usize = get_le(c + 24, 4), local = get_le(c + 42, 4);
    const uint64_t name_len = get_le(c + 28, 2), extra_len = get_le(c + 30, 2), comment_len = get_le(c + 32, 2);
    EMBER_CHECK(dir_end - pos - kCentralSize >= name_len + extra_len + comment_len, P, "expected central directory entry ",
                i, " to fit in the directory");
    r.name.assign(c + kCentralSize, name_len);
    // zip64 sizes and offset: present, in this order, for each field that holds 0xffffffff.
    const char* x = c + kCentralSize + name_len;
    const char* x_end = x + extra_len;
    while (x_end - x >= 4) {
      const uint64_t id = get_le(x, 2), len = get_le(x + 2, 2);
      EMBER_CHECK(static_cast<uint64_t>(x_end - x - 4) >= len, P, "expected the extra fields of record '", r.name,
                  "' to fit in their length");
      if (id == 1) {
        const char* f = x + 4;
        const char* f_end = f + len;
        for (uint64_t* field : {&usize, &csize, &local}) {
          if (*field != 0xffffffffu) continue;
          EMBER_CHECK(f_end - f >= 8, P, "expected a 64-bit size or offset in the zip64 field of record '", r.name, "'");
          *field = get_le(f, 8);
          f += 8;
        }
      }
      x += 4 + len;
    }
    EMBER_CHECK((flags & 1) == 0, P, "expected unencrypted records; '", r.name, "' is encrypted");
    EMBER_CHECK(method == 0, P, "expected stored (uncompressed) records, as torch.save writes; '", r.name,
                "' uses compression method ", method);
    EMBER_CHECK(csize == usize, P, "expected record '", r.name, "' to have equal stored and original sizes; got ",
                csize, " and ", usize);
    EMBER_CHECK(local <= size && size - local >= kLocalSize && get_le(data + local, 4) == kLocalSig, P,
                "expected the local header of record '", r.name, "' at offset ", local);
    const char* l = data + local;
    const uint64_t lname = get_le(l + 26, 2), lextra = get_le(l + 28, 2);
    EMBER_CHECK(size - local - kLocalSize >= lname + lextra, P, "expected the local header of record '", r.name,
                "' to fit in the archive");
    EMBER_CHECK(std::string_view(l + kLocalSize, lname) == r.name, P, "expected the local header at offset ", local,
                " to name '", r.name, "'; it names '", std::string_view(l + kLocalSize, lname), "'");
    r.data_offset = local + kLocalSize + lname + lextra;
    r.size = usize;
    EMBER_CHECK(r.data_offset <= size && r.size <= size - r.data_offset, P, "expected the ", r.size,
                " bytes of record '", r.name, "' at offset ", r.data_offset, " inside the archive of ", size, " bytes");
    pos += kCentralSize + name_len + extra_len + comment_len;
    records_.push_back(std::move(r));
  }
  for (size_t i = 0; i < records_.size(); ++i)
    EMBER_CHECK(index_.emplace(records_[i].name, i).second, P, "expected unique record names; '", records_[i].name,
                "' appears twice");
}

const Record* Reader::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &records_[it->second];
}

std::string_view Reader::read(const Record& r) const {
  const char* p = data_ + r.data_offset;
  const uint32_t crc = crc_of(p, r.size);
  EMBER_CHECK(crc == r.crc32, prefix_, "expected CRC-32 ", r.crc32, " for record '", r.name, "'; its bytes give ", crc);
  return {p, static_cast<size_t>(r.size)};
}

void Writer::add(const std::string& name, const void* data, size_t size) {
  EMBER_INTERNAL_ASSERT(name.size() < 0xffff, "record name too long");
  const uint64_t offset = out_.size();
  const bool z64 = size >= 0xffffffffu || offset >= 0xffffffffu;
  const uint32_t crc = crc_of(data, size);
  put_le(out_, kLocalSig, 4);
  put_le(out_, z64 ? 45 : 20, 2);  // version needed
  put_le(out_, 0x800, 2);          // flags: UTF-8 names
  put_le(out_, 0, 2);              // stored
  put_le(out_, 0, 2);              // time
  put_le(out_, 0x21, 2);           // date: 1980-01-01
  put_le(out_, crc, 4);
  put_le(out_, z64 ? 0xffffffffu : size, 4);
  put_le(out_, z64 ? 0xffffffffu : size, 4);
  put_le(out_, name.size(), 2);
  const uint64_t fixed = kLocalSize + name.size() + (z64 ? 20 : 0) + 4;  // + the padding block's header
  const uint64_t pad = (kAlign - (offset + fixed) % kAlign) % kAlign;
  put_le(out_, (z64 ? 20 : 0) + 4 + pad, 2);
  out_.insert(out_.end(), name.begin(), name.end());
  if (z64) {
    put_le(out_, 1, 2);
    put_le(out_, 16, 2);
    put_le(out_, size, 8);
    put_le(out_, size, 8);
  }
  put_le(out_, 0x4246, 2);  // "FB": padding
  put_le(out_, pad, 2);
  out_.insert(out_.end(), pad, 'Z');
  const char* p = static_cast<const char*>(data);
  if (size > 0) out_.insert(out_.end(), p, p + size);
  entries_.push_back({name, offset, size, crc});
}

std::vector<char> Writer::finish() {
  const uint64_t dir_offset = out_.size();
  for (const auto& e : entries_) {
    const bool z64 = e.size >= 0xffffffffu || e.header_offset >= 0xffffffffu;
    put_le(out_, kCentralSig, 4);
    put_le(out_, z64 ? 45 : 20, 2);  // made by
    put_le(out_, z64 ? 45 : 20, 2);  // needed
    put_le(out_, 0x800, 2);
    put_le(out_, 0, 2);
    put_le(out_, 0, 2);
    put_le(out_, 0x21, 2);
    put_le(out_, e.crc32, 4);
    put_le(out_, z64 ? 0xffffffffu : e.size, 4);
    put_le(out_, z64 ? 0xffffffffu : e.size, 4);
    put_le(out_, e.name.size(), 2);
    put_le(out_, z64 ? 28 : 0, 2);  // extra
    put_le(out_, 0, 2);             // comment
    put_le(out_, 0, 2);             // disk
    put_le(out_, 0, 2);             // internal attributes
    put_le(out_, 0, 4);             // external attributes
    put_le(out_, z64 ? 0xffffffffu : e.header_offset, 4);
    out_.insert(out_.end(), e.name.begin(), e.name.end());
    if (z64) {
      put_le(out_, 1, 2);
      put_le(out_, 24, 2);
      put_le(out_, e.size, 8);
      put_le(out_, e.size, 8);
      put_le(out_, e.header_offset, 8);
    }
  }
  const uint64_t dir_size = out_.size() - dir_offset, count = entries_.size();
  const bool z64 = count >= 0xffff || dir_size >= 0xffffffffu || dir_offset >= 0xffffffffu;
  if (z64) {
    const uint64_t end64 = out_.size();
    put_le(out_, kEnd64Sig, 4);
    put_le(out_, kEnd64Size - 12, 8);
    put_le(out_, 45, 2);
    put_le(out_, 45, 2);
    put_le(out_, 0, 4);
    put_le(out_, 0, 4);
    put_le(out_, count, 8);
    put_le(out_, count, 8);
    put_le(out_, dir_size, 8);
    put_le(out_, dir_offset, 8);
    put_le(out_, kLocator64Sig, 4);
    put_le(out_, 0, 4);
    put_le(out_, end64, 8);
    put_le(out_, 1, 4);
  }
  put_le(out_, kEndSig, 4);
  put_le(out_, 0, 2);
  put_le(out_, 0, 2);
  put_le(out_, z64 ? 0xffff : count, 2);
  put_le(out_, z64 ? 0xffff : count, 2);
  put_le(out_, z64 ? 0xffffffffu : dir_size, 4);
  put_le(out_, z64 ? 0xffffffffu : dir_offset, 4);
  put_le(out_, 0, 2);
  return std::move(out_);
}

}  // namespace torch::serialize::zip
