#pragma once
// c10::IValue: one value of a small set of types, with libtorch's names. Custom autograd Functions keep
// saved_data in it, and torch::pickle_save / pickle_load (PyTorch checkpoints) read and write it:
//
//   c10::impl::GenericDict d;                       // insertion-ordered, keys compared by value
//   d.insert("weight", torch::ones({2, 2}));
//   c10::impl::GenericList l;
//   l.push_back(1); l.push_back("two");
//   d.insert("extra", l);
//   c10::IValue v(d);
//   for (const auto& e : v.toGenericDict()) std::cout << e.key().toStringRef() << "\n";
//
// Lists, dicts and tuples are handles (copies share the elements), as in libtorch.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace c10 {

class IValue;

/// A list of values shared by every copy of the handle (libtorch's c10::impl::GenericList). Ember's
/// other c10::List<T> (ATen/core/Tensor.h, for `Tensor?[]` op arguments) is a plain vector.
template <>
class List<IValue> {
 public:
  using value_type = IValue;
  using const_iterator = std::vector<IValue>::const_iterator;

  // Defined below IValue, which must be complete there (clang instantiates them eagerly).
  List();
  explicit List(std::vector<IValue> v);

  size_t size() const;
  bool empty() const;
  /// The element at `i` (raises when out of range).
  const IValue& get(size_t i) const;
  const IValue& operator[](size_t i) const { return get(i); }
  void set(size_t i, IValue value);
  void push_back(IValue value);
  void reserve(size_t n);
  void clear();
  const_iterator begin() const;
  const_iterator end() const;
  /// A copy of the elements.
  std::vector<IValue> vec() const;
  /// The elements themselves (shared with every copy of this handle).
  const std::vector<IValue>& elements() const { return *v_; }
  /// True if both handles share one list.
  bool is(const List& o) const { return v_ == o.v_; }

 private:
  std::shared_ptr<std::vector<IValue>> v_;
};

/// One key and its value in a Dict (iteration yields these: `e.key()`, `e.value()`).
template <typename K, typename V>
class DictEntry {
 public:
  DictEntry(K k, V v) : k_(std::move(k)), v_(std::move(v)) {}
  const K& key() const { return k_; }
  const V& value() const { return v_; }
  void setValue(V v) { v_ = std::move(v); }

 private:
  K k_;
  V v_;
};

namespace detail {
/// Hash and equality of dict keys: None, bool, int, double and string by value, tensors by identity.
struct DictKeyHash {
  size_t operator()(const IValue& v) const;
};
struct DictKeyEqual {
  bool operator()(const IValue& a, const IValue& b) const;
};
}  // namespace detail

/// An insertion-ordered map shared by every copy of the handle (libtorch's c10::Dict; Ember has only
/// Dict<IValue, IValue>, alias c10::impl::GenericDict).
template <typename K, typename V>
class Dict {
 public:
  using Entry = DictEntry<K, V>;
  using iterator = typename std::vector<Entry>::iterator;
  using const_iterator = typename std::vector<Entry>::const_iterator;

  Dict() : d_(std::make_shared<Impl>()) {}

  size_t size() const { return d_->entries.size(); }
  bool empty() const { return d_->entries.empty(); }
  const_iterator begin() const { return d_->entries.begin(); }
  const_iterator end() const { return d_->entries.end(); }
  iterator begin() { return d_->entries.begin(); }
  iterator end() { return d_->entries.end(); }
  /// Adds `key` -> `value` unless `key` is present; returns the entry and whether it was added.
  std::pair<iterator, bool> insert(K key, V value);
  /// Adds `key` -> `value`, replacing the value of a present key; returns the entry and whether it was added.
  std::pair<iterator, bool> insert_or_assign(K key, V value);
  /// The entry of `key`, or end().
  const_iterator find(const K& key) const;
  bool contains(const K& key) const { return find(key) != end(); }
  /// The value of `key` (raises when absent).
  const V& at(const K& key) const;
  void clear() { d_->entries.clear(); d_->index.clear(); }
  /// True if both handles share one dict.
  bool is(const Dict& o) const { return d_ == o.d_; }

 private:
  struct Impl {
    std::vector<Entry> entries;
    std::unordered_map<K, size_t, detail::DictKeyHash, detail::DictKeyEqual> index;
  };
  std::shared_ptr<Impl> d_;
};

namespace impl {
using GenericList = List<IValue>;
using GenericDict = Dict<IValue, IValue>;
}  // namespace impl

namespace ivalue {
struct Tuple;
}  // namespace ivalue

