// Convolution on the CPU, 1-d to 3-d, plain and transposed: convolution (forward) and
// convolution_backward.
//
// Every call is expressed as one of the three passes of a plain ("canonical") convolution (Note
// [Convolution as a source-to-destination map] in ATen/native/ConvUtils.h): a plain forward is the
// canonical forward, a transposed forward the canonical backward-data pass, and so on. float32 runs
// those passes through oneDNN's convolution primitives, on blocked layouts of oneDNN's choosing when
// there are enough channels (Note [Convolution layouts]); float64, and any configuration oneDNN
// declines, takes the direct loops below. The bias gradient is a sum over every dim but the
// channels, done with at::sum; a transposed convolution's bias is added after the pass.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/Parallel.h>
#include <ATen/native/LruCache.h>
#include <oneapi/dnnl/dnnl.hpp>
#include "onednn_handle.h"
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace at::native {

namespace {

using conv_utils::ConvGeometry;
using conv_utils::suggests_channels_last;

// ---------------------------------------------------------------- direct loops
// The three canonical passes over three spatial slots (unused slots have size 1). Each output
// element is owned by one (thread, loop index), so results do not depend on the thread count.
// Sums accumulate in double.

// Source position of destination position j under tap t in one slot, or -1 when it falls in the
// padding.
inline int64_t src_pos(const ConvGeometry& g, int i, int64_t j, int64_t t) {
  const int64_t x = j * g.s[i] - g.pl[i] + t * g.d[i];
  return x >= 0 && x < g.src[i] ? x : -1;
}

// Destination position that reads source position x under tap t in one slot, or -1.
inline int64_t dst_pos(const ConvGeometry& g, int i, int64_t x, int64_t t) {
  const int64_t r = x + g.pl[i] - t * g.d[i];
  if (r < 0 || r % g.s[i] != 0) return -1;
  const int64_t j = r / g.s[i];
  return j < g.dst[i] ? j : -1;
}

// dst[n, o, j] = bias[o] + sum over c, t of w[o, c, t] * src[n, c, j * s - pl + t * d].
template <typename T>
void forward_loop(const ConvGeometry& g, const T* src, const T* w, const T* b, T* dst) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, SP = g.src_plane(), DP = g.dst_plane(), K = g.kernel();
  const int64_t tasks = g.N * g.O;
  const int64_t grain = at::internal::grain_for_tasks(tasks * DP * Cg * K, tasks);
  at::parallel_for(0, tasks, grain, [&](int64_t task0, int64_t task1) {
    for (int64_t task = task0; task < task1; ++task) {
      const int64_t n = task / g.O, o = task % g.O, grp = o / Og;
      T* out = dst + task * DP;
      for (int64_t j0 = 0; j0 < g.dst[0]; ++j0)
        for (int64_t j1 = 0; j1 < g.dst[1]; ++j1)
          for (int64_t j2 = 0; j2 < g.dst[2]; ++j2) {
            double acc = b ? static_cast<double>(b[o]) : 0.0;
            for (int64_t c = 0; c < Cg; ++c) {
              const T* sc = src + (n * g.C + grp * Cg + c) * SP;
              const T* wc = w + (o * Cg + c) * K;
              for (int64_t t0 = 0; t0 < g.k[0]; ++t0) {
                const int64_t x0 = src_pos(g, 0, j0, t0);
                if (x0 < 0) continue;
                for (int64_t t1 = 0; t1 < g.k[1]; ++t1) {
                  const int64_t x1 = src_pos(g, 1, j1, t1);
                  if (x1 < 0) continue;
                  for (int64_t t2 = 0; t2 < g.k[2]; ++t2) {
                    const int64_t x2 = src_pos(g, 2, j2, t2);
                    if (x2 < 0) continue;
                    acc += static_cast<double>(sc[(x0 * g.src[1] + x1) * g.src[2] + x2]) *
                           static_cast<double>(wc[(t0 * g.k[1] + t1) * g.k[2] + t2]);
                  }
                }
              }
            }
            out[(j0 * g.dst[1] + j1) * g.dst[2] + j2] = static_cast<T>(acc);
          }
    }
  });
}

// src_grad[n, c, x] gathers every (o, t) whose window placed source position x under tap t.
template <typename T>
void backward_data_loop(const ConvGeometry& g, const T* dst_grad, const T* w, T* src_grad) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, SP = g.src_plane(), DP = g.dst_plane(), K = g.kernel();
  const int64_t tasks = g.N * g.C;
  const int64_t grain = at::internal::grain_for_tasks(tasks * SP * Og * K, tasks);
  at::parallel_for(0, tasks, grain, [&](int64_t task0, int64_t task1) {
    for (int64_t task = task0; task < task1; ++task) {
      const int64_t n = task / g.C, ic = task % g.C, grp = ic / Cg, c = ic % Cg;
      T* out = src_grad + task * SP;
      for (int64_t x0 = 0; x0 < g.src[0]; ++x0)
        for (int64_t x1 = 0; x1 < g.src[1]; ++x1)
          for (int64_t x2 = 0; x2 < g.src[2]; ++x2) {
            double acc = 0.0;
            for (int64_t t0 = 0; t0 < g.k[0]; ++t0) {
              const int64_t j0 = dst_pos(g, 0, x0, t0);
              if (j0 < 0) continue;
              for (int64_t t1 = 0; t1 < g.k[1]; ++t1) {
                const int64_t j1 = dst_pos(g, 1, x1, t1);
                if (j1 < 0) continue;
                for (int64_t t2 = 0; t2 < g.k[2]; ++t2) {
                  const int64_t j2 = dst_pos(g, 2, x2, t2);
                  if (j2 < 0) continue;
                  const int64_t j = (j0 * g.dst[1] + j1) * g.dst[2] + j2, t = (t0 * g.k[1] + t1) * g.k[2] + t2;
                  for (int64_t oo = 0; oo < Og; ++oo) {
                    const int64_t o = grp * Og + oo;
                    acc += static_cast<double>(dst_grad[(n * g.O + o) * DP + j]) * static_cast<double>(w[(o * Cg + c) * K + t]);
                  }
                }
              }
            }
            out[(x0 * g.src[1] + x1) * g.src[2] + x2] = static_cast<T>(acc);
          }
    }
  });
}

