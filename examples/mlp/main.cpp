// A classifier on Fashion-MNIST (a 2-layer MLP by default, or softmax regression), trained with
// SGD on gradients from autograd: Ember's first network, kept as the small example. Reads the gzip
// IDX files of Debian's dataset-fashion-mnist straight through zlib. The main job, a CNN with the
// data loader, is examples/mnist.
//
//   mlp [--model mlp|softmax] [--data DIR] [--epochs N] [--batch B] [--hidden H] [--lr LR]
//       [--device cpu|cuda] [--limit BATCHES]
#include <torch/torch.h>
#include <zlib.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

uint32_t be32(const unsigned char* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }

/// Reads a gzip-compressed IDX file (ubyte data) into a uint8 tensor of its declared shape.
torch::Tensor read_idx(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path + " (install Debian's dataset-fashion-mnist)");
  unsigned char head[4];
  if (gzread(f, head, 4) != 4 || head[0] != 0 || head[1] != 0 || head[2] != 0x08) {
    gzclose(f);
    throw std::runtime_error(path + ": not an IDX ubyte file");
  }
  int ndim = head[3];
  std::vector<int64_t> shape(ndim);
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    unsigned char d[4];
    if (gzread(f, d, 4) != 4) { gzclose(f); throw std::runtime_error(path + ": truncated header"); }
    shape[i] = be32(d);
    n *= shape[i];
  }
  torch::Tensor t = torch::empty(shape, torch::kUInt8);
  int64_t got = 0;
  auto* p = t.data_ptr<uint8_t>();
  while (got < n) {
    int r = gzread(f, p + got, static_cast<unsigned>(std::min<int64_t>(n - got, 1 << 30)));
    if (r <= 0) { gzclose(f); throw std::runtime_error(path + ": truncated data"); }
    got += r;
  }
  gzclose(f);
  return t;
}

}  // namespace

namespace {
// The model as torch::nn layers, with libtorch's default initialisation: softmax regression (one
// Linear) or a 2-layer MLP (Linear, ReLU, Linear).
torch::nn::Sequential make_model(const std::string& kind, int64_t features, int64_t classes, int64_t hidden) {
  namespace nn = torch::nn;
  if (kind == "softmax") return nn::Sequential(nn::Linear(features, classes));
  if (kind == "mlp") return nn::Sequential(nn::Linear(features, hidden), nn::ReLU(), nn::Linear(hidden, classes));
  throw std::runtime_error("unknown --model " + kind + " (softmax, mlp)");
}
}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/usr/share/datasets/fashion-mnist";
  std::string model_kind = "mlp";
  int epochs = 5;
  int64_t batch = 100, hidden = 256, limit = 0;
  double lr = -1;  // default per model below
  std::string device_name = "cpu";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--data") dir = argv[i + 1];
    else if (k == "--model") model_kind = argv[i + 1];
    else if (k == "--epochs") epochs = std::stoi(argv[i + 1]);
    else if (k == "--batch") batch = std::stoll(argv[i + 1]);
    else if (k == "--hidden") hidden = std::stoll(argv[i + 1]);
    else if (k == "--lr") lr = std::stod(argv[i + 1]);
    else if (k == "--device") device_name = argv[i + 1];
    else if (k == "--limit") limit = std::stoll(argv[i + 1]);
    else { std::fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
  }
  if (device_name != "cpu" && device_name != "cuda") {
    std::fprintf(stderr, "--device takes cpu or cuda; got %s\n", device_name.c_str());
    return 2;
  }
  if (device_name == "cuda" && !torch::cuda::is_available()) {
    std::fprintf(stderr, "--device cuda: no CUDA device is available\n");
    return 2;
  }
  if (lr < 0) lr = 0.1;
  const torch::Device device = device_name == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  torch::manual_seed(0);

  auto load = [&](const char* images, const char* labels) {
    auto x = read_idx(dir + "/" + images);
    auto y = read_idx(dir + "/" + labels).to(torch::kLong);
    x = x.reshape({x.size(0), -1}).to(torch::kFloat).div(255.0);
    return std::make_pair(x.to(device), y.to(device));
  };
  auto [train_x, train_y] = load("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz");
  auto [test_x, test_y] = load("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz");
  const int64_t n = train_x.size(0), features = train_x[0].numel(), classes = 10;
  // Parameters are initialised on the CPU (the same numbers for either device), then moved.
  auto model = make_model(model_kind, features, classes, hidden);
  model->to(device);
  std::printf("Fashion-MNIST: %lld train, %lld test images of %lld pixels; model %s, batch %lld, lr %.3g; "
              "gradients by autograd; device %s\n", (long long)n, (long long)test_x.size(0), (long long)features, model_kind.c_str(),
              (long long)batch, lr, device_name.c_str());

  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(lr));
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    auto t0 = std::chrono::steady_clock::now();
    auto perm = torch::randperm(n).to(device);
    double total_loss = 0;
    int64_t batches = 0;
    for (int64_t s = 0; s + batch <= n && (limit == 0 || batches < limit); s += batch) {
      auto idx = perm.slice(0, s, s + batch);
      auto xb = train_x.index_select(0, idx);
      auto yb = train_y.index_select(0, idx);
      auto logp = torch::log_softmax(model->forward(xb), 1);
      auto onehot = torch::one_hot(yb, classes).to(torch::kFloat);
      auto loss = -(logp * onehot).sum() / static_cast<double>(batch);  // cross-entropy
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      total_loss += loss.item<double>();
      ++batches;
    }
    torch::NoGradGuard no_grad;
    int64_t correct = 0;
    auto pred = model->forward(test_x).argmax(1);
    correct += pred.eq(test_y).sum().item<int64_t>();
    double acc = static_cast<double>(correct) / static_cast<double>(test_x.size(0));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("epoch %d  loss %.4f  test accuracy %.2f%%  time %.2fs\n", epoch, total_loss / batches, 100 * acc, secs);
  }
  return 0;
}
