// The main job: a convolutional classifier trained on Fashion-MNIST.
//
// Written against libtorch's C++ frontend only, so the same file builds against Ember and against
// libtorch (tools/mnist-peer builds and runs the libtorch side). The data are the IDX files of
// Debian's dataset-fashion-mnist, read gzip-compressed by Ember's datasets::MNIST (libtorch's reads
// only plain files: tools/mnist-peer decompresses them first).
//
//   mnist [--model cnn|classic] [--epochs N] [--batch-size B] [--lr LR] [--threads T] [--workers W]
//         [--device cpu|cuda] [--data DIR] [--out DIR] [--limit BATCHES] [--seed S] [--help]
//
// Models:
//   cnn      (default) two 3x3 convolution blocks with batch norm, then a 128-wide hidden layer;
//            AdamW, batch 64, lr 1e-3, shuffled batches.
//   classic  the net of libtorch's own MNIST example (two 5x5 convolutions, feature dropout,
//            320-50-10 head, log-softmax; SGD lr 0.01 momentum 0.5, batch 64, batches in file order),
//            so its curve can be set beside libtorch's.
// Per epoch it prints the mean train loss, the test loss and accuracy and the time; at the end it
// writes the curves as an SVG and saves the trained model with torch::save.
#include <torch/torch.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------
// Models

// Conv -> BatchNorm -> ReLU -> 2x2 max pooling, twice; then dropout, a hidden layer and the classes.
struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl()
      : conv1(torch::nn::Conv2dOptions(1, 16, 3).padding(1).bias(false)),
        bn1(16),
        conv2(torch::nn::Conv2dOptions(16, 32, 3).padding(1).bias(false)),
        bn2(32),
        drop(0.25),
        fc1(32 * 7 * 7, 128),
        fc2(128, 10) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("conv2", conv2);
    register_module("bn2", bn2);
    register_module("drop", drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(bn1->forward(conv1->forward(x))), 2);  // 16 x 14 x 14
    x = torch::max_pool2d(torch::relu(bn2->forward(conv2->forward(x))), 2);  // 32 x 7 x 7
    x = drop->forward(x.flatten(1));
    x = torch::relu(fc1->forward(x));
    return torch::log_softmax(fc2->forward(x), 1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::BatchNorm2d bn1;
  torch::nn::Conv2d conv2;
  torch::nn::BatchNorm2d bn2;
  torch::nn::Dropout drop;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(ConvNet);

// The network of libtorch's MNIST example, layer for layer.
struct ClassicNetImpl : torch::nn::Module {
  ClassicNetImpl()
      : conv1(torch::nn::Conv2dOptions(1, 10, 5)),
        conv2(torch::nn::Conv2dOptions(10, 20, 5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));                     // 10 x 12 x 12
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));  // 20 x 4 x 4
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*train=*/is_training());
    return torch::log_softmax(fc2->forward(x), 1);
  }

  torch::nn::Conv2d conv1, conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(ClassicNet);

// ---------------------------------------------------------------------------------------------
// Command line

struct Config {
  std::string model = "cnn";
  int epochs = 5;
  int64_t batch_size = 64;
  double lr = -1;  // per model when not given
  int threads = 0;  // 0: the library's default
  int workers = 1;
  std::string device = "cpu";
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string out = "mnist-out";
  int64_t limit = 0;  // train and test batches per epoch; 0: all
  uint64_t seed = 1;
};

