// torch::pickle_load of files written by Python's real torch.save (torch 2.15.0, the pinned PyPI wheel; made by
// tools/pickle-crosscheck/torch_save_refs.py, see tests/data/pickle/README.md): a module's state_dict holding
// every dtype Ember loads, views and non-contiguous tensors, 0-dim and empty tensors, a Parameter, nested
// containers. Every value is spelled out here (IEEE bit patterns for the floating-point ones), apart from
// Ember's writer and from the script that made the files.
#include <torch/torch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace pickle_torchsave_test {

using torch::Tensor;

c10::IValue load_reference(const std::string& name) {
  std::string dir = __FILE__;
  dir = dir.substr(0, dir.rfind('/')) + "/../data/pickle/";
  std::ifstream f(dir + name, std::ios::binary);
  REQUIRE(f.good());
  return torch::pickle_load(std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()));
}

// The elements in logical (row-major) order, as stored bits of type T.
template <typename T>
std::vector<T> elements(const Tensor& t) {
  Tensor c = t.contiguous();
  REQUIRE(c.element_size() == static_cast<int64_t>(sizeof(T)));
  std::vector<T> out(static_cast<size_t>(c.numel()));
  if (!out.empty()) std::memcpy(out.data(), c.const_data_ptr(), c.nbytes());
  return out;
}

std::vector<int64_t> dims(at::IntArrayRef r) { return r.vec(); }

const c10::IValue& get(const c10::impl::GenericDict& d, const std::string& k) { return d.at(c10::IValue(k)); }

std::vector<std::string> keys(const c10::impl::GenericDict& d) {
  std::vector<std::string> out;
  for (const auto& e : d) out.push_back(e.key().toStringRef());
  return out;
}

// A tensor's dtype, sizes, strides, offset and storage size.
void check_layout(const Tensor& t, at::ScalarType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                  int64_t offset, size_t storage_bytes) {
  CHECK(t.scalar_type() == dtype);
  CHECK(dims(t.sizes()) == sizes);
  CHECK(dims(t.strides()) == strides);
  CHECK(t.storage_offset() == offset);
  CHECK(t.storage().nbytes() == storage_bytes);
  CHECK(t.device().is_cpu());
}

