#pragma once
// cpu_pointwise: runs a functor over a built TensorIter. Three inner loops, chosen per call:
//   1. contiguous (or scalar-broadcast) float/double operands and a functor that accepts Vec:
//      explicit SIMD with SLEEF math;
//   2. contiguous operands: a plain indexed loop the compiler auto-vectorises;
//   3. anything else: the strided loop.
// Inputs are converted to opmath (float for Half/BFloat16) before the functor, the result is
// converted once on store.
#include <ATen/ATen.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/cpu/Vec.h>
#include <utility>

namespace ember {

namespace detail {

template <typename T>
inline T load(const char* p) { return *reinterpret_cast<const T*>(p); }

template <typename scalar_t, typename out_t, typename F, size_t... I>
inline void strided_loop(char** data, const int64_t* s, int64_t n, const F& f, std::index_sequence<I...>) {
  using op_t = c10::opmath_t<scalar_t>;
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<out_t*>(data[0] + i * s[0]) =
        static_cast<out_t>(f(static_cast<op_t>(load<scalar_t>(data[I + 1] + i * s[I + 1]))...));
  }
}

template <typename scalar_t, typename out_t, typename F, size_t... I>
inline void contiguous_loop(char** data, int64_t n, const F& f, std::index_sequence<I...>) {
  using op_t = c10::opmath_t<scalar_t>;
  out_t* __restrict__ out = reinterpret_cast<out_t*>(data[0]);
  const scalar_t* in[sizeof...(I) + 1] = {reinterpret_cast<const scalar_t*>(data[I + 1])...};
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<out_t>(f(static_cast<op_t>(in[I][i])...));
}

#ifdef EMBER_HAVE_VEC
// Inputs may be contiguous (stride == sizeof) or broadcast scalars (stride == 0).
template <typename T, typename F, size_t... I>
inline void vec_loop(char** data, const int64_t* s, int64_t n, const F& f, std::index_sequence<I...>) {
  using V = pw::Vec<T>;
  constexpr int W = V::size;
  T* out = reinterpret_cast<T*>(data[0]);
  const T* in[sizeof...(I) + 1] = {reinterpret_cast<const T*>(data[I + 1])...};
  const bool bcast[sizeof...(I) + 1] = {(s[I + 1] == 0)...};
  V scal[sizeof...(I) + 1] = {V(*in[I])...};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    f((bcast[I] ? scal[I] : V::load(in[I] + i))...).store(out + i);
  }
  for (; i < n; ++i) out[i] = static_cast<T>(f((bcast[I] ? in[I][0] : in[I][i])...));
}
#endif

// Whether the functor accepts SIMD vectors (only float/double have them).
template <typename F, typename T, typename Seq> struct VecInvocable : std::false_type {};
#ifdef EMBER_HAVE_VEC
template <typename F, size_t... I>
struct VecInvocable<F, float, std::index_sequence<I...>>
    : std::bool_constant<std::is_invocable_v<const F&, decltype((void)I, pw::Vec<float>())...>> {};
template <typename F, size_t... I>
struct VecInvocable<F, double, std::index_sequence<I...>>
    : std::bool_constant<std::is_invocable_v<const F&, decltype((void)I, pw::Vec<double>())...>> {};
#endif

}  // namespace detail

/// Runs `f` elementwise over `it` (inputs of dtype scalar_t, output of dtype out_t).
template <typename scalar_t, typename out_t, typename F>
void cpu_pointwise(const TensorIter& it, const F& f) {
  constexpr size_t N = 0 + [] {
    // Arity = number of inputs: deduced from the iteration at run time would lose constexpr-ness,
    // so the generated functor's call operator arity is probed instead.
    if constexpr (std::is_invocable_v<const F&, c10::opmath_t<scalar_t>>) return 1;
    else if constexpr (std::is_invocable_v<const F&, c10::opmath_t<scalar_t>, c10::opmath_t<scalar_t>>) return 2;
    else if constexpr (std::is_invocable_v<const F&, c10::opmath_t<scalar_t>, c10::opmath_t<scalar_t>, c10::opmath_t<scalar_t>>) return 3;
    else return 4;
  }();
  static_assert(N <= 3, "pointwise functors take 1 to 3 tensor inputs");
  EMBER_INTERNAL_ASSERT(it.ntensors() == static_cast<int>(N) + 1, "operand count mismatch");
  using Seq = std::make_index_sequence<N>;
  constexpr bool kVec = std::is_same_v<scalar_t, out_t> &&
                        (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) &&
                        detail::VecInvocable<F, scalar_t, Seq>::value;
  it.for_each([&](char** data, const int64_t* s, int64_t n) {
    bool out_c = s[0] == static_cast<int64_t>(sizeof(out_t));
    bool all_c = out_c, vec_ok = out_c;
    for (size_t k = 1; k <= N; ++k) {
      all_c = all_c && s[k] == static_cast<int64_t>(sizeof(scalar_t));
      vec_ok = vec_ok && (s[k] == static_cast<int64_t>(sizeof(scalar_t)) || s[k] == 0);
    }
#ifdef EMBER_HAVE_VEC
    if constexpr (kVec) {
      if (vec_ok) return detail::vec_loop<scalar_t>(data, s, n, f, Seq{});
    }
#endif
    (void)vec_ok;
    if (all_c) return detail::contiguous_loop<scalar_t, out_t>(data, n, f, Seq{});
    detail::strided_loop<scalar_t, out_t>(data, s, n, f, Seq{});
  });
}

}  // namespace ember
