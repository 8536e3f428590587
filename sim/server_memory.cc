// Memory in the fake: used_memory as the fake counts it (a documented
// approximation: key and element sizes plus fixed overheads, sim/server.h)
// and Redis 7.0's performEvictions for the maxmemory policies other than
// noeviction, applied exactly instead of by sampling. The OOM refusal
// itself is Server::check_oom, in server.cc's dispatch.
#include <algorithm>
#include <utility>

#include "sim/internal.h"
#include "sim/keyspace.h"
#include "sim/server.h"

namespace redsim::sim {

namespace {

// One key's share of Server::used_memory_bytes().
int64_t entry_bytes(const std::string& key, const Entry& e) {
  constexpr int64_t kKeyOverheadBytes = Server::kKeyOverheadBytes;
  constexpr int64_t kElementOverheadBytes = Server::kElementOverheadBytes;
  auto size_of = [](const std::string& x) { return static_cast<int64_t>(x.size()); };
  auto elements = [](const auto& items, auto bytes) {
    int64_t n = 0;
    for (const auto& item : items) n += bytes(item) + kElementOverheadBytes;
    return n;
  };
  int64_t used = kKeyOverheadBytes + size_of(key);
  if (const auto* str = std::get_if<std::string>(&e.value)) {
    used += size_of(*str);
  } else if (const auto* hash = std::get_if<Boxed<Hash>>(&e.value)) {
    used += elements((*hash)->entries(),
                     [&](const Hash::Field& f) { return size_of(f.first) + size_of(f.second); });
  } else if (const auto* list = std::get_if<Boxed<List>>(&e.value)) {
    used += elements(**list, size_of);
  } else if (const auto* set = std::get_if<Boxed<Set>>(&e.value)) {
    used += elements((*set)->members(), size_of);
  } else if (const auto* zset = std::get_if<Boxed<Zset>>(&e.value)) {
    used += elements((*zset)->items(),
                     [&](const Zset::Item& item) { return size_of(item.member) + 8; });
  }
  return used;
}

}  // namespace

int64_t Server::used_memory_bytes() {
  int64_t used = kBaseUsedMemoryBytes;
  for (int i = 0; i < keyspace_->databases(); ++i) {
    keyspace_->db(i).for_each(
        [&](const std::string& key, const Entry& e) { used += entry_bytes(key, e); });
  }
  return used;
}

// performEvictions, exact instead of sampled: the candidates (keys with a
// deadline for volatile-*, every key for allkeys-*) in the policy's order:
// least recently accessed first (*-lru), lowest LFU counter first (*-lfu),
// nearest deadline first (volatile-ttl), or a random order from the
// server's seeded stream (*-random); ties in key order. Each eviction
// deletes the key as DEL does (watchers, client-side caching) and
// publishes "evicted" (class e). Stops once used memory fits or no
// candidate is left.
void Server::evict_to_fit() {
  int64_t used = used_memory_bytes();
  if (used <= config_.maxmemory_bytes) return;
  auto it = config_.others.find("maxmemory-policy");
  const std::string policy = it == config_.others.end() ? "noeviction" : it->second;
  const bool volatile_only = policy.starts_with("volatile-");
  struct Candidate {
    int db;
    std::string key;
    int64_t rank;
    int64_t bytes;
  };
  std::vector<Candidate> candidates;
  for (int i = 0; i < keyspace_->databases(); ++i) {
    keyspace_->db(i).for_each([&](const std::string& key, const Entry& e) {
      if (volatile_only && !e.has_expire()) return;
      int64_t rank = 0;
      if (policy.ends_with("-lru")) {
        rank = e.access_s;
      } else if (policy.ends_with("-lfu")) {
        rank = e.lfu_counter;
      } else if (policy == "volatile-ttl") {
        rank = e.expire_ms;
      }
      candidates.push_back({i, key, rank, entry_bytes(key, e)});
    });
  }
  if (policy.ends_with("-random")) {
    for (size_t n = candidates.size(); n > 1; --n) {
      std::swap(candidates[n - 1], candidates[random_below(n)]);
    }
  } else {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
  }
  // evict.c signals with no client: no NOLOOP, and the invalidations are
  // sent at once, not deferred past the reply (no command is executing).
  evicting_ = true;
  Session* current_before = std::exchange(current_, nullptr);
  Session* writer_before = std::exchange(writer_, nullptr);
  for (const Candidate& c : candidates) {
    if (used <= config_.maxmemory_bytes) break;
    if (!keyspace_->db(c.db).remove(c.key)) continue;
    used -= c.bytes;
    ++evicted_keys_;
    publish_keyspace_event(*this, c.db, notify::kEvicted, "evicted", c.key);
  }
  evicting_ = false;
  current_ = current_before;
  writer_ = writer_before;
}

}  // namespace redsim::sim
