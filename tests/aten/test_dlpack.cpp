// DLPack exchange (<ATen/DLConvertor.h>, <ATen/dlpack.h>): the ABI's enum values and struct layout
// written as literals from the specification, zero-copy (pointer identity) both ways, the deleter
// contract (call counts), round trips of every dtype and layout, writes seen through both sides,
// read-only and error handling.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <torch/cuda.h>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace dlpack_test {

// A producer of our own: a buffer, its shape/strides arrays and a deleter that counts its calls.
template <class Managed>
struct Producer {
  std::vector<double> buf;
  std::vector<int64_t> shape, strides;
  Managed managed{};
  int deleter_calls = 0;

  Producer(std::vector<int64_t> sh, std::vector<int64_t> st, size_t n, uint64_t byte_offset = 0)
      : buf(n), shape(std::move(sh)), strides(std::move(st)) {
    for (size_t i = 0; i < n; ++i) buf[i] = static_cast<double>(i);
    DLTensor& t = managed.dl_tensor;
    t.data = buf.data();
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = DLDataType{2, 64, 1};  // float64 per the specification's codes
    t.shape = shape.empty() ? nullptr : shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byte_offset;
    managed.manager_ctx = this;
    managed.deleter = [](Managed* self) { static_cast<Producer*>(self->manager_ctx)->deleter_calls++; };
  }
};

struct VersionedProducer : Producer<DLManagedTensorVersioned> {
  VersionedProducer(std::vector<int64_t> sh, std::vector<int64_t> st, size_t n, uint64_t flags = 0)
      : Producer(std::move(sh), std::move(st), n) {
    managed.version = DLPackVersion{1, 0};
    managed.flags = flags;
  }
};

double value_at(const at::Tensor& t, std::vector<int64_t> idx) {
  at::Tensor v = t;
  for (int64_t i : idx) v = v.select(0, i);
  return v.item<double>();
}

struct DtypeFact {
  at::ScalarType dtype;
  int code, bits;
};
// The specification's type codes: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6.
const std::vector<DtypeFact> kDtypeFacts = {
    {at::kBool, 6, 8},   {at::kByte, 1, 8},  {at::kChar, 0, 8},  {at::kShort, 0, 16},     {at::kInt, 0, 32},
    {at::kLong, 0, 64},  {at::kHalf, 2, 16}, {at::kFloat, 2, 32}, {at::kDouble, 2, 64}, {at::kBFloat16, 4, 16},
};

// Layouts that find bugs: plain, transposed, step-sliced with an offset, expanded (stride 0),
// 0-dim, empty, a single element at an offset.
std::vector<std::pair<std::string, at::Tensor>> layouts(at::ScalarType dt, at::Device dev = at::kCPU) {
  at::Tensor base = at::arange(24, at::TensorOptions().dtype(at::kLong).device(dev)).remainder(7);
  if (dt == at::kBool) base = base.remainder(2);
  base = base.to(dt).reshape({2, 3, 4});
  return {
      {"contiguous", base},
      {"transposed", base.transpose(0, 2)},
      {"sliced", base.slice(2, 1, 4, 2).select(0, 1)},
      {"expanded", base.select(0, 0).select(0, 1).unsqueeze(0).expand({5, 4})},
      {"zero-dim", base.select(0, 1).select(0, 2).select(0, 3)},
      {"empty", base.slice(1, 1, 1)},
  };
}

std::vector<int64_t> as_vector(const int64_t* p, int32_t n) { return std::vector<int64_t>(p, p + n); }

}  // namespace dlpack_test

using namespace dlpack_test;
using Catch::StartsWith;

