// Linked in builds without CUDA: the CUDA runtime queries answer "no device".
#include <cstdint>

namespace ember::cuda {
/// Number of CUDA devices visible to Ember (always 0 in a build without CUDA).
int64_t device_count() { return 0; }
bool is_available() { return false; }
}  // namespace ember::cuda
