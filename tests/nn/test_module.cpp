// torch::nn::Module and ModuleHolder: registration, naming and order, recursive mode, device/dtype
// moves, zero_grad, apply, printing, TORCH_MODULE holder semantics.
#include <torch/torch.h>
#include <catch2/catch.hpp>
#include <sstream>

namespace nn = torch::nn;

namespace {

struct BlockImpl : nn::Module {
  BlockImpl() {
    w = register_parameter("w", torch::ones({2}));
    running = register_buffer("running", torch::zeros({2}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return x * w; }
  torch::Tensor w, running;
};
TORCH_MODULE(Block);

struct NetImpl : nn::Module {
  explicit NetImpl(int64_t hidden = 4) {
    layer1 = register_module("layer1", nn::Linear(3, hidden));
    scale = register_parameter("scale", torch::full({1}, 2.0));
    block = register_module("block", Block());
    layer2 = register_module("layer2", nn::Linear(hidden, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) { return block(layer2(torch::relu(layer1(x)))) * scale; }
  nn::Linear layer1{nullptr}, layer2{nullptr};
  Block block{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Net);

std::vector<std::string> keys_of(const torch::OrderedDict<std::string, torch::Tensor>& d) { return d.keys(); }

}  // namespace

TEST_CASE("nn::Module registers parameters, buffers and submodules with dotted names in order", "[nn][module]") {
  Net net;
  const std::vector<std::string> expected{"scale", "layer1.weight", "layer1.bias", "block.w", "layer2.weight", "layer2.bias"};
  CHECK(keys_of(net->named_parameters()) == expected);
  CHECK(net->parameters().size() == 6);
  CHECK(keys_of(net->named_parameters(/*recurse=*/false)) == std::vector<std::string>{"scale"});
  CHECK(keys_of(net->named_buffers()) == std::vector<std::string>{"block.running"});
  CHECK(net->buffers(false).empty());
  CHECK(net->named_children().keys() == std::vector<std::string>{"layer1", "block", "layer2"});
  CHECK(net->children().size() == 3);
  CHECK(net->named_modules().keys() == std::vector<std::string>{"", "layer1", "block", "layer2"});
  CHECK(net->named_modules("net").keys() == std::vector<std::string>{"net", "net.layer1", "net.block", "net.layer2"});
  CHECK(net->modules().size() == 4);
  CHECK(net->modules(/*include_self=*/false).size() == 3);
  CHECK(net->modules()[0].get() == net.get());

  // The dictionary: lookup by name, iteration with key()/value(), values().
  auto params = net->named_parameters();
  CHECK(params.size() == 6);
  CHECK(params["layer1.weight"].unsafeGetTensorImpl() == net->layer1->weight.unsafeGetTensorImpl());
  CHECK(params.contains("block.w"));
  CHECK_THROWS_AS(params["nope"], c10::Error);
  size_t n = 0;
  for (auto& p : net->named_parameters()) {
    CHECK(p.key() == expected[n]);
    CHECK(p.value().requires_grad());
    CHECK(p->is_leaf());
    ++n;
  }
  CHECK(n == 6);
  CHECK(params.values().size() == 6);
  CHECK(params[0].key() == "scale");

  // The registered tensor is the member: the same TensorImpl.
  CHECK(net->parameters()[0].unsafeGetTensorImpl() == net->scale.unsafeGetTensorImpl());
  CHECK(net->block->named_parameters().keys() == std::vector<std::string>{"w"});
}

TEST_CASE("nn::Module rejects empty, dotted and duplicate names", "[nn][module]") {
  struct M : nn::Module {};
  auto m = std::make_shared<M>();
  m->register_parameter("a", torch::zeros({1}));
  CHECK_THROWS_AS(m->register_parameter("a", torch::zeros({1})), c10::Error);
  CHECK_THROWS_AS(m->register_parameter("a.b", torch::zeros({1})), c10::Error);
  CHECK_THROWS_AS(m->register_buffer("", torch::zeros({1})), c10::Error);
  m->register_module("sub", nn::Linear(1, 1));
  CHECK_THROWS_AS(m->register_module("sub", nn::Linear(1, 1)), c10::Error);
  // requires_grad=false parameters are kept but do not require grad; buffers never do.
  auto& t = m->register_parameter("frozen", torch::ones({2}), /*requires_grad=*/false);
  CHECK_FALSE(t.requires_grad());
  CHECK(m->parameters().size() == 4);
  try {
    m->register_parameter("a", torch::zeros({1}));
  } catch (const c10::Error& e) {
    CHECK(std::string(e.what()).find("[register_parameter] 'a' is already registered") != std::string::npos);
  }
}

TEST_CASE("nn::Module works on the stack for parameters(), not for modules()", "[nn][module]") {
  NetImpl net;
  CHECK(net.parameters().size() == 6);
  CHECK(net.modules(/*include_self=*/false).size() == 3);
  CHECK_THROWS_AS(net.modules(), c10::Error);
}

TEST_CASE("nn::Module train/eval propagate to every submodule", "[nn][module]") {
  Net net;
  CHECK(net->is_training());
  net->eval();
  for (auto& m : net->modules()) CHECK_FALSE(m->is_training());
  net->train();
  for (auto& m : net->modules()) CHECK(m->is_training());
  net->train(false);
  CHECK_FALSE(net->layer1->is_training());
  CHECK_FALSE(net->block->is_training());
}

TEST_CASE("nn::Module::to(kDouble) converts in place and keeps leaves that require grad", "[nn][module]") {
  torch::manual_seed(1);
  Net net;
  auto w = net->layer1->weight;
  auto* impl = w.unsafeGetTensorImpl();
  auto before = w.detach().clone();
  // A backward first, so a gradient accumulator and a float gradient exist.
  net->forward(torch::randn({5, 3})).sum().backward();
  REQUIRE(w.grad().defined());
  net->to(torch::kDouble);
  for (auto& p : net->parameters()) {
    CHECK(p.scalar_type() == torch::kDouble);
    CHECK(p.is_leaf());
    CHECK(p.requires_grad());
  }
  CHECK(net->block->running.scalar_type() == torch::kDouble);
  CHECK(w.unsafeGetTensorImpl() == impl);                 // the user's handle sees the change
  CHECK(net->layer1->weight.scalar_type() == torch::kDouble);
  CHECK(torch::equal(w.detach(), before.to(torch::kDouble)));
  CHECK(w.grad().scalar_type() == torch::kDouble);
  // Training still works: gradients reach the same leaves, in double.
  net->zero_grad();
  auto x = torch::randn({5, 3}, torch::kDouble);
  net->forward(x).sum().backward();
  REQUIRE(w.grad().defined());
  CHECK(w.grad().scalar_type() == torch::kDouble);
  CHECK(w.grad().sizes() == w.sizes());
  net->to(torch::kCPU);
  net->to(torch::kCPU, torch::kFloat);
  CHECK(w.scalar_type() == torch::kFloat);
  CHECK(w.is_leaf());
}

TEST_CASE("nn::Module::zero_grad clears or zeroes gradients", "[nn][module]") {
  Net net;
  net->forward(torch::ones({2, 3})).sum().backward();
  for (auto& p : net->parameters()) REQUIRE(p.grad().defined());
  net->zero_grad(/*set_to_none=*/false);
  for (auto& p : net->parameters()) {
    REQUIRE(p.grad().defined());
    CHECK(p.grad().abs().sum().item<double>() == 0.0);
  }
  net->forward(torch::ones({2, 3})).sum().backward();
  net->zero_grad();
  for (auto& p : net->parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("nn::Module::apply visits every module, this one first", "[nn][module]") {
  Net net;
  std::vector<std::string> names;
  net->apply([&](nn::Module& m) { names.push_back(m.name()); });
  REQUIRE(names.size() == 4);
  CHECK(names[1] == "torch::nn::LinearImpl");
  std::vector<std::string> paths;
  net->apply([&](const std::string& path, nn::Module&) { paths.push_back(path); });
  CHECK(paths == std::vector<std::string>{"", "layer1", "block", "layer2"});
  // A typical use: re-initialise every Linear.
  net->apply([](nn::Module& m) {
    if (auto* lin = dynamic_cast<nn::LinearImpl*>(&m)) nn::init::zeros_(lin->weight);
  });
  CHECK(net->layer2->weight.abs().sum().item<double>() == 0.0);
}

TEST_CASE("nn::Module prints like libtorch", "[nn][module]") {
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU(), nn::Linear(nn::LinearOptions(4, 2).bias(false)));
  std::ostringstream s;
  s << seq;
  // Recorded from libtorch 2.15.
  CHECK(s.str() ==
        "torch::nn::Sequential(\n"
        "  (0): torch::nn::Linear(in_features=3, out_features=4, bias=true)\n"
        "  (1): torch::nn::ReLU()\n"
        "  (2): torch::nn::Linear(in_features=4, out_features=2, bias=false)\n"
        ")");
  CHECK(seq->name() == "torch::nn::SequentialImpl");
  CHECK(seq[0]->name() == "torch::nn::LinearImpl");
  std::ostringstream d;
  d << nn::Dropout(0.25) << "|" << nn::LeakyReLU() << "|" << nn::Flatten() << "|" << nn::Softmax(1) << "|"
    << nn::ReLU(true) << "|" << nn::CrossEntropyLoss();
  CHECK(d.str() ==
        "torch::nn::Dropout(p=0.25, inplace=false)|torch::nn::LeakyReLU(negative_slope=0.01)|"
        "torch::nn::Flatten(start_dim=1, end_dim=-1)|torch::nn::Softmax(dim=1)|torch::nn::ReLU(inplace=true)|"
        "torch::nn::CrossEntropyLoss()");
  struct Named : nn::Module {
    Named() : nn::Module("MyNet") { register_module("fc", nn::Linear(2, 2)); }
  };
  std::ostringstream n;
  n << *std::make_shared<Named>();
  CHECK(n.str() == "MyNet(\n  (fc): torch::nn::Linear(in_features=2, out_features=2, bias=true)\n)");
}

TEST_CASE("TORCH_MODULE holders share their module like std::shared_ptr", "[nn][module]") {
  nn::Linear a(3, 4);
  nn::Linear b = a;
  CHECK(a.ptr() == b.ptr());
  CHECK(b->weight.unsafeGetTensorImpl() == a->weight.unsafeGetTensorImpl());
  CHECK(&*a == a.get());
  CHECK_FALSE(a.is_empty());
  CHECK(static_cast<bool>(a));

  nn::Linear empty(nullptr);
  CHECK(empty.is_empty());
  CHECK_FALSE(static_cast<bool>(empty));
  CHECK_THROWS_AS(empty->weight, c10::Error);
  empty = a;
  CHECK(empty.ptr() == a.ptr());

  // From a shared_ptr, and the forward through operator().
  auto impl = std::make_shared<nn::LinearImpl>(nn::LinearOptions(3, 2));
  nn::Linear c(impl);
  CHECK(c.ptr() == impl);
  auto x = torch::randn({5, 3});
  CHECK(torch::allclose(c(x), torch::matmul(x, impl->weight.t()) + impl->bias));

  // A user module: default construction, construction from arguments, Impl alias.
  Net n1;
  Net n2(7);
  CHECK(n2->layer1->weight.size(0) == 7);
  static_assert(std::is_same_v<Net::Impl, NetImpl>);
  CHECK(n1(torch::ones({1, 3})).sizes() == std::vector<int64_t>{1, 2});
  std::shared_ptr<nn::Module> base = n1.ptr();
  CHECK(base->is<NetImpl>());
  CHECK_FALSE(base->is<nn::LinearImpl>());
}

TEST_CASE("nn::Module replace_module and unregister_module", "[nn][module]") {
  Net net;
  net->replace_module("layer1", nn::Linear(3, 4).ptr());
  CHECK(net->named_children().keys() == std::vector<std::string>{"layer1", "block", "layer2"});
  net->unregister_module("block");
  CHECK(net->named_children().keys() == std::vector<std::string>{"layer1", "layer2"});
  CHECK_THROWS_AS(net->unregister_module("block"), c10::Error);
}

namespace {
struct CNetImpl : nn::Cloneable<CNetImpl> {
  CNetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(2, 3));
    seq = register_module("seq", nn::Sequential({{"lin", nn::Linear(3, 3)}, {"act", nn::Tanh()}}));
    scale = register_parameter("scale", torch::ones({1}));
    steps = register_buffer("steps", torch::zeros({1}, torch::kLong));
  }
  torch::Tensor forward(const torch::Tensor& x) { return seq(fc(x)) * scale; }
  nn::Linear fc{nullptr};
  nn::Sequential seq{nullptr};
  torch::Tensor scale, steps;
};
TORCH_MODULE(CNet);
}  // namespace

TEST_CASE("nn::Cloneable::clone makes a deep copy that holders inside point into", "[nn][module][clone]") {
  torch::manual_seed(9);
  CNet a;
  {
    torch::NoGradGuard no_grad;
    a->scale.fill_(3);
    a->steps.fill_(5);
  }
  a->eval();
  auto b = std::dynamic_pointer_cast<CNetImpl>(a->clone());
  REQUIRE(b != nullptr);
  CHECK(b->named_parameters().keys() == a->named_parameters().keys());
  CHECK(b->named_buffers().keys() == a->named_buffers().keys());
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (size_t i = 0; i < pa.size(); ++i) {
    CHECK(pa[i].value().unsafeGetTensorImpl() != pb[i].value().unsafeGetTensorImpl());
    CHECK_FALSE(pa[i].value().is_alias_of(pb[i].value()));
    CHECK(torch::equal(pa[i].value(), pb[i].value()));
    CHECK(pb[i].value().requires_grad());
    CHECK(pb[i].value().is_leaf());
  }
  CHECK(b->steps.item<int64_t>() == 5);
  CHECK_FALSE(b->is_training());
  // The clone's member holders are its own registered submodules.
  CHECK(b->fc.ptr() == b->named_children()["fc"]);
  CHECK(b->fc.ptr() != a->fc.ptr());
  CHECK(b->named_children()["seq"]->named_children().keys() == std::vector<std::string>{"lin", "act"});
  auto x = torch::randn({4, 2});
  CHECK(torch::equal(b->forward(x), a->forward(x)));
  {
    torch::NoGradGuard no_grad;
    b->fc->weight.add_(1);
  }
  CHECK_FALSE(torch::equal(b->forward(x), a->forward(x)));

  nn::Sequential seq({{"fc", nn::Linear(3, 2)}, {"act", nn::ReLU()}});
  auto seq2 = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  CHECK(seq2->named_children().keys() == std::vector<std::string>{"fc", "act"});
  CHECK(seq2->ptr(0) != seq->ptr(0));
  CHECK(torch::equal(seq2->forward(torch::ones({1, 3})), seq->forward(torch::ones({1, 3}))));

  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(torch::tensor({1.0, 2.0})));
  auto ce2 = std::dynamic_pointer_cast<nn::CrossEntropyLossImpl>(ce->clone());
  CHECK(torch::equal(ce2->weight, ce->weight));
  CHECK(ce2->weight.unsafeGetTensorImpl() != ce->weight.unsafeGetTensorImpl());

  // A plain Module cannot be cloned.
  Net plain;
  CHECK_THROWS_AS(plain->clone(), c10::Error);
}

TEST_CASE("nn::Module::as casts to a module class or a holder's module class", "[nn][module]") {
  nn::Sequential seq(nn::Linear(2, 2), nn::ReLU());
  CHECK(seq[0]->as<nn::Linear>() == seq->ptr<nn::LinearImpl>(0).get());
  CHECK(seq[0]->as<nn::LinearImpl>() == seq->ptr<nn::LinearImpl>(0).get());
  CHECK(seq[1]->as<nn::Linear>() == nullptr);
  const nn::Module& m = *seq[1];
  CHECK(m.as<nn::ReLU>() != nullptr);
}