TEST_CASE("dlpack: ABI values and layout are the specification's") {
  // Enum values and flag bits, written out from the DLPack specification.
  CHECK(static_cast<int>(kDLCPU) == 1);
  CHECK(static_cast<int>(kDLCUDA) == 2);
  CHECK(static_cast<int>(kDLCUDAHost) == 3);
  CHECK(static_cast<int>(kDLOpenCL) == 4);
  CHECK(static_cast<int>(kDLVulkan) == 7);
  CHECK(static_cast<int>(kDLROCM) == 10);
  CHECK(static_cast<int>(kDLCUDAManaged) == 13);
  CHECK(static_cast<int>(kDLOneAPI) == 14);
  CHECK(static_cast<int>(kDLInt) == 0);
  CHECK(static_cast<int>(kDLUInt) == 1);
  CHECK(static_cast<int>(kDLFloat) == 2);
  CHECK(static_cast<int>(kDLOpaqueHandle) == 3);
  CHECK(static_cast<int>(kDLBfloat) == 4);
  CHECK(static_cast<int>(kDLComplex) == 5);
  CHECK(static_cast<int>(kDLBool) == 6);
  CHECK(static_cast<int>(kDLFloat8_e4m3fn) == 10);
  CHECK(DLPACK_FLAG_BITMASK_READ_ONLY == 1);
  CHECK(DLPACK_FLAG_BITMASK_IS_COPIED == 2);
  CHECK(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED == 4);
  CHECK(DLPACK_MAJOR_VERSION == 1);
  // C layout on LP64: what another library's compiled code reads.
  CHECK(sizeof(DLDeviceType) == 4);
  CHECK(sizeof(DLDataType) == 4);
  CHECK(sizeof(DLDevice) == 8);
  CHECK(sizeof(DLPackVersion) == 8);
  CHECK(offsetof(DLTensor, data) == 0);
  CHECK(offsetof(DLTensor, device) == 8);
  CHECK(offsetof(DLTensor, ndim) == 16);
  CHECK(offsetof(DLTensor, dtype) == 20);
  CHECK(offsetof(DLTensor, shape) == 24);
  CHECK(offsetof(DLTensor, strides) == 32);
  CHECK(offsetof(DLTensor, byte_offset) == 40);
  CHECK(sizeof(DLTensor) == 48);
  CHECK(offsetof(DLManagedTensor, manager_ctx) == 48);
  CHECK(offsetof(DLManagedTensor, deleter) == 56);
  CHECK(sizeof(DLManagedTensor) == 64);
  CHECK(offsetof(DLManagedTensorVersioned, version) == 0);
  CHECK(offsetof(DLManagedTensorVersioned, manager_ctx) == 8);
  CHECK(offsetof(DLManagedTensorVersioned, deleter) == 16);
  CHECK(offsetof(DLManagedTensorVersioned, flags) == 24);
  CHECK(offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
  CHECK(sizeof(DLManagedTensorVersioned) == 80);
  // libtorch's trait names.
  CHECK(std::string(at::DLPackTraits<DLManagedTensor>::capsule) == "dltensor");
  CHECK(std::string(at::DLPackTraits<DLManagedTensor>::used) == "used_dltensor");
  CHECK(std::string(at::DLPackTraits<DLManagedTensorVersioned>::capsule) == "dltensor_versioned");
  CHECK(std::string(at::DLPackTraits<DLManagedTensorVersioned>::used) == "used_dltensor_versioned");
}

TEST_CASE("dlpack: dtype codes both ways") {
  for (const auto& f : kDtypeFacts) {
    INFO(f.dtype);
    DLDataType d = at::getDLDataType(at::empty({1}, f.dtype));
    CHECK(static_cast<int>(d.code) == f.code);
    CHECK(static_cast<int>(d.bits) == f.bits);
    CHECK(static_cast<int>(d.lanes) == 1);
    CHECK(at::toScalarType(DLDataType{static_cast<uint8_t>(f.code), static_cast<uint8_t>(f.bits), 1}) == f.dtype);
  }
}

TEST_CASE("dlpack: toDLPack and back, every dtype and layout, without copies") {
  for (const auto& f : kDtypeFacts) {
    for (const auto& [name, t0] : layouts(f.dtype)) {
      const at::Tensor t = t0;  // clang 14: no lambda captures of structured bindings below
      INFO(f.dtype << " " << name);
      const auto uses = t.getIntrusivePtr().use_count();
      for (bool versioned : {false, true}) {
        INFO("versioned " << versioned);
        DLManagedTensor* m = nullptr;
        DLManagedTensorVersioned* mv = nullptr;
        const DLTensor* dl;
        if (versioned) {
          mv = at::toDLPackVersioned(t);
          CHECK(mv->version.major == 1);
          CHECK(mv->version.minor == DLPACK_MINOR_VERSION);
          CHECK(mv->flags == 0);
          dl = &mv->dl_tensor;
        } else {
          m = at::toDLPack(t);
          dl = &m->dl_tensor;
        }
        CHECK(dl->data == t.data_ptr());
        CHECK(dl->byte_offset == 0);
        CHECK(static_cast<int>(dl->device.device_type) == 1);
        CHECK(dl->device.device_id == 0);
        CHECK(static_cast<int>(dl->dtype.code) == f.code);
        CHECK(static_cast<int>(dl->dtype.bits) == f.bits);
        CHECK(dl->dtype.lanes == 1);
        REQUIRE(dl->ndim == t.dim());
        CHECK(dl->shape != nullptr);
        CHECK(dl->strides != nullptr);
        CHECK(as_vector(dl->shape, dl->ndim) == t.sizes().vec());
        CHECK(as_vector(dl->strides, dl->ndim) == t.strides().vec());
        CHECK(t.getIntrusivePtr().use_count() == uses + 1);  // the wrapper holds the tensor

        at::Tensor u = versioned ? at::fromDLPackVersioned(mv) : at::fromDLPack(m);
        CHECK(u.data_ptr() == t.data_ptr());
        CHECK(u.scalar_type() == f.dtype);
        CHECK(u.device() == t.device());
        CHECK(u.sizes().vec() == t.sizes().vec());
        CHECK(u.strides().vec() == t.strides().vec());
        CHECK(at::equal(u.to(at::kDouble), t.to(at::kDouble)));
        u = at::Tensor();  // frees the imported storage: runs the wrapper's deleter
        CHECK(t.getIntrusivePtr().use_count() == uses);  // and lets it go
      }
    }
  }
}

TEST_CASE("dlpack: the export keeps the tensor alive until its deleter runs") {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  int freed = 0;
  at::Tensor t = at::from_blob(buf, {2, 3}, [&](void*) { freed++; });
  DLManagedTensor* m = at::toDLPack(t.t());
  t = at::Tensor();
  CHECK(freed == 0);
  CHECK(static_cast<float*>(m->dl_tensor.data)[m->dl_tensor.strides[0] * 2] == 3.0f);  // element (2, 0) of the transpose
  m->deleter(m);
  CHECK(freed == 1);

  // Export, import, drop: the import's release calls the export's deleter, which frees the source.
  t = at::from_blob(buf, {2, 3}, [&](void*) { freed++; });
  at::Tensor u = at::fromDLPackVersioned(at::toDLPackVersioned(t));
  t = at::Tensor();
  at::Tensor view = u.select(1, 2);
  u = at::Tensor();
  CHECK(freed == 1);
  CHECK(value_at(view, {0}) == 3.0);
  CHECK(value_at(view, {1}) == 6.0);
  view = at::Tensor();
  CHECK(freed == 2);
}

TEST_CASE("dlpack: writes through either side are seen by the other") {
  at::Tensor base = at::zeros({3, 4}, at::kFloat);
  at::Tensor t = base.t().slice(0, 1, 4, 2);  // [2, 3], strides [2, 4], t(i, j) = base[j][1 + 2i]
  DLManagedTensor* m = at::toDLPack(t);
  auto* p = static_cast<float*>(m->dl_tensor.data);
  // Element (1, 2) of t through the DLTensor's element strides = base[2][3].
  p[1 * m->dl_tensor.strides[0] + 2 * m->dl_tensor.strides[1]] = 7.5f;
  CHECK(value_at(base, {2, 3}) == 7.5);
  base.select(0, 0).select(0, 1).fill_(-2.0);  // base[0][1] = t(0, 0)
  CHECK(p[0] == -2.0f);
  at::Tensor u = at::fromDLPack(m);
  u.select(0, 0).select(0, 1).fill_(4.0);  // t(0, 1) = base[1][1]
  CHECK(value_at(base, {1, 1}) == 4.0);
}

TEST_CASE("dlpack: fromDLPack wraps a foreign producer's memory") {
  SECTION("strided with byte_offset") {
    // element (i, j) at buf[2 + i + 4 j]: column-major-like strides and a 16-byte offset
    Producer<DLManagedTensor> prod({2, 3}, {1, 4}, 14, 2 * sizeof(double));
    {
      at::Tensor u = at::fromDLPack(&prod.managed);
      CHECK(u.scalar_type() == at::kDouble);
      CHECK(u.sizes().vec() == std::vector<int64_t>{2, 3});
      CHECK(u.strides().vec() == std::vector<int64_t>{1, 4});
      CHECK(u.storage_offset() == 2);
      CHECK(u.data_ptr() == prod.buf.data() + 2);
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j) CHECK(value_at(u, {i, j}) == static_cast<double>(2 + i + 4 * j));
      u.select(0, 1).select(0, 2).fill_(-1.0);
      CHECK(prod.buf[2 + 1 + 8] == -1.0);
      prod.buf[2 + 4] = 100.0;
      CHECK(value_at(u, {0, 1}) == 100.0);
      at::Tensor keep = u.select(1, 0);
      u = at::Tensor();
      CHECK(prod.deleter_calls == 0);  // a view still shares the storage
    }
    CHECK(prod.deleter_calls == 1);
  }
  SECTION("NULL strides mean row-major") {
    Producer<DLManagedTensor> prod({2, 3}, {}, 6);
    at::Tensor u = at::fromDLPack(&prod.managed);
    CHECK(u.strides().vec() == std::vector<int64_t>{3, 1});
    CHECK(value_at(u, {1, 0}) == 3.0);
  }
  SECTION("0-dim with NULL shape and strides") {
    Producer<DLManagedTensor> prod({}, {}, 1);
    prod.buf[0] = 42.0;
    at::Tensor u = at::fromDLPack(&prod.managed);
    CHECK(u.dim() == 0);
    CHECK(u.item<double>() == 42.0);
  }
  SECTION("empty with a NULL data pointer") {
    Producer<DLManagedTensor> prod({0, 5}, {5, 1}, 0);
    prod.managed.dl_tensor.data = nullptr;
    {
      at::Tensor u = at::fromDLPack(&prod.managed);
      CHECK(u.sizes().vec() == std::vector<int64_t>{0, 5});
      CHECK(u.numel() == 0);
    }
    CHECK(prod.deleter_calls == 1);
  }
  SECTION("stride 0 (broadcast) producer") {
    Producer<DLManagedTensor> prod({4, 3}, {0, 1}, 3);
    at::Tensor u = at::fromDLPack(&prod.managed);
    CHECK(u.strides().vec() == std::vector<int64_t>{0, 1});
    CHECK(value_at(u, {3, 2}) == 2.0);
  }
  SECTION("a NULL producer deleter is never called") {
    Producer<DLManagedTensor> prod({2}, {1}, 2);
    prod.managed.deleter = nullptr;
    at::Tensor u = at::fromDLPack(&prod.managed);
    CHECK(value_at(u, {1}) == 1.0);
  }
  SECTION("a replacement deleter gets the data pointer and replaces the producer's") {
    Producer<DLManagedTensor> prod({3}, {1}, 4, sizeof(double));
    void* seen = nullptr;
    int calls = 0;
    {
      at::Tensor u = at::fromDLPack(&prod.managed, [&](void* p) { seen = p; calls++; });
      CHECK(value_at(u, {0}) == 1.0);
    }
    CHECK(calls == 1);
    CHECK(seen == prod.buf.data());
    CHECK(prod.deleter_calls == 0);
  }
}

