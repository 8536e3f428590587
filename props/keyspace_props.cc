// Model-based property of the fake server's keyspace (RapidCheck rc::state):
// random sequences of SET (with and without PX), GET, DEL, HSET, HGET,
// HINCRBY, HGETALL, PEXPIRE, PTTL, active expiry cycles and clock advances
// run against a Server and against a plain model of keys, values and
// deadlines; every reply must be the one the model predicts.
//
// The model's rules are Redis 7.0's: a key is gone when now > deadline; SET
// drops the deadline; HSET/HINCRBY keep it; PEXPIRE <= 0 deletes; hashes
// keep insertion order; WRONGTYPE and the integer errors as on Redis.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/clock.h"
#include "sim/resp/reply.h"
#include "sim/server.h"

namespace redsim::resp {
// How RapidCheck prints a Reply in a counterexample.
static inline void showValue(const Reply& r, std::ostream& os) { os << r.debug_string(); }
}  // namespace redsim::resp

namespace redsim::props {
namespace {

using resp::Reply;
using sim::Argv;

constexpr const char* kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

struct ModelEntry {
  bool is_hash = false;
  std::string str;
  std::vector<std::pair<std::string, std::string>> hash;  // insertion order
  std::optional<int64_t> deadline_ms;

  std::string* field(const std::string& f) {
    for (auto& [name, value] : hash) {
      if (name == f) return &value;
    }
    return nullptr;
  }
};

struct KeyspaceModel {
  int64_t now_ms = 0;
  std::map<std::string, ModelEntry> keys;

  // The live entry of `key`, or nullptr (absent or now > deadline).
  const ModelEntry* live(const std::string& key) const {
    auto it = keys.find(key);
    if (it == keys.end()) return nullptr;
    if (it->second.deadline_ms && now_ms > *it->second.deadline_ms) return nullptr;
    return &it->second;
  }
  // Drops `key` if it is expired, then returns its live entry or nullptr.
  ModelEntry* live_mut(const std::string& key) {
    if (live(key) == nullptr) {
      keys.erase(key);
      return nullptr;
    }
    return &keys.at(key);
  }
};

struct ServerUnderTest {
  sim::ManualClock clock;
  sim::Server server{clock};
  std::unique_ptr<sim::Session> session = server.connect();

  Reply run(const Argv& argv) { return server.execute(*session, argv); }
};

using Command = rc::state::Command<KeyspaceModel, ServerUnderTest>;

rc::Gen<std::string> gen_key() { return rc::gen::element<std::string>("a", "b", "c"); }
rc::Gen<std::string> gen_field() { return rc::gen::element<std::string>("f", "g", "h"); }
rc::Gen<std::string> gen_value() {
  return rc::gen::element<std::string>("v", "1", "-3", "abc", "007", "9223372036854775807");
}

std::optional<int64_t> gen_px() {
  if (!*rc::gen::arbitrary<bool>()) return std::nullopt;
  return *rc::gen::inRange<int64_t>(1, 200);
}

void show_argv(std::ostream& os, const Argv& argv) {
  for (size_t i = 0; i < argv.size(); ++i) os << (i ? " " : "") << argv[i];
}

struct Set : Command {
  std::string key = *gen_key();
  std::string value = *gen_value();
  std::optional<int64_t> px_ms = gen_px();

  Argv argv() const {
    Argv a{"SET", key, value};
    if (px_ms) a.insert(a.end(), {"PX", std::to_string(*px_ms)});
    return a;
  }
  void apply(KeyspaceModel& m) const override {
    ModelEntry e;
    e.str = value;
    if (px_ms) e.deadline_ms = m.now_ms + *px_ms;
    m.keys[key] = e;
  }
  void run(const KeyspaceModel&, ServerUnderTest& sut) const override {
    RC_ASSERT(sut.run(argv()) == Reply::ok());
  }
  void show(std::ostream& os) const override { show_argv(os, argv()); }
};

struct Get : Command {
  std::string key = *gen_key();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    const ModelEntry* e = m.live(key);
    Reply expected = e == nullptr ? Reply::nil()
                     : e->is_hash ? Reply::error(kWrongType)
                                  : Reply::bulk(e->str);
    RC_ASSERT(sut.run({"GET", key}) == expected);
  }
  void show(std::ostream& os) const override { os << "GET " << key; }
};

struct Del : Command {
  std::string key = *gen_key();

  void apply(KeyspaceModel& m) const override { m.keys.erase(key); }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    RC_ASSERT(sut.run({"DEL", key}) == Reply::integer(m.live(key) ? 1 : 0));
  }
  void show(std::ostream& os) const override { os << "DEL " << key; }
};

struct HSet : Command {
  std::string key = *gen_key();
  std::string field = *gen_field();
  std::string value = *gen_value();

  void apply(KeyspaceModel& m) const override {
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr) {
      e = &m.keys[key];
      e->is_hash = true;
    }
    if (!e->is_hash) return;  // WRONGTYPE
    if (std::string* v = e->field(field)) {
      *v = value;
    } else {
      e->hash.emplace_back(field, value);
    }
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    const ModelEntry* e = m.live(key);
    Reply expected;
    if (e != nullptr && !e->is_hash) {
      expected = Reply::error(kWrongType);
    } else {
      bool exists = e != nullptr && const_cast<ModelEntry*>(e)->field(field) != nullptr;
      expected = Reply::integer(exists ? 0 : 1);
    }
    RC_ASSERT(sut.run({"HSET", key, field, value}) == expected);
  }
  void show(std::ostream& os) const override {
    os << "HSET " << key << " " << field << " " << value;
  }
};

