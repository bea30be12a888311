// The process-wide at::Context (see ATen/Context.h).
#include <ATen/Context.h>

namespace at {

Context& globalContext() {
  static Context ctx;
  return ctx;
}

}  // namespace at
