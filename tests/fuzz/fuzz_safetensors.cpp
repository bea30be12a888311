// libFuzzer target for torch::safetensors::load_from_buffer. The first byte picks the input's role:
// even: the rest is the JSON header, framed with its true 8-byte length and followed by 64 bytes of
// tensor data (so the fuzzer explores the header parser and the format's rules: offsets that tile
// the buffer, dtype/shape agreement, duplicate keys, "__metadata__"); odd: the rest is the whole
// file. Every outcome must be a dictionary or a c10::Error starting "[safetensors] "; anything else
// (a crash, a sanitizer report, another exception, an unprefixed message) is a finding. A loaded
// dictionary is saved again and reloaded, and must come back with the same names, dtypes, shapes,
// bytes and metadata.
//
// Build and run: tools/fuzz-safetensors; corpus: tests/fuzz/safetensors_corpus.
#include <torch/safetensors.h>
#include <torch/torch.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

bool same_tensor(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  if (a.numel() == 0) return true;  // (an empty tensor's data pointer may be null)
  const at::Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.numel() * x.element_size()) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes;
  const char* rest = reinterpret_cast<const char*>(data) + 1;
  if (data[0] % 2 == 0) {
    const uint64_t n = size - 1;
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
    bytes.append(rest, size - 1);
    for (int i = 0; i < 64; ++i) bytes.push_back(static_cast<char>(i * 37 + 11));
  } else {
    bytes.assign(rest, size - 1);
  }
  torch::safetensors::TensorDict loaded;
  torch::safetensors::Metadata meta;
  try {
    loaded = torch::safetensors::load_from_buffer(bytes.data(), bytes.size(), &meta);
  } catch (const c10::Error& e) {
    if (std::string(e.what()).rfind("[safetensors] ", 0) != 0) finding("unprefixed error", e.what());
    return 0;
  } catch (const std::exception& e) {
    finding("exception other than c10::Error", e.what());
  }
  std::vector<std::pair<std::string, at::Tensor>> pairs;
  for (const auto& item : loaded) pairs.emplace_back(item.key(), item.value());
  try {
    const std::string again = torch::safetensors::save_to_buffer(pairs, meta);
    torch::safetensors::Metadata meta2;
    const auto back = torch::safetensors::load_from_buffer(again.data(), again.size(), &meta2);
    if (back.size() != loaded.size() || meta2 != meta) finding("round trip", "count or metadata changed");
    for (const auto& item : loaded) {
      const at::Tensor* t = back.find(item.key());
      if (!t || !same_tensor(*t, item.value())) finding("round trip changed a tensor", item.key());
    }
  } catch (const c10::Error& e) {
    finding("saving and reloading a loaded file failed", e.what());
  }
  return 0;
}
