// The toy device: an out-of-tree Ember backend in one file (see toy_backend.h). Everything here
// uses the installed headers only: <ATen/ATen.h> for tensors and ops, <ATen/PrivateUse1.h> for
// registration (EMBER_LIBRARY_IMPL) and the CPU fallback, <c10/core/Allocator.h> for memory.
#include "toy_backend.h"

#include <ATen/ATen.h>
#include <ATen/PrivateUse1.h>
#include <c10/core/Allocator.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace {

// ---------------------------------------------------------------- memory
// Each block starts with a header carrying a tag: live blocks say TOY_LIVE, freed ones TOY_DEAD.
// Kernels check that their tensors sit in live toy blocks, and the deleter that it frees one,
// so memory from another allocator, or used after free, is noticed.
constexpr uint64_t kLive = 0x544f595f4c495645ull;  // "TOY_LIVE"
constexpr uint64_t kDead = 0x544f595f44454144ull;  // "TOY_DEAD"
constexpr size_t kHeader = 64;                      // keeps the data 64-byte aligned
struct Header {
  uint64_t tag;
  size_t nbytes;
};

std::atomic<int64_t> g_live_bytes{0}, g_live_blocks{0}, g_total_blocks{0}, g_bad_frees{0};

void toy_free(void* block) {
  auto* h = static_cast<Header*>(block);
  if (h->tag != kLive) {  // a double free or a foreign pointer: counted (a deleter cannot throw), not freed
    g_bad_frees += 1;
    return;
  }
  h->tag = kDead;
  g_live_bytes -= static_cast<int64_t>(h->nbytes);
  g_live_blocks -= 1;
  std::free(block);
}

struct ToyAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t nbytes) override {
    const size_t total = kHeader + (nbytes + 63) / 64 * 64;
    void* block = std::aligned_alloc(64, total);
    TORCH_CHECK(block != nullptr, "[toy] expected ", nbytes, " bytes of toy memory; the host has none left");
    new (block) Header{kLive, nbytes};
    g_live_bytes += static_cast<int64_t>(nbytes);
    g_live_blocks += 1;
    g_total_blocks += 1;
    return c10::DataPtr(static_cast<char*>(block) + kHeader, block, &toy_free, c10::Device(c10::kPrivateUse1, 0));
  }
  void copy_data(void* dst, const void* src, size_t n) const override {
    if (n) std::memcpy(dst, src, n);
  }
};
ToyAllocator g_allocator;

// Loading the library names the device and gives it memory, before the kernels below register.
struct Setup {
  Setup() {
    c10::register_privateuse1_backend("toy");
    c10::SetAllocator(c10::kPrivateUse1, &g_allocator);
  }
} g_setup;

void check_block(const at::Tensor& t, const char* op) {
  TORCH_CHECK(t.device().is_privateuseone(), "[", op, "] expected a toy tensor; got one on ", t.device());
  const auto* h = reinterpret_cast<const Header*>(static_cast<const char*>(t.storage().data()) - kHeader);
  TORCH_CHECK(h->tag == kLive && t.storage().nbytes() <= h->nbytes, "[", op,
              "] expected a tensor in a live toy block; its memory is not one (freed, or from another allocator)");
}

// ---------------------------------------------------------------- counters
const char* const kKernels[] = {"empty", "empty_strided", "copy_", "add", "mul", "relu", "mm"};
constexpr int kNumKernels = sizeof(kKernels) / sizeof(kKernels[0]);
std::atomic<int64_t> g_calls[kNumKernels];
void count(int k) { g_calls[k].fetch_add(1, std::memory_order_relaxed); }

// ---------------------------------------------------------------- copies
// Calls f(byte offset from the first element) for every element, in row-major order.
template <typename F>
void for_each_offset(const at::Tensor& t, F f) {
  const int64_t n = t.numel(), d = t.dim(), item = static_cast<int64_t>(t.element_size());
  if (n == 0) return;
  std::vector<int64_t> idx(static_cast<size_t>(d), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int64_t k = 0; k < d; ++k) off += idx[k] * t.stride(k);
    f(off * item);
    for (int64_t k = d - 1; k >= 0; --k) {
      if (++idx[k] < t.size(k)) break;
      idx[k] = 0;
    }
  }
}

// A contiguous CPU tensor with the values of a toy tensor (same dtype).
at::Tensor to_host(const at::Tensor& src) {
  check_block(src, "copy_");
  at::Tensor out = at::empty(src.sizes(), at::TensorOptions().dtype(src.scalar_type()));
  const char* s = static_cast<const char*>(src.const_data_ptr());
  char* o = static_cast<char*>(out.data_ptr());
  const size_t item = src.element_size();
  for_each_offset(src, [&](int64_t off) {
    std::memcpy(o, s + off, item);
    o += item;
  });
  return out;
}

// Writes CPU values (any dtype, broadcastable to dst) into a toy tensor.
void from_host(at::Tensor& dst, const at::Tensor& host) {
  check_block(dst, "copy_");
  at::Tensor h = host.to(dst.scalar_type()).expand(dst.sizes()).contiguous();
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(h.const_data_ptr());
  const size_t item = dst.element_size();
  for_each_offset(dst, [&](int64_t off) {
    std::memcpy(d + off, s, item);
    s += item;
  });
}

// ---------------------------------------------------------------- kernels
at::Tensor toy_empty(at::IntArrayRef size, at::TensorOptions options, std::optional<at::MemoryFormat> mf) {
  count(0);
  TORCH_CHECK(!mf || *mf == at::MemoryFormat::Contiguous || *mf == at::MemoryFormat::Preserve,
              "[empty] the toy device has only the contiguous memory format");
  return at::make_empty(size, options.scalar_type(), options.device());  // through the toy allocator
}

