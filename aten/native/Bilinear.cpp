// bilinear: y = x1^T A x2 + b for every output feature, as a composite (one matmul over all
// output features, then a product with x2 summed over its features).
#include <ATen/native/NativeFunctions.h>
#include <ATen/native/MatmulUtils.h>
#include <vector>

namespace at::native {

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const std::optional<Tensor>& bias) {
  const char* op = "bilinear";
  using matmul_utils::describe;
  EMBER_CHECK(input1.defined() && input2.defined() && weight.defined(), "[", op, "] expected defined input1, input2 and weight");
  EMBER_CHECK(weight.dim() == 3, "[", op, "] expected a 3-D weight (out, in1, in2); got ", describe(weight));
  EMBER_CHECK(input1.dim() >= 1 && input1.dim() == input2.dim(), "[", op,
              "] expected input1 and input2 with the same number of dims (at least 1); got input1 ", describe(input1), ", input2 ",
              describe(input2));
  for (int64_t d = 0; d + 1 < input1.dim(); ++d)
    EMBER_CHECK(input1.size(d) == input2.size(d), "[", op, "] expected input1 and input2 with the same batch dims; got input1 ",
                describe(input1), ", input2 ", describe(input2));
  EMBER_CHECK(input1.size(-1) == weight.size(1) && input2.size(-1) == weight.size(2), "[", op,
              "] expected input1.size(-1) == weight.size(1) and input2.size(-1) == weight.size(2); got input1 ", describe(input1),
              ", input2 ", describe(input2), ", weight ", describe(weight));
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias)
    EMBER_CHECK(bias->dim() == 1 && bias->size(0) == weight.size(0), "[", op, "] expected a bias of shape [", weight.size(0),
                "]; got ", describe(*bias));
  std::vector<int64_t> lead(input1.sizes().begin(), input1.sizes().end() - 1);
  const Tensor a = input1.reshape({-1, input1.size(-1)}), b = input2.reshape({-1, input2.size(-1)});
  // y[n, o] = sum_ij a[n, i] W[o, i, j] b[n, j]: (a W_o) for every o as one matmul, then the dot with b.
  const int64_t O = weight.size(0), I = weight.size(1), J = weight.size(2);
  const Tensor aw = at::matmul(a, weight.permute({1, 0, 2}).reshape({I, O * J})).reshape({a.size(0), O, J});
  Tensor y = aw.mul(b.unsqueeze(1)).sum(std::vector<int64_t>{2});
  if (has_bias) y = y.add(*bias);
  lead.push_back(O);
  return y.reshape(lead);
}

}  // namespace at::native
