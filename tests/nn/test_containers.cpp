// torch::nn::Functional, ModuleDict, ParameterList, ParameterDict.
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <sstream>

namespace nn = torch::nn;

TEST_CASE("nn::Functional wraps a function, with bound extra arguments", "[nn][containers]") {
  auto x = torch::linspace(-2, 2, 9);
  nn::Functional relu(torch::relu);
  CHECK(torch::equal(relu(x), x.clamp_min(0)));
  nn::Functional leaky(torch::leaky_relu, 0.25);
  CHECK(torch::allclose(leaky(x), torch::where(x > 0, x, x * 0.25)));
  nn::Functional lambda([](torch::Tensor t) { return t * 3; });
  CHECK(torch::equal(lambda(x), x * 3));
  nn::Sequential seq(nn::Linear(9, 4), nn::Functional(torch::tanh));
  CHECK(seq->forward(x.unsqueeze(0)).abs().max().item<double>() < 1);
  CHECK(relu->parameters().empty());
  std::ostringstream s;
  s << relu;
  CHECK(s.str() == "torch::nn::Functional()");
}

TEST_CASE("nn::ModuleDict keeps modules by key in insertion order", "[nn][containers]") {
  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> pairs{{"fc", nn::Linear(3, 4).ptr()},
                                                                         {"act", nn::ReLU().ptr()}};
  nn::ModuleDict dict(pairs);
  CHECK(dict->size() == 2);
  CHECK(dict->keys() == std::vector<std::string>{"fc", "act"});
  CHECK(dict->contains("fc"));
  CHECK(dict->named_parameters().keys() == std::vector<std::string>{"fc.weight", "fc.bias"});
  CHECK(dict->at<nn::LinearImpl>("fc").weight.size(0) == 4);
  CHECK_THROWS_AS(dict["nope"], c10::Error);
  CHECK_THROWS_AS(dict->at<nn::LinearImpl>("act"), c10::Error);
  auto replacement = nn::Linear(3, 7);
  dict->insert("fc", replacement);
  CHECK(dict->keys() == std::vector<std::string>{"fc", "act"});
  CHECK(dict["fc"] == replacement.ptr());
  dict->insert("out", nn::Linear(7, 1));
  auto popped = dict->pop("act");
  CHECK(popped->is<nn::ReLUImpl>());
  CHECK(dict->keys() == std::vector<std::string>{"fc", "out"});
  std::vector<std::string> seen;
  for (const auto& item : *dict) seen.push_back(item.key());
  CHECK(seen == dict->keys());
  auto copy = std::dynamic_pointer_cast<nn::ModuleDictImpl>(dict->clone());
  CHECK(copy->keys() == dict->keys());
  CHECK(copy->operator[]("fc") != dict["fc"]);
  CHECK(torch::equal(copy->at<nn::LinearImpl>("fc").weight, dict->at<nn::LinearImpl>("fc").weight));
  dict->clear();
  CHECK(dict->empty());
}

TEST_CASE("nn::ParameterList and nn::ParameterDict register parameters", "[nn][containers]") {
  nn::ParameterList list(torch::ones({2}).requires_grad_(), torch::zeros({3}));
  list->append(torch::full({1}, 5.0).requires_grad_());
  CHECK(list->size() == 3);
  CHECK(list->named_parameters().keys() == std::vector<std::string>{"0", "1", "2"});
  CHECK(list[0].requires_grad());
  CHECK_FALSE(list->at(1).requires_grad());  // requires_grad is kept as given
  CHECK(list->at(2).item<double>() == 5.0);
  CHECK_THROWS_AS(list->at(3), c10::Error);
  size_t n = 0;
  for (const auto& p : *list) n += p.value().numel();
  CHECK(n == 6);
  std::ostringstream s;
  s << list;
  CHECK(s.str().rfind("torch::nn::ParameterList(\n(0): Parameter containing: [", 0) == 0);

  nn::ParameterDict dict;
  dict->insert("w", torch::randn({2, 2}).requires_grad_());
  dict->insert("b", torch::zeros({2}).requires_grad_());
  CHECK(dict->keys() == std::vector<std::string>{"w", "b"});
  CHECK(dict->parameters().size() == 2);
  CHECK(dict["b"].sizes() == std::vector<int64_t>{2});
  CHECK(dict->contains("w"));
  auto w = dict->pop("w");
  CHECK(w.sizes() == std::vector<int64_t>{2, 2});
  CHECK(dict->keys() == std::vector<std::string>{"b"});
  CHECK_THROWS_AS(dict->get("w"), c10::Error);
  struct Holder : nn::Module {
    Holder() { params = register_module("params", nn::ParameterDict()); params->insert("scale", torch::ones({1}).requires_grad_()); }
    nn::ParameterDict params{nullptr};
  };
  Holder h;
  CHECK(h.named_parameters().keys() == std::vector<std::string>{"params.scale"});
  auto copy = std::dynamic_pointer_cast<nn::ParameterListImpl>(list->clone());
  CHECK(copy->size() == 3);
  CHECK(copy->at(0).requires_grad());
  CHECK_FALSE(copy->at(0).is_alias_of(list->at(0)));
}