// w_grad[o, c, t] = sum over n, j of dst_grad[n, o, j] * src[n, c, j * s - pl + t * d].
template <typename T>
void backward_weights_loop(const ConvGeometry& g, const T* src, const T* dst_grad, T* w_grad) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G, SP = g.src_plane(), DP = g.dst_plane(), K = g.kernel();
  const int64_t tasks = g.O * Cg;
  const int64_t grain = at::internal::grain_for_tasks(tasks * K * g.N * DP, tasks);
  at::parallel_for(0, tasks, grain, [&](int64_t task0, int64_t task1) {
    for (int64_t task = task0; task < task1; ++task) {
      const int64_t o = task / Cg, c = task % Cg, ic = (o / Og) * Cg + c;
      for (int64_t t0 = 0; t0 < g.k[0]; ++t0)
        for (int64_t t1 = 0; t1 < g.k[1]; ++t1)
          for (int64_t t2 = 0; t2 < g.k[2]; ++t2) {
            double acc = 0.0;
            for (int64_t n = 0; n < g.N; ++n) {
              const T* sc = src + (n * g.C + ic) * SP;
              const T* go = dst_grad + (n * g.O + o) * DP;
              for (int64_t j0 = 0; j0 < g.dst[0]; ++j0) {
                const int64_t x0 = src_pos(g, 0, j0, t0);
                if (x0 < 0) continue;
                for (int64_t j1 = 0; j1 < g.dst[1]; ++j1) {
                  const int64_t x1 = src_pos(g, 1, j1, t1);
                  if (x1 < 0) continue;
                  for (int64_t j2 = 0; j2 < g.dst[2]; ++j2) {
                    const int64_t x2 = src_pos(g, 2, j2, t2);
                    if (x2 < 0) continue;
                    acc += static_cast<double>(go[(j0 * g.dst[1] + j1) * g.dst[2] + j2]) *
                           static_cast<double>(sc[(x0 * g.src[1] + x1) * g.src[2] + x2]);
                  }
                }
              }
            }
            w_grad[task * K + (t0 * g.k[1] + t1) * g.k[2] + t2] = static_cast<T>(acc);
          }
    }
  });
}

