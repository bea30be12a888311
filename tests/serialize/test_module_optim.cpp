// torch::save / torch::load of modules and optimizers: a model loaded into a fresh instance computes the same
// outputs; mismatching or corrupt checkpoints raise c10::Error and leave the destination as it was; an optimizer
// resumed from a checkpoint continues exactly as an uninterrupted run.
#include <torch/torch.h>
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace {

namespace nn = torch::nn;
namespace optim = torch::optim;
using torch::Tensor;

std::vector<Tensor> snapshot(const nn::Module& m) {
  std::vector<Tensor> out;
  for (const auto& p : m.parameters()) out.push_back(p.detach().clone());
  for (const auto& b : m.buffers()) out.push_back(b.detach().clone());
  return out;
}

bool same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].sizes() != b[i].sizes() || !torch::equal(a[i], b[i])) return false;
  return true;
}

template <typename Value>
std::string to_bytes(const Value& v) {
  std::ostringstream os;
  torch::save(v, os);
  return os.str();
}

template <typename Value>
void from_bytes(Value& v, const std::string& bytes) {
  std::istringstream is(bytes);
  torch::load(v, is);
}

std::string archive_bytes(torch::serialize::OutputArchive& archive) {
  std::ostringstream os;
  archive.save_to(os);
  return os.str();
}

// A module with a buffer, a nested submodule and a parameter registered after the submodule.
struct NetImpl : nn::Module {
  NetImpl(int64_t hidden = 5) {
    fc = register_module("fc", nn::Linear(3, hidden));
    body = register_module("body", nn::Sequential(nn::Linear(hidden, 4), nn::ReLU(), nn::Linear(4, 2)));
    scale = register_parameter("scale", torch::randn({2}));
    count = register_buffer("count", torch::zeros({1}, torch::kLong));
  }
  Tensor forward(const Tensor& x) { return body->forward(fc->forward(x)) * scale; }
  nn::Linear fc{nullptr};
  nn::Sequential body{nullptr};
  Tensor scale, count;
};
TORCH_MODULE(Net);

}  // namespace

TEST_CASE("serialize: a Sequential of Linear layers loads into a fresh model with identical outputs",
          "[serialize][nn]") {
  nn::Sequential model(nn::Linear(4, 8), nn::Tanh(), nn::Linear(8, 8), nn::ReLU(), nn::Linear(8, 3));
  const Tensor x = torch::randn({5, 4});
  const Tensor expected = model->forward(x);
  const std::string bytes = to_bytes(model);

  nn::Sequential fresh(nn::Linear(4, 8), nn::Tanh(), nn::Linear(8, 8), nn::ReLU(), nn::Linear(8, 3));
  REQUIRE_FALSE(torch::equal(fresh->forward(x), expected));
  const auto weight_handle = fresh->parameters()[0];
  from_bytes(fresh, bytes);
  CHECK(torch::equal(fresh->forward(x), expected));
  // Parameters are filled in place: an optimizer holding them sees the loaded values.
  CHECK(fresh->parameters()[0].is_same(weight_handle));
  CHECK(fresh->parameters()[0].requires_grad());
  CHECK(fresh->parameters()[0].grad_fn() == nullptr);

  // The same through a file, a shared_ptr to the implementation and a float64 destination (converted).
  char tmpl[] = "/tmp/ember-module-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string path = std::string(tmpl) + "/model.ember";
  std::shared_ptr<nn::SequentialImpl> impl = model.ptr();
  torch::save(impl, path);
  nn::Sequential wide(nn::Linear(4, 8), nn::Tanh(), nn::Linear(8, 8), nn::ReLU(), nn::Linear(8, 3));
  wide->to(torch::kDouble);
  torch::load(wide, path);
  CHECK(torch::allclose(wide->forward(x.to(torch::kDouble)), expected.to(torch::kDouble), 1e-6, 1e-6));
  std::remove(path.c_str());
  ::rmdir(tmpl);
}

TEST_CASE("serialize: Module::save writes parameters, buffers and submodules by name", "[serialize][nn]") {
  Net net;
  net->count.fill_(7);
  torch::serialize::OutputArchive out;
  net->save(out);
  std::ostringstream os;
  out.save_to(os);
  torch::serialize::InputArchive in;
  std::istringstream is(os.str());
  in.load_from(is);
  CHECK(in.keys() == std::vector<std::string>{"scale", "count", "fc", "body"});
  torch::serialize::InputArchive body, layer2;
  in.read("body", body);
  CHECK(body.keys() == std::vector<std::string>{"0", "1", "2"});
  body.read("2", layer2);
  CHECK(layer2.keys() == std::vector<std::string>{"weight", "bias"});
  Tensor count;
  in.read("count", count, /*is_buffer=*/true);
  CHECK(count.item<int64_t>() == 7);

  Net other;
  in >> other;
  const Tensor x = torch::randn({4, 3});
  CHECK(torch::equal(other->forward(x), net->forward(x)));
  CHECK(other->count.item<int64_t>() == 7);
}

