// A character-level language model: an LSTM reads a text one character at a time and learns to
// predict the next one; after training it writes a sample of its own.
//
// Written against libtorch's C++ frontend only, so the same file builds against Ember and against
// libtorch. The text is examples/char_lstm/data/lanterns.txt (original stories written for this
// project, public domain).
//
//   char_lstm [--epochs N] [--limit BATCHES] [--seed S] [--data FILE] [--hidden H] [--layers L]
//             [--seq-len T] [--batch-size B] [--lr LR] [--sample N] [--help]
//
// The model: one-hot characters -> nn::LSTM -> nn::Linear to the vocabulary, trained with Adam
// (gradient norm clipped at 5) and truncated backpropagation through time: the text is cut into
// batch-size parallel streams, and the hidden state is carried from one window of seq-len
// characters to the next, detached. The last tenth of the text is held out. Each epoch prints the mean train loss, the held-out loss (both in
// nats per character) and the time; at the end it samples text starting from "The ".
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef CHAR_LSTM_DATA
#define CHAR_LSTM_DATA "examples/char_lstm/data/lanterns.txt"
#endif

namespace {

struct Config {
  int64_t epochs = 10;
  int64_t limit = 0;  // batches per epoch, 0 = the whole text
  uint64_t seed = 1;
  std::string data = CHAR_LSTM_DATA;
  int64_t hidden = 256;
  int64_t layers = 1;
  int64_t seq_len = 64;
  int64_t batch_size = 32;
  double lr = 3e-3;
  int64_t sample = 300;
};

void print_help(const char* argv0) {
  std::printf(
      "usage: %s [options]\n"
      "  --epochs N        passes over the training text (default 10)\n"
      "  --limit B         at most B batches per epoch and for the held-out loss (default 0: all)\n"
      "  --seed S          random seed for the weights and the sampling (default 1)\n"
      "  --data FILE       the text to learn (default %s)\n"
      "  --hidden H        LSTM hidden size (default 256)\n"
      "  --layers L        LSTM layers (default 1)\n"
      "  --seq-len T       characters per truncated-BPTT window (default 64)\n"
      "  --batch-size B    parallel streams (default 32)\n"
      "  --lr LR           Adam learning rate (default 3e-3)\n"
      "  --sample N        characters to sample after training (default 300)\n"
      "  --help            this text\n",
      argv0, CHAR_LSTM_DATA);
}

Config parse(int argc, char** argv) {
  Config cfg;
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
    if (i + 1 >= argc) fail("missing value for " + k);
    std::string v = argv[++i];
    try {
      if (k == "--epochs") cfg.epochs = std::stoll(v);
      else if (k == "--limit") cfg.limit = std::stoll(v);
      else if (k == "--seed") cfg.seed = std::stoull(v);
      else if (k == "--data") cfg.data = v;
      else if (k == "--hidden") cfg.hidden = std::stoll(v);
      else if (k == "--layers") cfg.layers = std::stoll(v);
      else if (k == "--seq-len") cfg.seq_len = std::stoll(v);
      else if (k == "--batch-size") cfg.batch_size = std::stoll(v);
      else if (k == "--lr") cfg.lr = std::stod(v);
      else if (k == "--sample") cfg.sample = std::stoll(v);
      else fail("unknown option " + k);
    } catch (const std::logic_error&) {
      fail("bad value for " + k + ": " + v);
    }
  }
  if (cfg.epochs < 1 || cfg.limit < 0 || cfg.hidden < 1 || cfg.layers < 1 || cfg.seq_len < 1 || cfg.batch_size < 1 ||
      cfg.sample < 0 || !(cfg.lr > 0))
    fail("epochs, hidden, layers, seq-len, batch-size and lr must be positive; limit and sample not negative");
  return cfg;
}

struct CharModelImpl : torch::nn::Module {
  CharModelImpl(int64_t vocab, int64_t hidden, int64_t layers)
      : vocab(vocab),
        lstm(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(vocab, hidden).num_layers(layers)))),
        head(register_module("head", torch::nn::Linear(hidden, vocab))) {}

  // x: (T, B) character codes; returns logits (T, B, vocab) and the new state.
  std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>> forward(
      const torch::Tensor& x, const std::optional<std::tuple<torch::Tensor, torch::Tensor>>& state) {
    auto input = torch::one_hot(x, vocab).to(torch::kFloat32);
    auto [out, next] = lstm->forward(input, state);
    return {head->forward(out), next};
  }

  int64_t vocab;
  torch::nn::LSTM lstm;
  torch::nn::Linear head;
};
TORCH_MODULE(CharModel);

// Cuts codes into `batch` parallel streams: (length / batch, batch).
torch::Tensor streams(const torch::Tensor& codes, int64_t batch) {
  const int64_t len = codes.size(0) / batch;
  return codes.narrow(0, 0, len * batch).view({batch, len}).t().contiguous();
}

std::tuple<torch::Tensor, torch::Tensor> detach_state(const std::tuple<torch::Tensor, torch::Tensor>& s) {
  return {std::get<0>(s).detach(), std::get<1>(s).detach()};
}

