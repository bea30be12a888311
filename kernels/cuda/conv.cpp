// Convolution on CUDA through cuDNN, 1-d to 3-d, plain and transposed: convolution and
// convolution_backward.
//
// Same checks and output geometry as the CPU kernel (ATen/native/ConvUtils.h), so both backends
// raise the same errors, and the same mapping onto the three passes of a plain ("canonical")
// convolution (Note [Convolution as a source-to-destination map] there): a transposed forward is
// cuDNN's backward-data, its input gradient cuDNN's forward, its weight gradient cuDNN's
// backward-filter with source and destination swapped. cuDNN wants at least 4-D tensors, so a
// 1-d convolution runs as a 2-d one with a leading spatial size of 1. Tensors are made
// contiguous and the result is contiguous, as on the CPU. float32, float64, float16 and bfloat16;
// float16/bfloat16 accumulate in float32.
//
// Note [cuDNN algorithm choice]
// Each (pass, shape, dtype, math, device) is resolved once and cached: by default from cuDNN's
// heuristics (the v7 query, best first), with at::globalContext().setBenchmarkCuDNN(true) by
// timing the candidates on the real buffers (cudnnFind*Ex). Candidates that fail, that are not
// deterministic while setDeterministicCuDNN(true) is on, or whose workspace cannot be allocated
// are skipped. Float32 may use TF32 tensor cores only while allowTF32CuDNN() (libtorch's default:
// on); otherwise the convolution descriptor is held to FMA math.
//
// cuDNN's legacy descriptors take int sizes, so a batch whose tensors exceed 2^31 - 1 elements
// runs in slices of samples; the weight gradient of later slices accumulates (beta = 1).
#include <ATen/Context.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/NativeFunctions.h>
#include "Cudnn.h"
#include <climits>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace at::native {

