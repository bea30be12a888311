#pragma once
// Registering kernels for a dispatch key at load time, the way an out-of-tree backend does
// (libtorch's TORCH_LIBRARY_IMPL in miniature; docs/embedding.md "Adding a backend"):
//
//   EMBER_LIBRARY_IMPL(PrivateUse1, m) {
//     m.impl<at::ops::add_Tensor>(&my_add);   // the kernel's type is checked against the schema
//     m.impl<at::ops::copy_>(&my_copy);
//   }
//
// The block runs when the shared library that contains it is loaded (a static initializer).
// Ops are named by their at::ops:: descriptor (`add.Tensor` -> at::ops::add_Tensor), so a kernel
// with the wrong signature does not compile, instead of failing at the first call.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/Functions.h>
#include <ATen/core/Dispatcher.h>

namespace ember {

/// The registrations of one block of EMBER_LIBRARY_IMPL: every impl() targets its key.
class Library {
 public:
  explicit Library(c10::DispatchKey key) : key_(key) {}
  /// Installs `fn` as Op's kernel for this key (replacing what was there, a CPU fallback included).
  template <typename Op>
  Library& impl(typename Op::schema* fn) {
    register_kernel<Op>(key_, fn);
    return *this;
  }
  c10::DispatchKey key() const { return key_; }

 private:
  c10::DispatchKey key_;
};

namespace detail {
struct LibraryInit {
  LibraryInit(c10::DispatchKey key, void (*fn)(Library&)) {
    Library lib(key);
    fn(lib);
  }
};
}  // namespace detail

}  // namespace ember

#define EMBER_LIBRARY_IMPL_CAT2(a, b) a##b
#define EMBER_LIBRARY_IMPL_CAT(a, b) EMBER_LIBRARY_IMPL_CAT2(a, b)
/// Defines a block of registrations for `c10::DispatchKey::key` that runs at load time; `m` names
/// the ember::Library inside it. May appear several times in a program (one per source line).
#define EMBER_LIBRARY_IMPL(key, m)                                                                      \
  static void EMBER_LIBRARY_IMPL_CAT(ember_library_impl_, __LINE__)(::ember::Library&);                \
  static const ::ember::detail::LibraryInit EMBER_LIBRARY_IMPL_CAT(ember_library_init_, __LINE__)(      \
      ::c10::DispatchKey::key, &EMBER_LIBRARY_IMPL_CAT(ember_library_impl_, __LINE__));                 \
  static void EMBER_LIBRARY_IMPL_CAT(ember_library_impl_, __LINE__)(::ember::Library & m)

EMBER_PUBLIC_END