// Mean loss per character over consecutive windows of a (length, batch) stream tensor.
template <typename Step>
double run_windows(const torch::Tensor& data, const Config& cfg, Step step) {
  std::optional<std::tuple<torch::Tensor, torch::Tensor>> state;
  double total = 0;
  int64_t windows = 0;
  for (int64_t start = 0; start + 1 < data.size(0); start += cfg.seq_len) {
    if (cfg.limit > 0 && windows >= cfg.limit) break;
    const int64_t len = std::min(cfg.seq_len, data.size(0) - 1 - start);
    auto x = data.narrow(0, start, len);
    auto y = data.narrow(0, start + 1, len);
    auto [loss, next] = step(x, y, state);
    state = detach_state(next);
    total += loss;
    ++windows;
  }
  return windows ? total / static_cast<double>(windows) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
  std::ifstream file(cfg.data, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "%s: cannot read %s\n", argv[0], cfg.data.c_str());
    return 1;
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();

  // The vocabulary: every byte value that occurs, in increasing order.
  std::vector<int64_t> code_of(256, -1);
  std::string chars;
  for (unsigned char c : text) code_of[c] = 0;
  for (int c = 0; c < 256; ++c)
    if (code_of[c] == 0) {
      code_of[c] = static_cast<int64_t>(chars.size());
      chars.push_back(static_cast<char>(c));
    }
  const auto vocab = static_cast<int64_t>(chars.size());
  std::vector<int64_t> codes(text.size());
  for (size_t i = 0; i < text.size(); ++i) codes[i] = code_of[static_cast<unsigned char>(text[i])];
  auto all = torch::from_blob(codes.data(), {static_cast<int64_t>(codes.size())}, torch::kInt64).clone();
  const int64_t held_out = all.size(0) / 10;
  auto train = streams(all.narrow(0, 0, all.size(0) - held_out), cfg.batch_size);
  auto valid = streams(all.narrow(0, all.size(0) - held_out, held_out), std::min<int64_t>(cfg.batch_size, 8));
  if (train.size(0) < 2 || valid.size(0) < 2) {
    std::fprintf(stderr, "%s: %s is too short for batch size %lld\n", argv[0], cfg.data.c_str(),
                 static_cast<long long>(cfg.batch_size));
    return 1;
  }
  std::printf("text %zu characters, vocabulary %lld, LSTM %lld x %lld, %lld steps of %lld per epoch\n", text.size(),
              static_cast<long long>(vocab), static_cast<long long>(cfg.layers), static_cast<long long>(cfg.hidden),
              static_cast<long long>((train.size(0) - 2) / cfg.seq_len + 1), static_cast<long long>(cfg.seq_len));

  torch::manual_seed(cfg.seed);
  CharModel model(vocab, cfg.hidden, cfg.layers);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(cfg.lr));
  namespace F = torch::nn::functional;
  auto loss_of = [&](const torch::Tensor& logits, const torch::Tensor& y) {
    return F::cross_entropy(logits.reshape({-1, vocab}), y.reshape({-1}));
  };

  for (int64_t epoch = 1; epoch <= cfg.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    model->train();
    const double train_loss = run_windows(train, cfg, [&](const auto& x, const auto& y, const auto& state) {
      optimizer.zero_grad();
      auto [logits, next] = model->forward(x, state);
      auto loss = loss_of(logits, y);
      loss.backward();
      torch::nn::utils::clip_grad_norm_(model->parameters(), 5.0);
      optimizer.step();
      return std::make_tuple(loss.template item<double>(), next);
    });
    model->eval();
    double valid_loss;
    {
      torch::NoGradGuard no_grad;
      valid_loss = run_windows(valid, cfg, [&](const auto& x, const auto& y, const auto& state) {
        auto [logits, next] = model->forward(x, state);
        return std::make_tuple(loss_of(logits, y).template item<double>(), next);
      });
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %lld/%lld  train loss %.4f  held-out loss %.4f  (%.2f bits/char)  %.1fs\n",
                static_cast<long long>(epoch), static_cast<long long>(cfg.epochs), train_loss, valid_loss,
                valid_loss / std::log(2.0), secs);
    std::fflush(stdout);
  }

  // Sampling: feed the prompt, then draw each next character from softmax(logits / 0.8).
  torch::NoGradGuard no_grad;
  model->eval();
  std::mt19937_64 rng(cfg.seed);
  std::string sample = "The ";
  std::optional<std::tuple<torch::Tensor, torch::Tensor>> state;
  std::vector<int64_t> prompt;
  for (unsigned char c : sample) prompt.push_back(code_of[c] >= 0 ? code_of[c] : 0);
  auto x = torch::tensor(prompt, torch::kInt64).view({-1, 1});
  for (int64_t i = 0; i < cfg.sample; ++i) {
    auto [logits, next] = model->forward(x, state);
    state = next;
    auto probs = torch::softmax(logits[-1][0] / 0.8, 0).to(torch::kDouble).contiguous();
    const double* p = probs.data_ptr<double>();
    std::discrete_distribution<int64_t> pick(p, p + vocab);
    const int64_t code = pick(rng);
    sample.push_back(chars[static_cast<size_t>(code)]);
    x = torch::full({1, 1}, code, torch::kInt64);
  }
  std::printf("sample:\n%s\n", sample.c_str());
  return 0;
}
