// torch::nn::RNNCell / LSTMCell / GRUCell: one recurrent step, composed from linear, sigmoid,
// tanh and chunk (the gate formulas are the ones the sequence layers use, api/src/nn_rnn.cpp).
#include <torch/nn/rnn.h>
#include <torch/nn/init.h>
#include <cmath>
#include <ostream>
#include <string>

namespace torch::nn {
namespace {

template <typename Derived>
const char* cell_name();
template <>
const char* cell_name<RNNCellImpl>() { return "RNNCell"; }
template <>
const char* cell_name<LSTMCellImpl>() { return "LSTMCell"; }
template <>
const char* cell_name<GRUCellImpl>() { return "GRUCell"; }

std::string shape_str(at::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace

namespace detail {

template <typename Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(const RNNCellOptionsBase& options_) : options_base(options_) {
  EMBER_CHECK(options_base.input_size() >= 0, "[", cell_name<Derived>(), "] expected a non-negative input_size; got ",
              options_base.input_size());
  EMBER_CHECK(options_base.hidden_size() > 0, "[", cell_name<Derived>(), "] expected a positive hidden_size; got ",
              options_base.hidden_size());
  reset();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset() {
  const auto& o = options_base;
  const int64_t gates = o.num_chunks() * o.hidden_size();
  weight_ih = this->register_parameter("weight_ih", at::empty({gates, o.input_size()}));
  weight_hh = this->register_parameter("weight_hh", at::empty({gates, o.hidden_size()}));
  if (o.bias()) {
    bias_ih = this->register_parameter("bias_ih", at::empty({gates}));
    bias_hh = this->register_parameter("bias_hh", at::empty({gates}));
  } else {
    bias_ih = this->register_parameter("bias_ih", at::Tensor(), /*requires_grad=*/false);
    bias_hh = this->register_parameter("bias_hh", at::Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (auto& p : this->parameters()) init::uniform_(p, -bound, bound);
}

template <typename Derived>
void RNNCellImplBase<Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::" << cell_name<Derived>() << "(" << options_base.input_size() << ", "
         << options_base.hidden_size();
  if (!options_base.bias()) stream << ", bias=" << options_base.bias();
  const std::string nonlinearity = get_nonlinearity_str();
  if (!nonlinearity.empty() && nonlinearity != "kTanh") stream << ", nonlinearity=" << nonlinearity;
  stream << ")";
}

template <typename Derived>
std::tuple<at::Tensor, at::Tensor, bool> RNNCellImplBase<Derived>::prepare(const at::Tensor& input,
                                                                          const at::Tensor& state,
                                                                          const char* state_name) const {
  const char* name = cell_name<Derived>();
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "[", name,
              "] expected input of 1 (unbatched) or 2 (batch, features) dimensions; got ", input.dim(),
              "-D input of shape ", shape_str(input.sizes()));
  EMBER_CHECK(input.size(-1) == options_base.input_size(), "[", name, "] expected input.size(-1) to equal input_size (",
              options_base.input_size(), "); got ", input.size(-1));
  EMBER_CHECK(input.scalar_type() == weight_ih.scalar_type(), "[", name, "] expected input of dtype ",
              weight_ih.scalar_type(), " (the parameters'); got ", input.scalar_type());
  const bool unbatched = input.dim() == 1;
  at::Tensor x = unbatched ? input.unsqueeze(0) : input;
  if (!state.defined()) return {x, at::zeros({x.size(0), options_base.hidden_size()}, x.options()), unbatched};
  std::vector<int64_t> expected{options_base.hidden_size()};
  if (!unbatched) expected.insert(expected.begin(), x.size(0));
  EMBER_CHECK(state.sizes() == at::IntArrayRef(expected), "[", name, "] expected ", state_name, " of shape ",
              shape_str(expected), " for input of shape ", shape_str(input.sizes()), "; got ",
              shape_str(state.sizes()));
  EMBER_CHECK(state.scalar_type() == input.scalar_type(), "[", name, "] expected ", state_name, " of dtype ",
              input.scalar_type(), " (the input's); got ", state.scalar_type());
  return {x, unbatched ? state.unsqueeze(0) : state, unbatched};
}

}  // namespace detail

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(), options_.bias(), 1)),
      options(options_) {}

std::string RNNCellImpl::get_nonlinearity_str() const { return enumtype::get_enum_name(options.nonlinearity()); }

at::Tensor RNNCellImpl::forward(const at::Tensor& input, const at::Tensor& hx) {
  auto [x, h, unbatched] = prepare(input, hx, "hx");
  at::Tensor pre = at::linear(x, weight_ih, bias_ih) + at::linear(h, weight_hh, bias_hh);
  at::Tensor out = std::holds_alternative<enumtype::kReLU>(options.nonlinearity()) ? at::relu(pre) : at::tanh(pre);
  return unbatched ? out.squeeze(0) : out;
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(), options_.bias(), 4)),
      options(options_) {}

std::tuple<at::Tensor, at::Tensor> LSTMCellImpl::forward(const at::Tensor& input,
                                                         std::optional<std::tuple<at::Tensor, at::Tensor>> hx_opt) {
  at::Tensor h0, c0;
  if (hx_opt) std::tie(h0, c0) = *hx_opt;
  auto [x, h, unbatched] = prepare(input, h0, "h");
  at::Tensor c = std::get<1>(prepare(input, c0, "c"));
  auto g = at::chunk(at::linear(x, weight_ih, bias_ih) + at::linear(h, weight_hh, bias_hh), 4, 1);
  at::Tensor c1 = at::sigmoid(g[1]) * c + at::sigmoid(g[0]) * at::tanh(g[2]);
  at::Tensor h1 = at::sigmoid(g[3]) * at::tanh(c1);
  if (unbatched) return {h1.squeeze(0), c1.squeeze(0)};
  return {h1, c1};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(), options_.bias(), 3)),
      options(options_) {}

at::Tensor GRUCellImpl::forward(const at::Tensor& input, const at::Tensor& hx) {
  auto [x, h, unbatched] = prepare(input, hx, "hx");
  auto xs = at::chunk(at::linear(x, weight_ih, bias_ih), 3, 1);
  auto hs = at::chunk(at::linear(h, weight_hh, bias_hh), 3, 1);
  at::Tensor r = at::sigmoid(xs[0] + hs[0]);
  at::Tensor z = at::sigmoid(xs[1] + hs[1]);
  at::Tensor n = at::tanh(xs[2] + r * hs[2]);
  at::Tensor out = n + z * (h - n);
  return unbatched ? out.squeeze(0) : out;
}

template class detail::RNNCellImplBase<RNNCellImpl>;
template class detail::RNNCellImplBase<LSTMCellImpl>;
template class detail::RNNCellImplBase<GRUCellImpl>;

}  // namespace torch::nn
