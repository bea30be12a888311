#pragma once
// torch::OrderedDict: a map that remembers insertion order (libtorch's container for named
// parameters, buffers and submodules). Items are iterated in the order they were inserted.
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <c10/util/Exception.h>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torch {

template <typename Key, typename Value>
class OrderedDict {
 public:
  /// One entry: `item.key()`, `item.value()`, `*item` (the value), `item->` (the value's members).
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    Value& operator*() noexcept { return pair_.second; }
    const Value& operator*() const noexcept { return pair_.second; }
    Value* operator->() noexcept { return &pair_.second; }
    const Value* operator->() const noexcept { return &pair_.second; }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  /// `key_description` names what the keys are in error messages ("Key", "Parameter", ...).
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const auto& it : items) insert(it.key(), it.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  Iterator begin() { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator begin() const { return items_.begin(); }
  ConstIterator end() const { return items_.end(); }

  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  /// The first / last item; the dictionary must not be empty.
  Item& front() { check_nonempty("front"); return items_.front(); }
  Item& back() { check_nonempty("back"); return items_.back(); }

  /// The item at position `i` in insertion order.
  Item& operator[](size_t i) {
    EMBER_CHECK(i < items_.size(), "[OrderedDict] index ", i, " is out of range for a dictionary of size ", items_.size());
    return items_[i];
  }
  const Item& operator[](size_t i) const {
    EMBER_CHECK(i < items_.size(), "[OrderedDict] index ", i, " is out of range for a dictionary of size ", items_.size());
    return items_[i];
  }
  /// The value stored under `key`; the key must exist.
  Value& operator[](const Key& key) {
    auto* v = find(key);
    EMBER_CHECK(v != nullptr, "[OrderedDict] ", key_description_, " '", key, "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const {
    auto* v = find(key);
    EMBER_CHECK(v != nullptr, "[OrderedDict] ", key_description_, " '", key, "' is not defined");
    return *v;
  }
  /// Pointer to the value under `key`, or null.
  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }

  /// Adds a new entry at the end; the key must not exist yet.
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    EMBER_CHECK(index_.count(key) == 0, "[OrderedDict] ", key_description_, " '", key, "' is already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(Key(std::forward<K>(key)), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  /// Inserts every item of `other`, replacing the values of keys already present.
  void update(const OrderedDict& other) {
    for (const auto& it : other) {
      if (auto* v = find(it.key())) *v = it.value();
      else insert(it.key(), it.value());
    }
  }
  /// Removes `key` (which must exist), keeping the order of the others.
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK(it != index_.end(), "[OrderedDict] ", key_description_, " '", key, "' is not defined");
    size_t pos = it->second;
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    index_.erase(it);
    for (auto& kv : index_)
      if (kv.second > pos) --kv.second;
  }
  void clear() { items_.clear(); index_.clear(); }

  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const auto& it : items_) out.push_back(it.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const auto& it : items_) out.push_back(it.value());
    return out;
  }

 private:
  void check_nonempty(const char* what) const {
    EMBER_CHECK(!items_.empty(), "[OrderedDict] ", what, "() called on an empty dictionary");
  }
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
  std::string key_description_;
};

}  // namespace torch

EMBER_PUBLIC_END