// ---------------------------------------------------------------- oneDNN path
// Note [oneDNN convolution cache]
// Like the matmul primitives (Note [oneDNN primitive cache] in matmul.cpp), convolution
// primitives are cached by everything that defines them: the canonical pass (forward,
// backward-data, backward-weights), the canonical geometry (rank included) and whether a bias
// takes part. A transposed convolution reuses the same entries as the plain convolution it is the
// adjoint of. Each call brings its own scratchpads (user mode, for the convolution and for its
// reorders) and its own blocked buffers, so concurrent calls share no mutable state. The cache is
// the same bounded LRU as the matmul one (ATen/native/LruCache.h, capacity EMBER_ONEDNN_CACHE_CAPACITY),
// so that a shape sweep cannot grow memory without bound. Built against oneDNN 2.x or 3.x (Note
// [oneDNN 2.x and 3.x] in matmul.cpp): 3.x makes the primitive descriptors without operation
// descriptors.
//
// Note [Convolution layouts]
// With many channels oneDNN's fast kernels want blocked layouts (channels in groups of 8 or 16
// innermost); on plain NC(D)(H)W / OI(D)(H)W memory it falls back to a slower im2col + GEMM path.
// So when both channel counts are at least kBlockedChannels, the primitive is created with layouts
// left to oneDNN ("any"), and each call reorders the plain tensors into the chosen layouts and the
// results back (the reorders are cached with the primitive). Fewer channels (the first layer of
// an image network, depthwise groups) stay on plain memory, where oneDNN is already fast and a
// reorder would cost more than it saves.
//
// Note [Channels-last convolution]
// A 2-d convolution runs channels-last when its input or its weight suggests that layout (the
// stride-order rule of libtorch's suggest_memory_format, see conv_utils::suggests_channels_last in ConvUtils.h); its
// output and, in the backward, the input and weight gradients are then channels-last too (sizes
// NCHW, strides NHWC), as libtorch's CPU convolution returns them for float32 and float64. The
// activations (input, output, their gradients) reach oneDNN as nhwc memory as they are, with no
// reorder: oneDNN's nhwc kernels are fast at any channel count. Weights are given as ohwi / gohwi
// (a channels-last weight as it is, an NCHW one after one small copy) and reordered into the
// layout oneDNN picks. Tensors whose strides are neither are copied to channels-last first.
// float64, and configurations oneDNN declines, run the direct loops on NCHW copies and copy the
// results into the channels-last outputs. 1-d and 3-d convolutions are always NC(D)W.
// Below AVX-512 (as oneDNN sees the CPU), activations with enough channels on both sides are
// instead reordered into the layout oneDNN picks, as in Note [Convolution layouts]: on a Zen 3
// (AVX2) the ResNet-block case (8x64x56^2 -> 64, fwd+bwd, 1 thread) took 83 ms on nhwc memory
// and 68 ms through the blocked layouts with their reorders (libtorch, nhwc: 73 ms), while on a
// Zen 4 (AVX-512) nhwc was the faster one (38 ms against 44).
enum class Pass : int64_t { forward = 0, backward_data = 1, backward_weights = 2 };
using ConvKey = std::array<int64_t, 30>;
constexpr int64_t kBlockedChannels = 16;

// One argument of a cached primitive: the layout the primitive uses, and when that differs from the
// plain one, the reorder between the two (plain -> chosen for inputs, chosen -> plain for outputs).
struct ConvArg {
  int arg = 0;
  dnnl::memory::desc plain, chosen;
  bool output = false;
  std::optional<dnnl::reorder> reorder;
  size_t reorder_scratch_bytes = 0;
};

struct CachedConv {
  dnnl::primitive prim;
  size_t scratch_bytes = 0;
  std::vector<ConvArg> args;
  bool ok = false;  // false: oneDNN declined this configuration
};

ConvKey conv_key(Pass pass, const ConvGeometry& g, bool bias, bool cl) {
  ConvKey k{};
  size_t i = 0;
  for (int64_t v : {static_cast<int64_t>(pass), g.nd, g.N, g.C, g.O, g.G, int64_t{bias}, int64_t{cl}}) k[i++] = v;
  for (const auto* a : {&g.src, &g.dst, &g.k, &g.s, &g.pl, &g.pr, &g.d})
    for (int64_t v : *a) k[i++] = v;
  return k;
}

dnnl::engine& conv_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    size_t h = 0x9E3779B97F4A7C15ULL;
    for (int64_t x : k) h = (h ^ static_cast<size_t>(x)) * 0x100000001B3ULL;
    return h;
  }
};
using ConvCache = LruCache<ConvKey, std::shared_ptr<const CachedConv>, ConvKeyHash>;
constexpr size_t kDefaultConvCacheCapacity = 1024;

ConvCache& conv_cache() {
  static ConvCache c(lru_capacity_from_env("EMBER_ONEDNN_CACHE_CAPACITY", kDefaultConvCacheCapacity));
  return c;
}

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

