// The CUDA backend against the CPU: pointwise kernels (dtypes, broadcasting, strided layouts,
// 0-dim CPU operands, >2^31 elements), copies in every direction with dtype changes, fill_, the
// caching allocator. Every test but the first skips with a warning when no device is present;
// the first checks the errors a build without CUDA (or without a device) gives.
#include "op_test_util.h"
#include <ATen/core/Dispatcher.h>
#include <torch/cuda.h>
#include <string>
#include "cuda/cuda_test_util.h"

namespace {

at::Tensor ones_cpu(std::vector<int64_t> shape) { return at::empty(shape, at::kFloat).fill_(1); }

// Values that every dtype represents (Byte has no negatives).
at::Tensor input(std::vector<int64_t> shape, at::ScalarType dt, const std::string& layout, ember_test::Rng& rng) {
  const double lo = (dt == at::kByte) ? 0.0 : -4.0;
  return ember_test::make_input(std::move(shape), dt, layout, lo, 4.0, rng);
}

void check_same(const at::Tensor& gpu, const at::Tensor& cpu) {
  REQUIRE(gpu.is_cuda());
  CHECK(gpu.scalar_type() == cpu.scalar_type());
  ember_test::assert_close(gpu.to(at::kCPU), cpu, ember_test::tol(cpu));
}

}  // namespace

TEST_CASE("CUDA tensors throw c10::Error without CUDA or without a device", "[cuda]") {
  if (torch::cuda::is_available()) {
    SUCCEED("a CUDA device is present");
    return;
  }
  CHECK_THROWS_AS(ones_cpu({2}).to(at::kCUDA), c10::Error);
  CHECK_THROWS_AS(at::empty({2}, at::device(at::kCUDA)), c10::Error);
  CHECK_THROWS_AS(torch::cuda::synchronize(), c10::Error);
  CHECK(torch::cuda::device_count() == 0);
  CHECK(ember::cuda::memory_allocated() == 0);
  if (!ember::built_with_cuda()) {
    CHECK_THROWS_WITH(at::empty({2}, at::device(at::kCUDA)), Catch::Contains("Ember was built without CUDA"));
    CHECK_THROWS_WITH(ones_cpu({2}).to(at::kCUDA), Catch::Contains("Ember was built without CUDA"));
  } else {
    CHECK_THROWS_WITH(at::empty({2}, at::device(at::kCUDA)), Catch::Contains("no CUDA device"));
  }
}

TEST_CASE("CUDA device queries and empty tensors", "[cuda]") {
  if (no_device()) return;
  CHECK(torch::cuda::device_count() >= 1);
  at::Tensor t = at::empty({3, 4}, at::device(at::kCUDA));
  CHECK(t.is_cuda());
  CHECK(t.device().index() == 0);
  at::Tensor z = at::empty({0, 5}, at::device(kGpu));
  CHECK(z.is_cuda());
  CHECK(z.numel() == 0);
  CHECK(z.to(at::kCPU).sizes() == z.sizes());
  torch::cuda::synchronize();
}

TEST_CASE("CUDA pointwise ops match the CPU", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(1234);
  for (at::ScalarType dt : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kInt, at::kLong, at::kByte}) {
    for (const char* layout : {"contiguous", "transposed", "strided", "expanded"}) {
      DYNAMIC_SECTION(c10::dtypeName(dt) << " " << layout) {
        at::Tensor a = input({17, 65}, dt, layout, rng);
        at::Tensor b = input({65}, dt, "contiguous", rng);  // broadcasts along dim 0
        at::Tensor ag = a.to(kGpu), bg = b.to(kGpu);
        check_same(at::add(ag, bg, 2), at::add(a, b, 2));
        check_same(at::mul(ag, bg), at::mul(a, b));
        check_same(at::maximum(ag, bg), at::maximum(a, b));
        check_same(at::lt(ag, bg), at::lt(a, b));  // bool output
        check_same(at::abs(ag), at::abs(a));
        check_same(ag.add(3), a.add(3));  // wrapped scalar
        if (c10::isFloatingType(dt)) {
          check_same(at::exp(ag), at::exp(a));
          check_same(at::sigmoid(ag), at::sigmoid(a));
          check_same(at::div(ag, bg), at::div(a, b));
          check_same(at::clamp(ag, -1.0, 2.0), at::clamp(a, -1.0, 2.0));
        }
      }
    }
  }
}

