// Linked in builds without CUDA: the CUDA runtime queries answer "no device".
#include <torch/cuda.h>
#include <c10/util/Exception.h>

namespace ember::cuda {
int64_t device_count() { return 0; }
bool is_available() { return false; }
void synchronize(int64_t) { throw c10::Error("[cuda.synchronize] Ember was built without CUDA"); }
void empty_cache() {}
size_t memory_allocated(int64_t) { return 0; }
size_t memory_reserved(int64_t) { return 0; }
}  // namespace ember::cuda
