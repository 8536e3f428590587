// Reads of one lock key on every server of a quorum lock (Redlock,
// NodeRedlock): is_locked, is_held_by_current_thread and remaining_lease
// answer what a majority of the servers says. Internal to lock/ (not
// installed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lock/env.h"
#include "lock/errors.h"
#include "lock/lock.h"

namespace redsim::lock::quorum_reads {

// `argv` on every server, one after the other, with `timeout` (nullopt: the
// connection's default); nullopt where the server could not be reached.
inline std::vector<std::optional<Reply>> ask_all(Env& env, const Argv& argv,
                                                 std::optional<Micros> timeout) {
  std::vector<std::optional<Reply>> out;
  for (size_t i = 0; i < env.server_count(); ++i) {
    try {
      out.emplace_back(timeout ? env.connection(i).call(argv, *timeout)
                               : env.connection(i).call(argv));
    } catch (const ConnectionError&) {
      out.emplace_back(std::nullopt);
    }
  }
  return out;
}

// The key exists on at least `quorum` servers.
inline bool is_locked(Env& env, const std::string& key, size_t quorum,
                      std::optional<Micros> timeout) {
  size_t n = 0;
  for (const auto& r : ask_all(env, {"EXISTS", key}, timeout)) {
    n += r && r->is_integer() && r->integer() == 1;
  }
  return n >= quorum;
}

// The key holds `value` on at least `quorum` servers (false for an empty value).
inline bool holds(Env& env, const std::string& key, const std::string& value, size_t quorum,
                  std::optional<Micros> timeout) {
  if (value.empty()) return false;
  size_t n = 0;
  for (const auto& r : ask_all(env, {"GET", key}, timeout)) {
    n += r && r->is_bulk() && r->str() == value;
  }
  return n >= quorum;
}

// The PTTL a quorum still has: the quorum-th longest among the servers that
// have the key (no expiry sorts first); unknown below a quorum.
inline RemainingLease remaining_lease(Env& env, const std::string& key, size_t quorum,
                                      std::optional<Micros> timeout) {
  std::vector<int64_t> pttls;
  for (const auto& r : ask_all(env, {"PTTL", key}, timeout)) {
    if (!r || !r->is_integer() || r->integer() == -2) continue;
    pttls.push_back(r->integer() == -1 ? INT64_MAX : r->integer());
  }
  if (pttls.size() < quorum) return RemainingLease{};
  std::sort(pttls.begin(), pttls.end(), std::greater<>());
  const int64_t q = pttls[quorum - 1];
  return RemainingLease::from_pttl(q == INT64_MAX ? -1 : q);
}

}  // namespace redsim::lock::quorum_reads