struct ConvDescs {
  dnnl::memory::desc src, wei, bia, dst;
  dims strides, dilates, pad_l, pad_r;
};

// Whether oneDNN's nhwc convolution kernels beat its blocked ones with the reorders (Note
// [Channels-last convolution]): where it runs AVX-512 code.
bool nhwc_kernels_preferred() {
  static const bool v = [] {
    const int isa = static_cast<int>(dnnl::get_effective_cpu_isa());
    return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
  }();
  return v;
}

// The plain (user) layouts, or with `any` the descriptors that let oneDNN choose. Channels-last
// (`cl`, 2-d only): weights ohwi / gohwi; activations nhwc, left to oneDNN only with `any` below
// AVX-512 when both channel counts reach kBlockedChannels (Note [Channels-last convolution]).
ConvDescs conv_descs(const ConvGeometry& g, bool any, bool cl) {
  static const tag act[] = {tag::ncw, tag::nchw, tag::ncdhw}, wei[] = {tag::oiw, tag::oihw, tag::oidhw},
                   gwei[] = {tag::goiw, tag::goihw, tag::goidhw};
  const int r = static_cast<int>(g.nd) - 1;
  auto with = [&](dims head, const std::array<int64_t, 3>& a) {
    for (int64_t v : g.spatial(a)) head.push_back(v);
    return head;
  };
  ConvDescs d;
  const bool cl_nhwc = cl && (!any || nhwc_kernels_preferred() || g.C / g.G < kBlockedChannels ||
                               g.O / g.G < kBlockedChannels);
  const tag a = cl_nhwc ? tag::nhwc : any ? tag::any : act[r];
  d.src = dnnl::memory::desc(with({g.N, g.C}, g.src), f32, a);
  d.wei = g.G == 1 ? dnnl::memory::desc(with({g.O, g.C}, g.k), f32, any ? tag::any : cl ? tag::ohwi : wei[r])
                   : dnnl::memory::desc(with({g.G, g.O / g.G, g.C / g.G}, g.k), f32, any ? tag::any : cl ? tag::gohwi : gwei[r]);
  d.bia = dnnl::memory::desc(dims{g.O}, f32, tag::x);
  d.dst = dnnl::memory::desc(with({g.N, g.O}, g.dst), f32, a);
  d.strides = g.spatial(g.s);
  d.dilates = g.spatial(g.d);
  for (auto& v : d.dilates) v -= 1;  // oneDNN counts the gaps between taps
  d.pad_l = g.spatial(g.pl);
  d.pad_r = g.spatial(g.pr);
  return d;
}

#if DNNL_VERSION_MAJOR >= 3
// Note [oneDNN 3 reference kernels]
// oneDNN lists the implementations that accept a descriptor best first, but for some plain-layout
// shapes its first choice runs its reference kernel: oneDNN 3.7.2 (Debian 13) on AVX-512 takes
// "jit_uni_ncsp_convolution:conv+ref:any" for the weight gradient of the MNIST CNN's first layer
// (64x1x28x28 input, 10x1x5x5 weights): 103 ms a call against 2.2 ms for the next one on its list,
// "x64:gemm:jit", and its straight float sums are 8x less exact (max error 1.3e-4 against 1.7e-5,
// relative to 1 + |value|, float64 reference; tests/aten/test_conv.cpp bounds it at 1e-4). So a
// first choice whose name mentions a reference kernel gives way to the first one on the list that
// does not; with none, the first stays. `make` builds the descriptor afresh (next_impl() moves the
// one it is called on). (Its nhwc kernels are real ones, brg_conv_fwd / brg_conv_bwd /
// jit:avx512_core, given weights in `any` layout as Note [Channels-last convolution] gives them;
// with ohwi weights only ref:any accepts nhwc.)
template <typename Make>
auto without_reference_kernel(Make make) {
  auto is_ref = [](const auto& pd) { return std::strstr(pd.impl_info_str(), "ref") != nullptr; };
  auto pd = make();
  if (!is_ref(pd)) return pd;
  for (auto probe = make(); probe.next_impl();)
    if (!is_ref(probe)) return probe;
  return pd;
}
#endif

