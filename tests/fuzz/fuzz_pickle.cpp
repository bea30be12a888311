// libFuzzer target for torch::pickle_load (PyTorch checkpoints). The first byte picks the input's role:
// even: the rest is data.pkl, placed in a valid zip archive next to storage records "0" (16 bytes), "1"
// (8 bytes) and "2" (0 bytes), so the fuzzer explores the unpickler without having to forge CRCs; odd: the
// rest is the whole archive. Every outcome must be a value or a c10::Error starting "[pickle_load] ";
// anything else (a crash, a sanitizer report, another exception, an unprefixed message) is a finding.
// A loaded value is saved again and reloaded: the writer must accept whatever the reader produced.
//
// Build and run: tools/fuzz-pickle; corpus: tests/fuzz/pickle_corpus (data.pkl of the reference files).
#include <torch/serialize/pickle.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {

uint32_t crc32_of(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

std::string le(uint64_t v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return s;
}

std::vector<char> zip_of(const std::vector<std::pair<std::string, std::string>>& records) {
  std::string out, dir;
  for (const auto& [name, data] : records) {
    const std::string common = le(0, 2) + le(0, 2) + le(0, 2) + le(0x21, 2) + le(crc32_of(data), 4) +
                               le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2);
    dir += le(0x02014b50u, 4) + le(20, 2) + le(20, 2) + common + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
           le(out.size(), 4) + name;
    out += le(0x04034b50u, 4) + le(20, 2) + common + name + data;
  }
  const size_t dir_offset = out.size();
  out += dir + le(0x06054b50u, 4) + le(0, 2) + le(0, 2) + le(records.size(), 2) + le(records.size(), 2) +
         le(dir.size(), 4) + le(dir_offset, 4) + le(0, 2);
  return std::vector<char>(out.begin(), out.end());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<char> bytes;
  if (data[0] % 2 == 0) {
    bytes = zip_of({{"archive/data.pkl", rest},
                    {"archive/data/0", std::string("\x00\x00\x80\x3f\x00\x00\x00\x40\x01\x00\x00\x00\x00\x00\x00\x00", 16)},
                    {"archive/data/1", std::string("\x01\x00\x01\x00\x00\x00\x00\x00", 8)},
                    {"archive/data/2", std::string()}});
  } else {
    bytes.assign(rest.begin(), rest.end());
  }
  try {
    c10::IValue v = torch::pickle_load(bytes);
    try {
      torch::pickle_load(torch::pickle_save(v));
    } catch (const c10::Error& e) {
      std::fprintf(stderr, "reloading a saved value failed: %s\n", e.what());
      std::abort();
    }
  } catch (const c10::Error& e) {
    if (std::string(e.what()).rfind("[pickle_load] ", 0) != 0) {
      std::fprintf(stderr, "unprefixed error: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
