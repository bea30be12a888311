// libtorch spellings that its published example programs use (found by compiling those programs
// against Ember): each must compile through torch/torch.h (or the finer-grained header the
// programs include) and mean what it means in libtorch.
#include <torch/script.h>
#include <torch/types.h>
#include <torch/data/datasets/base.h>
#include <torch/data/samplers/random.h>
#include <torch/data/transforms/stack.h>
#include <catch2/catch.hpp>
#include <string>

namespace {

// A dataset written the way libtorch's examples write one: against torch::data::Dataset.
struct Squares : torch::data::Dataset<Squares> {
  torch::data::Example<> get(size_t i) override {
    const double v = static_cast<double>(i);
    return {torch::full({1}, v * v, torch::kF64), torch::full({1}, v, torch::kI64)};
  }
  torch::optional<size_t> size() const override { return 5; }
};

}  // namespace

TEST_CASE("api spellings: names libtorch programs use", "[api]") {
  // Assertions and message building reachable through at:: and torch::.
  AT_ASSERT(1 + 1 == 2);
  AT_ASSERTM(true, "never shown");
  CHECK_THROWS_AS([] { AT_ASSERTM(false, "broken"); }(), c10::Error);
  CHECK(torch::str("a", 1, 'b') == "a1b");
  CHECK(at::str(2.5) == "2.5");
  assert(true);  // <cassert> comes with the torch headers
  // Optional under libtorch's names.
  torch::optional<int64_t> o = torch::nullopt;
  at::optional<int64_t> p = 3;
  CHECK_FALSE(o.has_value());
  CHECK(*p == 3);
  // Short and fixed-width dtype names.
  CHECK(torch::kF32 == torch::kFloat);
  CHECK(torch::kF64 == torch::kDouble);
  CHECK(torch::kI64 == torch::kLong);
  CHECK(torch::kU8 == torch::kByte);
  CHECK(torch::kF16 == torch::kHalf);
  torch::Dtype d = torch::kI32;
  CHECK(d == torch::kInt);
  // Free-function queries, IntList, toType, _unsafe_view.
  const torch::Tensor t = torch::arange(12, torch::kF32).reshape({3, 4});
  CHECK(at::numel(t) == 12);
  CHECK(at::size(t, 1) == 4);
  CHECK(at::stride(t, 0) == 4);
  CHECK(at::is_floating_point(t));
  CHECK_FALSE(at::is_complex(t));
  at::IntList shape = t.sizes();
  CHECK(shape.vec() == std::vector<int64_t>{3, 4});
  CHECK(t.toType(torch::kF64).scalar_type() == torch::kDouble);
  const torch::Tensor u = at::_unsafe_view(t, {4, 3});
  CHECK(u.sizes() == torch::IntArrayRef({4, 3}));
  CHECK(u.data_ptr() == t.data_ptr());  // the same elements, not a copy
  CHECK(u[3][2].item<float>() == 11.0f);
}

TEST_CASE("api spellings: TensorOptions::merge_in lets the argument's set fields win", "[api]") {
  auto base = torch::TensorOptions().dtype(torch::kDouble).requires_grad(false);
  auto merged = base.merge_in(torch::TensorOptions().dtype(torch::kInt));
  CHECK(merged.dtype() == torch::kInt);
  CHECK(merged.device() == torch::Device(torch::kCPU));
  CHECK(base.merge_in(torch::TensorOptions()).dtype() == torch::kDouble);
  CHECK(torch::zeros({2}, torch::kDouble).new_zeros({3}, torch::kInt).scalar_type() == torch::kInt);
}

TEST_CASE("api spellings: c10::optional names and what_without_backtrace", "[api]") {
  c10::optional<int64_t> none = c10::nullopt;
  CHECK_FALSE(none.has_value());
  CHECK(c10::make_optional<int64_t>(3).value() == 3);
  try {
    torch::ones({2}).view({3});
    FAIL("view to a different element count should raise");
  } catch (const c10::Error& e) {
    CHECK(std::string(e.what_without_backtrace()).rfind("[view]", 0) == 0);
    CHECK(std::string(e.what_without_backtrace()) == e.what());
  }
}

TEST_CASE("api spellings: a torch::data::Dataset through the loader", "[api]") {
  auto ds = Squares().map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(ds), 2);
  std::vector<double> seen;
  for (auto& batch : *loader)
    for (int64_t i = 0; i < batch.data.size(0); ++i) seen.push_back(batch.data[i][0].item<double>());
  CHECK(seen == std::vector<double>{0, 1, 4, 9, 16});
}
