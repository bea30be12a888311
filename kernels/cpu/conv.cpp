// 2-D convolution on the CPU: convolution (forward) and convolution_backward.
//
// float32 runs through oneDNN's convolution primitives (forward, backward-data, backward-weights),
// on blocked layouts of oneDNN's choosing when there are enough channels (Note [Convolution
// layouts]); float64, and any configuration oneDNN declines, takes the direct loops below. The bias gradient is a sum over (N, OH, OW) done with at::sum.
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/Parallel.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace at::native {

namespace {

using conv_utils::Conv2dGeometry;

// ---------------------------------------------------------------- direct loops
// Each output element is owned by one (thread, loop index), so results do not depend on the
// thread count. Sums accumulate in double.

template <typename T>
void conv_forward_loop(const Conv2dGeometry& g, const T* x, const T* w, const T* b, T* y) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G;
  const int64_t tasks = g.N * g.O;
  const bool par = parallel_worthwhile(tasks * g.OH * g.OW * Cg * g.KH * g.KW, tasks);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t n = t / g.O, o = t % g.O, grp = o / Og;
    const T* wo = w + o * Cg * g.KH * g.KW;
    T* yo = y + t * g.OH * g.OW;
    for (int64_t oh = 0; oh < g.OH; ++oh) {
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        double acc = b ? static_cast<double>(b[o]) : 0.0;
        for (int64_t c = 0; c < Cg; ++c) {
          const T* xc = x + ((n * g.C) + grp * Cg + c) * g.H * g.W;
          const T* wc = wo + c * g.KH * g.KW;
          for (int64_t kh = 0; kh < g.KH; ++kh) {
            const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
            if (ih < 0 || ih >= g.H) continue;
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
              if (iw < 0 || iw >= g.W) continue;
              acc += static_cast<double>(xc[ih * g.W + iw]) * static_cast<double>(wc[kh * g.KW + kw]);
            }
          }
        }
        yo[oh * g.OW + ow] = static_cast<T>(acc);
      }
    }
  }
}

// grad_input[n, ic, ih, iw] gathers every (o, kh, kw) whose window placed input (ih, iw) under
// tap (kh, kw): oh = (ih + ph - kh * dh) / sh when that divides exactly and lands in range.
template <typename T>
void conv_backward_input_loop(const Conv2dGeometry& g, const T* gy, const T* w, T* gx) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G;
  const int64_t tasks = g.N * g.C;
  const bool par = parallel_worthwhile(tasks * g.H * g.W * Og * g.KH * g.KW, tasks);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t n = t / g.C, ic = t % g.C, grp = ic / Cg, c = ic % Cg;
    T* gxc = gx + t * g.H * g.W;
    for (int64_t ih = 0; ih < g.H; ++ih) {
      for (int64_t iw = 0; iw < g.W; ++iw) {
        double acc = 0.0;
        for (int64_t kh = 0; kh < g.KH; ++kh) {
          const int64_t th = ih + g.ph - kh * g.dh;
          if (th < 0 || th % g.sh != 0 || th / g.sh >= g.OH) continue;
          const int64_t oh = th / g.sh;
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            const int64_t tw = iw + g.pw - kw * g.dw;
            if (tw < 0 || tw % g.sw != 0 || tw / g.sw >= g.OW) continue;
            const int64_t ow = tw / g.sw;
            for (int64_t oo = 0; oo < Og; ++oo) {
              const int64_t o = grp * Og + oo;
              acc += static_cast<double>(gy[((n * g.O + o) * g.OH + oh) * g.OW + ow]) *
                     static_cast<double>(w[((o * Cg + c) * g.KH + kh) * g.KW + kw]);
            }
          }
        }
        gxc[ih * g.W + iw] = static_cast<T>(acc);
      }
    }
  }
}