// The module the state_dict came from (Python: fc = Linear(3, 2), bn = BatchNorm1d(2), nine buffers).
struct TorchSaveNet : torch::nn::Module {
  TorchSaveNet() {
    register_buffer("f64", torch::zeros({5}, torch::kDouble));
    register_buffer("f16", torch::zeros({5}, torch::kHalf));
    register_buffer("bf16", torch::zeros({5}, torch::kBFloat16));
    register_buffer("i64", torch::zeros({3}, torch::kLong));
    register_buffer("i32", torch::zeros({3}, torch::kInt));
    register_buffer("i16", torch::zeros({3}, torch::kShort));
    register_buffer("i8", torch::zeros({3}, torch::kChar));
    register_buffer("u8", torch::zeros({3}, torch::kByte));
    register_buffer("mask", torch::zeros({2, 2}, torch::kBool));
    fc = register_module("fc", torch::nn::Linear(3, 2));
    bn = register_module("bn", torch::nn::BatchNorm1d(2));
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::BatchNorm1d bn{nullptr};
};

TEST_CASE("pickle_load reads torch.save of a module's state_dict with every dtype", "[pickle]") {
  c10::IValue sd = load_reference("torch_state_dict.pt");
  REQUIRE(sd.isGenericDict());  // an OrderedDict; its _metadata attribute is dropped
  auto d = sd.toGenericDict();
  CHECK(keys(d) == std::vector<std::string>{"f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "mask",
                                            "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean",
                                            "bn.running_var", "bn.num_batches_tracked"});
  auto T = [&](const char* k) { return get(d, k).toTensor(); };
  // 0.1, -2.5, 1e300, -0.0, NaN
  check_layout(T("f64"), torch::kDouble, {5}, {1}, 0, 40);
  CHECK(elements<uint64_t>(T("f64")) == std::vector<uint64_t>{0x3FB999999999999Au, 0xC004000000000000u,
                                                              0x7E37E43C8800759Cu, 0x8000000000000000u,
                                                              0x7FF8000000000000u});
  // 0.5, -65504 (lowest), 2^-14 (smallest normal), 2^-24 (smallest subnormal), inf
  check_layout(T("f16"), torch::kHalf, {5}, {1}, 0, 10);
  CHECK(elements<uint16_t>(T("f16")) == std::vector<uint16_t>{0x3800, 0xFBFF, 0x0400, 0x0001, 0x7C00});
  // 1, -2.5, 3.140625, the largest finite bfloat16, -inf
  check_layout(T("bf16"), torch::kBFloat16, {5}, {1}, 0, 10);
  CHECK(elements<uint16_t>(T("bf16")) == std::vector<uint16_t>{0x3F80, 0xC020, 0x4049, 0x7F7F, 0xFF80});
  check_layout(T("i64"), torch::kLong, {3}, {1}, 0, 24);
  CHECK(elements<int64_t>(T("i64")) == std::vector<int64_t>{INT64_MIN, -1, INT64_MAX});
  check_layout(T("i32"), torch::kInt, {3}, {1}, 0, 12);
  CHECK(elements<int32_t>(T("i32")) == std::vector<int32_t>{INT32_MIN, 7, INT32_MAX});
  check_layout(T("i16"), torch::kShort, {3}, {1}, 0, 6);
  CHECK(elements<int16_t>(T("i16")) == std::vector<int16_t>{-32768, 32767, -1});
  check_layout(T("i8"), torch::kChar, {3}, {1}, 0, 3);
  CHECK(elements<int8_t>(T("i8")) == std::vector<int8_t>{-128, 127, 0});
  check_layout(T("u8"), torch::kByte, {3}, {1}, 0, 3);
  CHECK(elements<uint8_t>(T("u8")) == std::vector<uint8_t>{0, 255, 17});
  check_layout(T("mask"), torch::kBool, {2, 2}, {2, 1}, 0, 4);
  CHECK(elements<uint8_t>(T("mask")) == std::vector<uint8_t>{1, 0, 0, 1});
  // 1.5, -0.0, FLT_MAX, the smallest subnormal, inf, -inf
  check_layout(T("fc.weight"), torch::kFloat, {2, 3}, {3, 1}, 0, 24);
  CHECK(elements<uint32_t>(T("fc.weight")) ==
        std::vector<uint32_t>{0x3FC00000u, 0x80000000u, 0x7F7FFFFFu, 0x00000001u, 0x7F800000u, 0xFF800000u});
  check_layout(T("fc.bias"), torch::kFloat, {2}, {1}, 0, 8);
  CHECK(elements<float>(T("fc.bias")) == std::vector<float>{0.25f, -0.75f});
  CHECK(elements<float>(T("bn.weight")) == std::vector<float>{2.0f, 0.5f});
  CHECK(elements<float>(T("bn.bias")) == std::vector<float>{-1.0f, 1.0f});
  CHECK(elements<float>(T("bn.running_mean")) == std::vector<float>{0.125f, -0.125f});
  CHECK(elements<float>(T("bn.running_var")) == std::vector<float>{4.0f, 0.0625f});
  check_layout(T("bn.num_batches_tracked"), torch::kLong, {}, {}, 0, 8);
  CHECK(elements<int64_t>(T("bn.num_batches_tracked")) == std::vector<int64_t>{3});
  // Each tensor has a storage of its own; state_dict() detaches, so none requires grad.
  std::vector<const void*> storages;
  for (const auto& e : d) {
    const Tensor& t = e.value().toTensor();
    CHECK_FALSE(t.requires_grad());
    const void* s = t.storage().unsafeGetStorageImpl();
    CHECK(std::find(storages.begin(), storages.end(), s) == storages.end());
    storages.push_back(s);
  }

  // ... and loads into the same module built with Ember.
  TorchSaveNet net;
  torch::load_state_dict(net, sd);
  CHECK(elements<uint32_t>(net.fc->weight) ==
        std::vector<uint32_t>{0x3FC00000u, 0x80000000u, 0x7F7FFFFFu, 0x00000001u, 0x7F800000u, 0xFF800000u});
  CHECK(net.fc->weight.requires_grad());
  CHECK(elements<float>(net.bn->running_var) == std::vector<float>{4.0f, 0.0625f});
  CHECK(elements<int64_t>(net.bn->num_batches_tracked) == std::vector<int64_t>{3});
  CHECK(elements<uint16_t>(net.named_buffers()["bf16"]) ==
        std::vector<uint16_t>{0x3F80, 0xC020, 0x4049, 0x7F7F, 0xFF80});
  CHECK(elements<uint8_t>(net.named_buffers()["mask"]) == std::vector<uint8_t>{1, 0, 0, 1});
}

TEST_CASE("pickle_load reads torch.save of views, non-contiguous, 0-dim and empty tensors and containers",
          "[pickle]") {
  auto d = load_reference("torch_misc.pt").toGenericDict();
  CHECK(keys(d) == std::vector<std::string>{"base", "view", "t", "row", "step", "bf16_t", "expanded", "scalar",
                                            "scalar_i64", "scalar_bool", "empty", "empty_i64", "param", "nested",
                                            "none", "true", "false", "int", "neg", "u16max", "u16max1", "i32min",
                                            "big", "min", "max", "double", "inf", "str", "empty_str"});
  auto T = [&](const char* k) { return get(d, k).toTensor(); };
  // base = arange(12).reshape(3, 4) and three views of its storage.
  Tensor base = T("base"), view = T("view"), t = T("t"), row = T("row");
  check_layout(base, torch::kFloat, {3, 4}, {4, 1}, 0, 48);
  CHECK(elements<float>(base) == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  check_layout(view, torch::kFloat, {2, 2}, {4, 1}, 5, 48);
  CHECK(elements<float>(view) == std::vector<float>{5, 6, 9, 10});
  check_layout(t, torch::kFloat, {4, 3}, {1, 4}, 0, 48);
  CHECK(elements<float>(t) == std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  check_layout(row, torch::kFloat, {4}, {1}, 8, 48);
  CHECK(elements<float>(row) == std::vector<float>{8, 9, 10, 11});
  CHECK(view.is_alias_of(base));
  CHECK(t.is_alias_of(base));
  CHECK(row.is_alias_of(base));
  base.add_(100);  // one storage: writes through base are seen through the views
  CHECK(elements<float>(row) == std::vector<float>{108, 109, 110, 111});
  CHECK(elements<float>(view) == std::vector<float>{105, 106, 109, 110});
  // arange(10, float64)[1::3]: the whole storage of ten doubles is kept.
  check_layout(T("step"), torch::kDouble, {3}, {3}, 1, 80);
  CHECK(elements<double>(T("step")) == std::vector<double>{1, 4, 7});
  CHECK_FALSE(T("step").is_alias_of(base));
  // [[1, 2, 3], [4, 5, 6]] in bfloat16, transposed.
  check_layout(T("bf16_t"), torch::kBFloat16, {3, 2}, {1, 3}, 0, 12);
  CHECK(elements<uint16_t>(T("bf16_t")) == std::vector<uint16_t>{0x3F80, 0x4080, 0x4000, 0x40A0, 0x4040, 0x40C0});
  // [[7], [-8]] expanded to [2, 3]: stride 0, a storage of two ints.
  check_layout(T("expanded"), torch::kInt, {2, 3}, {1, 0}, 0, 8);
  CHECK(elements<int32_t>(T("expanded")) == std::vector<int32_t>{7, 7, 7, -8, -8, -8});
  check_layout(T("scalar"), torch::kFloat, {}, {}, 0, 4);
  CHECK(elements<float>(T("scalar")) == std::vector<float>{3.25f});
  check_layout(T("scalar_i64"), torch::kLong, {}, {}, 0, 8);
  CHECK(elements<int64_t>(T("scalar_i64")) == std::vector<int64_t>{-7});
  check_layout(T("scalar_bool"), torch::kBool, {}, {}, 0, 1);
  CHECK(elements<uint8_t>(T("scalar_bool")) == std::vector<uint8_t>{1});
  check_layout(T("empty"), torch::kFloat, {0, 3}, {3, 1}, 0, 0);
  check_layout(T("empty_i64"), torch::kLong, {0}, {1}, 0, 0);
  // nn.Parameter pickles through _rebuild_parameter: a tensor that requires grad.
  check_layout(T("param"), torch::kFloat, {2}, {1}, 0, 8);
  CHECK(elements<float>(T("param")) == std::vector<float>{0.5f, -1.5f});
  CHECK(T("param").requires_grad());
  for (const char* k : {"base", "step", "bf16_t", "expanded", "scalar", "empty"}) CHECK_FALSE(T(k).requires_grad());

  auto nested = get(d, "nested").toGenericDict();
  CHECK(keys(nested) == std::vector<std::string>{"list", "tuple", "dict", "ints", "intkeys"});
  auto l = get(nested, "list").toList();
  REQUIRE(l.size() == 5);
  CHECK(l[0].toInt() == 1);
  CHECK(l[1].toDouble() == 2.5);
  CHECK(l[2].toStringRef() == "x");
  check_layout(l[3].toTensor(), torch::kShort, {2}, {1}, 0, 4);
  CHECK(elements<int16_t>(l[3].toTensor()) == std::vector<int16_t>{1, 2});
  auto inner = l[4].toList();
  REQUIRE(inner.size() == 2);
  CHECK(inner[0].isNone());
  CHECK(inner[1].isBool());
  CHECK(inner[1].toBool() == false);
  const auto& tup = get(nested, "tuple").toTupleRef().elements();
  REQUIRE(tup.size() == 4);
  CHECK(tup[0].toInt() == 1);
  CHECK(tup[1].toStringRef() == "a");
  CHECK(tup[2].isDouble());
  CHECK(tup[2].toDouble() == 2.0);
  CHECK(tup[3].isNone());
  auto dd = get(nested, "dict").toGenericDict();
  check_layout(get(dd, "a").toTensor(), torch::kDouble, {}, {}, 0, 8);
  CHECK(elements<double>(get(dd, "a").toTensor()) == std::vector<double>{0.5});
  CHECK(get(get(dd, "inner").toGenericDict(), "b").toList().empty());
  auto ints = get(nested, "ints").toList();  // Python's lists carry no type tag: a generic list
  REQUIRE(ints.size() == 3);
  CHECK((ints[0].toInt() == 1 && ints[1].toInt() == -2 && ints[2].toInt() == 3));
  auto ik = get(nested, "intkeys").toGenericDict();
  REQUIRE(ik.size() == 2);
  CHECK(ik.at(1).toStringRef() == "one");
  CHECK(ik.at(-2).toStringRef() == "minus two");

  CHECK(get(d, "none").isNone());
  CHECK((get(d, "true").isBool() && get(d, "true").toBool()));
  CHECK((get(d, "false").isBool() && !get(d, "false").toBool()));
  CHECK(get(d, "int").toInt() == 42);
  CHECK(get(d, "neg").toInt() == -3);
  CHECK(get(d, "u16max").toInt() == 65535);
  CHECK(get(d, "u16max1").toInt() == 65536);
  CHECK(get(d, "i32min").toInt() == INT32_MIN);
  CHECK(get(d, "big").toInt() == (int64_t{1} << 40));
  CHECK(get(d, "min").toInt() == INT64_MIN);
  CHECK(get(d, "max").toInt() == INT64_MAX);
  CHECK(get(d, "double").toDouble() == -0.125);
  CHECK(get(d, "inf").toDouble() == std::numeric_limits<double>::infinity());
  CHECK(get(d, "str").toStringRef() == "h\xc3\xa9llo\n");
  CHECK(get(d, "empty_str").toStringRef().empty());
}

TEST_CASE("pickle_load reads torch.save of a list of tensors over one storage", "[pickle]") {
  c10::IValue v = load_reference("torch_tensor_list.pt");
  REQUIRE(v.isList());
  auto l = v.toList();
  REQUIRE(l.size() == 3);
  Tensor x = l[0].toTensor(), xt = l[1].toTensor(), xs = l[2].toTensor();
  check_layout(x, torch::kLong, {2, 3}, {3, 1}, 0, 48);
  CHECK(elements<int64_t>(x) == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
  check_layout(xt, torch::kLong, {3, 2}, {1, 3}, 0, 48);
  CHECK(elements<int64_t>(xt) == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  check_layout(xs, torch::kLong, {2, 2}, {3, 1}, 1, 48);
  CHECK(elements<int64_t>(xs) == std::vector<int64_t>{1, 2, 4, 5});
  CHECK(xt.is_alias_of(x));
  CHECK(xs.is_alias_of(x));
}

}  // namespace pickle_torchsave_test
