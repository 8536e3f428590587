// Model-based property of the fake server's keyspace (RapidCheck rc::state):
// random sequences of SET (with and without PX), GET, DEL, HSET, HGET,
// HINCRBY, HGETALL, RPUSH, LPOP, LRANGE, SADD, SREM, SCARD, ZADD, ZRANGE
// WITHSCORES, PEXPIRE, PTTL, active expiry cycles and clock advances
// run against a Server and against a plain model of keys, values and
// deadlines; every reply must be the one the model predicts.
//
// The model's rules are Redis 7.0's: a key is gone when now > deadline; SET
// drops the deadline; HSET/HINCRBY keep it; PEXPIRE <= 0 deletes; hashes
// keep insertion order; a list, set or sorted set emptied by a command is
// deleted; small integer sets answer in numeric order and sorted sets in
// (score, member) order; WRONGTYPE and the integer errors as on Redis.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "props/show_reply.h"
#include "sim/args.h"
#include "sim/clock.h"
#include "sim/resp/reply.h"
#include "sim/server.h"

namespace redsim::props {
namespace {

using resp::Reply;
using sim::Argv;

constexpr const char* kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

struct ModelEntry {
  enum Kind { kString, kHash, kList, kSet, kZset } kind = kString;
  std::string str;
  std::vector<std::pair<std::string, std::string>> hash;  // insertion order
  std::deque<std::string> list;
  std::set<int64_t> set;                           // the generated members are integers
  std::set<std::pair<int64_t, std::string>> zset;  // (score, member), scores are integers
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
    Reply expected = e == nullptr                     ? Reply::nil()
                     : e->kind != ModelEntry::kString ? Reply::error(kWrongType)
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
      e->kind = ModelEntry::kHash;
    }
    if (e->kind != ModelEntry::kHash) return;  // WRONGTYPE
    if (std::string* v = e->field(field)) {
      *v = value;
    } else {
      e->hash.emplace_back(field, value);
    }
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    const ModelEntry* e = m.live(key);
    Reply expected;
    if (e != nullptr && e->kind != ModelEntry::kHash) {
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
    if (e != nullptr && e->kind != ModelEntry::kHash) {
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
    if (e != nullptr && e->kind != ModelEntry::kHash) {
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
    if (e != nullptr && e->kind != ModelEntry::kHash)
      return {Reply::error(kWrongType), std::nullopt};
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
      e->kind = ModelEntry::kHash;
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

// The live entry of `key` when it has `kind`; *wrong when it has another.
const ModelEntry* live_of(const KeyspaceModel& m, const std::string& key, ModelEntry::Kind kind,
                          bool* wrong) {
  const ModelEntry* e = m.live(key);
  *wrong = e != nullptr && e->kind != kind;
  return *wrong ? nullptr : e;
}

struct RPush : Command {
  std::string key = *gen_key();
  std::vector<std::string> values =
      *rc::gen::container<std::vector<std::string>>(*rc::gen::inRange(1, 4), gen_value());

  void apply(KeyspaceModel& m) const override {
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr) {
      e = &m.keys[key];
      e->kind = ModelEntry::kList;
    }
    if (e->kind != ModelEntry::kList) return;
    for (const auto& v : values) e->list.push_back(v);
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kList, &wrong);
    Reply expected =
        wrong ? Reply::error(kWrongType)
              : Reply::integer(static_cast<int64_t>((e ? e->list.size() : 0) + values.size()));
    Argv argv{"RPUSH", key};
    argv.insert(argv.end(), values.begin(), values.end());
    RC_ASSERT(sut.run(argv) == expected);
  }
  void show(std::ostream& os) const override {
    os << "RPUSH " << key;
    for (const auto& v : values) os << " " << v;
  }
};

struct LPop : Command {
  std::string key = *gen_key();
  int64_t count = *rc::gen::inRange<int64_t>(0, 4);  // 0: no count argument

  void apply(KeyspaceModel& m) const override {
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr || e->kind != ModelEntry::kList) return;
    for (int64_t i = 0; i < std::max<int64_t>(count, 1) && !e->list.empty(); ++i) {
      e->list.pop_front();
    }
    if (e->list.empty()) m.keys.erase(key);
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kList, &wrong);
    Reply expected;
    if (wrong) {
      expected = Reply::error(kWrongType);
    } else if (e == nullptr) {
      expected = count == 0 ? Reply::nil() : Reply::nil_array();
    } else if (count == 0) {
      expected = Reply::bulk(e->list.front());
    } else {
      std::vector<Reply> items;
      for (int64_t i = 0; i < count && i < static_cast<int64_t>(e->list.size()); ++i) {
        items.push_back(Reply::bulk(e->list[static_cast<size_t>(i)]));
      }
      expected = Reply::array(std::move(items));
    }
    Argv argv{"LPOP", key};
    if (count > 0) argv.push_back(std::to_string(count));
    RC_ASSERT(sut.run(argv) == expected);
  }
  void show(std::ostream& os) const override {
    os << "LPOP " << key;
    if (count > 0) os << " " << count;
  }
};

struct LRange : Command {
  std::string key = *gen_key();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kList, &wrong);
    std::vector<Reply> items;
    if (e != nullptr) {
      for (const auto& v : e->list) items.push_back(Reply::bulk(v));
    }
    Reply expected = wrong ? Reply::error(kWrongType) : Reply::array(std::move(items));
    RC_ASSERT(sut.run({"LRANGE", key, "0", "-1"}) == expected);
  }
  void show(std::ostream& os) const override { os << "LRANGE " << key << " 0 -1"; }
};