TEST_CASE("CUDA pointwise: bool, type promotion, 0-dim CPU operands, in-place and out=", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(99);
  at::Tensor p = input({8, 9}, at::kBool, "contiguous", rng), q = input({8, 9}, at::kBool, "transposed", rng);
  check_same(at::logical_xor(p.to(kGpu), q.to(kGpu)), at::logical_xor(p, q));

  // int32 + half -> half; float tensor * int64 tensor -> float.
  at::Tensor i = input({6, 7}, at::kInt, "contiguous", rng), h = input({6, 7}, at::kHalf, "strided", rng);
  check_same(at::add(i.to(kGpu), h.to(kGpu)), at::add(i, h));
  at::Tensor f = input({6, 7}, at::kFloat, "transposed", rng), l = input({7}, at::kLong, "contiguous", rng);
  check_same(at::mul(f.to(kGpu), l.to(kGpu)), at::mul(f, l));

  // A 0-dim CPU tensor combines with a CUDA tensor (moved over, broadcast with stride 0).
  at::Tensor s = at::empty({}, at::kFloat).fill_(2.5);
  check_same(at::mul(f.to(kGpu), s), at::mul(f, s));

  // In-place into a transposed view, and out= into a tensor of another shape (resized).
  at::Tensor base = input({7, 6}, at::kFloat, "contiguous", rng);
  at::Tensor cpu_view = base.clone().t(), gpu_view = base.to(kGpu).t();
  cpu_view.mul_(f);
  gpu_view.mul_(f.to(kGpu));
  check_same(gpu_view, cpu_view);
  at::Tensor out = at::empty({1}, at::device(kGpu));
  at::add_out(out, f.to(kGpu), l.to(kGpu));
  check_same(out, at::add(f, l));

  // Mixed devices (not 0-dim) are an error.
  CHECK_THROWS_AS(at::add(f, f.to(kGpu)), c10::Error);
}

TEST_CASE("CUDA pointwise over more than 2^31 elements", "[cuda]") {
  if (no_device()) return;
  const int64_t n = (int64_t{1} << 31) + 37;  // 2 GiB of uint8 per tensor
  at::Tensor a = at::empty({n}, at::TensorOptions().dtype(at::kByte).device(kGpu)).fill_(3);
  at::Tensor b = at::add(a, 4);
  at::Tensor tail = b.slice(0, n - 3, n).to(at::kCPU);
  for (int64_t k = 0; k < 3; ++k) CHECK(tail.data_ptr<uint8_t>()[k] == 7);
  // Strided: every other element of the tail end.
  at::Tensor c = at::mul(a.slice(0, 0, n, 2), 2);
  CHECK(c.numel() == (n + 1) / 2);
  CHECK(c.slice(0, c.numel() - 1, c.numel()).to(at::kCPU).data_ptr<uint8_t>()[0] == 6);
}

TEST_CASE("CUDA copies in every direction with dtype changes", "[cuda]") {
  if (no_device()) return;
  ember_test::Rng rng(5);
  for (at::ScalarType from : {at::kFloat, at::kHalf, at::kBFloat16, at::kLong, at::kBool, at::kByte}) {
    for (at::ScalarType to : {at::kFloat, at::kDouble, at::kHalf, at::kInt, at::kBool}) {
      DYNAMIC_SECTION(c10::dtypeName(from) << " -> " << c10::dtypeName(to)) {
        at::Tensor x = input({5, 12}, from, "transposed", rng);
        at::Tensor expect = x.to(to);
        // host -> device with conversion (staged), device -> host with conversion.
        check_same(x.to(kGpu, to), expect);
        at::Tensor xg = x.to(kGpu);
        ember_test::assert_close(xg.to(at::kCPU, to), expect, 0.0);
        // device -> device with conversion, from a non-contiguous view.
        check_same(xg.to(to), expect);
      }
    }
  }
  // Broadcasting copy_ into a CUDA tensor from a CPU row, and into a non-contiguous CPU destination.
  at::Tensor row = input({4}, at::kFloat, "contiguous", rng);
  at::Tensor dst = at::empty({3, 4}, at::device(kGpu));
  dst.copy_(row);
  ember_test::assert_close(dst.to(at::kCPU), row.expand({3, 4}), 0.0);
  at::Tensor host_t = at::empty({4, 3}, at::kDouble).t();
  host_t.copy_(dst);
  ember_test::assert_close(host_t, row.expand({3, 4}).to(at::kDouble), 0.0);
  // A view copied into a partly overlapping view of itself raises on both devices (as libtorch);
  // through a clone it works.
  at::Tensor v = at::empty({10}, at::kFloat);
  for (int k = 0; k < 10; ++k) v.data_ptr<float>()[k] = static_cast<float>(k);
  at::Tensor vg = v.to(kGpu);
  CHECK_THROWS_WITH(vg.slice(0, 1, 10).copy_(vg.slice(0, 0, 9)), Catch::Contains("[copy_]"));
  CHECK_THROWS_WITH(v.slice(0, 1, 10).copy_(v.slice(0, 0, 9)), Catch::Contains("[copy_]"));
  vg.slice(0, 1, 10).copy_(vg.slice(0, 0, 9).clone());
  v.slice(0, 1, 10).copy_(v.slice(0, 0, 9).clone());
  ember_test::assert_close(vg.to(at::kCPU), v, 0.0);
}