TEST_CASE("dlpack: versioned wrappers, read-only and copied flags") {
  SECTION("writable: zero-copy") {
    VersionedProducer prod({2, 2}, {2, 1}, 4, DLPACK_FLAG_BITMASK_IS_COPIED);
    {
      at::Tensor u = at::fromDLPackVersioned(&prod.managed);
      CHECK(u.data_ptr() == prod.buf.data());
      CHECK(prod.deleter_calls == 0);
    }
    CHECK(prod.deleter_calls == 1);
  }
  SECTION("read-only: Ember copies and releases the producer's tensor at once") {
    VersionedProducer prod({3, 2}, {1, 3}, 6, DLPACK_FLAG_BITMASK_READ_ONLY);
    at::Tensor u = at::fromDLPackVersioned(&prod.managed);
    CHECK(prod.deleter_calls == 1);
    CHECK(u.data_ptr() != static_cast<void*>(prod.buf.data()));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) CHECK(value_at(u, {i, j}) == static_cast<double>(i + 3 * j));
    u.fill_(9.0);  // writes stay in Ember's copy
    for (double v : prod.buf) CHECK(v != 9.0);
    u = at::Tensor();
    CHECK(prod.deleter_calls == 1);
  }
  SECTION("read-only with a replacement deleter") {
    VersionedProducer prod({2}, {1}, 2, DLPACK_FLAG_BITMASK_READ_ONLY);
    int calls = 0;
    at::Tensor u = at::fromDLPackVersioned(&prod.managed, [&](void*) { calls++; });
    CHECK(calls == 1);
    CHECK(prod.deleter_calls == 0);
    CHECK(value_at(u, {1}) == 1.0);
  }
  SECTION("toDLPackVersionedReadOnly sets the flag, shares the memory") {
    at::Tensor t = at::arange(4, at::kFloat);
    DLManagedTensorVersioned* m = at::toDLPackVersionedReadOnly(t);
    CHECK(m->flags == 1);
    CHECK(m->dl_tensor.data == t.data_ptr());
    at::Tensor u = at::fromDLPackVersioned(m);  // read-only in, so a copy
    CHECK(u.data_ptr() != t.data_ptr());
    CHECK(at::equal(u, t));
  }
  SECTION("toDLPackNonOwning points into the tensor") {
    at::Tensor t = at::arange(6, at::kInt).reshape({2, 3}).t();
    DLTensor d;
    at::toDLPackNonOwning(t, &d);
    CHECK(d.data == t.data_ptr());
    CHECK(d.ndim == 2);
    CHECK(as_vector(d.shape, 2) == std::vector<int64_t>{3, 2});
    CHECK(as_vector(d.strides, 2) == std::vector<int64_t>{1, 3});
    CHECK(static_cast<int>(d.dtype.code) == 0);
    CHECK(static_cast<int>(d.dtype.bits) == 32);
  }
}

