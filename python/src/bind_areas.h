// The areas of ember._C bound outside module.cpp, one file each; NB_MODULE (module.cpp) calls them
// after the Tensor type and the generated bindings are registered, so an area may use both.
#pragma once
#include <nanobind/nanobind.h>

#include <ATen/ATen.h>

namespace ember::python {
void bind_autograd(nanobind::module_& m);  // autograd.cpp: hooks, autograd.Function, grad_fn
void bind_interop(nanobind::module_& m);   // interop.cpp: DLPack, NumPy, buffer protocol, save/load
// autograd.cpp, for Tensor's tp_traverse/tp_clear (Note [Tensor GC]): visits / drops the Python
// objects (hook callables, a Function node's ctx and class) this tensor solely owns through C++.
int traverse_tensor_refs(const at::Tensor& t, visitproc visit, void* arg);
void clear_tensor_refs(const at::Tensor& t);
}  // namespace ember::python