at::Tensor toy_empty_strided(at::IntArrayRef size, at::IntArrayRef stride, at::TensorOptions options) {
  count(1);
  return at::make_empty_strided_raw(size, stride, options.scalar_type(), options.device());
}

// host -> toy, toy -> host, toy -> toy; dtype conversion and broadcasting go through the host.
at::Tensor& toy_copy_(at::Tensor& self, const at::Tensor& src, bool /*non_blocking*/) {
  count(2);
  if (self.is_same(src)) return self;
  const bool dst_toy = self.device().is_privateuseone(), src_toy = src.device().is_privateuseone();
  if (dst_toy && src_toy) {
    from_host(self, to_host(src));
  } else if (dst_toy && src.device().is_cpu()) {
    from_host(self, src);
  } else if (self.device().is_cpu() && src_toy) {
    self.copy_(to_host(src));  // host to host: conversion and broadcasting by the CPU kernel
  } else {
    TORCH_CHECK(false, "[copy_] the toy device copies to and from the CPU only; got ", src.device(), " to ", self.device());
  }
  return self;
}

// Device check as libtorch's elementwise ops do it: 0-dim CPU tensors may join device tensors.
void check_devices(const char* op, const at::Tensor& a, const at::Tensor& b) {
  const bool ok = a.device() == b.device() || (b.device().is_cpu() && b.dim() == 0) || (a.device().is_cpu() && a.dim() == 0);
  TORCH_CHECK(ok, "[", op, "] expected every tensor on one device; got tensors on ", a.device(), " and ", b.device());
}

bool toy_float(const at::Tensor& t) { return t.device().is_privateuseone() && t.scalar_type() == at::kFloat; }

template <typename F>
at::Tensor binary(const char* op, const at::Tensor& self, const at::Tensor& other, F f) {
  std::vector<at::Tensor> bt = at::broadcast_tensors({self, other});
  at::Tensor a = bt[0].contiguous(), b = bt[1].contiguous();
  check_block(a, op);
  check_block(b, op);
  at::Tensor out = at::empty(a.sizes(), self.options());
  const float* pa = a.const_data_ptr<float>();
  const float* pb = b.const_data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i) po[i] = f(pa[i], pb[i]);
  return out;
}

at::Tensor toy_add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  check_devices("add", self, other);
  // Other dtypes (and CPU scalars) are the CPU's business: defer to the generated fallback.
  if (!toy_float(self) || !toy_float(other)) return ember::privateuse1::cpu_fallback<at::ops::add_Tensor>()(self, other, alpha);
  count(3);
  const float al = static_cast<float>(alpha.toDouble());
  return binary("add", self, other, [al](float x, float y) { return x + al * y; });
}

at::Tensor toy_mul(const at::Tensor& self, const at::Tensor& other) {
  check_devices("mul", self, other);
  if (!toy_float(self) || !toy_float(other)) return ember::privateuse1::cpu_fallback<at::ops::mul_Tensor>()(self, other);
  count(4);
  return binary("mul", self, other, [](float x, float y) { return x * y; });
}

at::Tensor toy_relu(const at::Tensor& self) {
  if (!toy_float(self)) return ember::privateuse1::cpu_fallback<at::ops::relu>()(self);
  count(5);
  at::Tensor a = self.contiguous();
  check_block(a, "relu");
  at::Tensor out = at::empty(a.sizes(), a.options());
  const float* pa = a.const_data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i) po[i] = pa[i] != pa[i] ? pa[i] : (pa[i] > 0 ? pa[i] : 0.0f);
  return out;
}

at::Tensor toy_mm(const at::Tensor& self, const at::Tensor& mat2) {
  if (!toy_float(self) || !toy_float(mat2)) return ember::privateuse1::cpu_fallback<at::ops::mm>()(self, mat2);
  count(6);
  TORCH_CHECK(self.size(1) == mat2.size(0), "[mm] self.size(1) (", self.size(1), ") must equal mat2.size(0) (", mat2.size(0), ")");
  at::Tensor a = self.contiguous(), b = mat2.contiguous();
  check_block(a, "mm");
  check_block(b, "mm");
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  at::Tensor out = at::empty({M, N}, a.options());
  const float* pa = a.const_data_ptr<float>();
  const float* pb = b.const_data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += static_cast<double>(pa[i * K + k]) * pb[k * N + j];
      po[i * N + j] = static_cast<float>(acc);
    }
  return out;
}

}  // namespace

// The kernels the toy has; every other op falls back to the CPU (Note [PrivateUse1 fallback]).
EMBER_LIBRARY_IMPL(PrivateUse1, m) {
  m.impl<at::ops::empty_memory_format>(&toy_empty);
  m.impl<at::ops::empty_strided>(&toy_empty_strided);
  m.impl<at::ops::copy_>(&toy_copy_);
  m.impl<at::ops::add_Tensor>(&toy_add);
  m.impl<at::ops::mul_Tensor>(&toy_mul);
  m.impl<at::ops::relu>(&toy_relu);
  m.impl<at::ops::mm>(&toy_mm);
}

namespace toy {
Stats stats() { return {g_live_bytes.load(), g_live_blocks.load(), g_total_blocks.load(), g_bad_frees.load()}; }
int64_t kernel_calls(const char* op) {
  for (int k = 0; k < kNumKernels; ++k)
    if (std::strcmp(op, kKernels[k]) == 0) return g_calls[k].load();
  return -1;
}
}  // namespace toy
