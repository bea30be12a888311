// The bounded LRU cache behind the oneDNN primitive caches (ATen/native/LruCache.h): eviction
// order, replacement, capacity changes, the environment capacity, and concurrent use.
#include <ATen/native/LruCache.h>
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace lru_cache_test {
using IntCache = at::native::LruCache<int, int>;

// The keys present in `c` among 0..n-1 (a get makes them recent, so this is for the end of a test).
std::vector<int> keys_present(IntCache& c, int n) {
  std::vector<int> keys;
  for (int k = 0; k < n; ++k)
    if (c.get(k)) keys.push_back(k);
  return keys;
}

// Sets an environment variable for the lifetime of the guard.
struct EnvGuard {
  std::string name;
  EnvGuard(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~EnvGuard() { unsetenv(name.c_str()); }
};
}  // namespace lru_cache_test

TEST_CASE("LruCache evicts the least recently used entry", "[lru_cache]") {
  using namespace lru_cache_test;
  IntCache c(3);
  c.put(1, 10);
  c.put(2, 20);
  c.put(3, 30);
  CHECK(c.size() == 3);
  REQUIRE(c.get(1));  // 1 is now the most recent: 2 is the least recent
  c.put(4, 40);
  CHECK(c.size() == 3);
  CHECK_FALSE(c.get(2));
  CHECK(*c.get(1) == 10);
  CHECK(*c.get(3) == 30);
  CHECK(*c.get(4) == 40);
  // Recency now 4 > 3 > 1 (most recent first): two more puts evict 1, then 3.
  c.put(5, 50);
  CHECK_FALSE(c.get(1));
  c.put(6, 60);
  CHECK_FALSE(c.get(3));
  CHECK(keys_present(c, 10) == std::vector<int>{4, 5, 6});
}

TEST_CASE("LruCache put replaces and refreshes an existing key", "[lru_cache]") {
  using namespace lru_cache_test;
  IntCache c(2);
  c.put(1, 10);
  c.put(2, 20);
  c.put(1, 11);  // replaces, and 1 becomes the most recent
  CHECK(c.size() == 2);
  c.put(3, 30);  // evicts 2, not 1
  CHECK(*c.get(1) == 11);
  CHECK_FALSE(c.get(2));
  CHECK(*c.get(3) == 30);
}

TEST_CASE("LruCache capacity changes, zero capacity and clear", "[lru_cache]") {
  using namespace lru_cache_test;
  IntCache c(4);
  for (int k = 0; k < 4; ++k) c.put(k, k);
  c.set_capacity(2);  // keeps the two most recent
  CHECK(c.capacity() == 2);
  CHECK(keys_present(c, 4) == std::vector<int>{2, 3});
  c.clear();
  CHECK(c.size() == 0);
  IntCache off(0);
  off.put(1, 1);
  CHECK(off.size() == 0);
  CHECK_FALSE(off.get(1));
}

TEST_CASE("LruCache hands out shared values that outlive their eviction", "[lru_cache]") {
  at::native::LruCache<int, std::shared_ptr<const std::string>> c(1);
  c.put(1, std::make_shared<const std::string>("one"));
  std::shared_ptr<const std::string> held = *c.get(1);
  c.put(2, std::make_shared<const std::string>("two"));  // evicts 1
  CHECK_FALSE(c.get(1));
  CHECK(*held == "one");
  CHECK(held.use_count() == 1);
}

TEST_CASE("lru_capacity_from_env reads a non-negative integer or falls back", "[lru_cache]") {
  using namespace lru_cache_test;
  const char* var = "EMBER_TEST_LRU_CAPACITY";
  unsetenv(var);
  CHECK(at::native::lru_capacity_from_env(var, 7) == 7);
  {
    EnvGuard g(var, "32");
    CHECK(at::native::lru_capacity_from_env(var, 7) == 32);
  }
  {
    EnvGuard g(var, "0");
    CHECK(at::native::lru_capacity_from_env(var, 7) == 0);
  }
  for (const char* bad : {"", "-3", "12x", "lots"}) {
    EnvGuard g(var, bad);
    CHECK(at::native::lru_capacity_from_env(var, 7) == 7);
  }
}

TEST_CASE("LruCache under concurrent get and put", "[lru_cache]") {
  using namespace lru_cache_test;
  // Each thread puts and reads keys from an overlapping range through a small cache: every hit
  // must carry its key's value, and the cache never grows past its capacity.
  IntCache c(16);
  std::atomic<int> wrong{0}, oversize{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        const int k = (i * 7 + t * 13) % 40;
        if (auto v = c.get(k)) {
          ++hits;
          if (*v != k * 3) ++wrong;
        } else {
          c.put(k, k * 3);
        }
        if (c.size() > 16) ++oversize;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(oversize == 0);
  CHECK(hits > 0);
  CHECK(c.size() == 16);
}
