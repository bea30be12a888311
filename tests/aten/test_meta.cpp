// Meta tensors (kernels/meta/, docs/embedding.md "Meta tensors"): sizes, strides and dtypes with no
// data; tracing a model far larger than memory; the ways to data that must raise. The generated
// tests (tests/meta_<family>.cpp in the build directory) compare every op sample with the CPU.
#include <ATen/ATen.h>
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {
// Resident set size of this process in bytes (/proc/self/statm, second field in pages).
int64_t rss_bytes() {
  std::ifstream f("/proc/self/statm");
  int64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("meta: factories make storage without data", "[meta]") {
  at::Tensor t = at::empty({2, 3}, at::TensorOptions().dtype(at::kFloat).device(at::kMeta));
  CHECK(t.is_meta());
  CHECK(t.device() == at::Device("meta"));
  CHECK(t.sizes().vec() == std::vector<int64_t>{2, 3});
  CHECK(t.strides().vec() == std::vector<int64_t>{3, 1});
  CHECK(t.storage().nbytes() == 24);
  CHECK(t.const_data_ptr() == nullptr);
  const auto meta = at::TensorOptions().device(at::kMeta);
  for (const at::Tensor& f : {at::zeros({4, 5}, meta), at::ones({4, 5}, meta), at::full({4, 5}, 7, meta), at::rand({4, 5}, meta),
                              at::randn({4, 5}, meta), at::empty_strided({4, 5}, {1, 4}, meta)}) {
    CHECK(f.is_meta());
    CHECK(f.sizes().vec() == std::vector<int64_t>{4, 5});
    CHECK(f.storage().nbytes() == 20 * f.itemsize());
  }
  CHECK(at::full({4, 5}, 7, meta).scalar_type() == at::kLong);  // dtype inferred from the fill value, as on the CPU
  CHECK(at::empty_strided({4, 5}, {1, 4}, meta).strides().vec() == std::vector<int64_t>{1, 4});
  CHECK(at::arange(10, meta).sizes().vec() == std::vector<int64_t>{10});
  at::Tensor e = at::empty_like(at::empty({3, 4}).t(), meta);
  CHECK(e.is_meta());
  CHECK(e.strides().vec() == std::vector<int64_t>{1, 4});  // preserve format: a transposed input's layout
}

TEST_CASE("meta: to(kMeta) and copy_ into meta move no data; the way back raises", "[meta]") {
  at::Tensor c = at::arange(12, at::kFloat).view({3, 4}).t();
  at::Tensor m = c.to(at::kMeta);
  CHECK(m.is_meta());
  CHECK(m.sizes() == c.sizes());
  CHECK(m.strides().vec() == c.strides().vec());
  CHECK(m.to(at::kDouble).scalar_type() == at::kDouble);
  at::Tensor dst = at::empty({4, 3}, at::TensorOptions().device(at::kMeta));
  CHECK(dst.copy_(c).is_same(dst));
  CHECK_THROWS_WITH(dst.copy_(at::ones({5})), Catch::Contains("[copy_]"));  // shapes are still checked
  const std::string back = message_of([&] { at::empty({4, 3}).copy_(m); });
  CHECK(contains(back, "[copy_]"));
  CHECK(contains(back, "meta tensors have no data"));
  CHECK(contains(message_of([&] { (void)m.to(at::kCPU); }), "meta tensors have no data"));
  const std::string item = message_of([&] { (void)at::empty({}, at::TensorOptions().device(at::kMeta)).item(); });
  CHECK(contains(item, "[item]"));
  CHECK(contains(item, "meta tensors have no data"));
  CHECK(contains(message_of([&] { (void)at::nonzero(m); }), "[nonzero]"));
  CHECK(contains(message_of([&] { (void)at::masked_select(m, m.gt(0)); }), "meta tensors have no data"));
  CHECK(contains(message_of([&] { (void)at::one_hot(at::empty({3}, at::TensorOptions().dtype(at::kLong).device(at::kMeta))); }),
                 "[one_hot]"));
}

TEST_CASE("meta: printing shows device, size and dtype without reading data", "[meta]") {
  std::ostringstream os;
  os << at::empty({2, 3}, at::TensorOptions().dtype(at::kHalf).device(at::kMeta));
  CHECK(contains(os.str(), "device='meta'"));
  CHECK(contains(os.str(), "size=[2, 3]"));
  CHECK(contains(os.str(), "float16"));
  CHECK(at::empty({2}, at::TensorOptions().device(at::kMeta)).toString() == "MetaFloatType");
}

TEST_CASE("meta: pointwise ops give the CPU's shape, dtype and strides", "[meta]") {
  const auto meta = at::TensorOptions().device(at::kMeta);
  at::Tensor a = at::rand({5, 3}).t();  // transposed
  at::Tensor b = at::rand({3, 1});
  at::Tensor cpu = a + b;
  at::Tensor m = a.to(at::kMeta) + b.to(at::kMeta);
  CHECK(m.sizes() == cpu.sizes());
  CHECK(m.strides().vec() == cpu.strides().vec());
  CHECK(m.strides().vec() == std::vector<int64_t>{1, 3});
  // Promotion: int64 tensor * float scalar is float32; comparison is bool.
  at::Tensor i = at::empty({4}, meta.dtype(at::kLong));
  CHECK((i * 2.5).scalar_type() == at::kFloat);
  CHECK(i.lt(i).scalar_type() == at::kBool);
  CHECK(at::sqrt(i).scalar_type() == at::kFloat);
  // In place: the broadcast shape must be self's, as on the CPU.
  at::Tensor s = at::empty({3}, meta);
  CHECK_THROWS_WITH(s.add_(at::empty({2, 3}, meta)), Catch::Contains("[add]"));
  // out=: resized to the result's shape.
  at::Tensor out = at::empty({0}, meta);
  at::add_out(out, at::empty({2, 3}, meta), at::empty({3}, meta));
  CHECK(out.sizes().vec() == std::vector<int64_t>{2, 3});
  // Integer division by a meta divisor: no values to check, no error.
  CHECK(at::div(i, i, "floor").scalar_type() == at::kLong);
}

TEST_CASE("meta: mixing meta and CPU tensors", "[meta]") {
  const auto meta = at::TensorOptions().device(at::kMeta);
  at::Tensor m = at::empty({2, 3}, meta);
  // A CPU tensor with dims is refused, as libtorch refuses it...
  CHECK_THROWS_AS(m + at::ones({2, 3}), c10::Error);
  CHECK_THROWS_AS(at::ones({2, 3}) * m, c10::Error);
  CHECK_THROWS_AS(at::mm(m, at::ones({3, 2})), c10::Error);
  // ...a 0-dim CPU tensor takes part like a scalar (libtorch's TensorIterator allows CPU scalars).
  at::Tensor r = m + at::tensor(2.0, at::kDouble);
  CHECK(r.is_meta());
  CHECK(r.scalar_type() == at::kFloat);
}

TEST_CASE("meta: views keep sizes, strides and offsets", "[meta]") {
  at::Tensor c = at::rand({4, 6, 5});
  at::Tensor m = c.to(at::kMeta);
  auto same = [](const at::Tensor& x, const at::Tensor& y) {
    CHECK(x.sizes().vec() == y.sizes().vec());
    CHECK(x.strides().vec() == y.strides().vec());
    CHECK(x.storage_offset() == y.storage_offset());
  };
  same(m.slice(1, 1, 5, 2), c.slice(1, 1, 5, 2));
  same(m.select(2, 3), c.select(2, 3));
  same(m.transpose(0, 2), c.transpose(0, 2));
  same(m.narrow(0, 1, 2).view({2, 30}), c.narrow(0, 1, 2).view({2, 30}));
  same(m.as_strided({3, 3}, {7, 2}, 5), c.as_strided({3, 3}, {7, 2}, 5));
  same(m.unsqueeze(1).expand({4, 2, 6, 5}), c.unsqueeze(1).expand({4, 2, 6, 5}));
  same(m.diagonal(0, 1, 2), c.diagonal(0, 1, 2));
  same(m.reshape({-1}), c.reshape({-1}));
  same(m.select(0, 1).t().reshape({30}), c.select(0, 1).t().reshape({30}));  // a copy: contiguous
  CHECK(m.slice(0, 1).is_alias_of(m));
}

TEST_CASE("meta: a 40 GB Linear and a conv net at batch 1024 traced without memory", "[meta]") {
  const auto meta = at::TensorOptions().device(at::kMeta);
  const int64_t rss0 = rss_bytes();
  int64_t total = 0;
  {
    // Linear 100000 x 100000: 40 GB of float32 weights.
    at::Tensor w = at::empty({100000, 100000}, meta);
    at::Tensor b = at::empty({100000}, meta);
    torch::nn::init::kaiming_uniform_(w, std::sqrt(5.0));
    torch::nn::init::uniform_(b, -0.01, 0.01);
    total += static_cast<int64_t>(w.storage().nbytes() + b.storage().nbytes());
    CHECK(w.storage().nbytes() == size_t{40000000000});
    at::Tensor x = at::empty({64, 100000}, meta);
    at::Tensor y = at::linear(x, w, b);
    CHECK(y.is_meta());
    CHECK(y.sizes().vec() == std::vector<int64_t>{64, 100000});
    at::Tensor loss = at::cross_entropy_loss(y, at::empty({64}, meta.dtype(at::kLong)));
    CHECK(loss.dim() == 0);
    CHECK(loss.is_meta());
  }
  {
    // A small conv net, built on the CPU and moved to meta, at batch 1024 on 224 x 224 images.
    torch::nn::Conv2d conv1(torch::nn::Conv2dOptions(3, 64, 3).padding(1));
    torch::nn::BatchNorm2d bn1(64);
    torch::nn::Conv2d conv2(torch::nn::Conv2dOptions(64, 128, 3).stride(2).padding(1));
    torch::nn::Linear fc(128 * 56 * 56, 1000);
    for (torch::nn::Module* mod : std::initializer_list<torch::nn::Module*>{conv1.get(), bn1.get(), conv2.get(), fc.get()})
      mod->to(at::Device(at::kMeta));
    CHECK(conv1->weight.is_meta());
    CHECK(fc->weight.is_meta());
    at::Tensor x = at::empty({1024, 3, 224, 224}, meta);
    at::Tensor h = at::relu(bn1->forward(conv1->forward(x)));
    CHECK(h.sizes().vec() == std::vector<int64_t>{1024, 64, 224, 224});
    h = at::max_pool2d(h, {2, 2});
    h = at::relu(conv2->forward(h));
    CHECK(h.sizes().vec() == std::vector<int64_t>{1024, 128, 56, 56});
    at::Tensor logits = fc->forward(h.flatten(1));
    CHECK(logits.sizes().vec() == std::vector<int64_t>{1024, 1000});
    at::Tensor loss = at::cross_entropy_loss(logits, at::empty({1024}, meta.dtype(at::kLong)));
    CHECK(loss.is_meta());
    total += static_cast<int64_t>(h.storage().nbytes());
    CHECK(h.storage().nbytes() == size_t{1024} * 128 * 56 * 56 * 4);
  }
  CHECK(total > int64_t{40000000000});
  // Nothing of that was allocated: the resident set grew by less than 64 MiB.
  CHECK(rss_bytes() - rss0 < (int64_t{64} << 20));
}