void print_help(const char* argv0) {
  std::printf(
      "usage: %s [options]\n"
      "Trains a CNN on Fashion-MNIST and reports test accuracy per epoch.\n\n"
      "  --model cnn|classic  cnn: conv+batchnorm net with AdamW (default);\n"
      "                       classic: libtorch's MNIST example net with SGD\n"
      "  --epochs N           passes over the training set (default 5)\n"
      "  --batch-size B       training batch size (default 64)\n"
      "  --lr LR              learning rate (default 1e-3 for cnn, 0.01 for classic)\n"
      "  --threads T          intra-op threads (default: the library's choice)\n"
      "  --workers W          data loader threads (default 1)\n"
      "  --device cpu|cuda    where to train (default cpu)\n"
      "  --data DIR           the IDX files, plain or .gz (default /usr/share/datasets/fashion-mnist)\n"
      "  --out DIR            where the curves (SVG) and the model go (default mnist-out)\n"
      "  --limit N            only N train and N test batches per epoch (a smoke run)\n"
      "  --seed S             seed of torch::manual_seed (default 1)\n"
      "  --help               this text\n",
      argv0);
}

// Parses the flags; exits with status 2 and a message on a bad one.
Config parse(int argc, char** argv) {
  Config c;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%s: %s (try --help)\n", argv[0], why.c_str());
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      print_help(argv[0]);
      std::exit(0);
    }
    std::string v;
    auto eq = k.find('=');
    if (eq != std::string::npos) {
      v = k.substr(eq + 1);
      k = k.substr(0, eq);
    } else {
      if (i + 1 >= argc) fail("option " + k + " needs a value");
      v = argv[++i];
    }
    auto number = [&](double lo, double hi) {
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(d >= lo && d <= hi))
        fail(k + " expects a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got '" + v + "'");
      return d;
    };
    if (k == "--model") c.model = v;
    else if (k == "--epochs") c.epochs = static_cast<int>(number(1, 1000));
    else if (k == "--batch-size" || k == "--batch") c.batch_size = static_cast<int64_t>(number(1, 1 << 20));
    else if (k == "--lr") c.lr = number(0, 100);
    else if (k == "--threads") c.threads = static_cast<int>(number(1, 1024));
    else if (k == "--workers") c.workers = static_cast<int>(number(0, 64));
    else if (k == "--device") c.device = v;
    else if (k == "--data") c.data = v;
    else if (k == "--out") c.out = v;
    else if (k == "--limit") c.limit = static_cast<int64_t>(number(0, 1e9));
    else if (k == "--seed") c.seed = static_cast<uint64_t>(number(0, 1e15));
    else fail("unknown option " + k);
  }
  if (c.model != "cnn" && c.model != "classic") fail("--model expects cnn or classic; got '" + c.model + "'");
  if (c.device != "cpu" && c.device != "cuda") fail("--device expects cpu or cuda; got '" + c.device + "'");
  if (c.lr < 0) c.lr = c.model == "cnn" ? 1e-3 : 0.01;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Progress bar: one line redrawn in place, at most ten times a second, only when stdout is a
// terminal (a log file gets the per-epoch lines alone).

class ProgressBar {
 public:
  explicit ProgressBar(int64_t total) : total_(total), enabled_(isatty(STDOUT_FILENO) == 1) {}

  void update(int64_t done, double running_loss, double images_per_second) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    winsize ws{};
    int columns = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    char tail[96];
    std::snprintf(tail, sizeof tail, " %lld/%lld  loss %.4f  %.0f img/s", static_cast<long long>(done),
                  static_cast<long long>(total_), running_loss, images_per_second);
    int width = std::max(10, std::min(50, columns - static_cast<int>(std::string(tail).size()) - 3));
    int filled = total_ > 0 ? static_cast<int>(width * done / total_) : width;
    std::string bar(static_cast<size_t>(filled), '=');
    if (filled < width) bar += '>' + std::string(static_cast<size_t>(width - filled - 1), ' ');
    std::printf("\r[%s]%s\x1b[K", bar.c_str(), tail);
    std::fflush(stdout);
    drawn_ = true;
  }

  // Clears the bar so the next line starts at column 0.
  void clear() {
    if (enabled_ && drawn_) std::printf("\r\x1b[K");
    drawn_ = false;
  }

 private:
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// ---------------------------------------------------------------------------------------------
// Curves as SVG: loss (train points during training, train and test per epoch) on the left,
// test accuracy on the right.

