// A bounded, thread-safe least-recently-used cache: the primitive caches of the oneDNN kernels
// (kernels/cpu/matmul.cpp, kernels/cpu/conv.cpp) keep their primitives here.
//
//   at::native::LruCache<Key, std::shared_ptr<const Prim>, KeyHash> cache(capacity);
//   if (auto hit = cache.get(key)) use(*hit);
//   else cache.put(key, make_prim(key));
//
// get and put are O(1) (a hash map into a recency list) under one mutex; a hit makes the entry the
// most recent, a put into a full cache evicts the least recent one. Values are handed out by copy, so
// a shared_ptr value stays alive for a caller while another thread evicts it.
#pragma once
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN

#include <cstddef>
#include <cstdlib>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace at::native {

/// The capacity named by environment variable `var` (a non-negative decimal integer; 0 disables
/// caching), or `fallback` when it is unset or not such a number.
inline size_t lru_capacity_from_env(const char* var, size_t fallback) {
  const char* s = std::getenv(var);
  if (s == nullptr || *s == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (*end != '\0' || *s == '-') return fallback;
  return static_cast<size_t>(v);
}

/// A map from Key to Value holding at most capacity() entries; the least recently used entry
/// (by get or put) is evicted first.
template <typename Key, typename Value, typename Hash = std::hash<Key>>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  /// The value under `key` (which becomes the most recent entry), or nullopt.
  std::optional<Value> get(const Key& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    items_.splice(items_.begin(), items_, it->second);
    return it->second->second;
  }

  /// Stores `value` under `key` as the most recent entry (replacing an entry with that key),
  /// evicting the least recent entries past the capacity.
  void put(const Key& key, Value value) {
    std::lock_guard<std::mutex> lock(mu_);
    if (capacity_ == 0) return;
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->second = std::move(value);
      items_.splice(items_.begin(), items_, it->second);
      return;
    }
    items_.emplace_front(key, std::move(value));
    index_.emplace(key, items_.begin());
    trim();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return items_.size();
  }
  size_t capacity() const {
    std::lock_guard<std::mutex> lock(mu_);
    return capacity_;
  }
  /// Changes the capacity, evicting the least recent entries past it.
  void set_capacity(size_t capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    capacity_ = capacity;
    trim();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    items_.clear();
  }

 private:
  using Items = std::list<std::pair<Key, Value>>;
  void trim() {
    while (items_.size() > capacity_) {
      index_.erase(items_.back().first);
      items_.pop_back();
    }
  }

  mutable std::mutex mu_;
  size_t capacity_;
  Items items_;  // most recent first
  std::unordered_map<Key, typename Items::iterator, Hash> index_;
};

}  // namespace at::native

EMBER_PUBLIC_END
