// The C ABI (include/ember/ember.h), used only through its table as a C program would: versions,
// errors as statuses ("[op] ..." messages, never an exception), null handles, boxed calls agreeing
// with typed ones, the from-buffer deleter contract, autograd, out=/in-place results, files;
// version 2: DLPack exchange (a producer written here, layouts read by hand) and generators
// (against values libtorch gave for the same seeds, and C++ calls with the same seeds).
// Values are checked against arithmetic written here in double.
#include "../../include/ember/ember.h"

#include <ATen/ATen.h>     // C++ references for the generator tests only
#include <ATen/dlpack.h>   // the DLPack structs, as a C program would include a dlpack.h

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace c_abi_test {

const EmberApi* api() {
  static const EmberApi* a = EmberGetApi(EMBER_API_VERSION);
  return a;
}
const EmberOps* ops() { return api()->ops; }

// A status as (code, message), released.
struct Result {
  int32_t code;
  std::string message;
};
Result result(EmberStatus* st) {
  Result r{api()->StatusCode(st), api()->StatusMessage(st)};
  api()->ReleaseStatus(st);
  return r;
}

void ok(EmberStatus* st) {
  Result r = result(st);
  INFO(r.message);
  REQUIRE(r.code == EMBER_OK);
}

EmberTensor* doubles(const std::vector<double>& v, std::vector<int64_t> shape) {
  EmberTensor* t = nullptr;
  ok(api()->TensorEmpty(shape.data(), shape.size(), EMBER_FLOAT64, nullptr, &t));
  void* p = nullptr;
  ok(api()->TensorData(t, &p));
  std::memcpy(p, v.data(), v.size() * sizeof(double));
  return t;
}

std::vector<double> values(const EmberTensor* t) {
  EmberTensor* h = nullptr;
  EmberTensor* c = nullptr;
  EmberTensor* d = nullptr;
  EmberDevice cpu{EMBER_DEVICE_CPU, -1};
  ok(api()->TensorToDevice(t, &cpu, &h));
  ok(api()->TensorContiguous(h, &c));
  ok(api()->TensorTo(c, EMBER_FLOAT64, &d));
  int64_t n = 0;
  void* p = nullptr;
  ok(api()->TensorNumel(d, &n));
  ok(api()->TensorData(d, &p));
  std::vector<double> out(static_cast<const double*>(p), static_cast<const double*>(p) + n);
  for (EmberTensor* x : {h, c, d}) api()->ReleaseTensor(x);
  return out;
}

std::vector<int64_t> shape(const EmberTensor* t) {
  int64_t s[16];
  size_t n = 0;
  ok(api()->TensorShape(t, s, 16, &n));
  return std::vector<int64_t>(s, s + n);
}

bool same(const EmberTensor* a, const EmberTensor* b) {
  bool eq = false;
  ok(ops()->equal(a, b, &eq));
  return eq && shape(a) == shape(b);
}

EmberValue tensor_value(const EmberTensor* t) {
  EmberValue v{};
  v.tag = EMBER_VALUE_TENSOR;
  v.p = t;
  return v;
}
EmberValue int_value(int64_t i) {
  EmberValue v{};
  v.tag = EMBER_VALUE_INT;
  v.i = i;
  return v;
}
EmberValue none_value() { return EmberValue{}; }

int deleter_calls = 0;
void* deleter_data = nullptr;
void count_deleter(void* data, void* ctx) {
  ++deleter_calls;
  deleter_data = data;
  *static_cast<int*>(ctx) += 1;
}

}  // namespace c_abi_test

using namespace c_abi_test;