struct Curves {
  std::vector<double> step_x, step_loss;                  // x in epochs (fractional)
  std::vector<double> epoch, train_loss, test_loss, test_accuracy;
};

struct Panel {
  double x0, y0, w, h;           // pixel box of the plot area
  double xmin, xmax, ymin, ymax;  // data range
  double px(double x) const { return x0 + (x - xmin) / (xmax - xmin) * w; }
  double py(double y) const { return y0 + h - (y - ymin) / (ymax - ymin) * h; }
};

std::string polyline(const Panel& p, const std::vector<double>& xs, const std::vector<double>& ys, const char* color,
                     double width) {
  std::string pts;
  char buf[64];
  for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    if (!std::isfinite(ys[i])) continue;
    std::snprintf(buf, sizeof buf, "%.1f,%.1f ", p.px(xs[i]), p.py(ys[i]));
    pts += buf;
  }
  return "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"" + std::to_string(width) +
         "\" points=\"" + pts + "\"/>\n";
}

std::string axes(const Panel& p, const std::string& title, int yticks, const char* yfmt) {
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
                p.x0, p.y0, p.w, p.h);
  s += buf;
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">%s</text>\n",
                p.x0 + p.w / 2, p.y0 - 10, title.c_str());
  s += buf;
  for (int i = 0; i <= yticks; ++i) {
    double v = p.ymin + (p.ymax - p.ymin) * i / yticks;
    char label[32];
    std::snprintf(label, sizeof label, yfmt, v);
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n",
                  p.x0, p.py(v), p.x0 + p.w, p.py(v), p.x0 - 4, p.py(v) + 4, label);
    s += buf;
  }
  int xt = static_cast<int>(std::ceil(p.xmax));
  int step = std::max(1, xt / 10);
  for (int e = 0; e <= xt; e += step) {
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%d</text>\n", p.px(e),
                  p.y0 + p.h + 16, e);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">epoch</text>\n",
                p.x0 + p.w / 2, p.y0 + p.h + 34);
  s += buf;
  return s;
}

std::string legend(double x, double y, const char* color, const char* text) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
                x, y, x + 18, y, color, x + 22, y + 4, text);
  return buf;
}

void write_svg(const std::string& path, const Curves& c, const std::string& title) {
  double xmax = c.epoch.empty() ? 1.0 : c.epoch.back();
  double lmax = 0;
  for (const auto* v : {&c.step_loss, &c.train_loss, &c.test_loss})
    for (double y : *v)
      if (std::isfinite(y)) lmax = std::max(lmax, y);
  lmax = lmax > 0 ? lmax * 1.05 : 1.0;
  double amin = 100, amax = 0;
  for (double a : c.test_accuracy) {
    amin = std::min(amin, a);
    amax = std::max(amax, a);
  }
  if (amin > amax) amin = 0, amax = 100;
  amin = std::max(0.0, std::floor(amin - 2));
  amax = std::min(100.0, std::ceil(amax + 1));
  if (amax - amin < 1) amax = amin + 1;

  Panel loss{60, 50, 380, 260, 0, xmax, 0, lmax};
  Panel acc{540, 50, 380, 260, 0, xmax, amin, amax};
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"370\" font-family=\"sans-serif\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"480\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">" + title + "</text>\n";
  s += axes(loss, "loss", 5, "%.2f");
  s += polyline(loss, c.step_x, c.step_loss, "#9ecae1", 1);
  s += polyline(loss, c.epoch, c.train_loss, "#08519c", 2);
  s += polyline(loss, c.epoch, c.test_loss, "#e6550d", 2);
  s += legend(loss.x0 + loss.w - 150, loss.y0 + 14, "#9ecae1", "train (running)");
  s += legend(loss.x0 + loss.w - 150, loss.y0 + 30, "#08519c", "train (epoch mean)");
  s += legend(loss.x0 + loss.w - 150, loss.y0 + 46, "#e6550d", "test");
  s += axes(acc, "test accuracy (%)", 5, "%.1f");
  s += polyline(acc, c.epoch, c.test_accuracy, "#31a354", 2);
  s += "</svg>\n";
  std::ofstream f(path);
  f << s;
  if (!f) throw std::runtime_error("cannot write " + path);
}