TEST_CASE("serialize: a mismatching or corrupt checkpoint leaves the module unchanged", "[serialize][nn]") {
  Net saved(5);
  const std::string bytes = to_bytes(saved);

  SECTION("shape mismatch names the key and both shapes") {
    Net other(6);  // fc is [6, 3] and body.0 is [4, 6]: the first mismatch found is fc, checked before any copy
    const auto before = snapshot(*other);
    CHECK_THROWS_WITH(from_bytes(other, bytes),
                      Catch::Contains("[Module::load] parameter 'fc.weight' has shape [5, 3] in the archive, but the "
                                      "module expects shape [6, 3]"));
    CHECK(same(snapshot(*other), before));
  }
  SECTION("a mismatch deep in the tree is found before the first layers are copied") {
    nn::Sequential a(nn::Linear(4, 3), nn::Linear(3, 2));
    nn::Sequential b(nn::Linear(4, 3), nn::Linear(3, 5));
    const auto before = snapshot(*b);
    CHECK_THROWS_WITH(from_bytes(b, to_bytes(a)),
                      Catch::Contains("parameter '1.weight' has shape [2, 3] in the archive, but the module expects "
                                      "shape [5, 3]"));
    CHECK(same(snapshot(*b), before));
  }
  SECTION("missing parameter, buffer and submodule") {
    nn::Sequential small(nn::Linear(4, 3));
    nn::Sequential big(nn::Linear(4, 3), nn::Linear(3, 2));
    auto before = snapshot(*big);
    CHECK_THROWS_WITH(from_bytes(big, to_bytes(small)), Catch::Contains("the archive has no submodule '1'"));
    CHECK(same(snapshot(*big), before));

    nn::Linear with_bias(nn::LinearOptions(4, 3)), without_bias(nn::LinearOptions(4, 3).bias(false));
    before = snapshot(*with_bias);
    CHECK_THROWS_WITH(from_bytes(with_bias, to_bytes(without_bias)),
                      Catch::Contains("the archive has no parameter 'bias'"));
    CHECK(same(snapshot(*with_bias), before));
    // Records the module does not have are ignored (as libtorch): the bias-less layer loads its weight.
    from_bytes(without_bias, to_bytes(with_bias));
    CHECK(torch::equal(without_bias->weight, with_bias->weight));

    // An archive with everything but the buffer.
    torch::serialize::OutputArchive partial, fc, body;
    saved->fc->save(fc);
    saved->body->save(body);
    partial.write("scale", saved->scale);
    partial.write("fc", fc);
    partial.write("body", body);
    Net target;
    before = snapshot(*target);
    CHECK_THROWS_WITH(from_bytes(target, archive_bytes(partial)), Catch::Contains("no buffer 'count'"));
    CHECK(same(snapshot(*target), before));
  }
  SECTION("a buffer read as a parameter") {
    torch::serialize::OutputArchive wrong;
    wrong.write("weight", torch::zeros({3, 4}), /*is_buffer=*/true);
    wrong.write("bias", torch::zeros({3}));
    nn::Linear lin(4, 3);
    const auto before = snapshot(*lin);
    std::ostringstream os;
    wrong.save_to(os);
    CHECK_THROWS_WITH(from_bytes(lin, os.str()), Catch::Contains("'weight' was saved as a buffer but is read as a parameter"));
    CHECK(same(snapshot(*lin), before));
  }
  SECTION("corrupt files") {
    Net target(5);
    const auto before = snapshot(*target);
    for (size_t cut : {size_t{5}, size_t{24}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1})
      CHECK_THROWS_WITH(from_bytes(target, bytes.substr(0, cut)), Catch::Contains("truncated"));
    std::string flipped = bytes;
    flipped[bytes.size() / 2] ^= 0x01;
    CHECK_THROWS_WITH(from_bytes(target, flipped), Catch::Contains("checksum mismatch"));
    std::string magic = bytes;
    magic[0] = 'P';
    CHECK_THROWS_WITH(from_bytes(target, magic), Catch::Contains("not an Ember archive"));
    std::string future = bytes;
    future[8] = 9;
    CHECK_THROWS_WITH(from_bytes(target, future), Catch::Contains("unsupported archive format version 9"));
    CHECK(same(snapshot(*target), before));
    from_bytes(target, bytes);
    CHECK(same(snapshot(*target), snapshot(*saved)));
  }
}

namespace {

// Trains `model` on a fixed regression problem for `steps` steps.
void train(nn::Sequential& model, optim::Optimizer& opt, int steps, int offset) {
  for (int s = 0; s < steps; ++s) {
    const Tensor x = torch::linspace(-1, 1, 12).reshape({4, 3}) * (1 + 0.1 * (s + offset));
    const Tensor y = torch::sin(x.sum(1, true)).repeat({1, 2});
    opt.zero_grad();
    torch::mse_loss(model->forward(x), y).backward();
    opt.step();
  }
}

nn::Sequential make_model() { return nn::Sequential(nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 2)); }