TEST_CASE("dlpack: errors name the conversion and leave the wrapper with the caller") {
  auto refuse = [](auto mutate, const std::string& start) {
    Producer<DLManagedTensor> prod({2, 2}, {2, 1}, 4);
    mutate(prod.managed.dl_tensor);
    CHECK_THROWS_WITH(at::fromDLPack(&prod.managed), StartsWith(start));
    CHECK(prod.deleter_calls == 0);
  };
  refuse([](DLTensor& t) { t.dtype.lanes = 2; }, "[fromDLPack] expected lanes == 1");
  refuse([](DLTensor& t) { t.dtype = DLDataType{5, 64, 1}; }, "[fromDLPack] complex elements");
  refuse([](DLTensor& t) { t.dtype = DLDataType{10, 8, 1}; }, "[fromDLPack] unsupported DLPack element type: code 10, 8 bits");
  refuse([](DLTensor& t) { t.dtype = DLDataType{1, 16, 1}; }, "[fromDLPack] unsupported DLPack element type: code 1, 16 bits");
  refuse([](DLTensor& t) { t.dtype = DLDataType{2, 8, 1}; }, "[fromDLPack] unsupported DLPack element type");
  refuse([](DLTensor& t) { t.dtype = DLDataType{6, 1, 1}; }, "[fromDLPack] unsupported DLPack element type");
  refuse([](DLTensor& t) { t.dtype = DLDataType{3, 64, 1}; }, "[fromDLPack] unsupported DLPack element type");
  refuse([](DLTensor& t) { t.device.device_type = static_cast<DLDeviceType>(7); }, "[fromDLPack] unsupported DLPack device type 7");
  refuse([](DLTensor& t) { t.device.device_id = -1; }, "[fromDLPack] expected a device_id");
  refuse([](DLTensor& t) { t.strides[0] = -2; }, "[fromDLPack] expected non-negative strides");
  refuse([](DLTensor& t) { t.shape[1] = -1; }, "[fromDLPack] expected non-negative sizes");
  refuse([](DLTensor& t) { t.byte_offset = 4; }, "[fromDLPack] expected a byte_offset that is a multiple");
  refuse([](DLTensor& t) { t.ndim = -1; }, "[fromDLPack] expected ndim >= 0");
  refuse([](DLTensor& t) { t.shape = nullptr; }, "[fromDLPack] expected a shape array");
  refuse([](DLTensor& t) { t.data = nullptr; }, "[fromDLPack] expected a data pointer");
  refuse([](DLTensor& t) { t.shape[0] = INT64_MAX; }, "[fromDLPack]");
  if (!torch::cuda::is_available())
    refuse([](DLTensor& t) { t.device.device_type = kDLCUDA; }, "[fromDLPack] the tensor is on CUDA device 0 but 0 CUDA");

  VersionedProducer prod({2}, {1}, 2);
  prod.managed.version = DLPackVersion{2, 0};
  CHECK_THROWS_WITH(at::fromDLPackVersioned(&prod.managed), StartsWith("[fromDLPack] expected DLPack major version 1; got 2.0"));
  prod.managed.version = DLPackVersion{0, 8};
  CHECK_THROWS_WITH(at::fromDLPackVersioned(&prod.managed), StartsWith("[fromDLPack] expected DLPack major version 1; got 0.8"));
  CHECK(prod.deleter_calls == 0);
  prod.managed.version = DLPackVersion{1, 99};  // a newer minor version is readable
  { at::Tensor u = at::fromDLPackVersioned(&prod.managed); }
  CHECK(prod.deleter_calls == 1);

  CHECK_THROWS_WITH(at::fromDLPack(nullptr), StartsWith("[fromDLPack]"));
  CHECK_THROWS_WITH(at::fromDLPackVersioned(nullptr), StartsWith("[fromDLPack]"));
  CHECK_THROWS_WITH(at::toDLPack(at::Tensor()), StartsWith("[toDLPack] expected a defined tensor"));
  CHECK_THROWS_WITH(at::toDLPackVersioned(at::Tensor()), StartsWith("[toDLPack] expected a defined tensor"));
  CHECK_THROWS_WITH(at::toScalarType(DLDataType{2, 32, 4}), StartsWith("[fromDLPack] expected lanes == 1"));
}

