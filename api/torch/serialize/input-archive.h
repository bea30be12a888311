#pragma once
// torch::serialize::InputArchive: an archive read back from a file or stream. load_from reads and checks the
// whole file (header, checksum, every record) before anything is returned, so a corrupt file raises c10::Error
// and never yields part of an archive (docs/serialization.md).
//
//   torch::serialize::InputArchive archive;
//   archive.load_from("model.ember");
//   torch::Tensor w;  archive.read("weight", w);
//   torch::serialize::InputArchive child;  archive.read("norm", child);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torch::serialize {
namespace detail {
struct ArchiveNode;
}  // namespace detail

class InputArchive {
 public:
  InputArchive();
  InputArchive(InputArchive&&) noexcept;
  InputArchive& operator=(InputArchive&&) noexcept;
  InputArchive(const InputArchive&) = delete;
  InputArchive& operator=(const InputArchive&) = delete;
  ~InputArchive();

  /// Reads the tensor stored under `key`, which must have been written as a buffer iff `is_buffer`.
  /// An undefined `tensor` becomes the stored tensor; a defined one must have the stored shape and receives the
  /// values in place (converted to its dtype, on its device, without recording autograd history).
  /// Returns false if there is no such key.
  bool try_read(const std::string& key, at::Tensor& tensor, bool is_buffer = false);
  /// try_read, but a missing key raises.
  void read(const std::string& key, at::Tensor& tensor, bool is_buffer = false);
  /// Makes `archive` the nested archive stored under `key`; returns false if there is none.
  bool try_read(const std::string& key, InputArchive& archive);
  /// try_read, but a missing key raises.
  void read(const std::string& key, InputArchive& archive);

  /// Reads and checks the file `filename`; tensors are placed on `device` (default: the CPU).
  void load_from(const std::string& filename, std::optional<c10::Device> device = std::nullopt);
  /// Reads and checks a whole archive from `stream` (up to its end).
  void load_from(std::istream& stream, std::optional<c10::Device> device = std::nullopt);
  /// Reads and checks an archive held in memory.
  void load_from(const char* data, size_t size, std::optional<c10::Device> device = std::nullopt);

  /// The keys of this archive's records (tensors and nested archives), in the order they were written.
  std::vector<std::string> keys();

  /// Where this archive sits in the file: "" for the root, "layer1.norm" for a nested one (used in messages).
  const std::string& path() const noexcept { return path_; }

 private:
  std::shared_ptr<detail::ArchiveNode> root_;
  std::string path_;
};

}  // namespace torch::serialize

EMBER_PUBLIC_END
