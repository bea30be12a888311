#pragma once
// gradcheck / gradgradcheck: compare the gradients autograd computes with central finite
// differences, in float64, element by element; the report names the worst element.
//
//   auto f = [](const variable_list& x) { return variable_list{(x[0] * x[1]).sum()}; };
//   std::string report;
//   bool ok = torch::autograd::gradcheck(f, {a, b}, {}, &report);
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/csrc/autograd/variable.h>
#include <functional>

namespace torch::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   ///< finite-difference step
  double atol = 1e-5;  ///< absolute tolerance
  double rtol = 1e-3;  ///< relative tolerance
  bool check_undefined_grad = false;
};

using GradcheckFn = std::function<variable_list(const variable_list&)>;

/// True when d(outputs)/d(inputs) from autograd matches finite differences for every input that
/// requires grad (inputs should be float64). On failure `report` (if given) describes the worst element.
bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& opts = {},
               std::string* report = nullptr);
/// gradcheck of the gradient itself (second derivatives), with random grad_outputs.
bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& opts = {},
                   std::string* report = nullptr);

}  // namespace torch::autograd

EMBER_PUBLIC_END
