#include "tools/difftest/difftest.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "base/sha1.h"
#include "sim/clock.h"
#include "sim/resp/codec.h"
#include "sim/server.h"
#include "tools/difftest/raw_client.h"

namespace redsim::difftest {

namespace {

using resp::Reply;

// The fake's clock during a run: the wall clock's progress since the run
// began, from the real server's own TIME at that moment, so absolute times
// agree too. DEBUG SLEEP does not move it: the real server's sleep does.
class FollowingClock final : public sim::Clock {
 public:
  explicit FollowingClock(int64_t start_unix_us)
      : start_unix_us_(start_unix_us), start_(std::chrono::steady_clock::now()) {}
  int64_t now_us() const override {
    return start_unix_us_ + std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::steady_clock::now() - start_)
                                .count();
  }
  void sleep_us(int64_t) override {}

 private:
  int64_t start_unix_us_;
  std::chrono::steady_clock::time_point start_;
};

// The reply to PING "barrier": an array while subscribed, a bulk otherwise.
bool is_barrier(const Reply& r) {
  if (r.is_bulk()) return r.str() == "barrier";
  return r.is_array() && r.elements().size() == 2 && r.elements()[0].str() == "pong" &&
         r.elements()[1].str() == "barrier";
}

std::vector<std::string> resolve(const std::vector<std::string>& argv) {
  std::vector<std::string> out = argv;
  for (std::string& a : out) {
    if (a.rfind("$SHA:", 0) == 0) a = base::sha1_hex(a.substr(5));
  }
  return out;
}

std::vector<std::string> sorted_encodings(const std::vector<Reply>& els, size_t group) {
  std::vector<std::string> items;
  for (size_t i = 0; i + group <= els.size(); i += group) {
    std::string item;
    for (size_t j = 0; j < group; ++j) item += resp::encode(els[i + j]);
    items.push_back(std::move(item));
  }
  std::sort(items.begin(), items.end());
  return items;
}

bool same(const Reply& real, const Reply& fake, Compare how) {
  const std::string a = resp::encode(real), b = resp::encode(fake);
  if (a == b) return true;
  switch (how) {
    case Compare::kExact:
    case Compare::kScanAll:
    case Compare::kUnsubscribeAll:
      return false;
    case Compare::kUnordered:
    case Compare::kPairsUnordered: {
      if (!real.is_array() || !fake.is_array()) return false;
      const size_t group = how == Compare::kPairsUnordered ? 2 : 1;
      return real.elements().size() == fake.elements().size() &&
             sorted_encodings(real.elements(), group) == sorted_encodings(fake.elements(), group);
    }
    case Compare::kTtlSeconds:
    case Compare::kTtlMillis: {
      if (!real.is_integer() || !fake.is_integer()) return false;
      const int64_t x = real.integer(), y = fake.integer();
      if (x < 0 || y < 0) return x == y;  // -1 / -2 are exact answers
      const int64_t tolerance = how == Compare::kTtlSeconds ? 1 : kTimingMarginMs;
      return std::llabs(x - y) <= tolerance;
    }
    case Compare::kIdleTimes: {
      if (!real.is_array() || !fake.is_array()) return false;
      const std::vector<Reply>& x = real.elements();
      const std::vector<Reply>& y = fake.elements();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (x[i].is_array() && y[i].is_array() && x[i].elements().size() == 4 &&
            y[i].elements().size() == 4) {
          const std::vector<Reply>& a = x[i].elements();
          const std::vector<Reply>& b = y[i].elements();
          if (resp::encode(a[0]) + resp::encode(a[1]) + resp::encode(a[3]) !=
              resp::encode(b[0]) + resp::encode(b[1]) + resp::encode(b[3])) {
            return false;
          }
          if (!a[2].is_integer() || !b[2].is_integer() ||
              std::llabs(a[2].integer() - b[2].integer()) > kTimingMarginMs) {
            return false;
          }
        } else if (resp::encode(x[i]) != resp::encode(y[i])) {
          return false;
        }
      }
      return true;
    }
    case Compare::kShape:
      if (real.kind() != fake.kind()) return false;
      if (real.is_array()) return real.elements().size() == fake.elements().size();
      return true;
  }
  return false;
}

