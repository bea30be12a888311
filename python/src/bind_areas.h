// The areas of ember._C bound outside module.cpp, one file each; NB_MODULE (module.cpp) calls them
// after the Tensor type and the generated bindings are registered, so an area may use both.
#pragma once
#include <nanobind/nanobind.h>

namespace ember::python {
void bind_autograd(nanobind::module_& m);  // autograd.cpp: hooks, autograd.Function, grad_fn
void bind_interop(nanobind::module_& m);   // interop.cpp: DLPack, NumPy, buffer protocol, save/load
}  // namespace ember::python
