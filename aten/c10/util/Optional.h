#pragma once
// c10::optional and friends: libtorch keeps these names as aliases of the standard ones, and
// programs written against older libtorch still spell them (c10::nullopt, c10::make_optional).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <optional>

namespace c10 {
using std::bad_optional_access;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using std::optional;
}  // namespace c10

EMBER_PUBLIC_END