struct HGet : Command {
  std::string key = *gen_key();
  std::string field = *gen_field();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    const ModelEntry* e = m.live(key);
    Reply expected;
    if (e != nullptr && !e->is_hash) {
      expected = Reply::error(kWrongType);
    } else if (e != nullptr) {
      const std::string* v = const_cast<ModelEntry*>(e)->field(field);
      expected = v ? Reply::bulk(*v) : Reply::nil();
    }
    RC_ASSERT(sut.run({"HGET", key, field}) == expected);
  }
  void show(std::ostream& os) const override { os << "HGET " << key << " " << field; }
};

struct HGetAll : Command {
  std::string key = *gen_key();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    const ModelEntry* e = m.live(key);
    Reply expected = Reply::array(std::vector<Reply>{});
    if (e != nullptr && !e->is_hash) {
      expected = Reply::error(kWrongType);
    } else if (e != nullptr) {
      std::vector<Reply> items;
      for (const auto& [f, v] : e->hash) {
        items.push_back(Reply::bulk(f));
        items.push_back(Reply::bulk(v));
      }
      expected = Reply::array(std::move(items));
    }
    RC_ASSERT(sut.run({"HGETALL", key}) == expected);
  }
  void show(std::ostream& os) const override { os << "HGETALL " << key; }
};

struct HIncrBy : Command {
  std::string key = *gen_key();
  std::string field = *gen_field();
  int64_t by = *rc::gen::weightedOneOf<int64_t>(
      {{6, rc::gen::inRange<int64_t>(-5, 6)},
       {1, rc::gen::element(std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min())}});

  // The reply the model predicts, and the new field value when it succeeds.
  std::pair<Reply, std::optional<std::string>> predict(const KeyspaceModel& m) const {
    const ModelEntry* e = m.live(key);
    if (e != nullptr && !e->is_hash) return {Reply::error(kWrongType), std::nullopt};
    int64_t current = 0;
    if (e != nullptr) {
      if (const std::string* v = const_cast<ModelEntry*>(e)->field(field)) {
        if (!sim::parse_int64(*v, &current)) {
          return {Reply::error("ERR hash value is not an integer"), std::nullopt};
        }
      }
    }
    int64_t result = 0;
    if (__builtin_add_overflow(current, by, &result)) {
      return {Reply::error("ERR increment or decrement would overflow"), std::nullopt};
    }
    return {Reply::integer(result), std::to_string(result)};
  }
  void apply(KeyspaceModel& m) const override {
    auto [reply, value] = predict(m);
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr) {  // HINCRBY creates the hash before anything can fail
      e = &m.keys[key];
      e->is_hash = true;
    }
    if (!value) return;
    if (std::string* v = e->field(field)) {
      *v = *value;
    } else {
      e->hash.emplace_back(field, *value);
    }
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    RC_ASSERT(sut.run({"HINCRBY", key, field, std::to_string(by)}) == predict(m).first);
  }
  void show(std::ostream& os) const override {
    os << "HINCRBY " << key << " " << field << " " << by;
  }
};

struct PExpire : Command {
  std::string key = *gen_key();
  int64_t ms = *rc::gen::inRange<int64_t>(-10, 200);

  void apply(KeyspaceModel& m) const override {
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr) return;
    if (ms <= 0) {
      m.keys.erase(key);  // a deadline at or before now deletes at once
    } else {
      e->deadline_ms = m.now_ms + ms;
    }
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    RC_ASSERT(sut.run({"PEXPIRE", key, std::to_string(ms)}) == Reply::integer(m.live(key) ? 1 : 0));
  }
  void show(std::ostream& os) const override { os << "PEXPIRE " << key << " " << ms; }
};

struct PTtl : Command {
  std::string key = *gen_key();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    const ModelEntry* e = m.live(key);
    int64_t expected = e == nullptr ? -2 : !e->deadline_ms ? -1 : *e->deadline_ms - m.now_ms;
    RC_ASSERT(sut.run({"PTTL", key}) == Reply::integer(expected));
  }
  void show(std::ostream& os) const override { os << "PTTL " << key; }
};

struct Advance : Command {
  int64_t ms = *rc::gen::inRange<int64_t>(0, 150);

  void apply(KeyspaceModel& m) const override { m.now_ms += ms; }
  void run(const KeyspaceModel&, ServerUnderTest& sut) const override { sut.clock.advance_ms(ms); }
  void show(std::ostream& os) const override { os << "(clock +" << ms << " ms)"; }
};

// The active cycle deletes only expired keys: nothing observable changes.
struct ActiveExpire : Command {
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    size_t stored_expired = 0;
    for (const auto& [key, e] : m.keys) {
      if (e.deadline_ms && m.now_ms > *e.deadline_ms) ++stored_expired;
    }
    RC_ASSERT(sut.server.active_expire_cycle() <= stored_expired);
  }
  void show(std::ostream& os) const override { os << "(active expire cycle)"; }
};

RC_GTEST_PROP(Keyspace, RepliesMatchTheModel, ()) {
  ServerUnderTest sut;
  KeyspaceModel model;
  model.now_ms = sut.clock.now_us() / 1000;
  rc::state::check(model, sut,
                   rc::state::gen::execOneOfWithArgs<Set, Get, Del, HSet, HGet, HGetAll, HIncrBy,
                                                     PExpire, PTtl, Advance, ActiveExpire>());
}

}  // namespace
}  // namespace redsim::props