std::shared_ptr<const CachedConv> make_prim(Pass pass, const ConvGeometry& g, bool bias, bool cl) {
  auto c = std::make_shared<CachedConv>();
  try {
    auto& eng = conv_engine();
    const bool blocked = cl || (g.C / g.G >= kBlockedChannels && g.O / g.G >= kBlockedChannels);
    const ConvDescs plain = conv_descs(g, false, cl), d = conv_descs(g, blocked, cl);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const auto prop = pass == Pass::forward ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
    constexpr auto direct = dnnl::algorithm::convolution_direct;
#if DNNL_VERSION_MAJOR >= 3
    auto fwd_pd = without_reference_kernel([&] {
      return bias ? dnnl::convolution_forward::primitive_desc(eng, prop, direct, d.src, d.wei, d.bia, d.dst, d.strides,
                                                              d.dilates, d.pad_l, d.pad_r, attr)
                  : dnnl::convolution_forward::primitive_desc(eng, prop, direct, d.src, d.wei, d.dst, d.strides, d.dilates,
                                                              d.pad_l, d.pad_r, attr);
    });
#else
    auto fwd_d = bias ? dnnl::convolution_forward::desc(prop, direct, d.src, d.wei, d.bia, d.dst, d.strides, d.dilates, d.pad_l, d.pad_r)
                      : dnnl::convolution_forward::desc(prop, direct, d.src, d.wei, d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_forward::primitive_desc fwd_pd(fwd_d, attr, eng);
#endif
    auto add = [&](int arg, const dnnl::memory::desc& p, const dnnl::memory::desc& chosen, bool output) {
      ConvArg a{arg, p, chosen, output, std::nullopt, 0};
      if (chosen != p) {
        dnnl::memory::desc from = output ? chosen : p, to = output ? p : chosen;
        dnnl::reorder::primitive_desc rpd(eng, from, eng, to, attr);
        a.reorder = dnnl::reorder(rpd);
        a.reorder_scratch_bytes = rpd.scratchpad_desc().get_size();
      }
      c->args.push_back(std::move(a));
    };
    if (pass == Pass::forward) {
      c->prim = dnnl::convolution_forward(fwd_pd);
      c->scratch_bytes = fwd_pd.scratchpad_desc().get_size();
      add(DNNL_ARG_SRC, plain.src, fwd_pd.src_desc(), false);
      add(DNNL_ARG_WEIGHTS, plain.wei, fwd_pd.weights_desc(), false);
      if (bias) add(DNNL_ARG_BIAS, plain.bia, fwd_pd.bias_desc(), false);
      add(DNNL_ARG_DST, plain.dst, fwd_pd.dst_desc(), true);
    } else if (pass == Pass::backward_data) {
#if DNNL_VERSION_MAJOR >= 3
      auto pd = without_reference_kernel([&] {
        return dnnl::convolution_backward_data::primitive_desc(eng, direct, d.src, d.wei, d.dst, d.strides, d.dilates, d.pad_l,
                                                               d.pad_r, fwd_pd, attr);
      });
#else
      dnnl::convolution_backward_data::desc bd(direct, d.src, d.wei, d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(bd, attr, eng, fwd_pd);
#endif
      c->prim = dnnl::convolution_backward_data(pd);
      c->scratch_bytes = pd.scratchpad_desc().get_size();
      add(DNNL_ARG_DIFF_DST, plain.dst, pd.diff_dst_desc(), false);
      add(DNNL_ARG_WEIGHTS, plain.wei, pd.weights_desc(), false);
      add(DNNL_ARG_DIFF_SRC, plain.src, pd.diff_src_desc(), true);
    } else {
#if DNNL_VERSION_MAJOR >= 3
      auto pd = without_reference_kernel([&] {
        return dnnl::convolution_backward_weights::primitive_desc(eng, direct, d.src, d.wei, d.dst, d.strides, d.dilates,
                                                                  d.pad_l, d.pad_r, fwd_pd, attr);
      });
#else
      dnnl::convolution_backward_weights::desc bw(direct, d.src, d.wei, d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(bw, attr, eng, fwd_pd);
#endif
      c->prim = dnnl::convolution_backward_weights(pd);
      c->scratch_bytes = pd.scratchpad_desc().get_size();
      add(DNNL_ARG_SRC, plain.src, pd.src_desc(), false);
      add(DNNL_ARG_DIFF_DST, plain.dst, pd.diff_dst_desc(), false);
      add(DNNL_ARG_DIFF_WEIGHTS, plain.wei, pd.diff_weights_desc(), true);
    }
    c->ok = true;
  } catch (const dnnl::error&) {
    c->ok = false;
  }
  return c;
}

// Inputs already reordered into a chosen layout during one convolution_backward call, so that its
// two passes reorder grad_output once (both usually choose the same blocked layout): on the MNIST
// CNN's second layer that reorder took 0.17-0.21 ms of a 5 ms fwd+bwd at 1 thread.
struct ReorderMemo {
  struct Entry {
    const void* user;
    dnnl::memory::desc chosen;
    Tensor blocked;
  };
  std::vector<Entry> entries;
};

// Runs one pass with oneDNN over dense float32 buffers (plain layouts: NC(D)(H)W, or nhwc / ohwi
// with `cl`). Returns false when oneDNN has no implementation for this configuration (the caller
// falls back to the loops). With a memo, an input whose reorder into the same layout was done
// before in the memo's call is not reordered again (the caller keeps those buffers unchanged).
bool dnnl_conv(Pass pass, const ConvGeometry& g, const std::unordered_map<int, void*>& buffers, bool bias, bool cl,
               ReorderMemo* memo = nullptr) {
  const ConvKey key = conv_key(pass, g, bias, cl);
  std::shared_ptr<const CachedConv> prim;
  if (auto hit = conv_cache().get(key)) {
    prim = std::move(*hit);
  } else {
    prim = make_prim(pass, g, bias, cl);
    conv_cache().put(key, prim);
  }
  if (!prim->ok) return false;
  auto& eng = conv_engine();
  thread_local dnnl::stream s(eng);
  std::vector<Tensor> temps;  // blocked copies and scratchpads, alive until the stream is done
  // A byte buffer of `bytes` for this call, as oneDNN memory (none for 0 bytes).
  auto buffer = [&](size_t bytes) -> std::optional<dnnl::memory> {
    if (bytes == 0) return std::nullopt;
    temps.push_back(at::empty({static_cast<int64_t>(bytes)}, TensorOptions().dtype(kByte)));
    return dnnl::memory(dnnl::memory::desc(dims{static_cast<int64_t>(bytes)}, dnnl::memory::data_type::u8, tag::x), eng,
                        temps.back()._mutable_data_ptr_internal());
  };
  auto run_reorder = [&](const ConvArg& a, const dnnl::memory& from, const dnnl::memory& to) {
    std::unordered_map<int, dnnl::memory> r{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if (auto sp = buffer(a.reorder_scratch_bytes)) r.emplace(DNNL_ARG_SCRATCHPAD, *sp);
    a.reorder->execute(s, r);
  };
  std::unordered_map<int, dnnl::memory> args;
  std::vector<std::pair<const ConvArg*, dnnl::memory>> outputs;  // (arg, user memory) to reorder back
  for (const ConvArg& a : prim->args) {
    dnnl::memory user(a.plain, eng, buffers.at(a.arg));
    if (!a.reorder) {
      args.emplace(a.arg, user);
      continue;
    }
    if (!a.output && memo) {
      const void* p = buffers.at(a.arg);
      auto it = std::find_if(memo->entries.begin(), memo->entries.end(),
                             [&](const ReorderMemo::Entry& e) { return e.user == p && e.chosen == a.chosen; });
      if (it != memo->entries.end()) {
        args.emplace(a.arg, dnnl::memory(a.chosen, eng, it->blocked._mutable_data_ptr_internal()));
        continue;
      }
    }
    temps.push_back(at::empty({static_cast<int64_t>(a.chosen.get_size())}, TensorOptions().dtype(kByte)));
    dnnl::memory blocked(a.chosen, eng, temps.back()._mutable_data_ptr_internal());
    if (a.output) outputs.emplace_back(&a, user);
    else run_reorder(a, user, blocked);
    if (!a.output && memo) memo->entries.push_back({buffers.at(a.arg), a.chosen, temps.back()});
    args.emplace(a.arg, blocked);
  }
  if (auto sp = buffer(prim->scratch_bytes)) args.emplace(DNNL_ARG_SCRATCHPAD, *sp);
  prim->prim.execute(s, args);
  for (auto& out : outputs) run_reorder(*out.first, args.at(out.first->arg), out.second);
  s.wait();
  return true;
}

// ---------------------------------------------------------------- the three canonical passes
// Each writes a dense result in the layout its arguments are in (NC(D)(H)W, or channels-last with
// `cl`): through oneDNN for float32 when it accepts the configuration, else through the loops,
// which take NC(D)(H)W (channels-last arguments are copied for them, and the result copied back).

// Runs `loops` (over contiguous arguments, into a contiguous result) for an output `out` that may
// be channels-last.
template <typename F>
void via_contiguous(Tensor& out, F loops) {
  if (out.is_contiguous()) return loops(out);
  Tensor tmp = at::empty(out.sizes(), out.options());
  loops(tmp);
  out.copy_(tmp);
}

void run_forward(const ConvGeometry& g, const Tensor& src, const Tensor& w, const Tensor& b, Tensor& dst, bool cl) {
  if (src.scalar_type() == kFloat) {
    std::unordered_map<int, void*> bufs{{DNNL_ARG_SRC, onednn_input(src)}, {DNNL_ARG_WEIGHTS, onednn_input(w)}, {DNNL_ARG_DST, dst._mutable_data_ptr_internal()}};
    if (b.defined()) bufs.emplace(DNNL_ARG_BIAS, onednn_input(b));
    if (dnnl_conv(Pass::forward, g, bufs, b.defined(), cl)) return;
  }
  const Tensor s = src.contiguous(), wc = w.contiguous();
  via_contiguous(dst, [&](Tensor& out) {
    if (s.scalar_type() == kFloat)
      forward_loop<float>(g, s.const_data_ptr<float>(), wc.const_data_ptr<float>(), b.defined() ? b.const_data_ptr<float>() : nullptr,
                          out._mutable_data_ptr_internal<float>());
    else
      forward_loop<double>(g, s.const_data_ptr<double>(), wc.const_data_ptr<double>(), b.defined() ? b.const_data_ptr<double>() : nullptr,
                           out._mutable_data_ptr_internal<double>());
  });
}

void run_backward_data(const ConvGeometry& g, const Tensor& dst_grad, const Tensor& w, Tensor& src_grad, bool cl,
                       ReorderMemo* memo = nullptr) {
  if (src_grad.scalar_type() == kFloat &&
      dnnl_conv(Pass::backward_data, g,
                {{DNNL_ARG_DIFF_SRC, src_grad._mutable_data_ptr_internal()}, {DNNL_ARG_WEIGHTS, onednn_input(w)}, {DNNL_ARG_DIFF_DST, onednn_input(dst_grad)}},
                false, cl, memo))
    return;
  const Tensor gy = dst_grad.contiguous(), wc = w.contiguous();
  via_contiguous(src_grad, [&](Tensor& out) {
    if (gy.scalar_type() == kFloat) backward_data_loop<float>(g, gy.const_data_ptr<float>(), wc.const_data_ptr<float>(), out._mutable_data_ptr_internal<float>());
    else backward_data_loop<double>(g, gy.const_data_ptr<double>(), wc.const_data_ptr<double>(), out._mutable_data_ptr_internal<double>());
  });
}

void run_backward_weights(const ConvGeometry& g, const Tensor& src, const Tensor& dst_grad, Tensor& w_grad, bool cl,
                          ReorderMemo* memo = nullptr) {
  if (w_grad.scalar_type() == kFloat &&
      dnnl_conv(Pass::backward_weights, g,
                {{DNNL_ARG_SRC, onednn_input(src)}, {DNNL_ARG_DIFF_WEIGHTS, w_grad._mutable_data_ptr_internal()}, {DNNL_ARG_DIFF_DST, onednn_input(dst_grad)}},
                false, cl, memo))
    return;
  const Tensor s = src.contiguous(), gy = dst_grad.contiguous();
  via_contiguous(w_grad, [&](Tensor& out) {
    if (s.scalar_type() == kFloat) backward_weights_loop<float>(g, s.const_data_ptr<float>(), gy.const_data_ptr<float>(), out._mutable_data_ptr_internal<float>());
    else backward_weights_loop<double>(g, s.const_data_ptr<double>(), gy.const_data_ptr<double>(), out._mutable_data_ptr_internal<double>());
  });
}

// ---------------------------------------------------------------- channels-last (Note [Channels-last convolution])
bool use_channels_last(const ConvGeometry& g, const Tensor& input, const Tensor& weight) {
  return g.nd == 2 && (suggests_channels_last(input) || suggests_channels_last(weight));
}

// A new channels-last tensor of NCHW sizes `sizes` (not a view: autograd keeps it as the gradient
// without a copy).
Tensor empty_channels_last(IntArrayRef sizes, const TensorOptions& options) {
  const int64_t C = std::max<int64_t>(sizes[1], 1), W = std::max<int64_t>(sizes[3], 1), H = std::max<int64_t>(sizes[2], 1);
  return at::empty_strided(sizes, {H * W * C, 1, W * C, C}, options);
}

// `t` when it is densely channels-last already (strides of size-1 dims do not matter), else a
// channels-last copy.
Tensor to_channels_last(const Tensor& t) {
  const int64_t want[4] = {t.size(1) * t.size(2) * t.size(3), 1, t.size(3) * t.size(1), t.size(1)};
  bool dense = true;
  for (int64_t d = 0; d < 4; ++d) dense = dense && (t.size(d) == 1 || t.stride(d) == want[d]);
  if (dense) return t;
  Tensor out = empty_channels_last(t.sizes(), t.options());
  out.copy_(t);
  return out;
}

// The layout of one convolution's activations and weights: channels-last or contiguous.
Tensor in_layout(const Tensor& t, bool cl) { return cl ? to_channels_last(t) : t.contiguous(); }
Tensor empty_in_layout(IntArrayRef sizes, const TensorOptions& options, bool cl) {
  return cl ? empty_channels_last(sizes, options) : at::empty(sizes, options);
}

void check_cpu(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    EMBER_CHECK(!t->defined() || t->is_cpu(), "[", op, "] expected CPU tensors; got one on ", t->device());
}

void check_dtype(const char* op, const Tensor& input) {
  EMBER_CHECK(input.scalar_type() == kFloat || input.scalar_type() == kDouble, "[", op,
              "] expected float32 or float64 on the CPU; got ", c10::dtypeName(input.scalar_type()));
}

// The bias as a (1, channels, 1, ...) view that broadcasts over an output of rank nd + 2.
Tensor bias_view(const Tensor& b, const ConvGeometry& g) {
  std::vector<int64_t> shape(static_cast<size_t>(g.nd + 2), 1);
  shape[1] = b.size(0);
  return b.view(shape);
}

}  // namespace

Tensor convolution_cpu(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  const ConvGeometry g =
      conv_utils::check_conv("convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  const Tensor b = bias && bias->defined() ? bias->contiguous() : Tensor();
  check_cpu("convolution", {&input, &weight, &b});
  check_dtype("convolution", input);
  const bool cl = use_channels_last(g, input, weight);
  Tensor y = empty_in_layout(g.output_shape(), input.options(), cl);
  if (y.numel() == 0) return y;
  if (input.numel() == 0 || weight.numel() == 0) return b.defined() ? y.copy_(bias_view(b, g).expand_as(y)) : y.zero_();
  const Tensor x = in_layout(input, cl), w = in_layout(weight, cl);
  if (!transposed) {
    run_forward(g, x, w, b, y, cl);
  } else {
    run_backward_data(g, x, w, y, cl);
    if (b.defined()) y.add_(bias_view(b, g));
  }
  return y;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_cpu(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                                            OptionalIntArrayRef bias_sizes, IntArrayRef stride, IntArrayRef padding,
                                                            IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                                                            int64_t groups, std::array<bool, 3> output_mask) {
  (void)bias_sizes;  // the bias gradient's shape is (out_channels)
  const char* op = "convolution_backward";
  const ConvGeometry g =
      conv_utils::check_conv(op, input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  check_cpu(op, {&grad_output, &input, &weight});
  check_dtype(op, input);
  conv_utils::check_conv_grad_output(op, grad_output, input, g);
  const bool cl = use_channels_last(g, input, weight);
  const bool empty = grad_output.numel() == 0 || input.numel() == 0 || weight.numel() == 0;
  const Tensor gy = empty ? grad_output : in_layout(grad_output, cl);
  Tensor gx, gw, gb;
  ReorderMemo memo;  // gy's reorder, shared by the two passes
  if (output_mask[0]) {
    gx = empty_in_layout(input.sizes(), input.options(), cl);
    if (empty) {
      gx.zero_();
    } else {
      const Tensor w = in_layout(weight, cl);
      if (!transposed) run_backward_data(g, gy, w, gx, cl, &memo);
      else run_forward(g, gy, w, Tensor(), gx, cl);
    }
  }
  if (output_mask[1]) {
    gw = empty_in_layout(weight.sizes(), weight.options(), cl);
    if (empty) {
      gw.zero_();
    } else {
      const Tensor x = in_layout(input, cl);
      if (!transposed) run_backward_weights(g, x, gy, gw, cl, &memo);
      else run_backward_weights(g, gy, x, gw, cl);
    }
  }
  if (output_mask[2]) {
    std::vector<int64_t> dims{0};
    for (int64_t i = 2; i < g.nd + 2; ++i) dims.push_back(i);
    gb = gy.sum(IntArrayRef(dims));
  }
  return {gx, gw, gb};
}

}  // namespace at::native
