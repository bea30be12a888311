#pragma once
// torch::safetensors: read and write Hugging Face's safetensors files (docs/embedding.md). libtorch has
// no C++ API for them; these names are Ember's own.
//
//   auto tensors = torch::safetensors::load("model.safetensors");   // memory-mapped, zero-copy when aligned
//   torch::safetensors::save(tensors, "copy.safetensors", {{"format", "pt"}});
//   torch::safetensors::load(*model, "model.safetensors");          // into parameters and buffers
//
// Every error is a c10::Error whose message starts with "[safetensors]".
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/ordered_dict.h>

#include <concepts>
#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torch::safetensors {

/// Tensors by name, in the order a file stores them (ascending data offset).
using TensorDict = torch::OrderedDict<std::string, at::Tensor>;
/// The free-form string map under the header's "__metadata__" key.
using Metadata = std::map<std::string, std::string>;

/// Reads a safetensors file. Tensors whose bytes are aligned for their dtype share a private (copy-on-write)
/// mapping of the file: no copy, and writes into them never reach the file; the others are copied. The mapping
/// lives until the last tensor or view on it is freed. If `metadata` is given, it receives "__metadata__".
TensorDict load(const std::string& path, Metadata* metadata = nullptr);

/// Reads a safetensors file held in memory (the whole file, header included); the tensors are copies.
TensorDict load_from_buffer(const void* data, size_t nbytes, Metadata* metadata = nullptr);

/// Checks a file's header and returns its "__metadata__" without reading any tensor.
Metadata load_metadata(const std::string& path);

/// Writes `tensors` (any device; non-contiguous ones are written as their contiguous copies) to `path`,
/// through a temporary file renamed over `path`. Names must be unique and not "__metadata__". The file
/// orders tensors as the format's reference writer does (larger elements first, then by name), so each is
/// aligned for its dtype and loads without a copy.
void save(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const std::string& path,
          const Metadata& metadata = {});

/// The bytes save() would write.
std::string save_to_buffer(const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                           const Metadata& metadata = {});

namespace detail {
template <typename Dict>
concept NamedTensors = std::same_as<Dict, TensorDict> ||
                       std::same_as<Dict, std::unordered_map<std::string, at::Tensor>> ||
                       std::same_as<Dict, std::map<std::string, at::Tensor>>;

template <NamedTensors Dict>
std::vector<std::pair<std::string, at::Tensor>> to_pairs(const Dict& tensors) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  out.reserve(tensors.size());
  if constexpr (std::same_as<Dict, TensorDict>) {
    for (const auto& it : tensors) out.emplace_back(it.key(), it.value());
  } else {
    for (const auto& [name, t] : tensors) out.emplace_back(name, t);
  }
  return out;
}
}  // namespace detail

/// save() and save_to_buffer() of a TensorDict (what load() returns), std::unordered_map or std::map.
/// (Templates, so that a braced list {{"name", t}, ...} picks the vector overload unambiguously.)
template <detail::NamedTensors Dict>
void save(const Dict& tensors, const std::string& path, const Metadata& metadata = {}) {
  save(detail::to_pairs(tensors), path, metadata);
}
template <detail::NamedTensors Dict>
std::string save_to_buffer(const Dict& tensors, const Metadata& metadata = {}) {
  return save_to_buffer(detail::to_pairs(tensors), metadata);
}

/// Writes a module's named_parameters() and named_buffers() (the names libtorch and PyTorch give them).
void save(const torch::nn::Module& module, const std::string& path, const Metadata& metadata = {});

/// Copies a file's tensors into a module's parameters and buffers of the same names. Every name, shape and
/// dtype is checked before anything is copied; with `strict`, the file must hold exactly the module's names
/// (otherwise names missing on either side are skipped). Values are converted to each parameter's dtype and
/// device, as PyTorch's load_state_dict does.
void load(torch::nn::Module& module, const std::string& path, bool strict = true);

template <typename ModuleType>
void save(const torch::nn::ModuleHolder<ModuleType>& module, const std::string& path, const Metadata& metadata = {}) {
  save(*module.ptr(), path, metadata);
}
template <typename ModuleType>
void load(torch::nn::ModuleHolder<ModuleType>& module, const std::string& path, bool strict = true) {
  load(*module.ptr(), path, strict);
}

}  // namespace torch::safetensors

EMBER_PUBLIC_END
