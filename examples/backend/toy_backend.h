#pragma once
// A toy device for Ember, built as its own shared library against the installed headers: the way
// another framework plugs its device in (docs/embedding.md, "Adding a backend"). Its memory is host
// memory from its own allocator, tagged so that a kernel handed memory that is not a live toy block
// notices. Loading the library names the device "toy" and registers the allocator, copy_, the
// empty factories and add, mul, relu and mm (float32); every other op runs through Ember's CPU
// fallback.
#include <cstdint>

namespace toy {

/// The allocator's counters.
struct Stats {
  int64_t live_bytes;    // bytes allocated and not yet freed
  int64_t live_blocks;
  int64_t total_blocks;  // allocations since load
  int64_t bad_frees;     // deleter calls on a block that was not live (must stay 0)
};
Stats stats();

/// How many times a toy kernel ran: "add", "mul", "relu", "mm", "copy_", "empty", "empty_strided".
int64_t kernel_calls(const char* op);

}  // namespace toy