template <typename T>
void conv_backward_weight_loop(const Conv2dGeometry& g, const T* gy, const T* x, T* gw) {
  const int64_t Cg = g.C / g.G, Og = g.O / g.G;
  const int64_t tasks = g.O * Cg;
  const bool par = parallel_worthwhile(tasks * g.KH * g.KW * g.N * g.OH * g.OW, tasks);
#pragma omp parallel for schedule(static) if (par)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t o = t / Cg, c = t % Cg, ic = (o / Og) * Cg + c;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        double acc = 0.0;
        for (int64_t n = 0; n < g.N; ++n) {
          const T* xc = x + (n * g.C + ic) * g.H * g.W;
          const T* gyo = gy + (n * g.O + o) * g.OH * g.OW;
          for (int64_t oh = 0; oh < g.OH; ++oh) {
            const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
            if (ih < 0 || ih >= g.H) continue;
            for (int64_t ow = 0; ow < g.OW; ++ow) {
              const int64_t iw = ow * g.sw - g.pw + kw * g.dw;
              if (iw < 0 || iw >= g.W) continue;
              acc += static_cast<double>(gyo[oh * g.OW + ow]) * static_cast<double>(xc[ih * g.W + iw]);
            }
          }
        }
        gw[(t * g.KH + kh) * g.KW + kw] = static_cast<T>(acc);
      }
    }
  }
}

// ---------------------------------------------------------------- oneDNN path
// Note [oneDNN convolution cache]
// Like the matmul primitives (Note [oneDNN primitive cache] in matmul.cpp), convolution
// primitives are cached by everything that defines them: the kind (forward, backward-data,
// backward-weights), the geometry and whether a bias takes part. Each call brings its own
// scratchpads (user mode, for the convolution and for its reorders) and its own blocked buffers,
// so concurrent calls share no mutable state. The cache is cleared past
// kMaxEntries so that a shape sweep cannot grow memory without bound.
//
// Note [Convolution layouts]
// With many channels oneDNN's fast kernels want blocked layouts (channels in groups of 8 or 16
// innermost); on plain NCHW / OIHW memory it falls back to a slower im2col + GEMM path. So when
// both channel counts are at least kBlockedChannels, the primitive is created with layouts left
// to oneDNN ("any"), and each call reorders the plain tensors into the chosen layouts and the
// results back (the reorders are cached with the primitive). Fewer channels (the first layer of
// an image network, depthwise groups) stay on plain memory, where oneDNN is already fast and a
// reorder would cost more than it saves.
enum class Pass : int64_t { forward = 0, backward_data = 1, backward_weights = 2 };
using ConvKey = std::array<int64_t, 18>;
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

ConvKey conv_key(Pass pass, const Conv2dGeometry& g, bool bias) {
  return {static_cast<int64_t>(pass), g.N, g.C, g.H, g.W, g.O, g.KH, g.KW, g.G, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.OH, g.OW,
          bias ? 1 : 0};
}

dnnl::engine& conv_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

class ConvCache {
 public:
  static constexpr size_t kMaxEntries = 256;
  std::shared_ptr<const CachedConv> get(const ConvKey& k) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(k);
    return it == map_.end() ? nullptr : it->second;
  }
  void put(const ConvKey& k, std::shared_ptr<const CachedConv> p) {
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    map_[k] = std::move(p);
  }

 private:
  std::mutex mu_;
  std::map<ConvKey, std::shared_ptr<const CachedConv>> map_;
};

ConvCache& conv_cache() {
  static ConvCache c;
  return c;
}

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

struct ConvDescs {
  dnnl::memory::desc src, wei, bia, dst;
  dims strides, dilates, pad;
};

// The plain (user) layouts, or with `any` the descriptors that let oneDNN choose.
ConvDescs conv_descs(const Conv2dGeometry& g, bool any) {
  ConvDescs d;
  d.src = dnnl::memory::desc(dims{g.N, g.C, g.H, g.W}, f32, any ? tag::any : tag::nchw);
  d.wei = g.G == 1 ? dnnl::memory::desc(dims{g.O, g.C, g.KH, g.KW}, f32, any ? tag::any : tag::oihw)
                   : dnnl::memory::desc(dims{g.G, g.O / g.G, g.C / g.G, g.KH, g.KW}, f32, any ? tag::any : tag::goihw);
  d.bia = dnnl::memory::desc(dims{g.O}, f32, tag::x);
  d.dst = dnnl::memory::desc(dims{g.N, g.O, g.OH, g.OW}, f32, any ? tag::any : tag::nchw);
  d.strides = {g.sh, g.sw};
  d.dilates = {g.dh - 1, g.dw - 1};  // oneDNN counts the gaps between taps
  d.pad = {g.ph, g.pw};
  return d;
}