class Runner {
 public:
  Runner(const Endpoint& ep, const RunOptions& options) : options_(options) {
    for (int i = 0; i < kConnections; ++i) {
      real_.push_back(std::make_unique<RawClient>(ep.host, ep.port));
    }
    RawClient& admin = *real_[0];
    admin.call({"FLUSHALL"});
    admin.call({"SCRIPT", "FLUSH"});
    admin.call({"FUNCTION", "FLUSH"});
    admin.call({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
    const Reply t = admin.call({"TIME"});
    int64_t unix_us = 0;
    if (t.is_array() && t.elements().size() == 2) {
      unix_us = std::stoll(t.elements()[0].str()) * 1000000 + std::stoll(t.elements()[1].str());
    }
    clock_ = std::make_unique<FollowingClock>(unix_us);
    server_ = std::make_unique<sim::Server>(*clock_);
    for (int i = 0; i < kConnections; ++i) sessions_.push_back(server_->connect());
    commands_ = 4;
  }

  Result run(const std::vector<Step>& steps) {
    Result r;
    for (size_t i = 0; i < steps.size(); ++i) {
      const bool near_deadline = near_a_deadline();
      std::optional<Mismatch> m = step(steps[i]);
      if (!m) m = compare_pushes();
      r.steps_run = i + 1;
      if (m && near_deadline) {
        ++r.timing_resyncs;
        resync();
        continue;
      }
      if (m) {
        m->step = i;
        r.mismatch = std::move(m);
        break;
      }
    }
    r.commands_sent = commands_;
    return r;
  }

 private:
  // A step on a key within the margin of its deadline may see the key on
  // one side and not on the other.
  bool near_a_deadline() {
    const int64_t now_ms = clock_->now_us() / 1000;
    for (int db = 0; db < server_->databases(); ++db) {
      for (const std::string& key : server_->stored_keys(db)) {
        const std::optional<sim::StoredKey> k = server_->peek(key, db);
        if (k->expire_at_ms && std::llabs(*k->expire_at_ms - now_ms) <= kTimingMarginMs)
          return true;
      }
      if (db >= 1) break;  // the generator selects db 0 and 1 only
    }
    return false;
  }

  void resync() {
    for (auto& q : queued_) q.clear();
    for (int i = 0; i < kConnections; ++i) {
      // Leave MULTI and subscriptions on both sides, then start afresh.
      real_[i]->call({"RESET"});
      server_->execute(*sessions_[i], {"RESET"});
      sessions_[i]->take_pushes();
    }
    real_[0]->call({"FLUSHALL"});
    server_->execute(*sessions_[0], {"FLUSHALL"});
    commands_ += 2 * kConnections + 2;
  }

  std::optional<Mismatch> step(const Step& s) {
    const std::vector<std::string> argv = resolve(s.argv);
    const size_t c = static_cast<size_t>(s.conn);
    RawClient& real = *real_[c];
    sim::Session& fake = *sessions_[c];
    if (s.compare == Compare::kScanAll) return scan_all(s, argv, real, fake);
    if (s.compare == Compare::kUnsubscribeAll) return unsubscribe_all(argv, real, fake);
    const bool queued_before = fake.in_multi();
    const Reply r = real.call(argv);
    Reply f = server_->execute(fake, argv);
    if (fake.blocked()) f = wait_for_unblock(fake);
    if (options_.tamper) options_.tamper(argv, f);
    ++commands_;
    const std::string name = sim_upper(argv[0]);
    bool ok = false;
    if (queued_before && name == "EXEC" && r.is_array() && f.is_array() &&
        r.elements().size() == f.elements().size() && r.elements().size() == queued_[c].size()) {
      // Each element by the rule of the command that produced it.
      ok = true;
      for (size_t i = 0; i < queued_[c].size() && ok; ++i) {
        ok = same(r.elements()[i], f.elements()[i], queued_[c][i]);
      }
    } else {
      ok = same(r, f, s.compare);
    }
    if (queued_before && f.is_status() && f.str() == "QUEUED") queued_[c].push_back(s.compare);
    if (!fake.in_multi()) queued_[c].clear();
    if (!ok) {
      return Mismatch{0, "reply", printable(resp::encode(r)), printable(resp::encode(f))};
    }
    if (s.compare == Compare::kShape && argv.size() > 1) {
      // Drawn from different random generators: make both sides equal again.
      real.call({"DEL", argv[1]});
      server_->execute(fake, {"DEL", argv[1]});
      ++commands_;
    }
    return std::nullopt;
  }

  // The fake blocked where the real server (which has answered by now)
  // may have timed out: time the block out on the fake's clock, which
  // follows the wall clock, and take the reply it hands over.
  Reply wait_for_unblock(sim::Session& fake) {
    for (int guard = 0; guard < 2000; ++guard) {
      server_->time_out_blocked();
      for (sim::Server::Unblocked& u : server_->take_unblocked()) {
        if (u.session == &fake) return std::move(u.reply);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return Reply::error("difftest: the fake's block did not time out");
  }

  // argv's cursor sits at index 1 (SCAN) or 2 (HSCAN, SSCAN, ZSCAN).
  std::optional<Mismatch> scan_all(const Step& s, std::vector<std::string> argv, RawClient& real,
                                   sim::Session& fake) {
    const size_t cursor_at = sim_upper(argv[0]) == "SCAN" ? 1 : 2;
    auto collect = [&](auto&& call) -> std::optional<std::set<std::string>> {
      std::set<std::string> seen;
      std::vector<std::string> a = argv;
      a[cursor_at] = "0";
      for (int guard = 0; guard < 10000; ++guard) {
        const Reply r = call(a);
        ++commands_;
        if (!r.is_array() || r.elements().size() != 2) {
          seen.insert("!" + resp::encode(r));
          return seen;
        }
        const size_t group = cursor_at == 2 && sim_upper(argv[0]) != "SSCAN" ? 2 : 1;
        for (const std::string& item : sorted_encodings(r.elements()[1].elements(), group)) {
          seen.insert(item);
        }
        a[cursor_at] = r.elements()[0].str();
        if (a[cursor_at] == "0") return seen;
      }
      return std::nullopt;
    };
    auto rs = collect([&](const std::vector<std::string>& a) { return real.call(a); });
    auto fs = collect([&](const std::vector<std::string>& a) { return server_->execute(fake, a); });
    (void)s;
    if (rs == fs) return std::nullopt;
    auto show = [](const std::optional<std::set<std::string>>& set) {
      if (!set) return std::string("(did not end)");
      std::string out;
      for (const std::string& x : *set) out += printable(x) + " ";
      return out;
    };
    return Mismatch{0, "scan union", show(rs), show(fs)};
  }

  // The reply and the confirmations after it: the same set of channels,
  // the same sequence of remaining counts.
  std::optional<Mismatch> unsubscribe_all(const std::vector<std::string>& argv, RawClient& real,
                                          sim::Session& fake) {
    std::vector<Reply> rs{real.call(argv)};
    real.send({"PING", "barrier"});
    for (;;) {
      Reply r = real.read();
      if (is_barrier(r)) break;
      rs.push_back(std::move(r));
    }
    std::vector<Reply> fs{server_->execute(fake, argv)};
    for (Reply& p : fake.take_pushes()) fs.push_back(std::move(p));
    server_->execute(fake, {"PING", "barrier"});
    commands_ += 2;
    auto split = [](const std::vector<Reply>& replies) {
      std::vector<std::string> names, counts;
      for (const Reply& r : replies) {
        if (!r.is_array() || r.elements().size() != 3) {
          names.push_back(resp::encode(r));
          continue;
        }
        names.push_back(resp::encode(r.elements()[0]) + resp::encode(r.elements()[1]));
        counts.push_back(resp::encode(r.elements()[2]));
      }
      std::sort(names.begin(), names.end());
      return std::make_pair(names, counts);
    };
    if (split(rs) == split(fs)) return std::nullopt;
    auto show = [](const std::vector<Reply>& replies) {
      std::string out;
      for (const Reply& r : replies) out += printable(resp::encode(r));
      return out;
    };
    return Mismatch{0, "unsubscribe-all confirmations", show(rs), show(fs)};
  }

  static std::string sim_upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }

  // Every subscribed connection's pushes so far, behind a PING barrier.
  std::optional<Mismatch> compare_pushes() {
    for (int i = 0; i < kConnections; ++i) {
      sim::Session& fake = *sessions_[static_cast<size_t>(i)];
      if (fake.subscription_count() == 0) continue;
      RawClient& real = *real_[static_cast<size_t>(i)];
      std::string real_bytes, fake_bytes;
      real.send({"PING", "barrier"});
      for (;;) {
        const Reply r = real.read();
        const std::string enc = resp::encode(r);
        if (is_barrier(r)) break;
        real_bytes += enc;
      }
      for (const Reply& p : fake.take_pushes()) fake_bytes += resp::encode(p);
      server_->execute(fake, {"PING", "barrier"});
      commands_ += 1;
      if (real_bytes != fake_bytes) {
        return Mismatch{0, "pushes on connection " + std::to_string(i), printable(real_bytes),
                        printable(fake_bytes)};
      }
    }
    return std::nullopt;
  }

  const RunOptions& options_;
  std::vector<std::unique_ptr<RawClient>> real_;
  std::unique_ptr<FollowingClock> clock_;
  std::unique_ptr<sim::Server> server_;
  std::vector<std::unique_ptr<sim::Session>> sessions_;
  // Per connection, inside MULTI: the compare rule of each queued command.
  std::vector<std::vector<Compare>> queued_ = std::vector<std::vector<Compare>>(kConnections);
  size_t commands_ = 0;
};

}  // namespace

std::string printable(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result run(const std::vector<Step>& steps, const Endpoint& endpoint, const RunOptions& options) {
  Runner runner(endpoint, options);
  return runner.run(steps);
}

std::vector<Step> shrink(const std::vector<Step>& steps, const Endpoint& endpoint, size_t* runs,
                         const RunOptions& options) {
  size_t count = 0;
  std::vector<Step> best = steps;
  // Everything after the first mismatch is irrelevant.
  const Result first = run(best, endpoint, options);
  ++count;
  if (first.mismatch) best.resize(first.mismatch->step + 1);
  for (size_t chunk = std::max<size_t>(1, best.size() / 2);; chunk /= 2) {
    bool removed = true;
    while (removed) {
      removed = false;
      // The failing step is the last one; try dropping chunks before it.
      for (size_t at = 0; at + 1 < best.size() && best.size() > 1;) {
        const size_t len = std::min(chunk, best.size() - 1 - at);
        if (len == 0) break;
        std::vector<Step> candidate;
        candidate.insert(candidate.end(), best.begin(), best.begin() + static_cast<long>(at));
        candidate.insert(candidate.end(), best.begin() + static_cast<long>(at + len), best.end());
        const Result r = run(candidate, endpoint, options);
        ++count;
        if (r.mismatch) {
          candidate.resize(r.mismatch->step + 1);
          best = std::move(candidate);
          removed = true;
        } else {
          at += len;
        }
      }
    }
    if (chunk == 1) break;
  }
  if (runs != nullptr) *runs = count;
  return best;
}

std::string describe(const std::vector<Step>& steps, const Result& result) {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    out += (result.mismatch && result.mismatch->step == i) ? ">> " : "   ";
    out += "[c" + std::to_string(steps[i].conn) + "]";
    for (const std::string& a : steps[i].argv) {
      std::string p = printable(a);
      const bool quote = p.empty() || p.find(' ') != std::string::npos;
      out += " " + (quote ? "\"" + p + "\"" : p);
    }
    out += "\n";
  }
  if (result.mismatch) {
    out += "mismatch at step " + std::to_string(result.mismatch->step) + " (" +
           result.mismatch->what + ")\n  redis-server: " + result.mismatch->real +
           "\n  redsim:       " + result.mismatch->fake + "\n";
  }
  return out;
}

}  // namespace redsim::difftest
