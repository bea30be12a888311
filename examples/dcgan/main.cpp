// DCGAN on Fashion-MNIST: a generator of transposed convolutions with batch norm turns 100-d noise
// into 28x28 images, a convolutional discriminator tells them from real ones, both trained with
// Adam (lr 2e-4, beta1 0.5) on the binary cross-entropy game. Written against libtorch's C++ API
// only: the same file builds against libtorch.
//
//   dcgan [--epochs N] [--batch-size N] [--limit BATCHES] [--data DIR] [--out DIR] [--seed N] [--help]
//
// Per epoch it prints the discriminator and generator losses and D's mean output on real and on
// generated images; at the end it writes a grid of 64 samples as a PGM image and saves both nets.
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

constexpr int64_t kNoise = 100;

struct GeneratorImpl : torch::nn::Module {
  GeneratorImpl()
      : up1(torch::nn::ConvTranspose2dOptions(kNoise, 128, 4).bias(false)),            // 1 -> 4
        up2(torch::nn::ConvTranspose2dOptions(128, 64, 3).stride(2).padding(1).bias(false)),  // 4 -> 7
        up3(torch::nn::ConvTranspose2dOptions(64, 32, 4).stride(2).padding(1).bias(false)),   // 7 -> 14
        up4(torch::nn::ConvTranspose2dOptions(32, 1, 4).stride(2).padding(1).bias(false)),     // 14 -> 28
        bn1(128), bn2(64), bn3(32) {
    register_module("up1", up1);
    register_module("up2", up2);
    register_module("up3", up3);
    register_module("up4", up4);
    register_module("bn1", bn1);
    register_module("bn2", bn2);
    register_module("bn3", bn3);
  }
  torch::Tensor forward(torch::Tensor z) {
    auto x = torch::relu(bn1(up1(z)));
    x = torch::relu(bn2(up2(x)));
    x = torch::relu(bn3(up3(x)));
    return torch::tanh(up4(x));
  }
  torch::nn::ConvTranspose2d up1, up2, up3, up4;
  torch::nn::BatchNorm2d bn1, bn2, bn3;
};
TORCH_MODULE(Generator);

torch::nn::Sequential make_discriminator() {
  using namespace torch::nn;
  auto leaky = [] { return LeakyReLU(LeakyReLUOptions().negative_slope(0.2)); };
  return Sequential(
      Conv2d(Conv2dOptions(1, 32, 4).stride(2).padding(1).bias(false)), leaky(),                       // 28 -> 14
      Conv2d(Conv2dOptions(32, 64, 4).stride(2).padding(1).bias(false)), BatchNorm2d(64), leaky(),   // 14 -> 7
      Conv2d(Conv2dOptions(64, 128, 4).stride(2).padding(1).bias(false)), BatchNorm2d(128), leaky(),  // 7 -> 3
      Conv2d(Conv2dOptions(128, 1, 3).bias(false)), Sigmoid());                                       // 3 -> 1
}

struct Args {
  int epochs = 5;
  int64_t batch = 64;
  int64_t limit = 0;  // batches per epoch; 0 = all
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string out = "dcgan-out";
  uint64_t seed = 1;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto want = [&](const char* name) {
      if (std::strcmp(argv[i], name) != 0) return false;
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", name); std::exit(2); }
      return true;
    };
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: dcgan [--epochs N (5)] [--batch-size N (64)] [--limit BATCHES (all)]\n"
                  "             [--data DIR (%s)] [--out DIR (dcgan-out)] [--seed N (1)]\n", a.data.c_str());
      std::exit(0);
    } else if (want("--epochs")) a.epochs = std::atoi(argv[++i]);
    else if (want("--batch-size")) a.batch = std::atoll(argv[++i]);
    else if (want("--limit")) a.limit = std::atoll(argv[++i]);
    else if (want("--data")) a.data = argv[++i];
    else if (want("--out")) a.out = argv[++i];
    else if (want("--seed")) a.seed = std::strtoull(argv[++i], nullptr, 10);
    else { std::fprintf(stderr, "unknown flag %s (see --help)\n", argv[i]); std::exit(2); }
  }
  return a;
}

// Writes 64 images in [-1, 1] (shape [64, 1, 28, 28]) as an 8x8 grid, 8-bit binary PGM.
void write_grid(const torch::Tensor& images, const std::string& path) {
  auto pixels = ((images.detach().to(torch::kCPU).clamp(-1, 1) + 1) * 127.5).to(torch::kUInt8);
  auto grid = pixels.reshape({8, 8, 28, 28}).permute({0, 2, 1, 3}).reshape({8 * 28, 8 * 28}).contiguous();
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << 8 * 28 << " " << 8 * 28 << "\n255\n";
  f.write(reinterpret_cast<const char*>(grid.data_ptr<uint8_t>()), grid.numel());
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  torch::manual_seed(args.seed);
  Generator gen;
  auto disc = make_discriminator();

  auto dataset = torch::data::datasets::MNIST(args.data)
                     .map(torch::data::transforms::Normalize<>(0.5, 0.5))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(args.batch).workers(2));

  torch::optim::Adam gen_opt(gen->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
  torch::optim::Adam disc_opt(disc->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
  const auto fixed_noise = torch::randn({64, kNoise, 1, 1});

  for (int epoch = 1; epoch <= args.epochs; ++epoch) {
    double d_loss_sum = 0, g_loss_sum = 0, d_real_sum = 0, d_fake_sum = 0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      if (args.limit > 0 && batches >= args.limit) break;
      const auto real = batch.data;
      const int64_t n = real.size(0);
      // Discriminator: real images labelled 0.9 (one-sided label smoothing), generated ones 0.
      disc->zero_grad();
      auto d_real = disc->forward(real).reshape({-1});
      auto loss_real = torch::binary_cross_entropy(d_real, torch::full({n}, 0.9));
      auto fake = gen->forward(torch::randn({n, kNoise, 1, 1}));
      auto d_fake = disc->forward(fake.detach()).reshape({-1});
      auto loss_fake = torch::binary_cross_entropy(d_fake, torch::zeros({n}));
      auto d_loss = loss_real + loss_fake;
      d_loss.backward();
      disc_opt.step();
      // Generator: make D call the generated images real.
      gen->zero_grad();
      auto g_loss = torch::binary_cross_entropy(disc->forward(fake).reshape({-1}), torch::ones({n}));
      g_loss.backward();
      gen_opt.step();

      d_loss_sum += d_loss.item<double>();
      g_loss_sum += g_loss.item<double>();
      d_real_sum += d_real.mean().item<double>();
      d_fake_sum += d_fake.mean().item<double>();
      ++batches;
    }
    const double k = batches > 0 ? 1.0 / batches : 0.0;
    std::printf("epoch %d  batches %lld  D loss %.4f  G loss %.4f  D(real) %.3f  D(fake) %.3f\n", epoch,
                static_cast<long long>(batches), d_loss_sum * k, g_loss_sum * k, d_real_sum * k, d_fake_sum * k);
    std::fflush(stdout);
  }

  std::filesystem::create_directories(args.out);
  gen->eval();
  {
    torch::NoGradGuard no_grad;
    write_grid(gen->forward(fixed_noise), args.out + "/samples.pgm");
  }
  torch::save(gen, args.out + "/generator.pt");
  torch::save(disc, args.out + "/discriminator.pt");
  std::printf("wrote %s/samples.pgm, generator.pt, discriminator.pt\n", args.out.c_str());
  return 0;
}