/// A tagged value: None, Tensor, double, int64, bool, string, int list, tensor list, generic list,
/// generic dict or tuple.
class IValue {
 public:
  IValue() = default;
  IValue(at::Tensor t) : v_(std::move(t)) {}
  IValue(double d) : v_(d) {}
  IValue(bool b) : v_(b) {}
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  IValue(I i) : v_(static_cast<int64_t>(i)) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(const char* s) : v_(std::string(s)) {}
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}
  IValue(at::IntArrayRef v) : v_(v.vec()) {}
  IValue(std::vector<at::Tensor> v) : v_(std::move(v)) {}
  IValue(impl::GenericList l) : v_(std::move(l)) {}
  IValue(impl::GenericDict d) : v_(std::move(d)) {}
  IValue(std::shared_ptr<ivalue::Tuple> t);
  /// A Scalar is stored as the double, int or bool it holds.
  IValue(const at::Scalar& s);

  bool isNone() const { return v_.index() == 0; }
  bool isTensor() const { return std::holds_alternative<at::Tensor>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<at::Tensor>>(v_); }
  /// True for every list: generic, int and tensor lists.
  bool isList() const { return isIntList() || isTensorList() || std::holds_alternative<impl::GenericList>(v_); }
  bool isGenericDict() const { return std::holds_alternative<impl::GenericDict>(v_); }
  bool isTuple() const { return std::holds_alternative<std::shared_ptr<ivalue::Tuple>>(v_); }

  /// Typed access; each raises `[IValue] expected <Type>; got <Type>` on a type mismatch.
  const at::Tensor& toTensor() const;
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const;
  const std::string& toStringRef() const;
  std::vector<int64_t> toIntVector() const;
  std::vector<at::Tensor> toTensorVector() const;
  /// The list as a generic list: the list itself for a generic list, a new list of its elements for an
  /// int or tensor list.
  impl::GenericList toList() const;
  /// The elements of a list (copied for int and tensor lists).
  std::vector<IValue> toListRef() const { return toList().vec(); }
  impl::GenericDict toGenericDict() const;
  std::shared_ptr<ivalue::Tuple> toTuple() const;
  const ivalue::Tuple& toTupleRef() const;
  /// The type held, as libtorch spells it ("None", "Tensor", "Double", "Int", "GenericList", ...).
  std::string tagKind() const;

 private:
  std::variant<std::monostate, at::Tensor, double, int64_t, bool, std::string, std::vector<int64_t>,
               std::vector<at::Tensor>, impl::GenericList, impl::GenericDict, std::shared_ptr<ivalue::Tuple>>
      v_;
};

namespace detail {
[[noreturn]] void list_index_error(size_t i, size_t size);
[[noreturn]] void dict_key_error(const IValue& key);
}  // namespace detail

namespace ivalue {
/// A fixed sequence of values (Python's tuple).
struct Tuple {
  explicit Tuple(std::vector<IValue> elements) : elements_(std::move(elements)) {}
  static std::shared_ptr<Tuple> create(std::vector<IValue> elements) {
    return std::make_shared<Tuple>(std::move(elements));
  }
  const std::vector<IValue>& elements() const { return elements_; }
  size_t size() const { return elements_.size(); }

 private:
  std::vector<IValue> elements_;
};
}  // namespace ivalue

inline List<IValue>::List() : v_(std::make_shared<std::vector<IValue>>()) {}
inline List<IValue>::List(std::vector<IValue> v) : v_(std::make_shared<std::vector<IValue>>(std::move(v))) {}
inline size_t List<IValue>::size() const { return v_->size(); }
inline bool List<IValue>::empty() const { return v_->empty(); }
inline void List<IValue>::reserve(size_t n) { v_->reserve(n); }
inline void List<IValue>::clear() { v_->clear(); }
inline List<IValue>::const_iterator List<IValue>::begin() const { return v_->begin(); }
inline List<IValue>::const_iterator List<IValue>::end() const { return v_->end(); }
inline std::vector<IValue> List<IValue>::vec() const { return *v_; }
inline const IValue& List<IValue>::get(size_t i) const {
  if (i >= v_->size()) detail::list_index_error(i, v_->size());
  return (*v_)[i];
}
inline void List<IValue>::set(size_t i, IValue value) {
  if (i >= v_->size()) detail::list_index_error(i, v_->size());
  (*v_)[i] = std::move(value);
}
inline void List<IValue>::push_back(IValue value) { v_->push_back(std::move(value)); }

template <typename K, typename V>
std::pair<typename Dict<K, V>::iterator, bool> Dict<K, V>::insert(K key, V value) {
  auto [it, added] = d_->index.try_emplace(key, d_->entries.size());
  if (!added) return {d_->entries.begin() + static_cast<std::ptrdiff_t>(it->second), false};
  d_->entries.emplace_back(std::move(key), std::move(value));
  return {d_->entries.end() - 1, true};
}

template <typename K, typename V>
std::pair<typename Dict<K, V>::iterator, bool> Dict<K, V>::insert_or_assign(K key, V value) {
  auto [it, added] = insert(std::move(key), value);
  if (!added) it->setValue(std::move(value));
  return {it, added};
}

template <typename K, typename V>
typename Dict<K, V>::const_iterator Dict<K, V>::find(const K& key) const {
  auto it = d_->index.find(key);
  return it == d_->index.end() ? end() : begin() + static_cast<std::ptrdiff_t>(it->second);
}

template <typename K, typename V>
const V& Dict<K, V>::at(const K& key) const {
  auto it = find(key);
  if (it == end()) detail::dict_key_error(key);
  return it->value();
}

}  // namespace c10

namespace at {
using c10::IValue;
}

EMBER_PUBLIC_END
