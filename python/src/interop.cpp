// See bind_areas.h.
#include "bind_areas.h"

namespace nb = nanobind;

namespace ember::python {
void bind_interop(nb::module_& m) { (void)m; }
}  // namespace ember::python