TEST_CASE("c_abi: versions and the tables", "[c_abi]") {
  CHECK(EmberGetApi(0) == nullptr);
  CHECK(EmberGetApi(EMBER_API_VERSION + 1) == nullptr);
  REQUIRE(api() != nullptr);
  CHECK(EmberGetApi(1) == api());
  CHECK(api()->version == EMBER_API_VERSION);
  CHECK(std::string(api()->VersionString()) == "0.1.0");
  // Every op of this build has a filled slot, in the generated header's count and order.
  CHECK(ops()->num_ops == EMBER_OPS_SLOT_COUNT);
  CHECK(api()->OpCount() == ops()->num_ops);
  CHECK(EMBER_OPS_HAS(ops(), add_Tensor));
  auto* slots = reinterpret_cast<void (*const*)(void)>(reinterpret_cast<const char*>(ops()) + 2 * sizeof(uint64_t));
  size_t filled = 0;
  for (size_t k = 0; k < ops()->num_ops; ++k) filled += slots[k] != nullptr;
  CHECK(filled == ops()->num_ops);
  CHECK(reinterpret_cast<void*>(slots[0]) == reinterpret_cast<void*>(ops()->add_Tensor));
  size_t idx = 99;
  ok(api()->OpFind("add.Tensor", &idx));
  CHECK(idx == 0);  // the first line of codegen/c_abi_ops.txt
  CHECK(std::string(api()->OpSchema(idx)) == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(api()->OpSchema(api()->OpCount()) == nullptr);
  Result r = result(api()->OpFind("add.NoSuchOverload", &idx));
  CHECK(r.code == EMBER_NOT_FOUND);
  CHECK(r.message.rfind("[OpFind]", 0) == 0);
  CHECK(api()->StatusCode(nullptr) == EMBER_OK);
  CHECK(std::string(api()->StatusMessage(nullptr)).empty());
  api()->ReleaseStatus(nullptr);
  api()->ReleaseTensor(nullptr);
  api()->ReleaseTensorArray(nullptr, 3);
}

TEST_CASE("c_abi: tensors, queries and conversions", "[c_abi]") {
  int64_t sz[2] = {2, 3};
  EmberTensor* z = nullptr;
  ok(api()->TensorZeros(sz, 2, EMBER_INT32, nullptr, &z));
  EmberDType dt = -1;
  ok(api()->TensorDType(z, &dt));
  CHECK(dt == EMBER_INT32);
  size_t nd = 0;
  ok(api()->TensorDim(z, &nd));
  CHECK(nd == 2);
  CHECK(values(z) == std::vector<double>(6, 0.0));
  EmberDevice dev{-5, -5};
  ok(api()->TensorDevice(z, &dev));
  CHECK(dev.type == EMBER_DEVICE_CPU);

  EmberTensor* a = doubles({1, 2, 3, 4, 5, 6}, {2, 3});
  EmberTensor* at = nullptr;
  ok(ops()->t(a, &at));  // a view: strides (1, 3)
  CHECK(shape(at) == std::vector<int64_t>{3, 2});
  int64_t st[4] = {0, 0, 0, 0};
  ok(api()->TensorStrides(at, st, 4, &nd));
  CHECK(nd == 2);
  CHECK(st[0] == 1);
  CHECK(st[1] == 3);
  // A capacity smaller than the rank writes what fits and still reports the rank.
  int64_t one = -1;
  ok(api()->TensorShape(at, &one, 1, &nd));
  CHECK(one == 3);
  CHECK(nd == 2);
  CHECK(values(at) == std::vector<double>{1, 4, 2, 5, 3, 6});
  EmberTensor* ac = nullptr;
  ok(api()->TensorContiguous(at, &ac));
  ok(api()->TensorStrides(ac, st, 4, &nd));
  CHECK(st[0] == 2);
  CHECK(st[1] == 1);
  EmberTensor* cl = nullptr;
  ok(api()->TensorClone(a, &cl));
  void *pa = nullptr, *pc = nullptr;
  ok(api()->TensorData(a, &pa));
  ok(api()->TensorData(cl, &pc));
  CHECK(pa != pc);
  CHECK(same(a, cl));
  EmberTensor* f = nullptr;
  ok(api()->TensorTo(a, EMBER_FLOAT32, &f));
  ok(api()->TensorDType(f, &dt));
  CHECK(dt == EMBER_FLOAT32);
  EmberDevice cpu{EMBER_DEVICE_CPU, -1};
  EmberTensor* onto = nullptr;
  ok(api()->TensorToDevice(a, &cpu, &onto));
  CHECK(same(a, onto));
  for (EmberTensor* t : {z, a, at, ac, cl, f, onto}) api()->ReleaseTensor(t);
}

TEST_CASE("c_abi: CUDA through the C ABI, or a status saying why not", "[c_abi]") {
  EmberTensor* a = doubles({1, 2, 3}, {3});
  EmberDevice cuda{EMBER_DEVICE_CUDA, 0};
  EmberTensor* g = nullptr;
  EmberStatus* st = api()->TensorToDevice(a, &cuda, &g);
  if (st) {
    // No device here (or no CUDA build): Ember's error, as a status.
    Result r = result(st);
    INFO(r.message);
    CHECK(r.code == EMBER_ERROR);
    CHECK(r.message.rfind("[", 0) == 0);
    CHECK(g == nullptr);
  } else {
    EmberDevice d{-1, -1};
    ok(api()->TensorDevice(g, &d));
    CHECK(d.type == EMBER_DEVICE_CUDA);
    CHECK(d.index == 0);
    EmberTensor* e = nullptr;
    ok(ops()->exp(g, &e));
    std::vector<double> got = values(e);  // copied back to the CPU
    for (size_t k = 0; k < 3; ++k) CHECK(got[k] == Approx(std::exp(double(k + 1))).epsilon(1e-15));
    api()->ReleaseTensor(e);
    api()->ReleaseTensor(g);
  }
  api()->ReleaseTensor(a);
}

TEST_CASE("c_abi: errors are statuses with [op] messages", "[c_abi]") {
  EmberTensor* a = doubles({1, 2, 3, 4, 5, 6}, {2, 3});
  EmberTensor* b = doubles({1, 2}, {2});
  EmberTensor* out = reinterpret_cast<EmberTensor*>(0x1);  // must stay untouched on failure

  // Shape mismatch, raised inside Ember.
  Result r = result(ops()->add_Tensor(a, b, nullptr, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[add] ", 0) == 0);
  CHECK(out == reinterpret_cast<EmberTensor*>(0x1));

  // Wrong dtype: an index tensor of doubles.
  r = result(ops()->index_select(a, 0, b, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[index_select] ", 0) == 0);

  // A value that is not an EmberDType, found at the boundary.
  r = result(api()->TensorTo(a, 42, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message.rfind("[to] argument 'dtype'", 0) == 0);
  EmberDType bad = 99;
  r = result(ops()->sum(a, &bad, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message.rfind("[sum] argument 'dtype'", 0) == 0);

  // Out-of-range dim through a typed op with an int parameter.
  r = result(ops()->softmax_int(a, 5, nullptr, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[", 0) == 0);
  CHECK(out == reinterpret_cast<EmberTensor*>(0x1));

  // A generator argument given a value of another tag (boxed).
  EmberValue bargs[2] = {tensor_value(a), int_value(7)};
  EmberValue bres[1];
  size_t nb = 0;
  r = result(api()->CallOp("bernoulli", bargs, 2, bres, 1, &nb));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message == "[bernoulli] argument 'generator' expected GENERATOR, got INT (tag 2)");

  // A zero-element tensor from an empty shape list.
  EmberTensor* e = nullptr;
  int64_t zero = 0;
  ok(api()->TensorEmpty(&zero, 1, EMBER_FLOAT32, nullptr, &e));
  int64_t n = -1;
  ok(api()->TensorNumel(e, &n));
  CHECK(n == 0);
  // A negative size is Ember's error, reported as a status.
  int64_t neg = -3;
  r = result(api()->TensorZeros(&neg, 1, EMBER_FLOAT32, nullptr, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[", 0) == 0);
  for (EmberTensor* t : {a, b, e}) api()->ReleaseTensor(t);
}

TEST_CASE("c_abi: null handles and pointers give statuses, not crashes", "[c_abi]") {
  EmberTensor* a = doubles({1, 2, 3}, {3});
  EmberTensor* out = nullptr;
  Result r = result(ops()->add_Tensor(nullptr, a, nullptr, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message == "[add] argument 'self' is a null tensor handle");
  r = result(ops()->add_Tensor(a, nullptr, nullptr, &out));
  CHECK(r.message == "[add] argument 'other' is a null tensor handle");
  r = result(ops()->add__Tensor(nullptr, a, nullptr, nullptr));
  CHECK(r.message.rfind("[add_] argument 'self'", 0) == 0);
  r = result(ops()->exp_out(a, nullptr, nullptr));
  CHECK(r.message.rfind("[exp_out] argument 'out'", 0) == 0);
  // A null element of a Tensor[] argument.
  const EmberTensor* list[2] = {a, nullptr};
  r = result(ops()->cat(list, 2, nullptr, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message == "[cat] argument 'tensors[1]' is a null tensor handle");
  r = result(ops()->cat(nullptr, 2, nullptr, &out));
  CHECK(r.message.rfind("[cat] argument 'tensors' is a null array", 0) == 0);
  // A required Scalar given as NULL.
  r = result(ops()->mul_Scalar(a, nullptr, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message.rfind("[mul] argument 'other' is required", 0) == 0);
  // A null int list that has no default is the empty list: view([]) of a 3-element tensor fails in Ember.
  r = result(ops()->view(a, nullptr, 0, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[view] ", 0) == 0);
  // Hand-written entries.
  size_t nd = 0;
  CHECK(result(api()->TensorShape(nullptr, nullptr, 0, &nd)).message == "[TensorShape] argument 'tensor' is a null tensor handle");
  CHECK(result(api()->TensorShape(a, nullptr, 0, nullptr)).message == "[TensorShape] argument 'ndim' is a null output pointer");
  CHECK(result(api()->TensorShape(a, nullptr, 4, &nd)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->TensorClone(nullptr, &out)).message.rfind("[clone] argument", 0) == 0);
  CHECK(result(api()->TensorZeros(nullptr, 2, EMBER_FLOAT32, nullptr, &out)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->TensorEmpty(nullptr, 0, EMBER_FLOAT32, nullptr, nullptr)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->Backward(nullptr, nullptr, false)).message.rfind("[backward] argument", 0) == 0);
  CHECK(result(api()->TensorSetRequiresGrad(nullptr, true)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->TensorGrad(nullptr, &out)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->TensorData(a, nullptr)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->OpFind(nullptr, &nd)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->SaveTensors(nullptr, nullptr, nullptr, 0)).code == EMBER_INVALID_ARGUMENT);
  // Boxed: a null tensor, a wrong tag, a wrong count, a short results array.
  EmberValue args[3] = {tensor_value(nullptr), tensor_value(a), none_value()};
  EmberValue res[1];
  size_t nres = 7;
  r = result(api()->CallOp("add.Tensor", args, 3, res, 1, &nres));
  CHECK(r.message == "[add] argument 'self' is a null tensor handle");
  CHECK(nres == 0);
  args[0] = int_value(3);
  r = result(api()->CallOp("add.Tensor", args, 3, res, 1, &nres));
  CHECK(r.message == "[add] argument 'self' expected TENSOR, got INT (tag 2)");
  args[0] = tensor_value(a);
  r = result(api()->CallOp("add.Tensor", args, 2, res, 1, &nres));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message.rfind("[add] add.Tensor takes 3 arguments", 0) == 0);
  r = result(api()->CallOp("add.Tensor", args, 3, nullptr, 0, &nres));
  CHECK(r.message.rfind("[add] add.Tensor has 1 results", 0) == 0);
  r = result(api()->CallOp("add.Tensor", nullptr, 3, res, 1, &nres));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  r = result(api()->CallOpIndex(api()->OpCount(), args, 3, res, 1, &nres));
  CHECK(r.code == EMBER_NOT_FOUND);
  api()->ReleaseTensor(a);
}

TEST_CASE("c_abi: boxed calls agree with typed calls", "[c_abi]") {
  EmberTensor* a = doubles({1, -2, 3, 0.5, 5, -6}, {2, 3});
  EmberTensor* b = doubles({0.25, 4, -1, 2, 2, 3}, {2, 3});
  size_t nres = 0;

  // add.Tensor with alpha: typed, boxed, and the reference.
  EmberScalar alpha{};
  alpha.tag = EMBER_VALUE_DOUBLE;
  alpha.d = -1.5;
  EmberTensor* typed = nullptr;
  ok(ops()->add_Tensor(a, b, &alpha, &typed));
  EmberValue args[3] = {tensor_value(a), tensor_value(b), alpha};
  EmberValue res[4];
  ok(api()->CallOp("add.Tensor", args, 3, res, 4, &nres));
  REQUIRE(nres == 1);
  REQUIRE(res[0].tag == EMBER_VALUE_TENSOR);
  CHECK(same(typed, static_cast<const EmberTensor*>(res[0].p)));
  std::vector<double> av = values(a), bv = values(b), want;
  for (size_t k = 0; k < 6; ++k) want.push_back(av[k] - 1.5 * bv[k]);
  CHECK(values(typed) == want);
  api()->ReleaseValues(res, nres);
  CHECK(res[0].tag == EMBER_VALUE_NONE);
  api()->ReleaseTensor(typed);

  // A tuple result (max.dim) and a default left to NONE / NULL.
  EmberTensor *v1 = nullptr, *i1 = nullptr;
  ok(ops()->max_dim(a, 1, nullptr, &v1, &i1));
  EmberValue margs[3] = {tensor_value(a), int_value(1), none_value()};
  size_t mi = 0;
  ok(api()->OpFind("max.dim", &mi));
  ok(api()->CallOpIndex(mi, margs, 3, res, 4, &nres));
  REQUIRE(nres == 2);
  CHECK(same(v1, static_cast<const EmberTensor*>(res[0].p)));
  CHECK(same(i1, static_cast<const EmberTensor*>(res[1].p)));
  CHECK(values(v1) == std::vector<double>{3, 5});
  CHECK(values(i1) == std::vector<double>{2, 1});
  api()->ReleaseValues(res, nres);
  // Results may be dropped with NULL.
  api()->ReleaseTensor(i1);
  i1 = nullptr;
  ok(ops()->max_dim(a, 1, nullptr, nullptr, &i1));
  CHECK(values(i1) == std::vector<double>{2, 1});
  api()->ReleaseTensor(v1);

  // A Tensor[] result (split) and a Tensor[] argument (cat).
  EmberTensor** parts = nullptr;
  size_t nparts = 0;
  int64_t dim1 = 1;
  ok(ops()->split_Tensor(a, 2, &dim1, &parts, &nparts));
  REQUIRE(nparts == 2);
  CHECK(shape(parts[0]) == std::vector<int64_t>{2, 2});
  CHECK(shape(parts[1]) == std::vector<int64_t>{2, 1});
  EmberValue sargs[3] = {tensor_value(a), int_value(2), int_value(1)};
  ok(api()->CallOp("split.Tensor", sargs, 3, res, 4, &nres));
  REQUIRE(nres == 1);
  REQUIRE(res[0].tag == EMBER_VALUE_TENSOR_LIST);
  REQUIRE(res[0].i == 2);
  auto* boxed_parts = static_cast<EmberTensor* const*>(res[0].p);
  CHECK(same(parts[0], boxed_parts[0]));
  CHECK(same(parts[1], boxed_parts[1]));
  EmberTensor* joined = nullptr;
  ok(ops()->cat(parts, nparts, &dim1, &joined));
  CHECK(same(joined, a));
  api()->ReleaseValues(res, nres);
  api()->ReleaseTensorArray(parts, nparts);

  // TensorOptions arguments: arange(start, end, step, dtype=int64) typed and boxed.
  EmberScalar s0{}, s1{}, s2{};
  s0.tag = s1.tag = s2.tag = EMBER_VALUE_INT;
  s1.i = 7;
  s2.i = 2;
  EmberDType i64 = EMBER_INT64;
  EmberTensor* r1 = nullptr;
  ok(ops()->arange_start_step(&s0, &s1, &s2, &i64, nullptr, nullptr, nullptr, &r1));
  CHECK(values(r1) == std::vector<double>{0, 2, 4, 6});
  EmberDType got = -1;
  ok(api()->TensorDType(r1, &got));
  CHECK(got == EMBER_INT64);
  EmberValue dtv{};
  dtv.tag = EMBER_VALUE_DTYPE;
  dtv.i = EMBER_INT64;
  EmberValue aargs[7] = {s0, s1, s2, dtv, none_value(), none_value(), none_value()};
  ok(api()->CallOp("arange.start_step", aargs, 7, res, 4, &nres));
  CHECK(same(r1, static_cast<const EmberTensor*>(res[0].p)));
  api()->ReleaseValues(res, nres);

  // An int list by INT_LIST and by a single INT (as `int[1] dim` allows).
  int64_t d1[1] = {1};
  EmberTensor* s_typed = nullptr;
  ok(ops()->sum_dim_IntList(a, d1, 1, nullptr, nullptr, &s_typed));
  EmberValue ilist{};
  ilist.tag = EMBER_VALUE_INT_LIST;
  ilist.i = 1;
  ilist.p = d1;
  EmberValue sm[4] = {tensor_value(a), ilist, none_value(), none_value()};
  ok(api()->CallOp("sum.dim_IntList", sm, 4, res, 4, &nres));
  CHECK(same(s_typed, static_cast<const EmberTensor*>(res[0].p)));
  api()->ReleaseValues(res, nres);
  sm[1] = int_value(1);
  ok(api()->CallOp("sum.dim_IntList", sm, 4, res, 4, &nres));
  CHECK(same(s_typed, static_cast<const EmberTensor*>(res[0].p)));
  CHECK(values(s_typed) == std::vector<double>{1 - 2 + 3, 0.5 + 5 - 6});
  api()->ReleaseValues(res, nres);

  // bool result.
  bool eq = true;
  ok(ops()->equal(a, b, &eq));
  CHECK_FALSE(eq);
  EmberValue eargs[2] = {tensor_value(a), tensor_value(a)};
  ok(api()->CallOp("equal", eargs, 2, res, 4, &nres));
  CHECK(res[0].tag == EMBER_VALUE_BOOL);
  CHECK(res[0].i == 1);

  for (EmberTensor* t : {a, b, i1, joined, r1, s_typed}) api()->ReleaseTensor(t);
}

TEST_CASE("c_abi: in-place and out= ops", "[c_abi]") {
  EmberTensor* a = doubles({1, 2, 3}, {3});
  EmberTensor* b = doubles({10, 20, 30}, {3});
  EmberTensor* same_a = nullptr;
  ok(ops()->add__Tensor(a, b, nullptr, &same_a));  // a += b, and a new handle to a
  CHECK(values(a) == std::vector<double>{11, 22, 33});
  void *p1 = nullptr, *p2 = nullptr;
  ok(api()->TensorData(a, &p1));
  ok(api()->TensorData(same_a, &p2));
  CHECK(p1 == p2);
  ok(ops()->mul__Tensor(a, b, nullptr));  // result dropped: no handle made
  CHECK(values(same_a) == std::vector<double>{110, 440, 990});
  EmberTensor* out = doubles({0, 0, 0}, {3});
  ok(ops()->exp_out(b, out, nullptr));
  std::vector<double> got = values(out);
  for (size_t k = 0; k < 3; ++k) CHECK(got[k] == Approx(std::exp(10.0 * (k + 1))).epsilon(1e-14));
  // out= with a wrong dtype is Ember's error.
  EmberTensor* iout = nullptr;
  int64_t three = 3;
  ok(api()->TensorZeros(&three, 1, EMBER_INT64, nullptr, &iout));
  Result r = result(ops()->exp_out(b, iout, nullptr));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[exp", 0) == 0);
  for (EmberTensor* t : {a, b, same_a, out, iout}) api()->ReleaseTensor(t);
}

TEST_CASE("c_abi: from-buffer deleter runs once, when the last reference goes", "[c_abi]") {
  deleter_calls = 0;
  int ctx_calls = 0;
  std::vector<float>* buf = new std::vector<float>{1, 2, 3, 4, 5, 6};
  int64_t sz[2] = {2, 3};
  EmberTensor* t = nullptr;
  ok(api()->TensorFromBuffer(buf->data(), sz, 2, nullptr, EMBER_FLOAT32, nullptr, &count_deleter, &ctx_calls, &t));
  void* p = nullptr;
  ok(api()->TensorData(t, &p));
  CHECK(p == buf->data());  // no copy
  EmberTensor *again = nullptr, *view = nullptr, *sum = nullptr;
  ok(api()->TensorRetain(t, &again));
  ok(ops()->t(t, &view));
  ok(ops()->sum(t, nullptr, &sum));  // a new tensor: holds nothing of the buffer
  api()->ReleaseTensor(t);
  api()->ReleaseTensor(sum);
  CHECK(deleter_calls == 0);
  (*buf)[1] = 20;  // writes through the caller's memory are seen
  CHECK(values(view) == std::vector<double>{1, 4, 20, 5, 3, 6});
  api()->ReleaseTensor(again);
  CHECK(deleter_calls == 0);
  api()->ReleaseTensor(view);
  CHECK(deleter_calls == 1);
  CHECK(ctx_calls == 1);
  CHECK(deleter_data == buf->data());
  delete buf;

  // Strided wrap, and autograd keeping the buffer alive through the graph.
  double raw[4] = {1, 2, 3, 4};
  int64_t s2[2] = {2, 2}, st2[2] = {1, 2};
  deleter_calls = 0;
  EmberTensor* w = nullptr;
  ok(api()->TensorFromBuffer(raw, s2, 2, st2, EMBER_FLOAT64, nullptr, &count_deleter, &ctx_calls, &w));
  CHECK(values(w) == std::vector<double>{1, 3, 2, 4});
  ok(api()->TensorSetRequiresGrad(w, true));
  EmberTensor *sq = nullptr, *tot = nullptr;
  ok(ops()->mul_Tensor(w, w, &sq));  // the graph saves w
  ok(ops()->sum(sq, nullptr, &tot));
  api()->ReleaseTensor(w);
  api()->ReleaseTensor(sq);
  CHECK(deleter_calls == 0);
  api()->ReleaseTensor(tot);  // the graph goes, and w with it
  CHECK(deleter_calls == 1);

  // A failed wrap does not call the deleter: the caller still owns the memory.
  deleter_calls = 0;
  EmberTensor* bad = nullptr;
  CHECK(result(api()->TensorFromBuffer(raw, s2, 2, nullptr, 77, nullptr, &count_deleter, &ctx_calls, &bad)).code ==
        EMBER_INVALID_ARGUMENT);
  int64_t neg[2] = {2, -1};
  CHECK(result(api()->TensorFromBuffer(raw, s2, 2, neg, EMBER_FLOAT64, nullptr, &count_deleter, &ctx_calls, &bad)).code !=
        EMBER_OK);
  CHECK(result(api()->TensorFromBuffer(raw, s2, 2, nullptr, EMBER_FLOAT64, nullptr, &count_deleter, &ctx_calls, nullptr))
            .code == EMBER_INVALID_ARGUMENT);
  CHECK(deleter_calls == 0);
  CHECK(bad == nullptr);
}

TEST_CASE("c_abi: autograd and grad mode", "[c_abi]") {
  EmberTensor* x = doubles({1, 2, 3}, {3});
  bool rg = true;
  ok(api()->TensorRequiresGrad(x, &rg));
  CHECK_FALSE(rg);
  ok(api()->TensorSetRequiresGrad(x, true));
  EmberTensor* g = reinterpret_cast<EmberTensor*>(0x1);
  ok(api()->TensorGrad(x, &g));
  CHECK(g == nullptr);  // none yet
  EmberTensor *y = nullptr, *s = nullptr;
  ok(ops()->sin(x, &y));
  ok(ops()->sum(y, nullptr, &s));
  ok(api()->Backward(s, nullptr, true));
  ok(api()->TensorGrad(x, &g));
  REQUIRE(g != nullptr);
  std::vector<double> gv = values(g);
  for (size_t k = 0; k < 3; ++k) CHECK(gv[k] == Approx(std::cos(double(k + 1))).epsilon(1e-15));
  // retain_graph: a second backward accumulates.
  ok(api()->Backward(s, nullptr, false));
  gv = values(g);
  for (size_t k = 0; k < 3; ++k) CHECK(gv[k] == Approx(2 * std::cos(double(k + 1))).epsilon(1e-15));
  // Backward of a non-scalar without a gradient is Ember's error.
  Result r = result(api()->Backward(y, nullptr, false));
  CHECK(r.code == EMBER_ERROR);
  // No-grad scope: results do not require grad; the previous mode comes back.
  CHECK(api()->IsGradEnabled());
  bool prev = false;
  ok(api()->SetGradEnabled(false, &prev));
  CHECK(prev);
  CHECK_FALSE(api()->IsGradEnabled());
  EmberTensor* y2 = nullptr;
  ok(ops()->sin(x, &y2));
  ok(api()->TensorRequiresGrad(y2, &rg));
  CHECK_FALSE(rg);
  ok(api()->SetGradEnabled(prev, nullptr));
  CHECK(api()->IsGradEnabled());
  for (EmberTensor* t : {x, g, y, s, y2}) api()->ReleaseTensor(t);
}

TEST_CASE("c_abi: save and load", "[c_abi]") {
  char dir[] = "/tmp/ember_c_abi_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/t.safetensors";
  EmberTensor* a = doubles({1, 2, 3, 4}, {2, 2});
  EmberTensor* b = nullptr;
  int64_t three = 3;
  ok(api()->TensorZeros(&three, 1, EMBER_INT32, nullptr, &b));
  const char* names[2] = {"weight", "bias"};
  const EmberTensor* ts[2] = {a, b};
  ok(api()->SaveTensors(path.c_str(), names, ts, 2));
  char** ln = nullptr;
  EmberTensor** lt = nullptr;
  size_t n = 0;
  ok(api()->LoadTensors(path.c_str(), &ln, &lt, &n));
  REQUIRE(n == 2);
  for (size_t k = 0; k < n; ++k) {
    std::string name = ln[k];
    CHECK(same(lt[k], name == "weight" ? a : b));
  }
  api()->ReleaseNames(ln, n);
  api()->ReleaseTensorArray(lt, n);
  Result r = result(api()->LoadTensors((std::string(dir) + "/missing").c_str(), &ln, &lt, &n));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[safetensors]", 0) == 0);
  std::remove(path.c_str());
  rmdir(dir);
  api()->ReleaseTensor(a);
  api()->ReleaseTensor(b);
}

TEST_CASE("c_abi: every op, boxed with every argument NONE or a null handle, answers with a status", "[c_abi]") {
  // The boundary's argument checks for all generated invokers: a missing tensor is an
  // INVALID_ARGUMENT naming the op and the argument, never a crash.
  size_t failures = 0, succeeded = 0;
  for (size_t k = 0; k < api()->OpCount(); ++k) {
    std::string schema = api()->OpSchema(k);
    for (int variant = 0; variant < 2; ++variant) {
      std::vector<EmberValue> args(64, variant ? tensor_value(nullptr) : none_value());
      EmberValue res[8];
      size_t nres = 0, nargs = 0;
      // The argument count: the schema's top-level commas between its parentheses.
      int depth = 0;
      bool any = false;
      for (char c : schema.substr(0, schema.find(") -> ") + 1)) {
        if (c == '(' || c == '[') depth++;
        if (c == ')' || c == ']') depth--;
        if (depth == 1 && c == ',') nargs++;
        if (depth == 1 && c != '(' && c != ' ') any = true;
      }
      nargs += any;
      if (schema.find(", *,") != std::string::npos || schema.find("(*,") != std::string::npos) nargs--;  // the '*' marker
      EmberStatus* st = api()->CallOpIndex(k, args.data(), nargs, res, 8, &nres);
      if (st) {
        Result r = result(st);
        if (r.message.empty() || r.message[0] != '[' || r.message.find(" arguments (") != std::string::npos) {
          ++failures;
          INFO(schema << ": " << r.message);
          CHECK(false);
        }
      } else {
        ++succeeded;  // every argument optional (a factory with defaults)
        api()->ReleaseValues(res, nres);
      }
    }
  }
  CHECK(failures == 0);
  CHECK(succeeded < 20);
}

// ---------------------------------------------------------------- version 2
namespace c_abi_test {

// The DLPack type of each Ember dtype, as the specification numbers them (code, bits).
struct DLCase {
  EmberDType dtype;
  uint8_t code, bits;
};
const DLCase kDLCases[] = {{EMBER_UINT8, 1, 8},   {EMBER_INT8, 0, 8},     {EMBER_INT16, 0, 16}, {EMBER_INT32, 0, 32},
                           {EMBER_INT64, 0, 64},  {EMBER_FLOAT16, 2, 16}, {EMBER_FLOAT32, 2, 32},
                           {EMBER_FLOAT64, 2, 64}, {EMBER_BOOL, 6, 8},    {EMBER_BFLOAT16, 4, 16}};

// Wraps an Ember-made wrapper's deleter with a counter: the original runs from inside it.
template <class Managed>
struct Counted {
  void* ctx;
  void (*deleter)(Managed*);
  int* count;
};
template <class Managed>
void counted_deleter(Managed* m) {
  auto* c = static_cast<Counted<Managed>*>(m->manager_ctx);
  m->manager_ctx = c->ctx;
  ++*c->count;
  void (*d)(Managed*) = c->deleter;
  delete c;
  d(m);
}
template <class Managed>
void count_deletes(Managed* m, int* count) {
  m->manager_ctx = new Counted<Managed>{m->manager_ctx, m->deleter, count};
  m->deleter = &counted_deleter<Managed>;
}

// A producer other than Ember: a wrapper over doubles this test owns, whose deleter counts.
struct Foreign {
  std::vector<double> buf;
  std::vector<int64_t> shape, strides;
  DLManagedTensorVersioned v{};
  DLManagedTensor u{};
  int deleted = 0;
  Foreign(std::vector<double> b, std::vector<int64_t> sh, std::vector<int64_t> st, uint64_t byte_offset = 0)
      : buf(std::move(b)), shape(std::move(sh)), strides(std::move(st)) {
    for (DLTensor* d : {&v.dl_tensor, &u.dl_tensor}) {
      d->data = buf.data();
      d->device = DLDevice{kDLCPU, 0};
      d->ndim = int32_t(shape.size());
      d->dtype = DLDataType{kDLFloat, 64, 1};
      d->shape = shape.empty() ? nullptr : shape.data();
      d->strides = strides.empty() ? nullptr : strides.data();
      d->byte_offset = byte_offset;
    }
    v.version = DLPackVersion{1, 0};
    v.manager_ctx = u.manager_ctx = this;
    v.deleter = [](DLManagedTensorVersioned* m) { ++static_cast<Foreign*>(m->manager_ctx)->deleted; };
    u.deleter = [](DLManagedTensor* m) { ++static_cast<Foreign*>(m->manager_ctx)->deleted; };
  }
};

std::vector<int64_t> strides(const EmberTensor* t) {
  int64_t s[16];
  size_t n = 0;
  ok(api()->TensorStrides(t, s, 16, &n));
  return std::vector<int64_t>(s, s + n);
}
void* data(const EmberTensor* t) {
  void* p = nullptr;
  ok(api()->TensorData(t, &p));
  return p;
}
std::vector<int64_t> dims(const int64_t* p, int32_t n) { return std::vector<int64_t>(p, p + n); }

// The bytes of t's elements in row-major order, read by Ember (a contiguous copy).
std::vector<unsigned char> element_bytes(const EmberTensor* t, size_t item) {
  EmberTensor* c = nullptr;
  ok(api()->TensorClone(t, &c));
  EmberTensor* cc = nullptr;
  ok(api()->TensorContiguous(c, &cc));
  int64_t n = 0;
  ok(api()->TensorNumel(cc, &n));
  auto* p = static_cast<const unsigned char*>(data(cc));
  std::vector<unsigned char> out(p, p + size_t(n) * item);
  api()->ReleaseTensor(c);
  api()->ReleaseTensor(cc);
  return out;
}

}  // namespace c_abi_test

TEST_CASE("c_abi: version 2 appends to the table; a version 1 caller gets what it had", "[c_abi]") {
  const EmberApi* v1 = EmberGetApi(1);
  REQUIRE(v1 != nullptr);
  CHECK(EmberGetApi(2) == v1);
  CHECK(EmberGetApi(3) == nullptr);
  CHECK(EMBER_API_VERSION == 2u);
  CHECK(v1->version == 2u);
  // The version 1 members keep their places (LP64: two 32-bit words, the ops pointer, then 36
  // function pointers up to ReleaseNames); version 2 starts right after them.
  CHECK(offsetof(EmberApi, ops) == 8);
  CHECK(offsetof(EmberApi, VersionString) == 16);
  CHECK(offsetof(EmberApi, ReleaseNames) == 16 + 35 * sizeof(void*));
  CHECK(offsetof(EmberApi, TensorToDLPackVersioned) == 16 + 36 * sizeof(void*));
  CHECK(offsetof(EmberApi, ReleaseGenerator) == 16 + 47 * sizeof(void*));
  CHECK(sizeof(EmberApi) == 16 + 48 * sizeof(void*));
  CHECK(EMBER_VALUE_TENSOR_LIST == 13);
  CHECK(EMBER_VALUE_GENERATOR == 14);
  // A version 1 program: from-buffer tensors, a typed op, a boxed op, bernoulli with the default
  // generator (NULL), as before.
  double xs[3] = {1, 2, 3};
  int64_t n3 = 3;
  EmberTensor *x = nullptr, *y = nullptr, *b = nullptr;
  REQUIRE(v1->TensorFromBuffer(xs, &n3, 1, nullptr, EMBER_FLOAT64, nullptr, nullptr, nullptr, &x) == nullptr);
  REQUIRE(v1->ops->mul_Tensor(x, x, &y) == nullptr);
  CHECK(values(y) == std::vector<double>{1, 4, 9});
  double ps[3] = {0, 1, 1};
  EmberTensor* p = nullptr;
  REQUIRE(v1->TensorFromBuffer(ps, &n3, 1, nullptr, EMBER_FLOAT64, nullptr, nullptr, nullptr, &p) == nullptr);
  REQUIRE(v1->ops->bernoulli(p, nullptr, &b) == nullptr);
  CHECK(values(b) == std::vector<double>{0, 1, 1});
  EmberValue args[2] = {tensor_value(p), none_value()};
  EmberValue res[1];
  size_t nres = 0;
  REQUIRE(v1->CallOp("bernoulli", args, 2, res, 1, &nres) == nullptr);
  REQUIRE(nres == 1);
  CHECK(values(static_cast<const EmberTensor*>(res[0].p)) == std::vector<double>{0, 1, 1});
  v1->ReleaseValues(res, nres);
  for (EmberTensor* t : {x, y, p, b}) v1->ReleaseTensor(t);
}

TEST_CASE("c_abi: DLPack round trips of every dtype, zero-copy, deleter once", "[c_abi]") {
  for (const DLCase& c : kDLCases) {
    INFO("EmberDType " << c.dtype);
    const size_t item = c.bits / 8;
    int64_t sz[2] = {3, 4};
    EmberTensor* base = nullptr;
    ok(api()->TensorEmpty(sz, 2, c.dtype, nullptr, &base));
    auto* p = static_cast<unsigned char*>(data(base));
    // A byte pattern (bool: 0 and 1), so that every element differs from its neighbours.
    auto pattern = [&](size_t k) { return c.dtype == EMBER_BOOL ? (unsigned char)((k / item) % 2) : (unsigned char)(k * 37 + 11); };
    for (size_t k = 0; k < 12 * item; ++k) p[k] = pattern(k);

    // Versioned export of a slice: columns 1 and 3 (shape {3, 2}, strides {4, 2}, first element 1).
    int64_t dim = 1, start = 1, end = 4, step = 2;
    EmberTensor* sl = nullptr;
    ok(ops()->slice_Tensor(base, &dim, &start, &end, &step, &sl));
    DLManagedTensorVersioned* m = nullptr;
    ok(api()->TensorToDLPackVersioned(sl, &m));
    REQUIRE(m != nullptr);
    CHECK(m->version.major == 1);
    CHECK(m->version.minor == DLPACK_MINOR_VERSION);
    CHECK(m->flags == 0);
    const DLTensor& d = m->dl_tensor;
    CHECK(d.data == p + item);  // the first element of the slice: no copy
    CHECK(d.byte_offset == 0);
    CHECK(d.device.device_type == 1);  // kDLCPU
    CHECK(d.device.device_id == 0);
    CHECK(d.dtype.code == c.code);
    CHECK(d.dtype.bits == c.bits);
    CHECK(d.dtype.lanes == 1);
    REQUIRE(d.ndim == 2);
    CHECK(dims(d.shape, 2) == std::vector<int64_t>{3, 2});
    CHECK(dims(d.strides, 2) == std::vector<int64_t>{4, 2});
    // Element (i, j) at the DLTensor's address is the base's element (i, 1 + 2 j).
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        const unsigned char* e = static_cast<const unsigned char*>(d.data) + (i * d.strides[0] + j * d.strides[1]) * item;
        const size_t flat = size_t(i * 4 + 1 + 2 * j) * item;
        for (size_t b = 0; b < item; ++b) CHECK(e[b] == pattern(flat + b));
      }
    int deletes = 0;
    count_deletes(m, &deletes);
    // Back into Ember: a handle on the same memory.
    EmberTensor* back = nullptr;
    ok(api()->TensorFromDLPackVersioned(m, &back));
    CHECK(data(back) == p + item);
    CHECK(shape(back) == std::vector<int64_t>{3, 2});
    CHECK(strides(back) == std::vector<int64_t>{4, 2});
    EmberDType dt = -1;
    ok(api()->TensorDType(back, &dt));
    CHECK(dt == c.dtype);
    api()->ReleaseTensor(sl);
    api()->ReleaseTensor(base);
    CHECK(deletes == 0);  // `back` holds the wrapper, which holds the memory
    // Writes through the raw memory are read by Ember through `back`...
    std::vector<unsigned char> want;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        unsigned char* e = p + size_t(i * 4 + 1 + 2 * j) * item;
        for (size_t b = 0; b < item; ++b) {
          e[b] = c.dtype == EMBER_BOOL ? (unsigned char)((i + j + 1) % 2) : (unsigned char)(200 - 3 * (i * 2 + j) - b);
          want.push_back(e[b]);
        }
      }
    CHECK(element_bytes(back, item) == want);
    // ... and Ember's writes through `back` land in that memory, and nowhere else.
    ok(ops()->zero_(back, nullptr));
    for (size_t k = 0; k < 12 * item; ++k) {
      const size_t col = (k / item) % 4;
      if (col == 1 || col == 3) CHECK(p[k] == 0);
      else CHECK(p[k] == pattern(k));
    }
    EmberTensor* again = nullptr;
    ok(api()->TensorRetain(back, &again));
    api()->ReleaseTensor(back);
    CHECK(deletes == 0);
    api()->ReleaseTensor(again);
    CHECK(deletes == 1);  // the last handle went: the wrapper's deleter ran, once

    // The pre-1.0 wrapper, with a transposed tensor (shape {4, 3}, strides {1, 4}).
    ok(api()->TensorEmpty(sz, 2, c.dtype, nullptr, &base));
    p = static_cast<unsigned char*>(data(base));
    for (size_t k = 0; k < 12 * item; ++k) p[k] = pattern(k);
    EmberTensor* tr = nullptr;
    ok(ops()->t(base, &tr));
    DLManagedTensor* u = nullptr;
    ok(api()->TensorToDLPack(tr, &u));
    CHECK(u->dl_tensor.data == p);
    CHECK(u->dl_tensor.dtype.code == c.code);
    CHECK(u->dl_tensor.dtype.bits == c.bits);
    REQUIRE(u->dl_tensor.ndim == 2);
    CHECK(dims(u->dl_tensor.shape, 2) == std::vector<int64_t>{4, 3});
    CHECK(dims(u->dl_tensor.strides, 2) == std::vector<int64_t>{1, 4});
    int udeletes = 0;
    count_deletes(u, &udeletes);
    api()->ReleaseTensor(tr);
    api()->ReleaseTensor(base);
    CHECK(udeletes == 0);
    ok(api()->TensorFromDLPack(u, &back));
    CHECK(data(back) == p);
    CHECK(strides(back) == std::vector<int64_t>{1, 4});
    // Row-major bytes of the transpose: element (i, j) is the base's (j, i).
    want.clear();
    for (size_t i = 0; i < 4; ++i)
      for (size_t j = 0; j < 3; ++j)
        for (size_t b = 0; b < item; ++b) want.push_back(pattern((j * 4 + i) * item + b));
    CHECK(element_bytes(back, item) == want);
    api()->ReleaseTensor(back);
    CHECK(udeletes == 1);
  }
}

TEST_CASE("c_abi: DLPack of 0-size and 0-dim tensors", "[c_abi]") {
  // 0-size: shape {0, 3}.
  int64_t sz[2] = {0, 3};
  EmberTensor* e = nullptr;
  ok(api()->TensorEmpty(sz, 2, EMBER_FLOAT32, nullptr, &e));
  DLManagedTensorVersioned* m = nullptr;
  ok(api()->TensorToDLPackVersioned(e, &m));
  REQUIRE(m->dl_tensor.ndim == 2);
  CHECK(dims(m->dl_tensor.shape, 2) == std::vector<int64_t>{0, 3});
  int deletes = 0;
  count_deletes(m, &deletes);
  api()->ReleaseTensor(e);
  EmberTensor* back = nullptr;
  ok(api()->TensorFromDLPackVersioned(m, &back));
  CHECK(shape(back) == std::vector<int64_t>{0, 3});
  int64_t n = -1;
  ok(api()->TensorNumel(back, &n));
  CHECK(n == 0);
  api()->ReleaseTensor(back);
  CHECK(deletes == 1);

  // 0-dim: one element, no shape.
  EmberTensor* s = nullptr;
  ok(api()->TensorZeros(nullptr, 0, EMBER_FLOAT64, nullptr, &s));
  *static_cast<double*>(data(s)) = 2.5;
  DLManagedTensor* u = nullptr;
  ok(api()->TensorToDLPack(s, &u));
  CHECK(u->dl_tensor.ndim == 0);
  CHECK(*static_cast<double*>(u->dl_tensor.data) == 2.5);
  int udeletes = 0;
  count_deletes(u, &udeletes);
  ok(api()->TensorFromDLPack(u, &back));
  size_t nd = 9;
  ok(api()->TensorDim(back, &nd));
  CHECK(nd == 0);
  CHECK(values(back) == std::vector<double>{2.5});
  EmberScalar seven{};
  seven.tag = EMBER_VALUE_INT;
  seven.i = 7;
  ok(ops()->fill__Scalar(back, &seven, nullptr));
  CHECK(values(s) == std::vector<double>{7});  // the exporter's tensor sees the importer's write
  api()->ReleaseTensor(s);
  CHECK(udeletes == 0);
  api()->ReleaseTensor(back);
  CHECK(udeletes == 1);
}

TEST_CASE("c_abi: DLPack import of another producer's memory", "[c_abi]") {
  std::vector<double> vals(12);
  for (size_t k = 0; k < 12; ++k) vals[k] = 1.5 * double(k) - 4;
  {
    // Column-major {4, 3} (strides {1, 4}), versioned.
    Foreign f(vals, {4, 3}, {1, 4});
    EmberTensor* h = nullptr;
    ok(api()->TensorFromDLPackVersioned(&f.v, &h));
    CHECK(data(h) == f.buf.data());
    CHECK(strides(h) == std::vector<int64_t>{1, 4});
    std::vector<double> want;
    for (size_t i = 0; i < 4; ++i)
      for (size_t j = 0; j < 3; ++j) want.push_back(vals[i + 4 * j]);
    CHECK(values(h) == want);
    // A view outlives the handle; the deleter waits for it.
    EmberTensor* row = nullptr;
    ok(ops()->select_int(h, 0, 2, &row));
    api()->ReleaseTensor(h);
    CHECK(f.deleted == 0);
    EmberScalar nine{};
    nine.tag = EMBER_VALUE_DOUBLE;
    nine.d = 9;
    ok(ops()->fill__Scalar(row, &nine, nullptr));  // row 2: elements 2, 6, 10 of the buffer
    for (size_t k = 0; k < 12; ++k) CHECK(f.buf[k] == (k % 4 == 2 ? 9.0 : vals[k]));
    api()->ReleaseTensor(row);
    CHECK(f.deleted == 1);
  }
  {
    // Pre-1.0 wrapper, strided with a byte_offset: elements 2, 4, 6.
    Foreign f(vals, {3}, {2}, 2 * sizeof(double));
    EmberTensor* h = nullptr;
    ok(api()->TensorFromDLPack(&f.u, &h));
    CHECK(data(h) == f.buf.data() + 2);
    CHECK(values(h) == std::vector<double>{vals[2], vals[4], vals[6]});
    api()->ReleaseTensor(h);
    CHECK(f.deleted == 1);
  }
  {
    // NULL strides: compact row-major.
    Foreign f(vals, {2, 6}, {});
    EmberTensor* h = nullptr;
    ok(api()->TensorFromDLPackVersioned(&f.v, &h));
    CHECK(strides(h) == std::vector<int64_t>{6, 1});
    CHECK(values(h) == vals);
    api()->ReleaseTensor(h);
    CHECK(f.deleted == 1);
  }
  {
    // READ_ONLY: copied, the producer's deleter called before the call returns, its memory never written.
    Foreign f(vals, {12}, {1});
    f.v.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    EmberTensor* h = nullptr;
    ok(api()->TensorFromDLPackVersioned(&f.v, &h));
    CHECK(f.deleted == 1);
    CHECK(data(h) != f.buf.data());
    CHECK(values(h) == vals);
    ok(ops()->zero_(h, nullptr));
    CHECK(f.buf == vals);
    api()->ReleaseTensor(h);
    CHECK(f.deleted == 1);
  }
  {
    // No deleter: the producer keeps its memory alive longer than the tensor.
    Foreign f(vals, {12}, {1});
    f.u.deleter = nullptr;
    EmberTensor* h = nullptr;
    ok(api()->TensorFromDLPack(&f.u, &h));
    CHECK(values(h) == vals);
    api()->ReleaseTensor(h);
    CHECK(f.deleted == 0);
  }
}

TEST_CASE("c_abi: DLPack errors are statuses; a refused wrapper stays the caller's", "[c_abi]") {
  std::vector<double> vals{1, 2, 3, 4};
  EmberTensor* a = doubles(vals, {4});
  EmberTensor* out = reinterpret_cast<EmberTensor*>(0x1);
  DLManagedTensorVersioned* m = reinterpret_cast<DLManagedTensorVersioned*>(0x1);
  DLManagedTensor* u = reinterpret_cast<DLManagedTensor*>(0x1);

  Result r = result(api()->TensorToDLPackVersioned(nullptr, &m));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message == "[toDLPack] argument 'tensor' is a null tensor handle");
  r = result(api()->TensorToDLPack(a, nullptr));
  CHECK(r.message == "[toDLPack] argument 'out' is a null output pointer");
  r = result(api()->TensorFromDLPackVersioned(nullptr, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message == "[fromDLPack] argument 'src' is a null DLManagedTensorVersioned pointer");
  r = result(api()->TensorFromDLPack(nullptr, &out));
  CHECK(r.message == "[fromDLPack] argument 'src' is a null DLManagedTensor pointer");
  // A meta tensor has no memory to share.
  int64_t four = 4;
  EmberDevice meta{EMBER_DEVICE_META, -1};
  EmberTensor* mt = nullptr;
  ok(api()->TensorEmpty(&four, 1, EMBER_FLOAT32, &meta, &mt));
  r = result(api()->TensorToDLPackVersioned(mt, &m));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[toDLPack] ", 0) == 0);
  CHECK(m == reinterpret_cast<DLManagedTensorVersioned*>(0x1));
  r = result(api()->TensorToDLPack(mt, &u));
  CHECK(r.message.rfind("[toDLPack] ", 0) == 0);
  CHECK(u == reinterpret_cast<DLManagedTensor*>(0x1));
  api()->ReleaseTensor(mt);

  Foreign f(vals, {4}, {1});
  // A null output: refused before anything is read.
  r = result(api()->TensorFromDLPackVersioned(&f.v, nullptr));
  CHECK(r.message == "[fromDLPack] argument 'out' is a null output pointer");
  r = result(api()->TensorFromDLPack(&f.u, nullptr));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  // A major version this library does not know.
  f.v.version = DLPackVersion{2, 0};
  r = result(api()->TensorFromDLPackVersioned(&f.v, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[fromDLPack] expected DLPack major version 1; got 2.0", 0) == 0);
  f.v.version = DLPackVersion{0, 8};
  r = result(api()->TensorFromDLPackVersioned(&f.v, &out));
  CHECK(r.message.rfind("[fromDLPack] expected DLPack major version 1; got 0.8", 0) == 0);
  f.v.version = DLPackVersion{1, 7};  // a later minor version is fine
  // Element types, lanes, devices, strides Ember cannot take.
  f.u.dl_tensor.dtype = DLDataType{kDLComplex, 64, 1};
  r = result(api()->TensorFromDLPack(&f.u, &out));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[fromDLPack] complex", 0) == 0);
  f.u.dl_tensor.dtype = DLDataType{kDLFloat, 32, 2};
  r = result(api()->TensorFromDLPack(&f.u, &out));
  CHECK(r.message.rfind("[fromDLPack] expected lanes == 1", 0) == 0);
  f.u.dl_tensor.dtype = DLDataType{kDLFloat, 64, 1};
  f.u.dl_tensor.device = DLDevice{kDLVulkan, 0};
  r = result(api()->TensorFromDLPack(&f.u, &out));
  CHECK(r.message.rfind("[fromDLPack] unsupported DLPack device type 7", 0) == 0);
  f.u.dl_tensor.device = DLDevice{kDLCPU, 0};
  f.strides[0] = -1;
  r = result(api()->TensorFromDLPack(&f.u, &out));
  CHECK(r.message.rfind("[fromDLPack] expected non-negative strides", 0) == 0);
  f.strides[0] = 1;
  f.u.dl_tensor.byte_offset = 3;
  r = result(api()->TensorFromDLPack(&f.u, &out));
  CHECK(r.message.rfind("[fromDLPack] expected a byte_offset that is a multiple", 0) == 0);
  f.u.dl_tensor.byte_offset = 0;
  CHECK(f.deleted == 0);  // nothing was consumed
  CHECK(out == reinterpret_cast<EmberTensor*>(0x1));
  // After the failures the same wrappers are still good.
  ok(api()->TensorFromDLPackVersioned(&f.v, &out));
  CHECK(values(out) == vals);
  api()->ReleaseTensor(out);
  CHECK(f.deleted == 1);
  api()->ReleaseTensor(a);
}

namespace c_abi_test {
EmberGenerator* generator(uint64_t seed) {
  EmberGenerator* g = nullptr;
  ok(api()->GeneratorCreate(seed, nullptr, &g));
  REQUIRE(g != nullptr);
  return g;
}
// randn(size, generator=g, dtype) through the typed slot.
std::vector<double> randn(EmberGenerator* g, int64_t n, EmberDType dt = EMBER_FLOAT64) {
  EmberTensor* t = nullptr;
  ok(ops()->randn_generator(&n, 1, g, &dt, nullptr, nullptr, nullptr, &t));
  std::vector<double> v = values(t);
  api()->ReleaseTensor(t);
  return v;
}
std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}
}  // namespace c_abi_test

TEST_CASE("c_abi: generators: same seed, same numbers; libtorch's numbers", "[c_abi]") {
  EmberGenerator *g1 = generator(1), *g2 = generator(1), *g3 = generator(2);
  // randn: libtorch's torch::manual_seed(1); torch::randn({15}, torch::kDouble) (tests/aten/reference_random.inc).
  const std::vector<double> libtorch_randn15{
      0.66135217157045223,  0.26692409829251879,  0.061677258237348306, 0.62131732868542155, -0.45190596470388295,
      -0.16613023453557194, -1.5227684840130555,  0.38168390241818895,  -1.0276085758313882, -0.56305279865378843,
      -0.89229050878103411, -0.058250179083696361, -0.19550957739962468, -0.96563593116834268, 0.42241532118215536};
  std::vector<double> a = randn(g1, 15), b = randn(g2, 15), c = randn(g3, 15);
  CHECK(a == libtorch_randn15);
  CHECK(b == a);
  CHECK(c != a);
  // The next draws continue each stream, and agree with C++'s at::randn on a generator seeded the same.
  at::Generator ref = at::make_generator<at::CPUGeneratorImpl>(1);
  (void)at::randn({15}, ref, at::kDouble);
  std::vector<double> a2 = randn(g1, 40), b2 = randn(g2, 40);
  CHECK(a2 == values_of(at::randn({40}, ref, at::kDouble)));
  CHECK(b2 == a2);
  CHECK(a2 != a);
  at::Generator ref_f = at::make_generator<at::CPUGeneratorImpl>(2);
  (void)at::randn({15}, ref_f, at::kDouble);
  CHECK(randn(g3, 33, EMBER_FLOAT32) == values_of(at::randn({33}, ref_f, at::kFloat)));

  // bernoulli_(p=0.3) on 37 floats: libtorch's torch::manual_seed(11); torch::empty({37}).bernoulli_(0.3).
  const std::vector<double> libtorch_bern{1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0,
                                          0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0};
  ok(api()->GeneratorManualSeed(g1, 11));
  ok(api()->GeneratorManualSeed(g2, 11));
  ok(api()->GeneratorManualSeed(g3, 12));
  uint64_t seed = 0;
  ok(api()->GeneratorInitialSeed(g1, &seed));
  CHECK(seed == 11);
  int64_t n37 = 37;
  double p03 = 0.3;
  std::vector<std::vector<double>> bern;
  for (EmberGenerator* g : {g1, g2, g3}) {
    EmberTensor* t = nullptr;
    ok(api()->TensorEmpty(&n37, 1, EMBER_FLOAT32, nullptr, &t));
    ok(ops()->bernoulli__float(t, &p03, g, nullptr));
    bern.push_back(values(t));
    api()->ReleaseTensor(t);
  }
  CHECK(bern[0] == libtorch_bern);
  CHECK(bern[1] == bern[0]);
  CHECK(bern[2] != bern[0]);
  // bernoulli(probabilities) against C++'s at::bernoulli with a generator at the same point.
  std::vector<double> probs(64);
  for (size_t k = 0; k < 64; ++k) probs[k] = double(k % 9) / 8;
  EmberTensor* pt = doubles(probs, {8, 8});
  at::Generator ref_b = at::make_generator<at::CPUGeneratorImpl>(11);
  (void)at::empty({37}).bernoulli_(0.3, ref_b);
  at::Tensor probs_cpp = at::from_blob(probs.data(), {8, 8}, at::TensorOptions().dtype(at::kDouble));
  std::vector<std::vector<double>> bp;
  for (EmberGenerator* g : {g1, g2, g3}) {
    EmberTensor* t = nullptr;
    ok(ops()->bernoulli(pt, g, &t));
    bp.push_back(values(t));
    api()->ReleaseTensor(t);
  }
  CHECK(bp[0] == values_of(at::bernoulli(probs_cpp, ref_b)));
  CHECK(bp[1] == bp[0]);
  CHECK(bp[2] != bp[0]);
  for (size_t k = 0; k < 64; k += 9) CHECK(bp[0][k] == 0);  // p = 0
  for (size_t k = 8; k < 64; k += 9) CHECK(bp[0][k] == 1);  // p = 1
  api()->ReleaseTensor(pt);

  // multinomial: libtorch's torch::manual_seed(4); torch::multinomial(probs, 12, true).
  std::vector<double> mp{0.1, 0.0, 0.4, 0.2, 0.3, 0.05, 0.15};
  EmberTensor* m64 = doubles(mp, {7});
  EmberTensor* m32 = nullptr;
  ok(api()->TensorTo(m64, EMBER_FLOAT32, &m32));
  ok(api()->GeneratorManualSeed(g1, 4));
  ok(api()->GeneratorManualSeed(g2, 4));
  ok(api()->GeneratorManualSeed(g3, 5));
  bool repl = true;
  std::vector<std::vector<double>> mn;
  for (EmberGenerator* g : {g1, g2, g3}) {
    EmberTensor* t = nullptr;
    ok(ops()->multinomial(m32, 12, &repl, g, &t));
    mn.push_back(values(t));
    api()->ReleaseTensor(t);
  }
  CHECK(mn[0] == std::vector<double>{3, 4, 0, 6, 6, 3, 2, 4, 2, 3, 2, 5});
  CHECK(mn[1] == mn[0]);
  CHECK(mn[2] != mn[0]);
  api()->ReleaseTensor(m64);
  api()->ReleaseTensor(m32);
  for (EmberGenerator* g : {g1, g2, g3}) api()->ReleaseGenerator(g);
}

TEST_CASE("c_abi: generators: streams, state, clone, the default one, boxed calls", "[c_abi]") {
  // A generator's stream is its own: libtorch's rand({4}, g); rand({2}); rand({4}, g) with
  // g seeded 42 and the default generator seeded 3 (reference_random.inc, "rand.generator").
  EmberGenerator* def = nullptr;
  ok(api()->GeneratorDefault(nullptr, &def));
  EmberGenerator* def2 = nullptr;
  ok(api()->GeneratorDefault(nullptr, &def2));
  CHECK(def == def2);  // one borrowed handle
  ok(api()->GeneratorManualSeed(def, 3));
  EmberGenerator* g = generator(42);
  int64_t four = 4, two = 2;
  EmberDType f32 = EMBER_FLOAT32;
  std::vector<double> got;
  EmberTensor* t = nullptr;
  ok(ops()->rand_generator(&four, 1, g, &f32, nullptr, nullptr, nullptr, &t));
  for (double v : values(t)) got.push_back(v);
  api()->ReleaseTensor(t);
  ok(ops()->rand_generator(&two, 1, nullptr, &f32, nullptr, nullptr, nullptr, &t));  // NULL: the default
  for (double v : values(t)) got.push_back(v);
  api()->ReleaseTensor(t);
  ok(ops()->rand_generator(&four, 1, g, &f32, nullptr, nullptr, nullptr, &t));
  for (double v : values(t)) got.push_back(v);
  api()->ReleaseTensor(t);
  CHECK(got == std::vector<double>{0.88226926326751709, 0.91500395536422729, 0.38286375999450684, 0.95930564403533936,
                                   0.0042635202407836914, 0.10556936264038086, 0.39044821262359619, 0.60089534521102905,
                                   0.25657248497009277, 0.79364132881164551});
  // Reseeding the default handle reseeds what ops without a generator draw from.
  ok(api()->GeneratorManualSeed(def, 1));
  EmberTensor* r = nullptr;
  int64_t n15 = 15;
  EmberDType f64 = EMBER_FLOAT64;
  ok(ops()->randn(&n15, 1, &f64, nullptr, nullptr, nullptr, &r));
  std::vector<double> dflt = values(r);
  api()->ReleaseTensor(r);
  EmberGenerator* one = generator(1);
  CHECK(randn(one, 15) == dflt);
  api()->ReleaseGenerator(def);  // borrowed: ignored
  ok(api()->GeneratorDefault(nullptr, &def2));
  CHECK(def2 == def);
  uint64_t seed = 0;
  ok(api()->GeneratorInitialSeed(def, &seed));
  CHECK(seed == 1);

  // State: saved, drawn from, restored: the same numbers again. Clone: the same numbers too.
  EmberTensor* state = nullptr;
  ok(api()->GeneratorGetState(one, &state));
  EmberDType dt = -1;
  ok(api()->TensorDType(state, &dt));
  CHECK(dt == EMBER_UINT8);
  EmberGenerator* twin = nullptr;
  ok(api()->GeneratorClone(one, &twin));
  std::vector<double> next = randn(one, 20);
  CHECK(randn(twin, 20) == next);
  ok(api()->GeneratorSetState(one, state));
  CHECK(randn(one, 20) == next);
  EmberGenerator* other = generator(99);
  ok(api()->GeneratorSetState(other, state));  // another generator continues the saved stream
  CHECK(randn(other, 20) == next);
  api()->ReleaseTensor(state);

  // Boxed: randn.generator(int[] size, *, Generator? generator, dtype, layout, device, pin_memory).
  ok(api()->GeneratorManualSeed(twin, 1));
  int64_t n5 = 5;
  EmberValue size{};
  size.tag = EMBER_VALUE_INT_LIST;
  size.i = 1;
  size.p = &n5;
  EmberValue gen{};
  gen.tag = EMBER_VALUE_GENERATOR;
  gen.p = twin;
  EmberValue dtv{};
  dtv.tag = EMBER_VALUE_DTYPE;
  dtv.i = EMBER_FLOAT64;
  EmberValue args[6] = {size, gen, dtv, none_value(), none_value(), none_value()};
  EmberValue res[1];
  size_t nres = 0;
  ok(api()->CallOp("randn.generator", args, 6, res, 1, &nres));
  REQUIRE(nres == 1);
  std::vector<double> boxed = values(static_cast<const EmberTensor*>(res[0].p));
  api()->ReleaseValues(res, nres);
  CHECK(boxed == std::vector<double>(dflt.begin(), dflt.begin() + 5));
  // A null GENERATOR is the default generator, as NONE is.
  gen.p = nullptr;
  args[1] = gen;
  ok(api()->CallOp("randn.generator", args, 6, res, 1, &nres));
  api()->ReleaseValues(res, nres);

  for (EmberGenerator* x : {g, one, twin, other}) api()->ReleaseGenerator(x);
  api()->ReleaseGenerator(nullptr);
}

TEST_CASE("c_abi: one generator shared by threads: each op draws a whole piece of the stream", "[c_abi]") {
  // Two threads draw randn(1000) from one generator at once. Each op holds the generator's lock
  // while it draws, so the two results are the stream's first and second 1000 numbers, in either
  // order (reference: the same draws, one after the other, from a generator seeded alike).
  EmberGenerator* ref = generator(21);
  const std::vector<double> first = randn(ref, 1000), second = randn(ref, 1000);
  for (int round = 0; round < 4; ++round) {
    EmberGenerator* shared = generator(21);
    std::vector<double> got[2];
    EmberStatus* st[2] = {nullptr, nullptr};
    // No Catch2 macros on the threads (they are not thread-safe): statuses are checked after.
    auto draw = [&](int k) {
      int64_t n = 1000;
      EmberDType dt = EMBER_FLOAT64;
      EmberTensor* t = nullptr;
      void* p = nullptr;
      st[k] = ops()->randn_generator(&n, 1, shared, &dt, nullptr, nullptr, nullptr, &t);
      if (!st[k]) st[k] = api()->TensorData(t, &p);
      if (!st[k]) got[k].assign(static_cast<const double*>(p), static_cast<const double*>(p) + n);
      api()->ReleaseTensor(t);
    };
    std::thread t0(draw, 0), t1(draw, 1);
    t0.join();
    t1.join();
    ok(st[0]);
    ok(st[1]);
    const bool in_order = got[0] == first && got[1] == second;
    const bool swapped = got[0] == second && got[1] == first;
    CHECK((in_order || swapped));
    api()->ReleaseGenerator(shared);
  }
  api()->ReleaseGenerator(ref);
}

TEST_CASE("c_abi: generator errors and devices", "[c_abi]") {
  EmberGenerator* out = reinterpret_cast<EmberGenerator*>(0x1);
  Result r = result(api()->GeneratorCreate(1, nullptr, nullptr));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message == "[GeneratorCreate] argument 'out' is a null output pointer");
  EmberDevice meta{EMBER_DEVICE_META, -1};
  r = result(api()->GeneratorCreate(1, &meta, &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message.rfind("[GeneratorCreate] argument 'device'", 0) == 0);
  EmberDevice bad{42, 0};
  r = result(api()->GeneratorDefault(&bad, &out));
  CHECK(r.message.rfind("[GeneratorDefault] argument 'device' has device type 42", 0) == 0);
  CHECK(out == reinterpret_cast<EmberGenerator*>(0x1));
  r = result(api()->GeneratorManualSeed(nullptr, 1));
  CHECK(r.message == "[GeneratorManualSeed] argument 'generator' is a null generator handle");
  uint64_t seed = 0;
  CHECK(result(api()->GeneratorInitialSeed(nullptr, &seed)).code == EMBER_INVALID_ARGUMENT);
  EmberGenerator* g = generator(5);
  CHECK(result(api()->GeneratorInitialSeed(g, nullptr)).message ==
        "[GeneratorInitialSeed] argument 'out' is a null output pointer");
  CHECK(result(api()->GeneratorClone(nullptr, &out)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->GeneratorGetState(g, nullptr)).code == EMBER_INVALID_ARGUMENT);
  CHECK(result(api()->GeneratorSetState(g, nullptr)).message ==
        "[GeneratorSetState] argument 'state' is a null tensor handle");
  // A state that is not one: Ember's own error, and the generator is unchanged.
  EmberTensor* junk = doubles({1, 2, 3}, {3});
  r = result(api()->GeneratorSetState(g, junk));
  CHECK(r.code == EMBER_ERROR);
  CHECK(r.message.rfind("[Generator::set_state] ", 0) == 0);
  EmberGenerator* fresh = generator(5);
  CHECK(randn(g, 8) == randn(fresh, 8));
  api()->ReleaseTensor(junk);

  // CUDA: a generator on the device, or a status saying why not.
  EmberDevice cuda{EMBER_DEVICE_CUDA, 0};
  EmberGenerator* cg = nullptr;
  EmberStatus* st = api()->GeneratorCreate(7, &cuda, &cg);
  if (st) {
    r = result(st);
    INFO(r.message);
    CHECK(r.code == EMBER_ERROR);
    CHECK(r.message.rfind("[", 0) == 0);
    CHECK(result(api()->GeneratorDefault(&cuda, &out)).code == EMBER_ERROR);
  } else {
    EmberGenerator* cg2 = nullptr;
    ok(api()->GeneratorCreate(7, &cuda, &cg2));
    int64_t n = 1000;
    EmberDType f32 = EMBER_FLOAT32;
    EmberTensor *x = nullptr, *y = nullptr;
    ok(ops()->randn_generator(&n, 1, cg, &f32, nullptr, &cuda, nullptr, &x));
    ok(ops()->randn_generator(&n, 1, cg2, &f32, nullptr, &cuda, nullptr, &y));
    CHECK(values(x) == values(y));
    // A CUDA generator for a CPU op is Ember's error.
    r = result(ops()->randn_generator(&n, 1, cg, &f32, nullptr, nullptr, nullptr, &x));
    CHECK(r.code == EMBER_ERROR);
    CHECK(r.message.rfind("[", 0) == 0);
    EmberGenerator *d0 = nullptr, *d1 = nullptr;
    ok(api()->GeneratorDefault(&cuda, &d0));
    ok(api()->GeneratorDefault(&cuda, &d1));
    CHECK(d0 == d1);
    for (EmberTensor* t : {x, y}) api()->ReleaseTensor(t);
    api()->ReleaseGenerator(cg2);
    api()->ReleaseGenerator(cg);
  }
  api()->ReleaseGenerator(g);
  api()->ReleaseGenerator(fresh);
}
