#pragma once
// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw ("Parallel random
// numbers: as easy as 1, 2, 3", SC'11). A block of four 32-bit words is a pure function of a
// 128-bit counter and a 64-bit key, so any thread can compute any part of a stream directly:
// the CUDA random kernels give element i the block (i / 4 .., call offset) of a per-call
// (seed, offset), which makes results depend on the seed only, never on the launch geometry.
// Plain C++ with EMBER_HOST_DEVICE: the same function runs on the host (tests check it against
// the published known-answer vectors) and in device code.
//
//   ember::philox::Block b = ember::philox::block(seed, offset, i);  // b.x[0..3]
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Half.h>  // EMBER_HOST_DEVICE
#include <cstdint>

namespace ember::philox {

/// Four 32-bit words: a counter going in, random bits coming out.
struct Block {
  uint32_t x[4];
};

/// The state one random op reserves from a generator: the key and the counter's high half.
struct State {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;    // round multipliers
constexpr uint32_t kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;  // key schedule (golden ratio, sqrt(3)-1)

EMBER_HOST_DEVICE inline void mul_hi_lo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

/// Philox4x32 with 10 rounds: encrypts counter `c` under the key (k0, k1).
EMBER_HOST_DEVICE inline Block philox4x32_10(Block c, uint32_t k0, uint32_t k1) {
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kBump0;
      k1 += kBump1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    mul_hi_lo(kMul0, c.x[0], hi0, lo0);
    mul_hi_lo(kMul1, c.x[2], hi1, lo1);
    const Block n = {{hi1 ^ c.x[1] ^ k0, lo1, hi0 ^ c.x[3] ^ k1, lo0}};
    c = n;
  }
  return c;
}

/// Block number `index` of the stream (seed, offset): counter (index, offset), key seed.
EMBER_HOST_DEVICE inline Block block(uint64_t seed, uint64_t offset, uint64_t index) {
  const Block c = {{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), static_cast<uint32_t>(offset),
                    static_cast<uint32_t>(offset >> 32)}};
  return philox4x32_10(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

}  // namespace ember::philox

EMBER_PUBLIC_END
