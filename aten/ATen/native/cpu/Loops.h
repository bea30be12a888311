#pragma once
// cpu_pointwise: runs a functor over a built TensorIter.
//   1. float, double, Half and BFloat16 operands (output of the same dtype) with a functor that
//      accepts Vec: every element goes through the Vec functions of cpu/Vec.h, whatever the
//      layout (Note [One vector-math source]); Half/BFloat16 compute in Vec<float>;
//   2. otherwise, contiguous operands: a plain indexed loop the compiler auto-vectorises;
//   3. anything else: the strided loop.
// Inputs are converted to opmath (float for Half/BFloat16) before the functor, the result is
// converted once on store.
//
// Note [One vector-math source]
// A vectorisable functor never meets the scalar functions of PointwiseMath.h on the CPU: the
// contiguous body loads Vec::size elements at a time; the last n % size elements are copied into
// a zero-padded buffer, computed as one vector and only the real lanes stored; where an operand
// or the output is strided, the loop goes a vector at a time, gathering the strided operands into
// such buffers and scattering a strided output. So exp(x)[i] has the same bits for a contiguous
// tensor, a transposed view, an expanded input, and at any position or length (SLEEF's results
// differ from libm's in the last bit, so mixing the two made results depend on alignment).
// Padding lanes compute on zeros; what they produce (inf, NaN, a division by zero) is never stored.
//
// Note [Streaming stores]
// A float or double output that is contiguous, not an input too, and large next to the last-level
// cache is written with non-temporal stores: the lines go to memory without first being read into
// the cache (the "write-allocate" read a normal store costs, a third of a unary op's traffic) and
// without evicting the inputs. Measured here (Xeon, 2 vCPUs, 260 MiB L3 shared with other guests),
// y = f(x) over 16M floats went 10.0 -> 5.6 ms; but where the next op reads the output back out
// of the cache, normal stores win while inputs and output together fit in about a third of the L3
// (64 MiB touched: normal 1.3x faster; 128 MiB: streaming 1.1x faster). So streaming starts where
// the bytes an op touches pass a third of the L3 (streaming_store_min_bytes; the environment
// variable EMBER_STREAMING_STORE_MIN_MB sets it, -1 never streams). Each thread's run stores its
// first elements normally up to the vector alignment, streams the rest and fences before it
// returns. The values are the same either way: only where the bytes land differs.
//
// Note [Software prefetch]
// Past the same threshold the dense loop also prefetches each contiguous input kPrefetchBytes
// ahead of the vector it reads (in place too, where nothing streams). The hardware prefetchers
// keep a memory-bound loop (add) fed, but fall behind in a loop that computes for a while per line:
// over 16M floats at avx512, one thread, sigmoid went 14.4 -> 8.8 ms, exp 10.8 -> 8.8 ms, gelu
// 28 -> 12.4 ms, add unchanged (8.0 ms); 2 and 4 KiB ahead measured the same, 0.5 KiB worse.
#include <ATen/ATen.h>
#include <c10/macros/Export.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/cpu/Vec.h>
#include <algorithm>
#include <utility>

namespace at::native {
/// Bytes (inputs + output) from which a pointwise op streams its output past the caches; < 0:
/// never. Note [Streaming stores].
TORCH_API int64_t streaming_store_min_bytes();
/// Sets it (< 0: never); returns the previous value. For tests and tuning.
TORCH_API int64_t set_streaming_store_min_bytes(int64_t bytes);
}  // namespace at::native