namespace {

using conv_utils::ConvGeometry;
namespace dnn = ember::cuda::cudnn;

enum class Pass : int { forward = 0, backward_data = 1, backward_filter = 2 };

cudnnDataType_t data_type(ScalarType t) {
  switch (t) {
    case kFloat: return CUDNN_DATA_FLOAT;
    case kDouble: return CUDNN_DATA_DOUBLE;
    case kHalf: return CUDNN_DATA_HALF;
    case kBFloat16: return CUDNN_DATA_BFLOAT16;
    default: break;
  }
  throw c10::Error(c10::str("[convolution] expected float32, float64, float16 or bfloat16 on CUDA; got ", c10::dtypeName(t)));
}

cudnnMathType_t math_type(ScalarType t) {
  if (t == kHalf || t == kBFloat16) return CUDNN_TENSOR_OP_MATH;
  if (t == kFloat) return at::globalContext().allowTF32CuDNN() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

int as_int(int64_t v) { return static_cast<int>(v); }  // callers keep every size below INT_MAX

/// The descriptors of one convolution call (a slice of `n` samples), destroyed with the object.
class Descriptors {
 public:
  // x, y and w are the canonical source, destination and weight (see the top of this file).
  Descriptors(const dnn::Api& api, const ConvGeometry& g, int64_t n, ScalarType st) : api_(api) {
    const cudnnDataType_t dt = data_type(st);
    EMBER_CUDNN_CHECK(api.CreateTensorDescriptor(&x));
    EMBER_CUDNN_CHECK(api.CreateTensorDescriptor(&y));
    EMBER_CUDNN_CHECK(api.CreateFilterDescriptor(&w));
    EMBER_CUDNN_CHECK(api.CreateConvolutionDescriptor(&conv));
    const int sd = static_cast<int>(std::max<int64_t>(g.nd, 2));  // spatial dims given to cuDNN
    const int first = 3 - sd;                                     // first of the geometry's slots used
    int xd[5], xs[5], yd[5], ys[5], wd[5], pad[3], str[3], dil[3];
    xd[0] = as_int(n), xd[1] = as_int(g.C), yd[0] = as_int(n), yd[1] = as_int(g.O);
    wd[0] = as_int(g.O), wd[1] = as_int(g.C / g.G);
    for (int i = 0; i < sd; ++i) {
      xd[2 + i] = as_int(g.src[first + i]), yd[2 + i] = as_int(g.dst[first + i]), wd[2 + i] = as_int(g.k[first + i]);
      pad[i] = as_int(g.pl[first + i]), str[i] = as_int(g.s[first + i]), dil[i] = as_int(g.d[first + i]);
    }
    xs[sd + 1] = ys[sd + 1] = 1;
    for (int i = sd + 1; i >= 1; --i) xs[i - 1] = xs[i] * xd[i], ys[i - 1] = ys[i] * yd[i];
    EMBER_CUDNN_CHECK(api.SetTensorNdDescriptor(x, dt, sd + 2, xd, xs));
    EMBER_CUDNN_CHECK(api.SetTensorNdDescriptor(y, dt, sd + 2, yd, ys));
    EMBER_CUDNN_CHECK(api.SetFilterNdDescriptor(w, dt, CUDNN_TENSOR_NCHW, sd + 2, wd));
    const cudnnDataType_t compute = st == kDouble ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    EMBER_CUDNN_CHECK(api.SetConvolutionNdDescriptor(conv, sd, pad, str, dil, CUDNN_CROSS_CORRELATION, compute));
    EMBER_CUDNN_CHECK(api.SetConvolutionGroupCount(conv, as_int(g.G)));
    EMBER_CUDNN_CHECK(api.SetConvolutionMathType(conv, math_type(st)));
  }
  ~Descriptors() {
    if (conv) (void)api_.DestroyConvolutionDescriptor(conv);
    if (w) (void)api_.DestroyFilterDescriptor(w);
    if (y) (void)api_.DestroyTensorDescriptor(y);
    if (x) (void)api_.DestroyTensorDescriptor(x);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

 private:
  const dnn::Api& api_;
};

// ---------------------------------------------------------------- algorithm cache
struct Key {
  int64_t v[30];
  bool operator==(const Key& o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : k.v) h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};
struct Choice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

Key make_key(Pass pass, const ConvGeometry& g, int64_t n, ScalarType st, int device) {
  const auto& ctx = at::globalContext();
  Key k{};
  size_t i = 0;
  for (int64_t v : {static_cast<int64_t>(pass), g.nd, n, g.C, g.O, g.G, static_cast<int64_t>(st), int64_t{device},
                    static_cast<int64_t>(math_type(st)), int64_t{ctx.deterministicCuDNN()}, int64_t{ctx.benchmarkCuDNN()}})
    k.v[i++] = v;
  for (const auto* a : {&g.src, &g.dst, &g.k, &g.s, &g.pl, &g.d})  // cuDNN pads symmetrically: no pr
    for (int64_t v : *a) k.v[i++] = v;
  return k;
}

std::mutex cache_mutex;
std::unordered_map<Key, Choice, KeyHash>& cache() {
  static auto* m = new std::unordered_map<Key, Choice, KeyHash>();  // outlives every thread's last call
  return *m;
}

/// One candidate as cuDNN describes it, whatever the pass.
struct Candidate {
  int algo;
  cudnnStatus_t status;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t math;
};

template <typename Perf>
std::vector<Candidate> candidates(const Perf* p, int count) {
  std::vector<Candidate> out;
  for (int i = 0; i < count; ++i)
    out.push_back({static_cast<int>(p[i].algo), p[i].status, p[i].memory, p[i].determinism, p[i].mathType});
  return out;
}

at::Tensor workspace_tensor(size_t bytes, const Device& device) {
  return at::empty({static_cast<int64_t>(bytes)}, at::TensorOptions().dtype(kByte).device(device));
}

/// The buffers of one call: x, w, y are input, weight and output of the forward (for the
/// backward passes: dx / dw / dy in those places).
struct Buffers {
  void* x;
  void* w;
  void* y;
};

// Heuristic or timed candidates for one pass, best first.
std::vector<Candidate> query(Pass pass, const dnn::Api& api, cudnnHandle_t h, const Descriptors& d, const Buffers& b,
                             bool benchmark, const Device& device) {
  constexpr int kMax = 16;
  int count = 0;
  std::vector<Candidate> heur;
  switch (pass) {
    case Pass::forward: {
      cudnnConvolutionFwdAlgoPerf_t p[kMax];
      EMBER_CUDNN_CHECK(api.GetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, kMax, &count, p));
      heur = candidates(p, count);
      break;
    }
    case Pass::backward_data: {
      cudnnConvolutionBwdDataAlgoPerf_t p[kMax];
      EMBER_CUDNN_CHECK(api.GetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, kMax, &count, p));
      heur = candidates(p, count);
      break;
    }
    case Pass::backward_filter: {
      cudnnConvolutionBwdFilterAlgoPerf_t p[kMax];
      EMBER_CUDNN_CHECK(api.GetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, kMax, &count, p));
      heur = candidates(p, count);
      break;
    }
  }
  if (!benchmark) return heur;
  // Timing: give the candidates the largest workspace a heuristic candidate wants (at most 1 GiB),
  // or less if that much cannot be had.
  size_t want = 0;
  for (const Candidate& c : heur)
    if (c.status == CUDNN_STATUS_SUCCESS) want = std::max(want, std::min<size_t>(c.memory, size_t{1} << 30));
  at::Tensor ws;
  while (want > 0) {
    try {
      ws = workspace_tensor(want, device);
      break;
    } catch (const c10::OutOfMemoryError&) {
      want /= 2;
    }
  }
  void* wp = ws.defined() ? ws._mutable_data_ptr_internal() : nullptr;
  switch (pass) {
    case Pass::forward: {
      cudnnConvolutionFwdAlgoPerf_t p[kMax];
      EMBER_CUDNN_CHECK(api.FindConvolutionForwardAlgorithmEx(h, d.x, b.x, d.w, b.w, d.conv, d.y, b.y, kMax, &count, p, wp, want));
      return candidates(p, count);
    }
    case Pass::backward_data: {
      cudnnConvolutionBwdDataAlgoPerf_t p[kMax];
      EMBER_CUDNN_CHECK(
          api.FindConvolutionBackwardDataAlgorithmEx(h, d.w, b.w, d.y, b.y, d.conv, d.x, b.x, kMax, &count, p, wp, want));
      return candidates(p, count);
    }
    case Pass::backward_filter: {
      cudnnConvolutionBwdFilterAlgoPerf_t p[kMax];
      EMBER_CUDNN_CHECK(
          api.FindConvolutionBackwardFilterAlgorithmEx(h, d.x, b.x, d.y, b.y, d.conv, d.w, b.w, kMax, &count, p, wp, want));
      return candidates(p, count);
    }
  }
  return {};
}