// Runs 6 steps straight, and 3 steps + checkpoint + 3 steps in a fresh model and optimizer: the parameters
// must agree bit for bit.
template <typename Opt, typename Options>
void check_resume(const Options& options) {
  nn::Sequential ref = make_model();
  nn::Sequential first = make_model();
  from_bytes(first, to_bytes(ref));  // same starting point
  Opt ref_opt(ref->parameters(), options);
  train(ref, ref_opt, 6, 0);

  Opt first_opt(first->parameters(), options);
  train(first, first_opt, 3, 0);
  const std::string model_bytes = to_bytes(first), opt_bytes = to_bytes(first_opt);

  nn::Sequential resumed = make_model();
  Opt resumed_opt(resumed->parameters(), options);
  from_bytes(resumed, model_bytes);
  from_bytes(resumed_opt, opt_bytes);
  CHECK(resumed_opt.state().size() == first_opt.state().size());
  train(resumed, resumed_opt, 3, 3);
  CHECK(same(snapshot(*resumed), snapshot(*ref)));

  // Without the optimizer state the continuation differs (the test can tell).
  nn::Sequential cold = make_model();
  Opt cold_opt(cold->parameters(), options);
  from_bytes(cold, model_bytes);
  train(cold, cold_opt, 3, 3);
  CHECK_FALSE(same(snapshot(*cold), snapshot(*ref)));
}

}  // namespace

TEST_CASE("serialize: optimizers resume from a checkpoint exactly", "[serialize][optim]") {
  SECTION("SGD with momentum") { check_resume<optim::SGD>(optim::SGDOptions(0.1).momentum(0.9).nesterov(true)); }
  SECTION("Adam") { check_resume<optim::Adam>(optim::AdamOptions(0.01).weight_decay(0.01)); }
  SECTION("Adam amsgrad") { check_resume<optim::Adam>(optim::AdamOptions(0.01).amsgrad(true)); }
  SECTION("AdamW") { check_resume<optim::AdamW>(optim::AdamWOptions(0.01).amsgrad(true)); }
  SECTION("RMSprop") { check_resume<optim::RMSprop>(optim::RMSpropOptions(0.01).momentum(0.5).centered(true)); }
  SECTION("Adagrad") { check_resume<optim::Adagrad>(optim::AdagradOptions(0.1).lr_decay(0.01)); }
}

TEST_CASE("serialize: optimizer checkpoints restore options and reject mismatches", "[serialize][optim]") {
  nn::Sequential model = make_model();
  optim::Adam adam(model->parameters(), optim::AdamOptions(0.01).betas({0.8, 0.95}));
  train(model, adam, 2, 0);
  static_cast<optim::AdamOptions&>(adam.param_groups()[0].options()).lr(0.005);  // a schedule's change
  const std::string bytes = to_bytes(adam);

  optim::Adam fresh(model->parameters(), optim::AdamOptions(0.5));
  from_bytes(fresh, bytes);
  const auto& o = static_cast<const optim::AdamOptions&>(fresh.param_groups()[0].options());
  CHECK(o.lr() == 0.005);
  CHECK(std::get<0>(o.betas()) == 0.8);
  CHECK(std::get<1>(o.betas()) == 0.95);

  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.1));
  CHECK_THROWS_WITH(from_bytes(sgd, bytes), Catch::Contains("holds the state of a Adam optimizer, but this "
                                                            "optimizer is SGD"));
  CHECK(static_cast<const optim::SGDOptions&>(sgd.param_groups()[0].options()).lr() == 0.1);

  // Fewer parameters: the optimizer keeps its options and state.
  nn::Sequential other = make_model();
  optim::Adam partial(std::vector<Tensor>{other->parameters()[0]}, optim::AdamOptions(0.3));
  CHECK_THROWS_WITH(from_bytes(partial, bytes),
                    Catch::Contains("parameter group 0 has 4 parameters in the archive, but 1 in this optimizer"));
  CHECK(static_cast<const optim::AdamOptions&>(partial.param_groups()[0].options()).lr() == 0.3);
  CHECK(partial.state().empty());

  // Same count, different shapes.
  nn::Sequential wide(nn::Linear(3, 5), nn::Tanh(), nn::Linear(5, 2));
  optim::Adam wide_opt(wide->parameters(), optim::AdamOptions(0.3));
  CHECK_THROWS_WITH(from_bytes(wide_opt, bytes), Catch::Contains("state 'exp_avg' of parameter 0 has shape [4, 3] in "
                                                                 "the archive, but the parameter has shape [5, 3]"));
  CHECK(wide_opt.state().empty());

  // LBFGS keeps no serializable state in this version.
  optim::LBFGS lbfgs(model->parameters(), optim::LBFGSOptions(1));
  CHECK_THROWS_WITH(from_bytes(lbfgs, bytes), Catch::Contains("does not support loading"));
}