// ---------------------------------------------------------------------------------------------
// Training

template <typename Model, typename Loader>
double train_epoch(Model& model, torch::optim::Optimizer& optimizer, Loader& loader, const torch::Device& device,
                   int64_t batches, int64_t limit, double epoch_index, Curves& curves) {
  model->train();
  ProgressBar bar(batches);
  auto t0 = std::chrono::steady_clock::now();
  double sum = 0, running = 0;
  int64_t done = 0, images = 0;
  for (auto& batch : *loader) {
    auto data = batch.data.to(device), target = batch.target.to(device);
    optimizer.zero_grad();
    auto loss = torch::nll_loss(model->forward(data), target);
    loss.backward();
    optimizer.step();
    double l = loss.template item<double>();
    sum += l;
    running = done == 0 ? l : 0.95 * running + 0.05 * l;
    ++done;
    images += data.size(0);
    if (done % 20 == 0) {
      curves.step_x.push_back(epoch_index + static_cast<double>(done) / static_cast<double>(batches));
      curves.step_loss.push_back(running);
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.update(done, running, secs > 0 ? images / secs : 0.0);
    if (limit > 0 && done >= limit) break;
  }
  bar.clear();
  return done > 0 ? sum / static_cast<double>(done) : 0.0;
}

template <typename Model, typename Loader>
std::pair<double, double> evaluate(Model& model, Loader& loader, const torch::Device& device, int64_t limit) {
  torch::NoGradGuard no_grad;
  model->eval();
  double loss = 0;
  int64_t correct = 0, seen = 0, batches = 0;
  for (const auto& batch : *loader) {
    auto data = batch.data.to(device), target = batch.target.to(device);
    auto output = model->forward(data);
    loss += torch::nll_loss(output, target, /*weight=*/{}, at::Reduction::Sum).template item<double>();
    correct += output.argmax(1).eq(target).sum().template item<int64_t>();
    seen += data.size(0);
    if (limit > 0 && ++batches >= limit) break;
  }
  return {seen > 0 ? loss / static_cast<double>(seen) : 0.0, seen > 0 ? 100.0 * static_cast<double>(correct) / static_cast<double>(seen) : 0.0};
}

template <typename Model>
int run(Model model, const Config& cfg, std::unique_ptr<torch::optim::Optimizer> optimizer_fn(Model&, const Config&)) {
  const torch::Device device = cfg.device == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  model->to(device);
  auto optimizer = optimizer_fn(model, cfg);

  // Fashion-MNIST's pixel mean and standard deviation over the training set.
  const double mean = 0.2860, stddev = 0.3530;
  auto train_set = torch::data::datasets::MNIST(cfg.data, torch::data::datasets::MNIST::Mode::kTrain)
                       .map(torch::data::transforms::Normalize<>(mean, stddev))
                       .map(torch::data::transforms::Stack<>());
  auto test_set = torch::data::datasets::MNIST(cfg.data, torch::data::datasets::MNIST::Mode::kTest)
                      .map(torch::data::transforms::Normalize<>(mean, stddev))
                      .map(torch::data::transforms::Stack<>());
  const int64_t train_size = static_cast<int64_t>(train_set.size().value());
  const int64_t test_size = static_cast<int64_t>(test_set.size().value());
  int64_t batches = (train_size + cfg.batch_size - 1) / cfg.batch_size;
  if (cfg.limit > 0) batches = std::min(batches, cfg.limit);
  auto options = torch::data::DataLoaderOptions().batch_size(static_cast<size_t>(cfg.batch_size)).workers(static_cast<size_t>(cfg.workers));
  auto test_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(test_set), torch::data::DataLoaderOptions().batch_size(1000).workers(static_cast<size_t>(cfg.workers)));

  std::printf("Fashion-MNIST from %s: %lld train / %lld test images; model %s, %s, batch %lld, lr %g, %d thread(s), device %s\n",
              cfg.data.c_str(), static_cast<long long>(train_size), static_cast<long long>(test_size), cfg.model.c_str(),
              cfg.model == "cnn" ? "AdamW" : "SGD momentum 0.5", static_cast<long long>(cfg.batch_size), cfg.lr,
              torch::get_num_threads(), cfg.device.c_str());
  std::fflush(stdout);

  Curves curves;
  double total_secs = 0;
  auto run_epochs = [&](auto& loader) {
    for (int epoch = 1; epoch <= cfg.epochs; ++epoch) {
      auto t0 = std::chrono::steady_clock::now();
      double train_loss = train_epoch(model, *optimizer, loader, device, batches, cfg.limit, epoch - 1, curves);
      double train_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      auto [test_loss, accuracy] = evaluate(model, test_loader, device, cfg.limit);
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      total_secs += secs;
      curves.epoch.push_back(epoch);
      curves.train_loss.push_back(train_loss);
      curves.test_loss.push_back(test_loss);
      curves.test_accuracy.push_back(accuracy);
      std::printf("epoch %2d/%d  train loss %.4f  test loss %.4f  test accuracy %.2f%%  time %.1fs (train %.1fs, %.0f img/s)\n",
                  epoch, cfg.epochs, train_loss, test_loss, accuracy, secs, train_secs,
                  train_secs > 0 ? static_cast<double>(std::min(train_size, batches * cfg.batch_size)) / train_secs : 0.0);
      std::fflush(stdout);
    }
  };
  if (cfg.model == "classic") {
    // libtorch's example walks the training set in file order.
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(train_set), options);
    run_epochs(loader);
  } else {
    auto loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(std::move(train_set), options);
    run_epochs(loader);
  }

  std::string mkdir = "mkdir -p '" + cfg.out + "'";
  if (cfg.out.find('\'') != std::string::npos || std::system(mkdir.c_str()) != 0)
    throw std::runtime_error("cannot create the output directory " + cfg.out);
  const std::string stem = cfg.out + "/mnist_" + cfg.model;
  char title[160];
  std::snprintf(title, sizeof title, "Fashion-MNIST, %s model: %.2f%% after %d epoch(s), %.1f s", cfg.model.c_str(),
                curves.test_accuracy.empty() ? 0.0 : curves.test_accuracy.back(), cfg.epochs, total_secs);
  write_svg(stem + ".svg", curves, title);
  model->to(torch::kCPU);
  torch::save(model, stem + ".pt");
  std::printf("final test accuracy %.2f%% in %.1f s; curves in %s.svg, model in %s.pt\n",
              curves.test_accuracy.empty() ? 0.0 : curves.test_accuracy.back(), total_secs, stem.c_str(), stem.c_str());
  return 0;
}

std::unique_ptr<torch::optim::Optimizer> make_adamw(ConvNet& model, const Config& cfg) {
  return std::make_unique<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(cfg.lr));
}

std::unique_ptr<torch::optim::Optimizer> make_sgd(ClassicNet& model, const Config& cfg) {
  return std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(cfg.lr).momentum(0.5));
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg = parse(argc, argv);
  try {
    if (cfg.device == "cuda" && !torch::cuda::is_available()) {
      std::fprintf(stderr, "%s: --device cuda, but no CUDA device is available\n", argv[0]);
      return 2;
    }
    if (cfg.threads > 0) torch::set_num_threads(cfg.threads);
    torch::manual_seed(cfg.seed);
    if (cfg.model == "classic") return run(ClassicNet(), cfg, make_sgd);
    return run(ConvNet(), cfg, make_adamw);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}