size_t workspace_size(Pass pass, const dnn::Api& api, cudnnHandle_t h, const Descriptors& d, int algo) {
  size_t bytes = 0;
  switch (pass) {
    case Pass::forward:
      EMBER_CUDNN_CHECK(api.GetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                                               &bytes));
      break;
    case Pass::backward_data:
      EMBER_CUDNN_CHECK(api.GetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x,
                                                                    static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes));
      break;
    case Pass::backward_filter:
      EMBER_CUDNN_CHECK(api.GetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w,
                                                                      static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes));
      break;
  }
  return bytes;
}

cudnnStatus_t launch(Pass pass, const dnn::Api& api, cudnnHandle_t h, const Descriptors& d, const Buffers& b, int algo,
                     void* ws, size_t ws_bytes, bool accumulate, ScalarType st) {
  const double one_d = 1, zero_d = 0, beta_d = accumulate ? 1 : 0;
  const float one_f = 1, zero_f = 0, beta_f = accumulate ? 1 : 0;
  const bool dbl = st == kDouble;
  const void* alpha = dbl ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
  const void* beta = dbl ? static_cast<const void*>(accumulate ? &beta_d : &zero_d)
                         : static_cast<const void*>(accumulate ? &beta_f : &zero_f);
  switch (pass) {
    case Pass::forward:
      return api.ConvolutionForward(h, alpha, d.x, b.x, d.w, b.w, d.conv, static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws,
                                    ws_bytes, beta, d.y, b.y);
    case Pass::backward_data:
      return api.ConvolutionBackwardData(h, alpha, d.w, b.w, d.y, b.y, d.conv, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                                         ws, ws_bytes, beta, d.x, b.x);
    case Pass::backward_filter:
      return api.ConvolutionBackwardFilter(h, alpha, d.x, b.x, d.y, b.y, d.conv,
                                           static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws, ws_bytes, beta, d.w, b.w);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

const char* pass_name(Pass p) {
  return p == Pass::forward ? "convolution" : "convolution_backward";
}

/// Runs one pass over a slice of n samples, choosing (and caching) its algorithm on first use.
void run_pass(Pass pass, const ConvGeometry& g, int64_t n, ScalarType st, const Device& device, const Buffers& b,
              bool accumulate) {
  const char* op = pass_name(pass);
  const dnn::Api& api = dnn::api(op);
  cudnnHandle_t h = dnn::handle(op);
  Descriptors d(api, g, n, st);
  const Key key = make_key(pass, g, n, st, device.index());
  const bool hold_fma = math_type(st) == CUDNN_FMA_MATH;
  std::optional<Choice> cached;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = cache().find(key);
    if (it != cache().end()) cached = it->second;
  }
  if (cached) {
    if (!hold_fma) EMBER_CUDNN_CHECK(api.SetConvolutionMathType(d.conv, cached->math));
    at::Tensor ws = cached->workspace ? workspace_tensor(cached->workspace, device) : at::Tensor();
    EMBER_CUDNN_CHECK(
        launch(pass, api, h, d, b, cached->algo, ws.defined() ? ws._mutable_data_ptr_internal() : nullptr, cached->workspace, accumulate, st));
    return;
  }
  const auto& ctx = at::globalContext();
  // Timing writes the pass's output buffer: harmless, except for a weight gradient that already
  // holds earlier slices' sums, which takes the heuristic choice instead.
  const std::vector<Candidate> cands = query(pass, api, h, d, b, ctx.benchmarkCuDNN() && !accumulate, device);
  std::string tried;
  for (const Candidate& c : cands) {
    if (c.status != CUDNN_STATUS_SUCCESS) continue;
    if (ctx.deterministicCuDNN() && c.determinism != CUDNN_DETERMINISTIC) continue;
    if (hold_fma && c.math != CUDNN_FMA_MATH && c.math != CUDNN_DEFAULT_MATH) continue;
    if (!hold_fma) EMBER_CUDNN_CHECK(api.SetConvolutionMathType(d.conv, c.math));
    const size_t bytes = workspace_size(pass, api, h, d, c.algo);
    at::Tensor ws;
    if (bytes > 0) {
      try {
        ws = workspace_tensor(bytes, device);
      } catch (const c10::OutOfMemoryError&) {
        tried += c10::str(" algo ", c.algo, " (workspace of ", bytes, " bytes: out of memory)");
        continue;
      }
    }
    const cudnnStatus_t s = launch(pass, api, h, d, b, c.algo, bytes ? ws._mutable_data_ptr_internal() : nullptr, bytes, accumulate, st);
    if (s != CUDNN_STATUS_SUCCESS) {
      tried += c10::str(" algo ", c.algo, " (", api.GetErrorString(s), ")");
      continue;
    }
    std::lock_guard<std::mutex> lock(cache_mutex);
    cache().emplace(key, Choice{c.algo, hold_fma ? CUDNN_FMA_MATH : c.math, bytes});
    return;
  }
  throw c10::Error(c10::str("[", op, "] cuDNN offered no algorithm that runs this convolution (source ", IntArrayRef(g.src_shape()),
                            ", destination ", IntArrayRef(g.dst_shape()), ", weight ", IntArrayRef(g.weight_shape()), ", groups ", g.G,
                            g.transposed ? ", transposed" : "", ", ",
                            c10::dtypeName(st), ctx.deterministicCuDNN() ? ", deterministic only" : "", ");",
                            tried.empty() ? " none was applicable" : tried));
}

/// Samples per slice so that every tensor of the slice stays below 2^31 elements.
int64_t slice_samples(const char* op, const ConvGeometry& g) {
  const int64_t per = std::max<int64_t>({g.C * g.src_plane(), g.O * g.dst_plane(), 1});
  EMBER_CHECK(per <= INT_MAX && g.O * (g.C / g.G) * g.kernel() <= INT_MAX, "[", op,
              "] expected one sample's input, output and the weight each below 2^31 elements on CUDA; got input ",
              IntArrayRef(g.input_shape()), ", output ", IntArrayRef(g.output_shape()));
  return std::max<int64_t>(1, std::min<int64_t>(g.N, INT_MAX / per));
}

void check_cuda(const char* op, std::initializer_list<const Tensor*> ts, const Tensor& ref) {
  for (const Tensor* t : ts)
    if (t->defined())
      EMBER_CHECK(t->is_cuda() && t->device() == ref.device(), "[", op, "] expected every tensor on ", ref.device(),
                  "; got one on ", t->device());
}

// cuDNN pads both ends alike; a transposed convolution whose output_padding reaches its stride
// (which a larger dilation allows) would need a smaller right padding.
void check_symmetric(const char* op, const ConvGeometry& g) {
  EMBER_CHECK(g.pl == g.pr, "[", op, "] expected each output_padding below its stride on CUDA (an output_padding of at least the ",
              "stride, allowed by a larger dilation, runs on the CPU only); got source ", IntArrayRef(g.src_shape()),
              ", stride ", IntArrayRef(g.spatial(g.s)), ", dilation ", IntArrayRef(g.spatial(g.d)));
}

/// Runs one canonical pass over the whole batch in slices: `src` and `dst` are the canonical
/// source and destination buffers (contiguous), `w` the weight (or their gradients, by pass).
void run_sliced(const char* op, Pass pass, const ConvGeometry& g, const Tensor& src, const Tensor& w, const Tensor& dst) {
  const int64_t step = slice_samples(op, g);
  const int64_t esz = static_cast<int64_t>(src.element_size());
  for (int64_t n0 = 0; n0 < g.N; n0 += step) {
    const int64_t n = std::min(step, g.N - n0);
    Buffers buf{static_cast<char*>(src._mutable_data_ptr_internal()) + n0 * g.C * g.src_plane() * esz, w._mutable_data_ptr_internal(),
                static_cast<char*>(dst._mutable_data_ptr_internal()) + n0 * g.O * g.dst_plane() * esz};
    // The weight gradient of later slices adds to the earlier ones'.
    run_pass(pass, g, n, src.scalar_type(), src.device(), buf, pass == Pass::backward_filter && n0 > 0);
  }
}

// The bias as a (1, channels, 1, ...) view that broadcasts over an output of rank nd + 2.
Tensor bias_view(const Tensor& b, const ConvGeometry& g) {
  std::vector<int64_t> shape(static_cast<size_t>(g.nd + 2), 1);
  shape[1] = b.size(0);
  return b.view(shape);
}

}  // namespace

