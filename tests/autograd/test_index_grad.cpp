// Gradchecks of the indexing ops whose ops.yaml samples cannot express index lists.
#include <torch/torch.h>
#include <catch2/catch.hpp>

using torch::autograd::variable_list;

TEST_CASE("grad index.Tensor and index_put_", "[grad][index]") {
  torch::manual_seed(7);
  auto x = torch::randn({4, 5}, torch::kDouble).requires_grad_();
  auto rows = torch::tensor({0, 2, 2, 3});
  auto cols = torch::tensor({1, 4, 4, 0});
  auto f_index = [&](const variable_list& in) {
    c10::List<std::optional<at::Tensor>> idx;
    idx.push_back(rows);
    idx.push_back(cols);
    return variable_list{at::index(in[0], idx)};  // duplicates accumulate in the gradient
  };
  std::string report;
  CHECK(torch::autograd::gradcheck(f_index, {x}, {}, &report));
  INFO(report);
  CHECK(torch::autograd::gradgradcheck(f_index, {x}, {}, &report));
  auto f_rows = [&](const variable_list& in) {
    c10::List<std::optional<at::Tensor>> idx;
    idx.push_back(std::nullopt);
    idx.push_back(cols);
    return variable_list{at::index(in[0], idx)};
  };
  CHECK(torch::autograd::gradcheck(f_rows, {x}, {}, &report));
  auto v = torch::randn({3}, torch::kDouble).requires_grad_();
  auto r3 = torch::tensor({0, 1, 3}), c3 = torch::tensor({4, 0, 2});
  for (bool accumulate : {false, true}) {
    auto f_put = [&](const variable_list& in) {
      c10::List<std::optional<at::Tensor>> idx;
      idx.push_back(r3);
      idx.push_back(c3);
      auto base = in[0].clone();
      base.index_put_(idx, in[1], accumulate);
      return variable_list{base};
    };
    CHECK(torch::autograd::gradcheck(f_put, {x, v}, {}, &report));
    INFO(report);
  }
}
