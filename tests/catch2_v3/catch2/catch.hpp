// The tests are written against Catch2 v2's single header (Debian 12's catch2 2.13). Where the
// build finds Catch2 v3 instead (Debian 13 ships 3.x), tests/CMakeLists.txt puts this directory
// first on ember_tests' include path, so `#include <catch2/catch.hpp>` lands here and gets v3
// with the few v2 names the tests use:
//   - Approx at global scope (v3: Catch::Approx);
//   - Catch::Contains / Catch::StartsWith and Catch::Matchers::Contains for substrings (v3 renamed
//     the substring matcher ContainsSubstring and gave the name Contains to a range matcher).
// The Contains overloads below are chosen over v3's range template for every string argument: they
// are non-templates matching as well as its forwarding reference (a literal decays to const char*,
// an exact match; std::string as a const or non-const lvalue or as an rvalue).
#pragma once
#include <catch2/catch_all.hpp>
#include <string>

namespace Catch::Matchers {
inline StringContainsMatcher Contains(const std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(std::string&& s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(const char* s, CaseSensitive cs = CaseSensitive::Yes) {
  return ContainsSubstring(std::string(s), cs);
}
}  // namespace Catch::Matchers

namespace Catch {
using Matchers::Contains;
using Matchers::StartsWith;
}  // namespace Catch

using Catch::Approx;