Tensor convolution_cuda(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  const char* op = "convolution";
  const ConvGeometry g =
      conv_utils::check_conv(op, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  const Tensor b = bias && bias->defined() ? bias->contiguous() : Tensor();
  EMBER_CHECK(input.is_cuda(), "[", op, "] expected a CUDA input; got one on ", input.device());
  check_cuda(op, {&weight, &b}, input);
  (void)data_type(input.scalar_type());
  check_symmetric(op, g);
  ember::cuda::DeviceGuard guard(input.device().index());
  Tensor y = at::empty(g.output_shape(), input.options());
  if (y.numel() == 0) return y;
  if (input.numel() == 0 || weight.numel() == 0) return b.defined() ? y.copy_(bias_view(b, g).expand_as(y)) : y.zero_();
  const Tensor x = input.contiguous(), w = weight.contiguous();
  if (!transposed) run_sliced(op, Pass::forward, g, x, w, y);
  else run_sliced(op, Pass::backward_data, g, y, w, x);
  if (b.defined()) y.add_(bias_view(b, g));
  return y;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_cuda(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                                             OptionalIntArrayRef bias_sizes, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                                             IntArrayRef output_padding, int64_t groups,
                                                             std::array<bool, 3> output_mask) {
  (void)bias_sizes;  // the bias gradient's shape is (out_channels)
  const char* op = "convolution_backward";
  const ConvGeometry g =
      conv_utils::check_conv(op, input, weight, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  EMBER_CHECK(input.is_cuda(), "[", op, "] expected a CUDA input; got one on ", input.device());
  check_cuda(op, {&grad_output, &weight}, input);
  (void)data_type(input.scalar_type());
  conv_utils::check_conv_grad_output(op, grad_output, input, g);
  check_symmetric(op, g);
  ember::cuda::DeviceGuard guard(input.device().index());
  const Tensor gy = grad_output.contiguous();
  Tensor gx, gw, gb;
  const bool empty = gy.numel() == 0 || input.numel() == 0 || weight.numel() == 0;
  if (output_mask[0]) {
    gx = at::empty(input.sizes(), input.options());
    if (empty) {
      gx.zero_();
    } else {
      const Tensor w = weight.contiguous();
      if (!transposed) run_sliced(op, Pass::backward_data, g, gx, w, gy);
      else run_sliced(op, Pass::forward, g, gy, w, gx);
    }
  }
  if (output_mask[1]) {
    gw = at::empty(weight.sizes(), weight.options());
    if (empty) {
      gw.zero_();
    } else {
      const Tensor x = input.contiguous();
      if (!transposed) run_sliced(op, Pass::backward_filter, g, x, gw, gy);
      else run_sliced(op, Pass::backward_filter, g, gy, gw, x);
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