TEST_CASE("dlpack: device conversions and maybeCopyTensor") {
  DLDevice cpu = at::torchDeviceToDLDevice(at::Device(at::kCPU));
  CHECK(static_cast<int>(cpu.device_type) == 1);
  CHECK(cpu.device_id == 0);
  DLDevice gpu = at::torchDeviceToDLDevice(at::Device(at::kCUDA, 3));
  CHECK(static_cast<int>(gpu.device_type) == 2);
  CHECK(gpu.device_id == 3);
  CHECK(at::dlDeviceToTorchDevice(kDLCPU, 0) == at::Device(at::kCPU));
  CHECK(at::dlDeviceToTorchDevice(kDLCUDAHost, 0) == at::Device(at::kCPU));
  CHECK(at::dlDeviceToTorchDevice(kDLCUDA, 1) == at::Device(at::kCUDA, 1));
  CHECK(at::dlDeviceToTorchDevice(kDLCUDAManaged, 0) == at::Device(at::kCUDA, 0));
  CHECK_THROWS_WITH(at::dlDeviceToTorchDevice(kDLROCM, 0), StartsWith("[fromDLPack] unsupported DLPack device type 10"));
  DLDevice ctx = at::getDLContext(at::ones({1}), 0);
  CHECK(static_cast<int>(ctx.device_type) == 1);

  at::Tensor t = at::arange(3, at::kFloat);
  CHECK(at::maybeCopyTensor(t, std::nullopt, std::nullopt).data_ptr() == t.data_ptr());
  CHECK(at::maybeCopyTensor(t, DLDevice{kDLCPU, 0}, false).data_ptr() == t.data_ptr());
  at::Tensor c = at::maybeCopyTensor(t, DLDevice{kDLCPU, 0}, true);
  CHECK(c.data_ptr() != t.data_ptr());
  CHECK(at::equal(c, t));
  CHECK_THROWS_WITH(at::maybeCopyTensor(t, DLDevice{kDLCUDA, 0}, false), StartsWith("[toDLPack] the tensor is on cpu"));
}

