// torch::pickle_save / torch::pickle_load: PyTorch's checkpoint format (a zip of a pickle and raw storages).
//
// Note [Checkpoint pickle]
// torch.save and libtorch's pickle_save write pickle protocol 2: the value as opcodes, each tensor as a call
// of torch._utils._rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks), where `storage`
// is a persistent id ('storage', torch.<Type>Storage, key, location, numel) whose bytes are the record
// `<archive>/data/<key>`. Tensors naming the same key share one storage. The reader here is not Python's
// pickle: it runs only the opcodes those writers emit (plus the few of protocols 3-4 that cost nothing),
// and a GLOBAL opcode names one of a fixed list of functions and classes, each of which the reader
// interprets itself (nothing is looked up or called by name). The list is what the writers use for the
// values IValue can hold:
//   collections.OrderedDict            an empty dict (its BUILD state, a state_dict's `_metadata`, is dropped)
//   torch._utils._rebuild_tensor_v2    a tensor (also _rebuild_tensor, without requires_grad and hooks)
//   torch._utils._rebuild_parameter    the tensor, with requires_grad set (what nn.Parameter pickles to)
//   torch.<Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool>Storage   only inside a persistent id
//   torch.jit._pickle.restore_type_tag the object itself (libtorch's container type annotations)
//   torch.jit._pickle.build_{intlist,tensorlist,doublelist,boollist}   the list (int and tensor lists typed)
//
// Note [Hostile checkpoints]
// Every read is bounds-checked and every failure is a c10::Error starting "[pickle_load] ". Allocation is
// bounded by the input: storages are exactly as large as their records, tensors must lie inside their
// storage, and each stack item, memo entry and container element costs at least one opcode byte. Two rules
// keep values finite and shallow: a list or dict can be changed only until it is placed in another
// container (so no container can come to hold itself, directly or not: no reference cycles to leak or to
// loop over), and nesting is limited to kMaxDepth levels (destroying a deeper value would recurse that deep).
#include <torch/serialize/pickle.h>
#include <torch/serialize/pickle_parameters.h>

#include "serialize_zip.h"

#include <ATen/ATen.h>
#include <algorithm>
#include <ATen/core/GradMode.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

namespace torch {
namespace {

constexpr const char* kP = "[pickle_load] ";
constexpr int kMaxDepth = 1000;

// ------------------------------------------------------------------------------------------- dtypes

struct StorageName {
  const char* name;
  at::ScalarType dtype;
};
constexpr StorageName kStorages[] = {
    {"FloatStorage", at::kFloat}, {"DoubleStorage", at::kDouble}, {"HalfStorage", at::kHalf},
    {"BFloat16Storage", at::kBFloat16}, {"LongStorage", at::kLong}, {"IntStorage", at::kInt},
    {"ShortStorage", at::kShort}, {"CharStorage", at::kChar}, {"ByteStorage", at::kByte},
    {"BoolStorage", at::kBool},
};

const char* storage_name(at::ScalarType t) {
  for (const auto& s : kStorages)
    if (s.dtype == t) return s.name;
  EMBER_CHECK(false, "[pickle_save] no PyTorch storage type for dtype ", c10::dtypeName(t));
  return nullptr;
}

// ------------------------------------------------------------------------------------------- reader

enum class Global {
  OrderedDict, RebuildTensorV2, RebuildTensor, RebuildParameter, StorageType, RestoreTypeTag,
  BuildIntList, BuildTensorList, BuildDoubleList, BuildBoolList,
};

/// One object on the unpickler's stack or in its memo. Copies of a handle (memo, DUP) share the object,
/// so the sealed flag and depth are seen through every copy.
struct Obj {
  enum class Kind { Value, Global, Storage, RawTuple } kind = Kind::Value;
  std::vector<std::shared_ptr<Obj>> items;  // RawTuple: a tuple holding a global or storage
  c10::IValue value;
  Global global = Global::OrderedDict;
  at::ScalarType dtype = at::kFloat;  // StorageType global, Storage
  c10::Storage storage;               // Storage
  int depth = 0;                      // nesting levels below this container
  bool sealed = false;                // placed in another container: no longer changes
};
using ObjPtr = std::shared_ptr<Obj>;

std::string describe(const Obj& o) {
  switch (o.kind) {
    case Obj::Kind::Global: return "a global";
    case Obj::Kind::Storage: return "a storage";
    case Obj::Kind::RawTuple: return "a tuple holding a global or storage";
    case Obj::Kind::Value: break;
  }
  return o.value.tagKind();
}

std::string hex_bytes(const char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i) s += ' ';
    s += digits[static_cast<unsigned char>(p[i]) >> 4];
    s += digits[static_cast<unsigned char>(p[i]) & 15];
  }
  return s;
}

class Unpickler {
 public:
  Unpickler(std::string_view pkl, const serialize::zip::Reader& zip, std::string archive)
      : p_(pkl), zip_(zip), archive_(std::move(archive)) {}

  c10::IValue run();

