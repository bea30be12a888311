#pragma once
// torch::serialize::OutputArchive: a tree of named tensors and nested archives, written to a file or stream
// in Ember's checkpoint format (docs/serialization.md).
//
//   torch::serialize::OutputArchive archive;
//   archive.write("weight", w);
//   torch::serialize::OutputArchive child;  child.write("mean", m, /*is_buffer=*/true);
//   archive.write("norm", child);
//   archive.save_to("model.ember");          // temporary file + fsync + rename
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

namespace torch::serialize {
namespace detail {
struct ArchiveNode;
}  // namespace detail

class OutputArchive {
 public:
  OutputArchive();
  OutputArchive(OutputArchive&&) noexcept;
  OutputArchive& operator=(OutputArchive&&) noexcept;
  // An archive is a handle on its records; copying would make two writers of one tree (libtorch forbids it too).
  OutputArchive(const OutputArchive&) = delete;
  OutputArchive& operator=(const OutputArchive&) = delete;
  ~OutputArchive();

  /// Records `tensor` under `key` (a parameter, or a buffer if `is_buffer`). The tensor's values are read when
  /// the archive is saved; an undefined tensor is recorded as such. A key may be written once.
  void write(const std::string& key, const at::Tensor& tensor, bool is_buffer = false);
  /// Records `nested_archive` (by reference: later writes into it are saved too) under `key`.
  void write(const std::string& key, OutputArchive& nested_archive);

  /// Writes the archive to `filename` through a temporary file in the same directory that is flushed to disk
  /// and then renamed over `filename`, so an existing file is either fully replaced or left untouched.
  void save_to(const std::string& filename);
  /// Writes the archive to `stream`.
  void save_to(std::ostream& stream);
  /// Hands the archive's bytes to `func` (which returns how many it accepted) in one or more pieces.
  void save_to(const std::function<size_t(const void*, size_t)>& func);

  /// Writes each (key, value) pair: archive("w", w, "b", b).
  template <typename... Ts>
  void operator()(Ts&&... ts) {
    write_pairs(std::forward<Ts>(ts)...);
  }

 private:
  void write_pairs() {}
  template <typename K, typename V, typename... Rest>
  void write_pairs(K&& key, V&& value, Rest&&... rest) {
    write(key, std::forward<V>(value));
    write_pairs(std::forward<Rest>(rest)...);
  }

  std::shared_ptr<detail::ArchiveNode> root_;
};

namespace detail {
/// Test hook: the next save_to(filename) throws after writing `bytes` bytes of the temporary file
/// (a negative value turns the fault off). Used to prove an interrupted save keeps the old file.
void set_save_fault_for_testing(int64_t bytes);
}  // namespace detail

}  // namespace torch::serialize

EMBER_PUBLIC_END