TEST_CASE("dlpack: CUDA tensors") {
  if (!torch::cuda::is_available()) {
    WARN("no CUDA device: skipped");
    return;
  }
  const at::Device gpu(at::kCUDA, 0);
  for (const auto& f : kDtypeFacts) {
    for (const auto& [name, t0] : layouts(f.dtype, gpu)) {
      const at::Tensor t = t0;
      INFO(f.dtype << " " << name);
      DLManagedTensorVersioned* m = at::toDLPackVersioned(t);
      CHECK(static_cast<int>(m->dl_tensor.device.device_type) == 2);
      CHECK(m->dl_tensor.device.device_id == 0);
      CHECK(m->dl_tensor.data == t.data_ptr());
      CHECK(as_vector(m->dl_tensor.strides, m->dl_tensor.ndim) == t.strides().vec());
      at::Tensor u = at::fromDLPackVersioned(m);
      CHECK(u.device() == gpu);
      CHECK(u.data_ptr() == t.data_ptr());
      CHECK(at::equal(u.cpu().to(at::kDouble), t.cpu().to(at::kDouble)));
    }
  }
  // Read-only CUDA import: a copy on the same device.
  at::Tensor t = at::arange(5, at::TensorOptions().dtype(at::kFloat).device(gpu));
  at::Tensor u = at::fromDLPackVersioned(at::toDLPackVersionedReadOnly(t));
  CHECK(u.device() == gpu);
  CHECK(u.data_ptr() != t.data_ptr());
  CHECK(at::equal(u.cpu(), t.cpu()));
}