TEST_CASE("CUDA fill_", "[cuda]") {
  if (no_device()) return;
  at::Tensor t = at::empty({5, 7}, at::device(kGpu));
  t.fill_(0);
  ember_test::assert_close(t.to(at::kCPU), at::empty({5, 7}, at::kFloat).fill_(0), 0.0);
  t.fill_(-1.5);
  ember_test::assert_close(t.to(at::kCPU), at::empty({5, 7}, at::kFloat).fill_(-1.5), 0.0);
  t.slice(1, 0, 7, 2).fill_(4);  // strided
  at::Tensor ref = at::empty({5, 7}, at::kFloat).fill_(-1.5);
  ref.slice(1, 0, 7, 2).fill_(4);
  ember_test::assert_close(t.to(at::kCPU), ref, 0.0);
  at::Tensor hb = at::empty({9}, at::TensorOptions().dtype(at::kHalf).device(kGpu)).fill_(0.25);
  ember_test::assert_close(hb.to(at::kCPU), at::empty({9}, at::kHalf).fill_(0.25), 0.0);
}

TEST_CASE("CUDA caching allocator reuses freed blocks", "[cuda]") {
  if (no_device()) return;
  torch::cuda::synchronize();
  for (int64_t numel : {int64_t{100}, int64_t{3} << 20}) {  // a small (512 B) and a large (2 MiB) block
    DYNAMIC_SECTION("numel " << numel) {
      { at::Tensor warm = at::empty({numel}, at::device(kGpu)); }
      const size_t reserved = ember::cuda::memory_reserved();
      const size_t allocated = ember::cuda::memory_allocated();
      {
        at::Tensor t = at::empty({numel}, at::device(kGpu));
        CHECK(ember::cuda::memory_reserved() == reserved);  // served from the cache
        CHECK(ember::cuda::memory_allocated() >= allocated + static_cast<size_t>(numel) * 4);
      }
      CHECK(ember::cuda::memory_reserved() == reserved);
      CHECK(ember::cuda::memory_allocated() == allocated);
    }
  }
  // The 12 MiB segment cached above is wholly free, so empty_cache returns it (segments that
  // still hold a live block elsewhere in the process stay).
  const size_t cached = ember::cuda::memory_reserved();
  ember::cuda::empty_cache();
  CHECK(ember::cuda::memory_reserved() + (size_t{12} << 20) <= cached);
  CHECK(ember::cuda::memory_reserved() >= ember::cuda::memory_allocated());
}

TEST_CASE("ops without a CUDA kernel: one generated list, printed, matching the dispatch table", "[cuda]") {
  std::string names;
  for (size_t i = 0; i < ember_test::kNumOpsWithoutCuda; ++i)
    names += std::string(i ? ", " : "") + ember_test::kOpsWithoutCuda[i];
  WARN(ember_test::kNumOpsWithoutCuda << " ops have no CUDA kernel: " << names);
  // In a CUDA build every listed op has an empty CUDA row and every other kernel op a filled one.
  if (!ember::built_with_cuda()) return;
  size_t empty_rows = 0;
  for (uint32_t id = 0; id < ember::kNumOps; ++id) {
    const bool has_cpu = ember::dispatch::get_kernel(static_cast<ember::OpId>(id), c10::DispatchKey::CPU) != nullptr;
    const bool has_cuda = ember::dispatch::get_kernel(static_cast<ember::OpId>(id), c10::DispatchKey::CUDA) != nullptr;
    bool listed = false;
    for (size_t i = 0; i < ember_test::kNumOpsWithoutCuda; ++i)
      listed = listed || std::string(ember::kOpNames[id]) == ember_test::kOpsWithoutCuda[i];
    INFO("op " << ember::kOpNames[id]);
    if (listed) CHECK_FALSE(has_cuda);
    if (has_cpu && !has_cuda) {
      CHECK(listed);
      ++empty_rows;
    }
  }
  CHECK(empty_rows == ember_test::kNumOpsWithoutCuda);
  if (ember_test::kNumOpsWithoutCuda > 0)  // the list is empty once every op has a CUDA kernel
    CHECK(ember_test::is_listed_cuda_gap(std::string("[x] no kernel for CUDA (op ") + ember_test::kOpsWithoutCuda[0] + ")"));
  CHECK_FALSE(ember_test::is_listed_cuda_gap("[add] no kernel for CUDA (op add.Tensor)"));
}