// SADD / SREM of one small integer member, then SMEMBERS in intset order.
struct SAddRem : Command {
  std::string key = *gen_key();
  int64_t member = *rc::gen::inRange<int64_t>(-3, 4);
  bool add = *rc::gen::arbitrary<bool>();

  void apply(KeyspaceModel& m) const override {
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr) {
      if (!add) return;
      e = &m.keys[key];
      e->kind = ModelEntry::kSet;
    }
    if (e->kind != ModelEntry::kSet) return;
    if (add) {
      e->set.insert(member);
    } else {
      e->set.erase(member);
      if (e->set.empty()) m.keys.erase(key);
    }
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kSet, &wrong);
    bool present = e != nullptr && e->set.count(member) > 0;
    Reply expected = wrong ? Reply::error(kWrongType) : Reply::integer(add != present ? 1 : 0);
    RC_ASSERT(sut.run({add ? "SADD" : "SREM", key, std::to_string(member)}) == expected);
  }
  void show(std::ostream& os) const override {
    os << (add ? "SADD " : "SREM ") << key << " " << member;
  }
};

struct SMembers : Command {
  std::string key = *gen_key();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kSet, &wrong);
    std::vector<Reply> items;
    if (e != nullptr) {
      for (int64_t v : e->set) items.push_back(Reply::bulk(std::to_string(v)));
    }
    Reply expected = wrong ? Reply::error(kWrongType) : Reply::array(std::move(items));
    RC_ASSERT(sut.run({"SMEMBERS", key}) == expected);
  }
  void show(std::ostream& os) const override { os << "SMEMBERS " << key; }
};

struct ZAdd : Command {
  std::string key = *gen_key();
  int64_t score = *rc::gen::inRange<int64_t>(-2, 3);
  std::string member = *gen_field();

  void apply(KeyspaceModel& m) const override {
    ModelEntry* e = m.live_mut(key);
    if (e == nullptr) {
      e = &m.keys[key];
      e->kind = ModelEntry::kZset;
    }
    if (e->kind != ModelEntry::kZset) return;
    for (auto it = e->zset.begin(); it != e->zset.end(); ++it) {
      if (it->second == member) {
        e->zset.erase(it);
        break;
      }
    }
    e->zset.emplace(score, member);
  }
  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kZset, &wrong);
    bool present = false;
    if (e != nullptr) {
      for (const auto& item : e->zset) present |= item.second == member;
    }
    Reply expected = wrong ? Reply::error(kWrongType) : Reply::integer(present ? 0 : 1);
    RC_ASSERT(sut.run({"ZADD", key, std::to_string(score), member}) == expected);
  }
  void show(std::ostream& os) const override {
    os << "ZADD " << key << " " << score << " " << member;
  }
};

struct ZRange : Command {
  std::string key = *gen_key();

  void run(const KeyspaceModel& m, ServerUnderTest& sut) const override {
    bool wrong = false;
    const ModelEntry* e = live_of(m, key, ModelEntry::kZset, &wrong);
    std::vector<Reply> items;
    if (e != nullptr) {
      for (const auto& [score, member] : e->zset) {
        items.push_back(Reply::bulk(member));
        items.push_back(Reply::bulk(std::to_string(score)));
      }
    }
    Reply expected = wrong ? Reply::error(kWrongType) : Reply::array(std::move(items));
    RC_ASSERT(sut.run({"ZRANGE", key, "0", "-1", "WITHSCORES"}) == expected);
  }
  void show(std::ostream& os) const override { os << "ZRANGE " << key << " 0 -1 WITHSCORES"; }
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
  rc::state::check(
      model, sut,
      rc::state::gen::execOneOfWithArgs<Set, Get, Del, HSet, HGet, HGetAll, HIncrBy, RPush, LPop,
                                        LRange, SAddRem, SMembers, ZAdd, ZRange, PExpire, PTtl,
                                        Advance, ActiveExpire>());
}

}  // namespace
}  // namespace redsim::props
