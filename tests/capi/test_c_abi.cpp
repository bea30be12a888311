// The C ABI (include/ember/ember.h), used only through its table as a C program would: versions,
// errors as statuses ("[op] ..." messages, never an exception), null handles, boxed calls agreeing
// with typed ones, the from-buffer deleter contract, autograd, out=/in-place results, files.
// Values are checked against arithmetic written here in double.
#include "../../include/ember/ember.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
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

  // Generators are reserved: a non-null one is refused, not dereferenced.
  r = result(ops()->bernoulli(a, reinterpret_cast<EmberGenerator*>(0x10), &out));
  CHECK(r.code == EMBER_INVALID_ARGUMENT);
  CHECK(r.message.find("argument 'generator'") != std::string::npos);

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