namespace ember {
inline namespace EMBER_VEC_NS {  // Note [Vec levels in one library] in Vec.h

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

/// The vector type a storage type computes in: Vec<float> for float, Half and BFloat16.
template <typename T>
using vec_of = pw::Vec<c10::opmath_t<T>>;

// One vector's worth of elements at byte strides: m <= W of them, or exactly W when kFull. A
// contiguous operand is loaded (and the output stored) directly, a stride-0 one broadcast; any
// other is gathered into a buffer, zero-padded past m, and the m real lanes of the result
// scattered. See Note [One vector-math source].
template <typename T, bool kFull, typename F, size_t... I>
inline void vec_chunk(char* out, int64_t os, char* const* in, const int64_t* is, int64_t m, const F& f,
                      std::index_sequence<I...>) {
  using V = vec_of<T>;
  constexpr int W = V::size;
  constexpr int64_t kSize = sizeof(T);
  alignas(64) T buf[sizeof...(I)][W];
  const auto arg = [&](size_t k) -> V {
    if (kFull && is[k] == kSize) return pw::load_opmath(reinterpret_cast<const T*>(in[k]));
    if (is[k] == 0) return V(static_cast<c10::opmath_t<T>>(load<T>(in[k])));
    if constexpr (kFull) {
      for (int j = 0; j < W; ++j) buf[k][j] = load<T>(in[k] + j * is[k]);
    } else {
      for (int64_t j = 0; j < m; ++j) buf[k][j] = load<T>(in[k] + j * is[k]);
      for (int64_t j = m; j < W; ++j) buf[k][j] = T(0);
    }
    return pw::load_opmath(buf[k]);
  };
  const V r = f(arg(I)...);
  if (kFull && os == kSize) return pw::store_opmath(r, reinterpret_cast<T*>(out));
  alignas(64) T obuf[W];
  pw::store_opmath(r, obuf);
  for (int64_t j = 0; j < m; ++j) *reinterpret_cast<T*>(out + j * os) = obuf[j];
}

/// Output types written with non-temporal stores when large (Note [Streaming stores]).
template <typename T>
inline constexpr bool kStreamable = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Stores one vector normally, or streamed (then out + i is aligned to the vector's size).
template <typename T, typename V>
inline void put(const V& r, T* p, bool stream) {
  if constexpr (kStreamable<T>) {
    if (stream) return pw::stream_opmath(r, p);
  }
  pw::store_opmath(r, p);
}

/// How far ahead the dense loop prefetches its inputs (Note [Software prefetch]).
inline constexpr int64_t kPrefetchBytes = 2048;
template <typename T>
inline void prefetch_ahead(const T* p) {
  __builtin_prefetch(reinterpret_cast<const char*>(p) + kPrefetchBytes, 0, 3);  // never faults
}

// The whole vectors of [i, n) when the output and every input are contiguous: returns where the
// whole vectors end. Shared by vec_loop and vec_rows.
template <typename T, typename F, size_t... I>
inline int64_t packed_body(T* out, const T* const* in, int64_t i, int64_t n, const F& f, std::index_sequence<I...>,
                           bool stream, bool far) {
  constexpr int W = vec_of<T>::size;
  if (far) {
    for (; i + W <= n; i += W) {
      (prefetch_ahead(in[I] + i), ...);
      put(f(pw::load_opmath(in[I] + i)...), out + i, stream);
    }
  } else {
    for (; i + W <= n; i += W) put(f(pw::load_opmath(in[I] + i)...), out + i, stream);
  }
  return i;
}

template <typename T, typename F, size_t... I>
inline void vec_loop(char** data, const int64_t* s, int64_t n, const F& f, std::index_sequence<I...> seq,
                     bool stream = false, bool far = false) {
  using V = vec_of<T>;
  constexpr int W = V::size;
  constexpr size_t N = sizeof...(I);
  constexpr int64_t kSize = sizeof(T);
  if (n <= 0) return;
  bool dense = s[0] == kSize;  // output contiguous, each input contiguous or a broadcast scalar
  for (size_t k = 1; k <= N; ++k) dense = dense && (s[k] == kSize || s[k] == 0);
  int64_t i = 0;
  if (dense) {
    T* out = reinterpret_cast<T*>(data[0]);
    const T* in[N] = {reinterpret_cast<const T*>(data[I + 1])...};
    const bool bcast[N] = {(s[I + 1] == 0)...};
    const V scal[N] = {V(static_cast<c10::opmath_t<T>>(*in[I]))...};
    const auto addr = reinterpret_cast<uintptr_t>(out);
    stream = kStreamable<T> && stream && n >= 4 * W && addr % kSize == 0;
    if (stream) {  // the elements before the first vector-aligned one, stored normally
      constexpr uintptr_t kAlign = sizeof(V);
      i = static_cast<int64_t>((kAlign - addr % kAlign) % kAlign) / kSize;
      if (i > 0) {
        char* head[N] = {data[I + 1]...};
        vec_chunk<T, false>(data[0], kSize, head, s + 1, i, f, seq);
      }
    }
    if (!(bcast[I] || ...)) {
      i = packed_body<T>(out, in, i, n, f, seq, stream, far);
    } else {
      if (far) {
        for (; i + W <= n; i += W) {
          ((bcast[I] ? void() : prefetch_ahead(in[I] + i)), ...);
          put(f((bcast[I] ? scal[I] : pw::load_opmath(in[I] + i))...), out + i, stream);
        }
      } else {
        for (; i + W <= n; i += W) put(f((bcast[I] ? scal[I] : pw::load_opmath(in[I] + i))...), out + i, stream);
      }
    }
    if constexpr (kStreamable<T>) {
      if (stream) pw::stream_fence();
    }
  } else {
    for (; i + W <= n; i += W) {
      char* in[N] = {(data[I + 1] + i * s[I + 1])...};
      vec_chunk<T, true>(data[0] + i * s[0], s[0], in, s + 1, W, f, seq);
    }
  }
  if (i < n) {
    char* rest[N] = {(data[I + 1] + i * s[I + 1])...};
    vec_chunk<T, false>(data[0] + i * s[0], s[0], rest, s + 1, n - i, f, seq);
  }
}

// `rows` rows of vec_loop (Note [Rows per loop call] in TensorIterator.cpp): row r of operand k at
// data[k] + r * outer[k]. When every operand is contiguous along the row and nothing is streamed (a
// channels-last tensor and per-channel vectors), the row's set-up is done once here and each row
// is the bare vector loop; otherwise each row is vec_loop. The same elements get the same
// arithmetic either way.
template <typename T, typename F, size_t... I>
inline void vec_rows(char** data, const int64_t* s, int64_t n, int64_t rows, const int64_t* outer, const F& f,
                     std::index_sequence<I...> seq, bool stream, bool far) {
  constexpr size_t N = sizeof...(I);
  constexpr int64_t kSize = sizeof(T);
  if (rows == 1) return vec_loop<T>(data, s, n, f, seq, stream, far);
  bool packed = s[0] == kSize && !(kStreamable<T> && stream);
  for (size_t k = 1; k <= N; ++k) packed = packed && s[k] == kSize;
  if (!packed) {
    char* p[N + 1];
    for (int64_t r = 0; r < rows; ++r) {
      for (size_t k = 0; k <= N; ++k) p[k] = data[k] + r * outer[k];
      vec_loop<T>(p, s, n, f, seq, stream, far);
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* out = reinterpret_cast<T*>(data[0] + r * outer[0]);
    const T* in[N] = {reinterpret_cast<const T*>(data[I + 1] + r * outer[I + 1])...};
    const int64_t i = packed_body<T>(out, in, 0, n, f, seq, /*stream=*/false, far);
    if (i < n) {
      char* rest[N] = {reinterpret_cast<char*>(const_cast<T*>(in[I] + i))...};
      vec_chunk<T, false>(reinterpret_cast<char*>(out + i), kSize, rest, s + 1, n - i, f, seq);
    }
  }
}

// Whether the functor accepts SIMD vectors of the type T computes in.
template <typename F, typename T, typename Seq> struct VecInvocable : std::false_type {};
template <typename F, typename T, size_t... I>
struct VecInvocable<F, T, std::index_sequence<I...>>
    : std::bool_constant<std::is_invocable_v<const F&, decltype((void)I, vec_of<T>())...>> {};

template <typename T>
inline constexpr bool kHasVec = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

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
  if constexpr (std::is_same_v<scalar_t, out_t> && detail::kHasVec<scalar_t>) {
    if constexpr (detail::VecInvocable<F, scalar_t, Seq>::value) {
      // Note [Streaming stores], Note [Software prefetch]
      bool stream = false, far = false;
      const int64_t bytes = it.numel() * static_cast<int64_t>(sizeof(scalar_t) * (N + 1));
      if (bytes >= (int64_t{1} << 16)) {  // no call for small ops
        const int64_t min_bytes = at::native::streaming_store_min_bytes();
        far = min_bytes >= 0 && bytes >= min_bytes;
        if constexpr (detail::kStreamable<scalar_t>) {
          stream = far;
          for (int k = 1; k <= static_cast<int>(N); ++k) stream = stream && it.data(k) != it.data(0);
        }
      }
      it.for_each([&](char** data, const int64_t* s, int64_t n, int64_t rows, const int64_t* outer) {
        detail::vec_rows<scalar_t>(data, s, n, rows, outer, f, Seq{}, stream, far);
      });
      return;
    }
  }
  it.for_each([&](char** data, const int64_t* s, int64_t n) {
    bool all_c = s[0] == static_cast<int64_t>(sizeof(out_t));
    for (size_t k = 1; k <= N; ++k) all_c = all_c && s[k] == static_cast<int64_t>(sizeof(scalar_t));
    if (all_c) return detail::contiguous_loop<scalar_t, out_t>(data, n, f, Seq{});
    detail::strided_loop<scalar_t, out_t>(data, s, n, f, Seq{});
  });
}

}  // namespace EMBER_VEC_NS
}  // namespace ember
