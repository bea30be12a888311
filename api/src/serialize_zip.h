#pragma once
// The zip container of PyTorch checkpoints (internal to api/src): stored (uncompressed) records whose
// data starts on a 64-byte boundary, zip64 when sizes or offsets pass 4 GiB. See Note [Checkpoint zip].
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torch::serialize::zip {

/// One record of an archive: where its bytes lie in the buffer.
struct Record {
  std::string name;
  uint64_t data_offset = 0;
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

/// Reads the central directory of an archive held in memory. Every record is checked to lie inside the
/// buffer, be stored uncompressed, unencrypted and named as in its local header; errors start with `prefix`.
class Reader {
 public:
  Reader(const char* data, size_t size, std::string prefix);
  Reader(const Reader&) = delete;  // index_ points into records_
  Reader& operator=(const Reader&) = delete;
  const std::vector<Record>& records() const { return records_; }
  /// The record named `name`, or nullptr.
  const Record* find(std::string_view name) const;
  /// The bytes of `r`, after checking their CRC-32.
  std::string_view read(const Record& r) const;

 private:
  const char* data_;
  size_t size_;
  std::string prefix_;
  std::vector<Record> records_;
  std::unordered_map<std::string_view, size_t> index_;  // name -> position in records_
};

/// Builds an archive in memory, record after record.
class Writer {
 public:
  /// Appends a record; its data starts at a multiple of 64 bytes from the start of the archive.
  void add(const std::string& name, const void* data, size_t size);
  /// Writes the central directory and returns the archive.
  std::vector<char> finish();

 private:
  struct Entry {
    std::string name;
    uint64_t header_offset, size;
    uint32_t crc32;
  };
  std::vector<char> out_;
  std::vector<Entry> entries_;
};

}  // namespace torch::serialize::zip
