// Runs ops on the toy device (libember_toy.so, loaded with this program) and checks every result
// against the same computation on the CPU: the toy's own kernels (add, mul, relu, mm), ops that
// fall back to the CPU (softmax, sum, exp, matmul, in-place, out=, views written through), and an
// nn::Linear trained for a few SGD steps with autograd. Exit status 0 when everything agrees.
#include <torch/torch.h>
#include <ATen/PrivateUse1.h>

#include <iostream>

#include "toy_backend.h"

namespace {
int g_failures = 0;
int g_checks = 0;
#define EXPECT(cond)                                                           \
  do {                                                                         \
    ++g_checks;                                                                \
    if (!(cond)) {                                                             \
      std::cerr << "FAILED line " << __LINE__ << ": " << #cond << "\n";        \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

// A toy result equals the CPU reference: device, dtype, sizes and values.
bool same(const torch::Tensor& toy_result, const torch::Tensor& ref, double tol = 1e-5) {
  if (!toy_result.device().is_privateuseone()) return false;
  torch::Tensor h = toy_result.cpu();
  return h.scalar_type() == ref.scalar_type() && h.sizes() == ref.sizes() && torch::allclose(h, ref, tol, tol);
}

int64_t calls(const char* op) { return toy::kernel_calls(op); }
int64_t fell_back(const char* op) { return ember::privateuse1::fallback_count(op); }
}  // namespace

int main() {
  const torch::Device toy("toy:0");
  EXPECT(toy.is_privateuseone());
  EXPECT(toy.str() == "toy:0");
  EXPECT(c10::get_privateuse1_backend() == "toy");
  torch::manual_seed(0);

  {
    // Round trip, and the toy's own kernels.
    torch::Tensor a = torch::randn({5, 7}), b = torch::randn({5, 7}), c = torch::randn({7, 3});
    torch::Tensor ta = a.to(toy), tb = b.to(toy), tc = c.to(toy);
    EXPECT(ta.device() == toy && ta.device().str() == "toy:0");
    EXPECT(torch::equal(ta.cpu(), a));
    const int64_t adds = calls("add"), mms = calls("mm");
    EXPECT(same(ta + tb, a + b));
    EXPECT(same(ta * tb, a * b));
    EXPECT(same(torch::relu(ta), torch::relu(a)));
    EXPECT(same(torch::mm(ta, tc), torch::mm(a, c)));
    EXPECT(same(ta.add(tb.select(0, 2), 0.5), a.add(b.select(0, 2), 0.5)));  // broadcast of a view
    EXPECT(same(torch::mm(tc.t(), ta.t()), torch::mm(c.t(), a.t())));          // transposed views
    EXPECT(calls("add") == adds + 2 && calls("mm") == mms + 2);
    EXPECT(fell_back("add.Tensor") == 0 && fell_back("mm") == 0);

    // Ops the toy lacks run on the CPU through copies.
    ember::privateuse1::reset_fallback_counts();
    EXPECT(same(torch::softmax(ta, 1), torch::softmax(a, 1)));
    EXPECT(same(ta.sum(), a.sum()));
    EXPECT(same(ta.sum(0), a.sum(0)));
    EXPECT(same(torch::exp(ta), torch::exp(a)));
    torch::Tensor x3 = torch::randn({2, 5, 7});
    EXPECT(same(torch::matmul(x3.to(toy), tc), torch::matmul(x3, c)));
    EXPECT(fell_back("_softmax") == 1 && fell_back("exp") == 1 && fell_back("sum.dim_IntList") >= 1);
    EXPECT(ta.sum().item<float>() == a.sum().item<float>());
    auto [mx, idx] = torch::max(ta, 1);
    auto [mx_ref, idx_ref] = torch::max(a, 1);
    EXPECT(same(mx, mx_ref) && same(idx, idx_ref) && idx.scalar_type() == torch::kLong);

    // In place and out=: written into the device tensors, views included.
    torch::Tensor ha = a.clone();
    torch::Tensor v = ta.select(0, 1);       // a view of ta's toy memory
    v.mul_(2);                               // mul_ falls back; the result lands in ta
    ha.select(0, 1).mul_(2);
    EXPECT(same(ta, ha));
    ta.add_(1.5);
    ha.add_(1.5);
    EXPECT(same(ta, ha));
    torch::Tensor out = torch::empty({0}, torch::TensorOptions().device(toy));
    torch::sub_out(out, ta, tb);             // out= resized from 0 elements
    EXPECT(same(out, ha - b));

    // Factories on the device: the CPU builds them, the toy's empty + copy_ place them.
    EXPECT(same(torch::ones({2, 3}, torch::TensorOptions().device(toy)), torch::ones({2, 3})));
    EXPECT(same(torch::arange(6, torch::TensorOptions().device(toy).dtype(torch::kLong)), torch::arange(6)));

    // Tensors on two devices do not mix (0-dim CPU tensors do, as in libtorch).
    bool threw = false;
    try {
      (void)(ta + a);
    } catch (const c10::Error& e) {
      threw = std::string(e.what()).rfind("[add] ", 0) == 0;
    }
    EXPECT(threw);
    EXPECT(same(ta * torch::tensor(2.0f), ha * 2));
  }

  {
    // nn::Linear on the device, trained by SGD, step for step with the same model on the CPU.
    torch::nn::Linear cpu_model(6, 3), toy_model(6, 3);
    {
      torch::NoGradGuard ng;
      toy_model->weight.copy_(cpu_model->weight);
      toy_model->bias.copy_(cpu_model->bias);
    }
    toy_model->to(toy);
    EXPECT(toy_model->weight.device() == toy);
    torch::optim::SGD cpu_opt(cpu_model->parameters(), 0.1), toy_opt(toy_model->parameters(), 0.1);
    torch::Tensor x = torch::randn({8, 6}), y = torch::randn({8, 3});
    torch::Tensor tx = x.to(toy), ty = y.to(toy);
    for (int step = 0; step < 3; ++step) {
      cpu_opt.zero_grad();
      toy_opt.zero_grad();
      torch::Tensor cpu_loss = torch::mse_loss(torch::relu(cpu_model(x)), y);
      torch::Tensor toy_loss = torch::mse_loss(torch::relu(toy_model(tx)), ty);
      EXPECT(same(toy_loss, cpu_loss));
      cpu_loss.backward();
      toy_loss.backward();
      EXPECT(toy_model->weight.grad().defined() && same(toy_model->weight.grad(), cpu_model->weight.grad()));
      EXPECT(toy_model->bias.grad().defined() && same(toy_model->bias.grad(), cpu_model->bias.grad()));
      cpu_opt.step();
      toy_opt.step();
    }
    EXPECT(same(toy_model->weight, cpu_model->weight));
    EXPECT(toy_model->weight.device() == toy);
  }

  // Every toy tensor is gone: the allocator has nothing live and never saw a bad free.
  const toy::Stats st = toy::stats();
  EXPECT(st.live_bytes == 0 && st.live_blocks == 0 && st.total_blocks > 0 && st.bad_frees == 0);

  int64_t ops_fell = 0, calls_fell = 0;
  for (const auto& [op, n] : ember::privateuse1::fallback_counts()) {
    ++ops_fell;
    calls_fell += n;
  }
  std::cout << "toy backend: " << (g_checks - g_failures) << "/" << g_checks << " checks passed; toy kernels ran add "
            << calls("add") << ", mul " << calls("mul") << ", relu " << calls("relu") << ", mm " << calls("mm")
            << ", copy_ " << calls("copy_") << " times; " << calls_fell << " calls of " << ops_fell
            << " ops fell back to the CPU since the reset; " << st.total_blocks << " toy blocks allocated, 0 live\n";
  return g_failures == 0 ? 0 : 1;
}