std::shared_ptr<const CachedConv> make_prim(Pass pass, const Conv2dGeometry& g, bool bias) {
  auto c = std::make_shared<CachedConv>();
  try {
    auto& eng = conv_engine();
    const bool blocked = g.C / g.G >= kBlockedChannels && g.O / g.G >= kBlockedChannels;
    const ConvDescs plain = conv_descs(g, false), d = conv_descs(g, blocked);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const auto prop = pass == Pass::forward ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
    auto fwd_d = bias ? dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct, d.src, d.wei, d.bia, d.dst,
                                                        d.strides, d.dilates, d.pad, d.pad)
                      : dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct, d.src, d.wei, d.dst, d.strides,
                                                        d.dilates, d.pad, d.pad);
    dnnl::convolution_forward::primitive_desc fwd_pd(fwd_d, attr, eng);
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
      dnnl::convolution_backward_data::desc bd(dnnl::algorithm::convolution_direct, d.src, d.wei, d.dst, d.strides, d.dilates,
                                               d.pad, d.pad);
      dnnl::convolution_backward_data::primitive_desc pd(bd, attr, eng, fwd_pd);
      c->prim = dnnl::convolution_backward_data(pd);
      c->scratch_bytes = pd.scratchpad_desc().get_size();
      add(DNNL_ARG_DIFF_DST, plain.dst, pd.diff_dst_desc(), false);
      add(DNNL_ARG_WEIGHTS, plain.wei, pd.weights_desc(), false);
      add(DNNL_ARG_DIFF_SRC, plain.src, pd.diff_src_desc(), true);
    } else {
      dnnl::convolution_backward_weights::desc bw(dnnl::algorithm::convolution_direct, d.src, d.wei, d.dst, d.strides, d.dilates,
                                                  d.pad, d.pad);
      dnnl::convolution_backward_weights::primitive_desc pd(bw, attr, eng, fwd_pd);
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

// Runs one pass with oneDNN over contiguous float32 buffers (plain layouts). Returns false when
// oneDNN has no implementation for this configuration (the caller falls back to the loops).
bool dnnl_conv(Pass pass, const Conv2dGeometry& g, const std::unordered_map<int, void*>& buffers, bool bias) {
  const ConvKey key = conv_key(pass, g, bias);
  auto prim = conv_cache().get(key);
  if (!prim) {
    prim = make_prim(pass, g, bias);
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
                        temps.back().data_ptr());
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
    temps.push_back(at::empty({static_cast<int64_t>(a.chosen.get_size())}, TensorOptions().dtype(kByte)));
    dnnl::memory blocked(a.chosen, eng, temps.back().data_ptr());
    if (a.output) outputs.emplace_back(&a, user);
    else run_reorder(a, user, blocked);
    args.emplace(a.arg, blocked);
  }
  if (auto sp = buffer(prim->scratch_bytes)) args.emplace(DNNL_ARG_SCRATCHPAD, *sp);
  prim->prim.execute(s, args);
  for (auto& out : outputs) run_reorder(*out.first, args.at(out.first->arg), out.second);
  s.wait();
  return true;
}

void check_cpu(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    EMBER_CHECK(!t->defined() || t->is_cpu(), "[", op, "] expected CPU tensors; got one on ", t->device());
}

void check_dtype(const char* op, const Tensor& input) {
  EMBER_CHECK(input.scalar_type() == kFloat || input.scalar_type() == kDouble, "[", op,
              "] expected float32 or float64 on the CPU; got ", c10::dtypeName(input.scalar_type()));
}

}  // namespace

