// A program written for libtorch's DLPack API (<ATen/DLConvertor.h>), not part of any build: built
// against libtorch and against Ember, the two outputs must agree (what tests/aten/test_dlpack.cpp
// checks from the specification, seen from libtorch's side). From the repository root:
//   LT=.peer/libtorch; g++ -std=c++20 -O0 -D_GLIBCXX_USE_CXX11_ABI=1 -w -I$LT/include \
//     -I$LT/include/torch/csrc/api/include tests/aten/libtorch/dlpack_compat.cpp -L$LT/lib -ltorch_cpu \
//     -lc10 -Wl,-rpath,$LT/lib -Wl,--allow-shlib-undefined -o /tmp/dl_lt && /tmp/dl_lt > /tmp/dl_lt.txt
//   g++ -std=c++20 -O0 -w -Iaten -Iapi -Iautograd/include -Ibuild/generated/include \
//     tests/aten/libtorch/dlpack_compat.cpp -Lbuild -lember -Wl,-rpath,$PWD/build -o /tmp/dl_em && \
//     /tmp/dl_em > /tmp/dl_em.txt; diff /tmp/dl_lt.txt /tmp/dl_em.txt
// Expected difference (2026-12-02, libtorch 2.15): the last two lines, complex64 and uint16 element
// types, which libtorch accepts and Ember (without those dtypes) refuses.
#include <torch/torch.h>
#include <ATen/DLConvertor.h>
#include <iostream>
static void pr(const char* name, const DLTensor& t, const at::Tensor& src) {
  std::cout << name << ": dev " << t.device.device_type << ":" << t.device.device_id << " ndim " << t.ndim << " code "
            << int(t.dtype.code) << " bits " << int(t.dtype.bits) << " lanes " << t.dtype.lanes << " off " << t.byte_offset
            << " same " << (t.data == src.data_ptr()) << " [";
  for (int i = 0; i < t.ndim; i++) std::cout << t.shape[i] << "/" << t.strides[i] << " ";
  std::cout << "]\n";
}
int main() {
  auto a = torch::arange(24, torch::kFloat).reshape({2, 3, 4});
  std::vector<std::pair<const char*, at::Tensor>> cases = {
      {"contig", a}, {"transposed", a.transpose(0, 2)}, {"sliced", a.slice(2, 1, 4, 2).select(0, 1)},
      {"expanded", a[0][1].unsqueeze(0).expand({5, 4})}, {"zerodim", a[1][2][3]}, {"empty", a.slice(1, 1, 1)},
      {"bool", a.gt(3)}, {"u8", a.to(torch::kByte)}, {"i8", a.to(torch::kChar)}, {"i16", a.to(torch::kShort)},
      {"i32", a.to(torch::kInt)}, {"i64", a.to(torch::kLong)}, {"f16", a.to(torch::kHalf)}, {"bf16", a.to(torch::kBFloat16)},
      {"f64", a.to(torch::kDouble)}};
  for (auto& [n, t] : cases) {
    auto* m = at::toDLPack(t); pr(n, m->dl_tensor, t);
    auto u = at::fromDLPack(m);
    std::cout << "  back: same " << (u.data_ptr() == t.data_ptr()) << " " << u.sizes() << " " << u.strides() << " "
              << u.scalar_type() << " eq " << at::equal(u, t) << "\n";
    auto* v = at::toDLPackVersioned(t);
    std::cout << "  versioned: major " << v->version.major << " flags " << v->flags << "\n";
    auto w = at::fromDLPackVersioned(v);
    std::cout << "  back: same " << (w.data_ptr() == t.data_ptr()) << "\n";
  }
  // byte_offset import
  auto m = at::toDLPack(a.reshape({6, 4})); m->dl_tensor.byte_offset = 8; m->dl_tensor.shape[1] = 2;
  auto u = at::fromDLPack(m);
  std::cout << "offset: soff " << u.storage_offset() << " " << u.sizes() << " " << u.strides() << "\n" << u << "\n";
  int calls = 0; void* seen = nullptr;
  { auto* mm = at::toDLPack(a); void* d = mm->dl_tensor.data;
    { auto t = at::fromDLPack(mm, [&](void* p) { seen = p; calls++; }); }
    std::cout << "custom deleter: calls " << calls << " arg==data " << (seen == d) << "\n"; mm->deleter(mm); }
  auto r = at::toDLPackVersionedReadOnly(a); std::cout << "ro flags " << r->flags << "\n"; r->deleter(r);
  auto at2 = a[0].t(); DLTensor nt; at::toDLPackNonOwning(at2, &nt); pr("nonowning", nt, at2);
  for (auto dt : {torch::kBool, torch::kByte, torch::kChar, torch::kHalf, torch::kBFloat16, torch::kDouble}) {
    auto d = at::getDLDataType(torch::empty({1}, dt));
    std::cout << dt << " -> " << int(d.code) << "/" << int(d.bits) << " -> " << at::toScalarType(d) << "\n";
  }
  auto d = at::torchDeviceToDLDevice(at::Device(at::kCPU)); std::cout << "cpu dl " << d.device_type << ":" << d.device_id << "\n";
  std::cout << "dl cuda 1 -> " << at::dlDeviceToTorchDevice(kDLCUDA, 1) << "\n";
  std::cout << "maybeCopy same " << (at::maybeCopyTensor(a, std::nullopt, std::nullopt).data_ptr() == a.data_ptr())
            << " copy " << (at::maybeCopyTensor(a, std::nullopt, true).data_ptr() == a.data_ptr()) << "\n";
  std::cout << at::DLPackTraits<DLManagedTensorVersioned>::capsule << " " << at::DLPackTraits<DLManagedTensor>::used << "\n";
  for (auto bad : {DLDataType{kDLFloat, 32, 2}, DLDataType{kDLComplex, 64, 1}, DLDataType{kDLUInt, 16, 1}}) {
    try { at::toScalarType(bad); std::cout << "accepted\n"; } catch (const c10::Error&) { std::cout << "raised\n"; }
  }
}