 private:
  // -- input
  size_t need(size_t n, const char* what) {
    EMBER_CHECK(p_.size() - pos_ >= n, kP, "expected ", n, " more bytes of data.pkl for ", what, " at offset ", pos_,
                "; the pickle ends after ", p_.size() - pos_);
    const size_t at = pos_;
    pos_ += n;
    return at;
  }
  uint64_t le(size_t n, const char* what) {
    const size_t at = need(n, what);
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(p_[at + i]);
    return v;
  }
  std::string_view bytes(uint64_t n, const char* what) {
    EMBER_CHECK(n <= p_.size() - pos_, kP, "expected ", n, " bytes of ", what, " at offset ", pos_,
                "; the pickle ends after ", p_.size() - pos_);
    const size_t at = need(static_cast<size_t>(n), what);
    return p_.substr(at, static_cast<size_t>(n));
  }
  std::string line(const char* what) {
    const size_t nl = p_.find('\n', pos_);
    EMBER_CHECK(nl != std::string_view::npos, kP, "expected a newline-terminated ", what, " at offset ", pos_);
    std::string s(p_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }

  // -- stack
  ObjPtr pop(const char* op) {
    EMBER_CHECK(stack_.size() > floor(), kP, op, " expected an object on the stack; found none");
    ObjPtr o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  ObjPtr& top(const char* op) {
    EMBER_CHECK(stack_.size() > floor(), kP, op, " expected an object on the stack; found none");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  /// The objects above the last mark, which is removed.
  std::vector<ObjPtr> pop_mark(const char* op) {
    EMBER_CHECK(!marks_.empty(), kP, op, " expected a MARK before it; found none");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ObjPtr> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  void push_value(c10::IValue v, int depth = 0) {
    auto o = std::make_shared<Obj>();
    o->value = std::move(v);
    o->depth = depth;
    stack_.push_back(std::move(o));
  }
  const c10::IValue& value_of(const ObjPtr& o, const char* what) {
    EMBER_CHECK(o->kind == Obj::Kind::Value, kP, "expected ", what, " to be a value; found ", describe(*o));
    return o->value;
  }

  // -- containers
  /// Places `item` into `container` (both stack objects): seals the item, updates the depth.
  void adopt(Obj& container, Obj& item, const char* op) {
    EMBER_CHECK(!container.sealed, kP, op, " cannot change a ", container.value.tagKind(),
                " that is already inside another container");
    EMBER_CHECK(&container != &item, kP, op, " cannot put a ", container.value.tagKind(), " inside itself");
    EMBER_CHECK(item.kind == Obj::Kind::Value, kP, op, " expected a value to put in a ", container.value.tagKind(),
                "; found ", describe(item));
    item.sealed = true;
    container.depth = std::max(container.depth, item.depth + 1);
    EMBER_CHECK(container.depth <= kMaxDepth, kP, "expected values nested at most ", kMaxDepth, " levels deep");
  }
  void append(Obj& list, std::vector<ObjPtr>& items, const char* op) {
    EMBER_CHECK(list.kind == Obj::Kind::Value && list.value.isList() && !list.value.isIntList() && !list.value.isTensorList(), kP, op,
                " expected a list to append to; found ", describe(list));
    auto l = list.value.toList();
    for (auto& it : items) {
      adopt(list, *it, op);
      l.push_back(it->value);
    }
  }
  void set_items(Obj& dict, std::vector<ObjPtr>& items, const char* op) {
    EMBER_CHECK(dict.kind == Obj::Kind::Value && dict.value.isGenericDict(), kP, op,
                " expected a dict to add items to; found ", describe(dict));
    EMBER_CHECK(items.size() % 2 == 0, kP, op, " expected key-value pairs; got an odd number of objects (",
                items.size(), ")");
    auto d = dict.value.toGenericDict();
    for (size_t i = 0; i < items.size(); i += 2) {
      const c10::IValue& k = value_of(items[i], "a dict key");
      EMBER_CHECK(k.isString() || k.isInt() || k.isBool() || k.isDouble() || k.isNone(), kP,
                  "expected dict keys of type str, int, float, bool or None; got ", k.tagKind());
      adopt(dict, *items[i + 1], op);
      d.insert_or_assign(k, items[i + 1]->value);
    }
  }
  /// A tuple of values, or (when an item is a global or storage: arguments or a persistent id) a RawTuple.
  ObjPtr make_tuple(std::vector<ObjPtr> items, const char* op) {
    auto o = std::make_shared<Obj>();
    bool raw = false;
    for (auto& it : items) raw = raw || it->kind != Obj::Kind::Value;
    if (raw) {
      o->kind = Obj::Kind::RawTuple;
      for (auto& it : items) {
        it->sealed = true;
        o->depth = std::max(o->depth, it->depth + 1);
      }
      EMBER_CHECK(o->depth <= kMaxDepth, kP, "expected values nested at most ", kMaxDepth, " levels deep");
      o->items = std::move(items);
      return o;
    }
    std::vector<c10::IValue> elems;
    elems.reserve(items.size());
    for (auto& it : items) {
      adopt(*o, *it, op);
      elems.push_back(it->value);
    }
    o->value = c10::ivalue::Tuple::create(std::move(elems));
    o->items = std::move(items);
    return o;
  }

  // -- globals, calls, persistent ids
  ObjPtr global(const std::string& module, const std::string& name);
  ObjPtr reduce(const ObjPtr& callable, const ObjPtr& args);
  ObjPtr persistent_load(const ObjPtr& pid);
  at::Tensor rebuild_tensor(const std::vector<ObjPtr>& a, bool v2);

  std::string_view p_;
  size_t pos_ = 0;
  const serialize::zip::Reader& zip_;
  std::string archive_;
  std::vector<ObjPtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, ObjPtr> memo_;
  struct Loaded {
    c10::Storage storage;
    at::ScalarType dtype;
  };
  std::map<std::string, Loaded> storages_;

 public:
  std::vector<at::Tensor> parameters;  // what _rebuild_parameter made, in order
};

ObjPtr Unpickler::global(const std::string& module, const std::string& name) {
  auto o = std::make_shared<Obj>();
  o->kind = Obj::Kind::Global;
  std::optional<Global> g;
  if (module == "collections" && name == "OrderedDict") g = Global::OrderedDict;
  else if (module == "torch._utils" && name == "_rebuild_tensor_v2") g = Global::RebuildTensorV2;
  else if (module == "torch._utils" && name == "_rebuild_tensor") g = Global::RebuildTensor;
  else if (module == "torch._utils" && name == "_rebuild_parameter") g = Global::RebuildParameter;
  else if (module == "torch.jit._pickle" && name == "restore_type_tag") g = Global::RestoreTypeTag;
  else if (module == "torch.jit._pickle" && name == "build_intlist") g = Global::BuildIntList;
  else if (module == "torch.jit._pickle" && name == "build_tensorlist") g = Global::BuildTensorList;
  else if (module == "torch.jit._pickle" && name == "build_doublelist") g = Global::BuildDoubleList;
  else if (module == "torch.jit._pickle" && name == "build_boollist") g = Global::BuildBoolList;
  else if (module == "torch") {
    for (const auto& s : kStorages)
      if (name == s.name) {
        g = Global::StorageType;
        o->dtype = s.dtype;
      }
  }
  EMBER_CHECK(g.has_value(), kP, "expected a global on Ember's allow-list (collections.OrderedDict, torch._utils."
              "_rebuild_tensor_v2, _rebuild_tensor, _rebuild_parameter, torch.<Type>Storage, torch.jit._pickle."
              "restore_type_tag/build_*list); got '", module, ".", name, "'");
  o->global = *g;
  return o;
}

at::Tensor Unpickler::rebuild_tensor(const std::vector<ObjPtr>& a, bool v2) {
  const char* fn = v2 ? "_rebuild_tensor_v2" : "_rebuild_tensor";
  if (v2) {
    EMBER_CHECK(a.size() == 6 || a.size() == 7, kP, fn, " expected 6 or 7 arguments; got ", a.size());
  } else {
    EMBER_CHECK(a.size() == 4, kP, fn, " expected 4 arguments; got ", a.size());
  }
  EMBER_CHECK(a[0]->kind == Obj::Kind::Storage, kP, fn, " expected a storage (a persistent id) as its first argument; got ",
              describe(*a[0]));
  const c10::Storage& storage = a[0]->storage;
  const at::ScalarType dtype = a[0]->dtype;
  const int64_t storage_numel = static_cast<int64_t>(storage.nbytes() / c10::elementSize(dtype));
  const c10::IValue& off = value_of(a[1], "the storage offset");
  EMBER_CHECK(off.isInt() && off.toInt() >= 0, kP, fn, " expected a storage offset that is an int >= 0; got ",
              off.isInt() ? std::to_string(off.toInt()) : off.tagKind());
  auto int_tuple = [&](const ObjPtr& o, const char* what) {
    const c10::IValue& v = value_of(o, what);
    EMBER_CHECK(v.isTuple(), kP, fn, " expected ", what, " as a tuple of ints; got ", v.tagKind());
    std::vector<int64_t> out;
    for (const auto& e : v.toTupleRef().elements()) {
      EMBER_CHECK(e.isInt() && e.toInt() >= 0, kP, fn, " expected ", what, " to be ints >= 0; got ",
                  e.isInt() ? std::to_string(e.toInt()) : e.tagKind());
      out.push_back(e.toInt());
    }
    return out;
  };
  const std::vector<int64_t> sizes = int_tuple(a[2], "sizes"), strides = int_tuple(a[3], "strides");
  EMBER_CHECK(sizes.size() == strides.size(), kP, fn, " expected as many strides as sizes; got ", sizes.size(),
              " sizes and ", strides.size(), " strides");
  EMBER_CHECK(sizes.size() <= 64, kP, fn, " expected at most 64 dimensions; got ", sizes.size());
  // Every element must lie inside the storage: offset + sum((size - 1) * stride) < storage numel.
  int64_t numel = 1, last = off.toInt();
  bool overflow = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t step = 0;
    overflow = overflow || __builtin_mul_overflow(numel, sizes[d], &numel);
    if (sizes[d] > 0) overflow = overflow || __builtin_mul_overflow(sizes[d] - 1, strides[d], &step) ||
                                 __builtin_add_overflow(last, step, &last);
  }
  EMBER_CHECK(!overflow, kP, fn, " expected sizes ", at::IntArrayRef(sizes), " and strides ", at::IntArrayRef(strides),
              " whose extent fits in int64");
  if (numel > 0) {
    EMBER_CHECK(last < storage_numel, kP, fn, " expected a tensor inside its storage of ", storage_numel,
                " elements; sizes ", at::IntArrayRef(sizes), ", strides ", at::IntArrayRef(strides), " and offset ",
                off.toInt(), " reach element ", last);
  } else {
    EMBER_CHECK(off.toInt() <= storage_numel, kP, fn, " expected a storage offset within the storage's ", storage_numel,
                " elements; got ", off.toInt());
  }
  auto impl = c10::make_intrusive<c10::TensorImpl>(storage, dtype);
  impl->set_storage_offset(off.toInt());
  impl->set_sizes_and_strides(sizes, strides);
  at::Tensor t(std::move(impl));
  if (v2) {
    const c10::IValue& rg = value_of(a[4], "requires_grad");
    EMBER_CHECK(rg.isBool(), kP, fn, " expected requires_grad as a bool; got ", rg.tagKind());
    for (size_t i = 5; i < a.size(); ++i) {
      const c10::IValue& h = value_of(a[i], i == 5 ? "the backward hooks" : "the tensor metadata");
      EMBER_CHECK(h.isNone() || (h.isGenericDict() && h.toGenericDict().empty()), kP, fn, " expected ",
                  i == 5 ? "no backward hooks" : "no tensor metadata", " (an empty dict); got ",
                  h.isGenericDict() ? std::to_string(h.toGenericDict().size()) + " entries" : h.tagKind());
    }
    if (rg.toBool()) {
      EMBER_CHECK(at::isFloatingType(dtype), kP, fn, " expected requires_grad only on floating-point tensors; got it on ",
                  c10::dtypeName(dtype));
      t.set_requires_grad(true);
    }
  }
  return t;
}

ObjPtr Unpickler::persistent_load(const ObjPtr& pid) {
  const bool tuple = pid->kind == Obj::Kind::RawTuple || (pid->kind == Obj::Kind::Value && pid->value.isTuple());
  EMBER_CHECK(tuple && pid->items.size() == 5, kP,
              "expected a persistent id ('storage', torch.<Type>Storage, key, location, numel); got ",
              tuple ? std::to_string(pid->items.size()) + " items" : describe(*pid));
  const auto& it = pid->items;
  EMBER_CHECK(it[0]->kind == Obj::Kind::Value && it[0]->value.isString() && it[0]->value.toStringRef() == "storage", kP,
              "expected a persistent id starting with 'storage'");
  EMBER_CHECK(it[1]->kind == Obj::Kind::Global && it[1]->global == Global::StorageType, kP,
              "expected a storage type (torch.<Type>Storage) in the persistent id; got ", describe(*it[1]));
  const at::ScalarType dtype = it[1]->dtype;
  EMBER_CHECK(it[2]->kind == Obj::Kind::Value && it[2]->value.isString(), kP,
              "expected a storage key (a string) in the persistent id; got ", describe(*it[2]));
  EMBER_CHECK(it[3]->kind == Obj::Kind::Value && it[3]->value.isString(), kP,
              "expected a storage location (a string) in the persistent id; got ", describe(*it[3]));
  EMBER_CHECK(it[4]->kind == Obj::Kind::Value && it[4]->value.isInt() && it[4]->value.toInt() >= 0, kP,
              "expected a storage size (an int >= 0) in the persistent id; got ",
              it[4]->value.isInt() ? std::to_string(it[4]->value.toInt()) : describe(*it[4]));
  const std::string& key = it[2]->value.toStringRef();
  const int64_t numel = it[4]->value.toInt();
  auto o = std::make_shared<Obj>();
  o->kind = Obj::Kind::Storage;
  o->dtype = dtype;
  auto found = storages_.find(key);
  if (found != storages_.end()) {
    EMBER_CHECK(found->second.dtype == dtype, kP, "expected storage '", key, "' to be read with one dtype; got ",
                c10::dtypeName(found->second.dtype), " and ", c10::dtypeName(dtype));
    EMBER_CHECK(static_cast<int64_t>(found->second.storage.nbytes() / c10::elementSize(dtype)) == numel, kP,
                "expected storage '", key, "' to have one size; got ",
                found->second.storage.nbytes() / c10::elementSize(dtype), " and ", numel, " elements");
    o->storage = found->second.storage;
    return o;
  }
  const std::string name = archive_ + "/data/" + key;
  const serialize::zip::Record* rec = zip_.find(name);
  EMBER_CHECK(rec != nullptr, kP, "expected a record '", name, "' holding storage '", key, "'; the archive has none");
  uint64_t nbytes = 0;
  EMBER_CHECK(!__builtin_mul_overflow(static_cast<uint64_t>(numel), c10::elementSize(dtype), &nbytes) &&
                  nbytes == rec->size,
              kP, "expected record '", name, "' to hold ", numel, " elements of ", c10::dtypeName(dtype), " (",
              numel, " x ", c10::elementSize(dtype), " bytes); it holds ", rec->size, " bytes");
  std::string_view bytes = zip_.read(*rec);
  c10::Storage storage = c10::Storage::allocate(bytes.size(), c10::GetCPUAllocator());
  if (!bytes.empty()) std::memcpy(storage._mutable_data_internal(), bytes.data(), bytes.size());
  if (dtype == at::kBool) {
    const auto* b = static_cast<const unsigned char*>(storage.data());
    for (size_t i = 0; i < bytes.size(); ++i)
      EMBER_CHECK(b[i] <= 1, kP, "expected bool storage '", key, "' to hold bytes 0 or 1; byte ", i, " is ",
                  static_cast<int>(b[i]));
  }
  storages_.emplace(key, Loaded{storage, dtype});
  o->storage = std::move(storage);
  return o;
}

ObjPtr Unpickler::reduce(const ObjPtr& callable, const ObjPtr& args) {
  EMBER_CHECK(callable->kind == Obj::Kind::Global, kP, "REDUCE expected a global to call; got ", describe(*callable));
  EMBER_CHECK(args->kind == Obj::Kind::RawTuple || (args->kind == Obj::Kind::Value && args->value.isTuple()), kP,
              "REDUCE expected a tuple of arguments; got ", describe(*args));
  const std::vector<ObjPtr>& a = args->items;
  auto value_result = [](c10::IValue v) {
    auto o = std::make_shared<Obj>();
    o->value = std::move(v);
    return o;
  };
  auto list_arg = [&](const char* fn) -> const c10::IValue& {
    EMBER_CHECK(a.size() == 1, kP, fn, " expected 1 argument; got ", a.size());
    const c10::IValue& l = value_of(a[0], "its argument");
    EMBER_CHECK(l.isList(), kP, fn, " expected a list; got ", l.tagKind());
    return l;
  };
  switch (callable->global) {
    case Global::OrderedDict:
      EMBER_CHECK(a.empty(), kP, "collections.OrderedDict expected no arguments; got ", a.size());
      return value_result(c10::impl::GenericDict());
    case Global::RebuildTensorV2: return value_result(rebuild_tensor(a, true));
    case Global::RebuildTensor: return value_result(rebuild_tensor(a, false));
    case Global::RebuildParameter: {
      EMBER_CHECK(a.size() == 3, kP, "_rebuild_parameter expected 3 arguments; got ", a.size());
      const c10::IValue& t = value_of(a[0], "the parameter's data");
      const c10::IValue& rg = value_of(a[1], "requires_grad");
      const c10::IValue& h = value_of(a[2], "the backward hooks");
      EMBER_CHECK(t.isTensor() && rg.isBool(), kP, "_rebuild_parameter expected (Tensor, bool, hooks); got (",
                  t.tagKind(), ", ", rg.tagKind(), ", ...)");
      EMBER_CHECK(h.isNone() || (h.isGenericDict() && h.toGenericDict().empty()), kP,
                  "_rebuild_parameter expected no backward hooks (an empty dict)");
      at::Tensor p = t.toTensor();
      if (rg.toBool() != p.requires_grad()) {
        EMBER_CHECK(!rg.toBool() || at::isFloatingType(p.scalar_type()), kP,
                    "expected requires_grad only on floating-point tensors; got it on ", c10::dtypeName(p.scalar_type()));
        p.set_requires_grad(rg.toBool());
      }
      parameters.push_back(p);
      return value_result(p);
    }
    case Global::StorageType:
      EMBER_CHECK(false, kP, "expected a storage type only inside a persistent id; the pickle calls it");
      return nullptr;
    case Global::RestoreTypeTag:
      EMBER_CHECK(a.size() == 2 && a[0]->kind == Obj::Kind::Value && a[1]->kind == Obj::Kind::Value &&
                      a[1]->value.isString(),
                  kP, "restore_type_tag expected (value, type string); got ", a.size(), " arguments");
      return a[0];
    case Global::BuildIntList: {
      std::vector<int64_t> v;
      for (const auto& e : list_arg("build_intlist").toList()) {
        EMBER_CHECK(e.isInt(), kP, "build_intlist expected ints; got ", e.tagKind());
        v.push_back(e.toInt());
      }
      return value_result(std::move(v));
    }
    case Global::BuildTensorList: {
      std::vector<at::Tensor> v;
      for (const auto& e : list_arg("build_tensorlist").toList()) {
        EMBER_CHECK(e.isTensor(), kP, "build_tensorlist expected tensors; got ", e.tagKind());
        v.push_back(e.toTensor());
      }
      return value_result(std::move(v));
    }
    case Global::BuildDoubleList:
    case Global::BuildBoolList: {
      const bool dbl = callable->global == Global::BuildDoubleList;
      c10::impl::GenericList out;
      for (const auto& e : list_arg(dbl ? "build_doublelist" : "build_boollist").toList()) {
        EMBER_CHECK(dbl ? e.isDouble() : e.isBool(), kP, dbl ? "build_doublelist expected floats; got "
                                                              : "build_boollist expected bools; got ", e.tagKind());
        out.push_back(e);
      }
      return value_result(out);
    }
  }
  EMBER_INTERNAL_ASSERT(false, "unknown global");
  return nullptr;
}

c10::IValue Unpickler::run() {
  for (;;) {
    const size_t at = pos_;
    const unsigned char op = static_cast<unsigned char>(p_[need(1, "an opcode")]);
    switch (op) {
      case 0x80: {  // PROTO
        const uint64_t v = le(1, "PROTO");
        EMBER_CHECK(v <= 5, kP, "expected pickle protocol 2 to 5; got ", v);
        break;
      }
      case 0x95: le(8, "FRAME"); break;
      case '.': {  // STOP
        EMBER_CHECK(marks_.empty() && stack_.size() == 1, kP, "expected exactly one object and no open MARK at STOP (",
                    "offset ", at, "); found ", stack_.size(), " objects and ", marks_.size(), " open MARKs");
        return value_of(stack_.back(), "the pickled object");
      }
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '0': pop("POP"); break;
      case '1': pop_mark("POP_MARK"); break;
      case '2': {  // DUP
        ObjPtr t = top("DUP");
        stack_.push_back(std::move(t));
        break;
      }
      case ')': stack_.push_back(make_tuple({}, "EMPTY_TUPLE")); break;
      case 't': stack_.push_back(make_tuple(pop_mark("TUPLE"), "TUPLE")); break;
      case 0x85: case 0x86: case 0x87: {  // TUPLE1-3
        const size_t n = op - 0x84;
        EMBER_CHECK(stack_.size() >= floor() + n, kP, "TUPLE", n, " expected ", n, " objects on the stack; found ",
                    stack_.size() - floor());
        std::vector<ObjPtr> items(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(n)),
                                  std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        stack_.push_back(make_tuple(std::move(items), "TUPLE"));
        break;
      }
      case ']': push_value(c10::impl::GenericList()); break;  // EMPTY_LIST
      case 'l': {                                             // LIST
        auto items = pop_mark("LIST");
        push_value(c10::impl::GenericList());
        append(*stack_.back(), items, "LIST");
        break;
      }
      case 'a': {  // APPEND
        std::vector<ObjPtr> items{pop("APPEND")};
        append(*top("APPEND"), items, "APPEND");
        break;
      }
      case 'e': {  // APPENDS
        auto items = pop_mark("APPENDS");
        append(*top("APPENDS"), items, "APPENDS");
        break;
      }
      case '}': push_value(c10::impl::GenericDict()); break;  // EMPTY_DICT
      case 'd': {                                             // DICT
        auto items = pop_mark("DICT");
        push_value(c10::impl::GenericDict());
        set_items(*stack_.back(), items, "DICT");
        break;
      }
      case 's': {  // SETITEM
        ObjPtr v = pop("SETITEM"), k = pop("SETITEM");
        std::vector<ObjPtr> items{k, v};
        set_items(*top("SETITEM"), items, "SETITEM");
        break;
      }
      case 'u': {  // SETITEMS
        auto items = pop_mark("SETITEMS");
        set_items(*top("SETITEMS"), items, "SETITEMS");
        break;
      }
      case 'N': push_value(c10::IValue()); break;
      case 0x88: push_value(true); break;
      case 0x89: push_value(false); break;
      case 'J': push_value(static_cast<int64_t>(static_cast<int32_t>(le(4, "BININT")))); break;
      case 'K': push_value(static_cast<int64_t>(le(1, "BININT1"))); break;
      case 'M': push_value(static_cast<int64_t>(le(2, "BININT2"))); break;
      case 0x8a: case 0x8b: {  // LONG1, LONG4: little-endian two's complement
        const uint64_t n = op == 0x8a ? le(1, "LONG1") : le(4, "LONG4");
        EMBER_CHECK(n <= 8, kP, "expected an integer of at most 8 bytes (int64); got ", n, " bytes at offset ", at);
        uint64_t v = n ? le(static_cast<size_t>(n), "LONG1") : 0;
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
        push_value(static_cast<int64_t>(v));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian
        const size_t p = need(8, "BINFLOAT");
        uint64_t bits = 0;
        for (size_t i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<unsigned char>(p_[p + i]);
        double d;
        std::memcpy(&d, &bits, 8);
        push_value(d);
        break;
      }
      case 'X': case 0x8c: case 0x8d: {  // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
        const uint64_t n = op == 'X' ? le(4, "BINUNICODE") : op == 0x8c ? le(1, "SHORT_BINUNICODE") : le(8, "BINUNICODE8");
        push_value(std::string(bytes(n, "a string")));
        break;
      }
      case 'q': case 'r': case 0x94: {  // BINPUT, LONG_BINPUT, MEMOIZE
        const uint64_t idx = op == 'q' ? le(1, "BINPUT") : op == 'r' ? le(4, "LONG_BINPUT") : memo_.size();
        memo_[idx] = top("BINPUT");
        break;
      }
      case 'h': case 'j': {  // BINGET, LONG_BINGET
        const uint64_t idx = op == 'h' ? le(1, "BINGET") : le(4, "LONG_BINGET");
        auto it = memo_.find(idx);
        EMBER_CHECK(it != memo_.end(), kP, "BINGET expected memo entry ", idx, " to exist at offset ", at);
        stack_.push_back(it->second);
        break;
      }
      case 'c': {  // GLOBAL
        const std::string module = line("GLOBAL module"), name = line("GLOBAL name");
        stack_.push_back(global(module, name));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        ObjPtr name = pop("STACK_GLOBAL"), module = pop("STACK_GLOBAL");
        EMBER_CHECK(name->kind == Obj::Kind::Value && name->value.isString() && module->kind == Obj::Kind::Value &&
                        module->value.isString(),
                    kP, "STACK_GLOBAL expected two strings");
        stack_.push_back(global(module->value.toStringRef(), name->value.toStringRef()));
        break;
      }
      case 'R': {  // REDUCE
        ObjPtr args = pop("REDUCE"), callable = pop("REDUCE");
        stack_.push_back(reduce(callable, args));
        break;
      }
      case 'Q': {  // BINPERSID
        ObjPtr pid = pop("BINPERSID");
        stack_.push_back(persistent_load(pid));
        break;
      }
      case 'b': {  // BUILD: only an OrderedDict's attributes (a state_dict's _metadata), which are dropped
        ObjPtr state = pop("BUILD");
        const ObjPtr& obj = top("BUILD");
        EMBER_CHECK(obj->kind == Obj::Kind::Value && obj->value.isGenericDict(), kP,
                    "BUILD expected an OrderedDict to set attributes on; got ", describe(*obj));
        EMBER_CHECK(state->kind == Obj::Kind::Value && (state->value.isNone() || state->value.isGenericDict()), kP,
                    "BUILD expected attributes as a dict or None; got ", describe(*state));
        break;
      }
      default:
        EMBER_CHECK(false, kP, "expected a pickle opcode of protocol 2 that torch.save writes; got 0x",
                    hex_bytes(p_.data() + at, 1), " at offset ", at, " of data.pkl");
    }
  }
}

// ------------------------------------------------------------------------------------------- writer

class Pickler {
 public:
  std::string out;
  struct StorageOut {
    c10::Storage storage;
    at::ScalarType dtype;
    std::string key;
  };
  std::vector<StorageOut> storages;

  std::vector<const c10::TensorImpl*> parameters;  // tensors to write as nn.Parameter

  void run(const c10::IValue& v) {
    op(0x80);
    op(2);
    write(v, 0);
    op('.');
  }

 private:
  void op(unsigned char c) { out.push_back(static_cast<char>(c)); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void put_memo() {
    if (next_memo_ < 256) {
      op('q');
      le(next_memo_, 1);
    } else {
      op('r');
      le(next_memo_, 4);
    }
    ++next_memo_;
  }
  void get_memo(uint32_t idx) {
    if (idx < 256) {
      op('h');
      le(idx, 1);
    } else {
      op('j');
      le(idx, 4);
    }
  }
  void global(const std::string& module, const std::string& name) {
    const std::string key = module + "\n" + name;
    auto it = globals_.find(key);
    if (it != globals_.end()) return get_memo(it->second);
    op('c');
    out += key;
    out += '\n';
    globals_[key] = next_memo_;
    put_memo();
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      op('M');
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
      op('J');
      le(static_cast<uint64_t>(v), 4);
    } else {
      op(0x8a);
      op(8);
      le(static_cast<uint64_t>(v), 8);
    }
  }
  void string(const std::string& s) {
    op('X');
    EMBER_CHECK(s.size() <= 0xffffffffu, "[pickle_save] expected strings shorter than 4 GiB; got ", s.size(), " bytes");
    le(s.size(), 4);
    out += s;
  }
  void int_tuple(at::IntArrayRef v) {
    if (v.size() == 0) return op(')');
    if (v.size() > 3) op('(');
    for (int64_t x : v) integer(x);
    op(v.size() > 3 ? 't' : static_cast<unsigned char>(0x84 + v.size()));
  }
  void tensor(at::Tensor t) {
    EMBER_CHECK(t.defined(), "[pickle_save] expected defined tensors; got an undefined one");
    if (!parameters.empty() &&
        std::find(parameters.begin(), parameters.end(), t.unsafeGetTensorImpl()) != parameters.end()) {
      // As Python pickles an nn.Parameter: _rebuild_parameter(<its data, not requiring grad>,
      // requires_grad, OrderedDict()) (no backward hooks), memoized: the same parameter again is a BINGET,
      // so a reader gives back one object.
      auto [it, added] = parameter_memo_.try_emplace(t.unsafeGetTensorImpl(), 0);
      if (!added) return get_memo(it->second);
      const bool requires_grad = t.requires_grad();
      global("torch._utils", "_rebuild_parameter");
      op('(');
      tensor_data(t.detach());
      op(requires_grad ? 0x88 : 0x89);
      global("collections", "OrderedDict");
      op(')');
      op('R');
      op('t');
      op('R');
      it->second = next_memo_;
      put_memo();
      return;
    }
    tensor_data(std::move(t));
  }
  void tensor_data(at::Tensor t) {
    if (!t.is_cpu()) t = t.cpu();  // its own storage: sharing between device tensors is not kept
    const at::ScalarType dtype = t.scalar_type();
    const c10::Storage& s = t.storage();
    const size_t item = c10::elementSize(dtype);
    EMBER_CHECK(s.nbytes() % item == 0, "[pickle_save] expected a storage of whole ", c10::dtypeName(dtype),
                " elements; it has ", s.nbytes(), " bytes");
    auto [it, added] = storage_index_.try_emplace(s.unsafeGetStorageImpl(), storages.size());
    if (added) storages.push_back({s, dtype, std::to_string(storages.size())});
    const StorageOut& so = storages[it->second];
    EMBER_CHECK(so.dtype == dtype, "[pickle_save] expected tensors sharing a storage to have one dtype; got ",
                c10::dtypeName(so.dtype), " and ", c10::dtypeName(dtype));
    global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    if (added) {
      // The persistent id, its result memoized: later tensors on this storage get it back with BINGET, which
      // libtorch's reader needs to share the storage (Python's also shares by key).
      op('(');
      string("storage");
      global("torch", storage_name(dtype));
      string(so.key);
      string("cpu");
      integer(static_cast<int64_t>(s.nbytes() / item));
      op('t');
      op('Q');
      storage_memo_[it->second] = next_memo_;
      put_memo();
    } else {
      get_memo(storage_memo_.at(it->second));
    }
    integer(t.storage_offset());
    int_tuple(t.sizes());
    int_tuple(t.strides());
    op(t.requires_grad() ? 0x88 : 0x89);
    global("collections", "OrderedDict");
    op(')');
    op('R');
    op('t');
    op('R');
  }
  void write(const c10::IValue& v, int depth) {
    EMBER_CHECK(depth <= kMaxDepth, "[pickle_save] expected values nested at most ", kMaxDepth,
                " levels deep (or a container that holds itself)");
    if (v.isNone()) return op('N');
    if (v.isBool()) return op(v.toBool() ? 0x88 : 0x89);
    if (v.isInt()) return integer(v.toInt());
    if (v.isDouble()) {
      op('G');
      uint64_t bits;
      const double d = v.toDouble();
      std::memcpy(&bits, &d, 8);
      for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
      return;
    }
    if (v.isString()) return string(v.toStringRef());
    if (v.isTensor()) return tensor(v.toTensor());
    if (v.isList()) {
      op(']');
      const auto l = v.toList();
      if (l.empty()) return;
      op('(');
      for (const auto& e : l) write(e, depth + 1);
      return op('e');
    }
    if (v.isGenericDict()) {
      op('}');
      const auto d = v.toGenericDict();
      if (d.empty()) return;
      op('(');
      for (const auto& e : d) {
        write(e.key(), depth + 1);
        write(e.value(), depth + 1);
      }
      return op('u');
    }
    if (v.isTuple()) {
      const auto& el = v.toTupleRef().elements();
      if (el.empty()) return op(')');
      if (el.size() > 3) op('(');
      for (const auto& e : el) write(e, depth + 1);
      return op(el.size() > 3 ? 't' : static_cast<unsigned char>(0x84 + el.size()));
    }
    EMBER_CHECK(false, "[pickle_save] cannot save a value of type ", v.tagKind());
  }

  std::unordered_map<std::string, uint32_t> globals_;
  std::unordered_map<const c10::StorageImpl*, size_t> storage_index_;
  std::unordered_map<size_t, uint32_t> storage_memo_;  // storage -> memo index of its persistent_load result
  std::unordered_map<const c10::TensorImpl*, uint32_t> parameter_memo_;  // parameter -> memo index
  uint32_t next_memo_ = 0;
};

}  // namespace

std::vector<char> pickle_save(const c10::IValue& ivalue) { return pickle_save(ivalue, {}); }

std::vector<char> pickle_save(const c10::IValue& ivalue, const std::vector<const c10::TensorImpl*>& parameters) {
  Pickler p;
  p.parameters = parameters;
  p.run(ivalue);
  serialize::zip::Writer w;
  w.add("archive/data.pkl", p.out.data(), p.out.size());
  w.add("archive/byteorder", "little", 6);
  for (const auto& s : p.storages) w.add("archive/data/" + s.key, s.storage.data(), s.storage.nbytes());
  w.add("archive/version", "3\n", 2);
  return w.finish();
}

c10::IValue pickle_load(const std::vector<char>& data) { return pickle_load(data, nullptr); }

c10::IValue pickle_load(const std::vector<char>& data, std::vector<at::Tensor>* parameters) {
  EMBER_CHECK(data.size() >= 4 && std::memcmp(data.data(), "PK\x03\x04", 4) == 0, kP,
              "expected a zip archive (starting 50 4b 03 04) as torch.save and torch::pickle_save write; got ",
              data.size() < 4 ? std::to_string(data.size()) + " bytes" : "bytes " + hex_bytes(data.data(), 4),
              data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x80
                  ? " (a bare pickle, or torch.save's format before PyTorch 1.6, which Ember does not read)"
                  : "");
  serialize::zip::Reader zip(data.data(), data.size(), kP);
  const serialize::zip::Record* pkl = nullptr;
  for (const auto& r : zip.records()) {
    const size_t slash = r.name.find('/');
    if (slash == std::string::npos || slash == 0 || r.name.compare(slash, std::string::npos, "/data.pkl") != 0)
      continue;
    EMBER_CHECK(pkl == nullptr, kP, "expected one '<archive>/data.pkl' record; found '", pkl ? pkl->name : "", "' and '",
                r.name, "'");
    pkl = &r;
  }
  EMBER_CHECK(pkl != nullptr, kP, "expected a record '<archive>/data.pkl' in the zip archive; found none among its ",
              zip.records().size(), " records");
  const std::string archive = pkl->name.substr(0, pkl->name.size() - 9);
  if (const auto* bo = zip.find(archive + "/byteorder")) {
    const std::string_view order = zip.read(*bo);
    EMBER_CHECK(order == "little", kP, "expected little-endian storages (byteorder 'little'); got '", order, "'");
  }
  Unpickler u(zip.read(*pkl), zip, archive);
  c10::IValue v = u.run();
  if (parameters) parameters->insert(parameters->end(), u.parameters.begin(), u.parameters.end());
  return v;
}

}  // namespace torch