Tensor convolution_cpu(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  (void)output_padding;  // only transposed convolutions use it
  const Conv2dGeometry g =
      conv_utils::check_conv2d("convolution", input, weight, bias, stride, padding, dilation, transposed, groups);
  const Tensor b = bias && bias->defined() ? bias->contiguous() : Tensor();
  check_cpu("convolution", {&input, &weight, &b});
  check_dtype("convolution", input);
  const Tensor x = input.contiguous(), w = weight.contiguous();
  Tensor y = at::empty({g.N, g.O, g.OH, g.OW}, input.options());
  if (y.numel() == 0) return y;
  if (g.N * g.C * g.H * g.W == 0) return b.defined() ? y.copy_(b.view({1, g.O, 1, 1}).expand_as(y)) : y.zero_();
  if (x.scalar_type() == kFloat) {
    std::unordered_map<int, void*> bufs{{DNNL_ARG_SRC, x.data_ptr()}, {DNNL_ARG_WEIGHTS, w.data_ptr()}, {DNNL_ARG_DST, y.data_ptr()}};
    if (b.defined()) bufs.emplace(DNNL_ARG_BIAS, b.data_ptr());
    if (dnnl_conv(Pass::forward, g, bufs, b.defined())) return y;
    conv_forward_loop<float>(g, x.data_ptr<float>(), w.data_ptr<float>(), b.defined() ? b.data_ptr<float>() : nullptr,
                             y.data_ptr<float>());
  } else {
    conv_forward_loop<double>(g, x.data_ptr<double>(), w.data_ptr<double>(), b.defined() ? b.data_ptr<double>() : nullptr,
                              y.data_ptr<double>());
  }
  return y;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_cpu(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                                            OptionalIntArrayRef bias_sizes, IntArrayRef stride, IntArrayRef padding,
                                                            IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                                                            int64_t groups, std::array<bool, 3> output_mask) {
  (void)output_padding;
  (void)bias_sizes;  // the bias gradient's shape is (out_channels)
  const Conv2dGeometry g =
      conv_utils::check_conv2d("convolution_backward", input, weight, std::nullopt, stride, padding, dilation, transposed, groups);
  check_cpu("convolution_backward", {&grad_output, &input, &weight});
  check_dtype("convolution_backward", input);
  conv_utils::check_conv2d_grad_output("convolution_backward", grad_output, input, g);
  const Tensor gy = grad_output.contiguous();
  Tensor gx, gw, gb;
  const bool empty = gy.numel() == 0 || input.numel() == 0;
  if (output_mask[0]) {
    gx = at::empty(input.sizes(), input.options());
    if (empty) {
      gx.zero_();
    } else {
      const Tensor w = weight.contiguous();
      if (!(gx.scalar_type() == kFloat &&
            dnnl_conv(Pass::backward_data, g,
                      {{DNNL_ARG_DIFF_SRC, gx.data_ptr()}, {DNNL_ARG_WEIGHTS, w.data_ptr()}, {DNNL_ARG_DIFF_DST, gy.data_ptr()}},
                      false))) {
        if (gx.scalar_type() == kFloat)
          conv_backward_input_loop<float>(g, gy.data_ptr<float>(), w.data_ptr<float>(), gx.data_ptr<float>());
        else
          conv_backward_input_loop<double>(g, gy.data_ptr<double>(), w.data_ptr<double>(), gx.data_ptr<double>());
      }
    }
  }
  if (output_mask[1]) {
    gw = at::empty(weight.sizes(), weight.options());
    if (empty) {
      gw.zero_();
    } else {
      const Tensor x = input.contiguous();
      if (!(gw.scalar_type() == kFloat &&
            dnnl_conv(Pass::backward_weights, g,
                      {{DNNL_ARG_SRC, x.data_ptr()}, {DNNL_ARG_DIFF_WEIGHTS, gw.data_ptr()}, {DNNL_ARG_DIFF_DST, gy.data_ptr()}},
                      false))) {
        if (gw.scalar_type() == kFloat)
          conv_backward_weight_loop<float>(g, gy.data_ptr<float>(), x.data_ptr<float>(), gw.data_ptr<float>());
        else
          conv_backward_weight_loop<double>(g, gy.data_ptr<double>(), x.data_ptr<double>(), gw.data_ptr<double>());
      }
    }
  }
  if (output_mask[2]) gb = gy.sum(IntArrayRef({0, 2, 3}));
  return {gx, gw, gb};
}

}  // namespace at::native
