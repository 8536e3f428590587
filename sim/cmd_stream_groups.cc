// Stream consumer groups: XGROUP (CREATE SETID DESTROY CREATECONSUMER
// DELCONSUMER HELP), XREADGROUP's reads, XACK, XPENDING, XCLAIM,
// XAUTOCLAIM, XINFO (STREAM GROUPS CONSUMERS HELP). The entries themselves
// and the parsing of XREAD/XREADGROUP are in cmd_stream.cc; what both files
// use is in cmd_stream.h. Error texts are Redis 7.0.15's (checked against
// redis-server 7.0.15). Sources: Redis 7.0 src/t_stream.c (xgroupCommand,
// streamCreateConsumer, xackCommand, xpendingCommand, xclaimCommand,
// xautoclaimCommand, streamEstimateDistanceFromFirstEverEntry,
// xinfoReplyWithStreamInfo) and the stream command pages; facts only.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/cmd_stream.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

// ---- Groups -----------------------------------------------------------------

bool has_tombstones(const Stream& s, StreamId start) {
  if (s.entries.empty() || s.max_deleted_id == StreamId{}) return false;
  if (s.max_deleted_id < s.first_id()) return false;  // the latest tombstone is before the first
  return !(s.max_deleted_id < start);
}

}  // namespace

// streamEstimateDistanceFromFirstEverEntry.
int64_t estimate_entries_read(const Stream& s, StreamId id) {
  if (s.entries_added == 0) return 0;
  if (s.entries.empty() && !(s.last_id < id)) return static_cast<int64_t>(s.entries_added);
  if (id == s.last_id) return static_cast<int64_t>(s.entries_added);
  if (s.last_id < id) return kInvalidEntriesRead;
  StreamId first = s.first_id();
  if (s.max_deleted_id == StreamId{} || s.max_deleted_id < first) {
    if (id < first) return static_cast<int64_t>(s.entries_added - s.size());
    if (id == first) return static_cast<int64_t>(s.entries_added - s.size() + 1);
  }
  return kInvalidEntriesRead;
}

namespace {

Reply lag_reply(const Stream& s, const StreamGroup& g) {
  if (s.entries_added == 0) return Reply::integer(0);
  if (g.entries_read != kInvalidEntriesRead && !has_tombstones(s, g.last_id)) {
    return Reply::integer(static_cast<int64_t>(s.entries_added) - g.entries_read);
  }
  int64_t read = estimate_entries_read(s, g.last_id);
  if (read != kInvalidEntriesRead) {
    return Reply::integer(static_cast<int64_t>(s.entries_added) - read);
  }
  return Reply::nil();
}

Reply entries_read_reply(const StreamGroup& g) {
  return g.entries_read == kInvalidEntriesRead ? Reply::nil() : Reply::integer(g.entries_read);
}

// The consumer `name` of `g` (of the stream at `key`), created when
// missing with an "xgroup-createconsumer" event; its seen-time is now.
StreamConsumer& consumer_of(CommandContext& ctx, std::string_view key, StreamGroup& g,
                            std::string_view name) {
  auto it = g.consumers.find(name);
  if (it == g.consumers.end()) {
    it = g.consumers.emplace(std::string(name), StreamConsumer{}).first;
    notify_keyspace_event(ctx, notify::kStream, "xgroup-createconsumer", key);
  }
  it->second.seen_time_ms = ctx.now_ms;
  return it->second;
}

// Moves the pending entry `id` of `g` to `to` (named `name`).
void move_nack(StreamGroup& g, StreamId id, StreamNack& nack, StreamConsumer& to,
               std::string_view name) {
  if (nack.consumer != name) {
    auto old = g.consumers.find(nack.consumer);
    if (old != g.consumers.end()) old->second.pending.erase(id);
    nack.consumer = std::string(name);
  }
  to.pending.insert(id);
}

StreamGroup* find_group(CommandContext& ctx, const std::string& key, const std::string& group,
                        Stream** stream, bool* wrong) {
  Stream* s = read_stream(ctx, key, wrong);
  if (stream) *stream = s;
  if (s == nullptr) return nullptr;
  auto it = s->groups.find(group);
  return it == s->groups.end() ? nullptr : &it->second;
}

Reply nogroup(const std::string& key, const std::string& group) {
  return Reply::error("NOGROUP No such key '" + key + "' or consumer group '" + group + "'");
}

}  // namespace

// XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER|HELP
Reply xgroup(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string sub = admin::lower(argv[1]);
  const size_t argc = argv.size();
  if (sub == "help") {
    if (argc != 2) return admin::sub_arity("xgroup", sub);
    return help_reply(
        "XGROUP",
        {"CREATE <key> <groupname> <id|$> [option]",
         "    Create a new consumer group. Options are:", "    * MKSTREAM",
         "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
         "      Set the group's entries_read counter (internal use).",
         "CREATECONSUMER <key> <groupname> <consumer>",
         "    Create a new consumer in the specified group.",
         "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
         "DESTROY <key> <groupname>", "    Remove the specified group.",
         "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
         "    Set the current group ID and entries_read counter."});
  }
  struct Arity {
    std::string_view name;
    int arity;
  };
  constexpr Arity kArity[] = {
      {"create", -5}, {"setid", -5}, {"destroy", 4}, {"createconsumer", 5}, {"delconsumer", 5}};
  const Arity* found = nullptr;
  for (const Arity& a : kArity) {
    if (a.name == sub) found = &a;
  }
  if (found == nullptr) return admin::unknown_subcommand(argv[1], "XGROUP");
  if (found->arity > 0 ? argc != static_cast<size_t>(found->arity)
                       : argc < static_cast<size_t>(-found->arity)) {
    return admin::sub_arity("xgroup", sub);
  }
  auto bad_options = [&] {
    return Reply::error("ERR unknown subcommand or wrong number of arguments for '" +
                        std::string(argv[1]) + "'. Try XGROUP HELP.");
  };
  // Options of CREATE / SETID.
  bool mkstream = false;
  int64_t entries_read = kInvalidEntriesRead;
  if (sub == "create" || sub == "setid") {
    for (size_t i = 5; i < argc; ++i) {
      if (sub == "create" && equals_ci(argv[i], "mkstream")) {
        mkstream = true;
      } else if (equals_ci(argv[i], "entriesread") && i + 1 < argc) {
        if (!parse_int64(argv[i + 1], &entries_read)) return errors::not_integer();
        if (entries_read < 0 && entries_read != kInvalidEntriesRead) {
          return Reply::error("ERR value for ENTRIESREAD must be positive or -1");
        }
        ++i;
      } else {
        return bad_options();
      }
    }
  }
  const std::string& key = argv[2];
  const std::string& name = argv[3];
  bool wrong = false;
  Stream* s = read_stream(ctx, key, &wrong);
  if (wrong) return errors::wrong_type();
  Db& db = current_db(ctx);
  if (s == nullptr && !(sub == "create" && mkstream)) {
    return Reply::error(
        "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want "
        "to use the MKSTREAM option to create an empty stream automatically.");
  }
  StreamGroup* g = nullptr;
  if (s != nullptr) {
    auto it = s->groups.find(name);
    if (it != s->groups.end()) g = &it->second;
  }
  auto nogroup = [&] {
    return Reply::error("NOGROUP No such consumer group '" + name + "' for key name '" + key + "'");
  };
  if (sub == "create" || sub == "setid") {
    if (sub == "setid" && g == nullptr) return nogroup();  // before the id, as xgroupCommand
    StreamId id;
    if (argv[4] == "$") {
      id = s == nullptr ? StreamId{} : s->last_id;
    } else if (!parse_id(argv[4], 0, true, &id)) {
      return bad_id();
    }
    if (sub == "create") {
      if (g != nullptr) return Reply::error("BUSYGROUP Consumer Group name already exists");
      // Redis 7.0.15 signals no modified key for XGROUP, XSETID, XACK,
      // XCLAIM, XAUTOCLAIM or XREADGROUP (a WATCH survives them), but for a
      // stream MKSTREAM creates.
      if (s == nullptr) {
        s = &db.add(key, Stream()).stream();
        db.touch(key);
      }
      StreamGroup group;
      group.last_id = id;
      group.entries_read = entries_read;
      s->groups.emplace(name, std::move(group));
      notify_keyspace_event(ctx, notify::kStream, "xgroup-create", key);
      return Reply::ok();
    }
    if (g == nullptr) return nogroup();
    g->last_id = id;
    g->entries_read = entries_read;
    notify_keyspace_event(ctx, notify::kStream, "xgroup-setid", key);
    return Reply::ok();
  }
  if (sub == "destroy") {
    if (g == nullptr) return Reply::integer(0);
    s->groups.erase(name);
    db.signal_ready(key);  // its blocked XREADGROUP clients get NOGROUP
    notify_keyspace_event(ctx, notify::kStream, "xgroup-destroy", key);
    return Reply::integer(1);
  }
  if (g == nullptr) return nogroup();
  const std::string& consumer = argv[4];
  if (sub == "createconsumer") {
    if (g->consumers.contains(consumer)) return Reply::integer(0);
    consumer_of(ctx, key, *g, consumer);
    return Reply::integer(1);
  }
  // delconsumer: its pending entries go with it.
  auto it = g->consumers.find(consumer);
  if (it == g->consumers.end()) return Reply::integer(0);
  int64_t pending = static_cast<int64_t>(it->second.pending.size());
  for (StreamId id : it->second.pending) g->pending.erase(id);
  g->consumers.erase(it);
  notify_keyspace_event(ctx, notify::kStream, "xgroup-delconsumer", key);
  return Reply::integer(pending);
}

// ---- XREADGROUP's reads (the parsing and the blocking: xread_generic) -------

bool read_group_new(CommandContext& ctx, const std::string& key, Stream& s, StreamGroup& g,
                    std::string_view consumer, bool noack, int64_t count,
                    std::vector<Reply>* entries) {
  if (!(g.last_id < s.last_id)) return false;
  StreamId start = g.last_id;
  if (!incr_id(&start)) return false;
  auto served = range(s, start, StreamId::max(), false, count);
  if (served.empty()) return false;
  StreamConsumer& c = consumer_of(ctx, key, g, consumer);
  for (auto& [id, f] : served) {
    if (g.last_id < id) {
      if (g.entries_read != kInvalidEntriesRead && !has_tombstones(s, id)) {
        ++g.entries_read;
      } else {
        g.entries_read = estimate_entries_read(s, id);
      }
      g.last_id = id;
    }
    if (!noack) {
      auto [it, fresh] = g.pending.try_emplace(id);
      StreamNack& nack = it->second;
      if (fresh) nack.consumer = consumer;
      move_nack(g, id, nack, c, consumer);
      nack.delivery_time_ms = ctx.now_ms;
      nack.delivery_count = 1;
    }
    entries->push_back(entry_reply(id, *f));
  }
  return true;
}

void read_group_history(CommandContext& ctx, const std::string& key, Stream& s, StreamGroup& g,
                        std::string_view consumer, StreamId after, int64_t count,
                        std::vector<Reply>* entries) {
  StreamConsumer& c = consumer_of(ctx, key, g, consumer);
  StreamId start = after;
  if (!incr_id(&start)) return;
  for (auto it = c.pending.lower_bound(start); it != c.pending.end(); ++it) {
    if (count > 0 && static_cast<int64_t>(entries->size()) >= count) break;
    auto e = s.entries.find(*it);
    if (e == s.entries.end()) {
      // A deleted entry: its id and a null array; its NACK is left as it is.
      entries->push_back(Reply::array({id_reply(*it), Reply::nil_array()}));
      continue;
    }
    entries->push_back(entry_reply(e->first, e->second));
    StreamNack& nack = g.pending[*it];
    nack.delivery_time_ms = ctx.now_ms;
    ++nack.delivery_count;
  }
}

// ---- XACK / XPENDING / XCLAIM / XAUTOCLAIM ----------------------------------

// XACK key group id [id ...]
Reply xack(CommandContext& ctx) {
  bool wrong = false;
  StreamGroup* g = find_group(ctx, ctx.argv[1], ctx.argv[2], nullptr, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return Reply::integer(0);  // xackCommand parses the ids after this
  std::vector<StreamId> ids;
  if (!parse_ids(ctx.argv, 3, &ids)) return bad_id();
  int64_t acked = 0;
  for (StreamId id : ids) {
    auto it = g->pending.find(id);
    if (it == g->pending.end()) continue;
    auto c = g->consumers.find(it->second.consumer);
    if (c != g->consumers.end()) c->second.pending.erase(id);
    g->pending.erase(it);
    ++acked;
  }
  return Reply::integer(acked);
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
Reply xpending(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const size_t argc = argv.size();
  bool extended = argc > 3;
  int64_t min_idle = 0;
  StreamId start, end;
  int64_t count = 0;
  const std::string* consumer = nullptr;
  if (extended) {
    size_t i = 3;
    if (equals_ci(argv[i], "idle") && argc > 4) {
      if (!parse_int64(argv[4], &min_idle)) return errors::not_integer();
      if (argc < 8) return errors::syntax();
      i = 5;
    } else if (argc < 6) {
      return errors::syntax();
    }
    if (argc > i + 4) return errors::syntax();
    bool ex = false;
    if (!parse_interval_id(argv[i], 0, &start, &ex)) return bad_id();
    if (ex && !incr_id(&start)) return Reply::error("ERR invalid start ID for the interval");
    if (!parse_interval_id(argv[i + 1], kU64Max, &end, &ex)) return bad_id();
    if (ex && !decr_id(&end)) return Reply::error("ERR invalid end ID for the interval");
    if (!parse_int64(argv[i + 2], &count)) return errors::not_integer();
    if (count < 0) count = 0;
    if (argc == i + 4) consumer = &argv[i + 3];
  }
  bool wrong = false;
  StreamGroup* g = find_group(ctx, argv[1], argv[2], nullptr, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return nogroup(argv[1], argv[2]);
  if (!extended) {
    if (g->pending.empty()) {
      return Reply::array({Reply::integer(0), Reply::nil(), Reply::nil(), Reply::nil_array()});
    }
    std::vector<Reply> by_consumer;
    for (const auto& [name, c] : g->consumers) {
      if (c.pending.empty()) continue;
      by_consumer.push_back(
          Reply::array({Reply::bulk(name), Reply::bulk(std::to_string(c.pending.size()))}));
    }
    return Reply::array({Reply::integer(static_cast<int64_t>(g->pending.size())),
                         id_reply(g->pending.begin()->first), id_reply(g->pending.rbegin()->first),
                         Reply::array(std::move(by_consumer))});
  }
  std::vector<Reply> out;
  if (count == 0 || end < start) return Reply::array({});
  auto emit = [&](StreamId id, const StreamNack& nack) {
    int64_t idle = std::max<int64_t>(ctx.now_ms - nack.delivery_time_ms, 0);
    if (min_idle > 0 && idle < min_idle) return;
    out.push_back(Reply::array({id_reply(id), Reply::bulk(nack.consumer), Reply::integer(idle),
                                Reply::integer(static_cast<int64_t>(nack.delivery_count))}));
  };
  if (consumer != nullptr) {
    auto c = g->consumers.find(*consumer);
    if (c == g->consumers.end()) return Reply::array({});
    for (auto it = c->second.pending.lower_bound(start);
         it != c->second.pending.end() && !(end < *it) && static_cast<int64_t>(out.size()) < count;
         ++it) {
      emit(*it, g->pending[*it]);
    }
  } else {
    for (auto it = g->pending.lower_bound(start);
         it != g->pending.end() && !(end < it->first) && static_cast<int64_t>(out.size()) < count;
         ++it) {
      emit(it->first, it->second);
    }
  }
  return Reply::array(std::move(out));
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms]
//   [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id]
Reply xclaim(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  Stream* s = nullptr;
  bool wrong = false;
  StreamGroup* g = find_group(ctx, argv[1], argv[2], &s, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return nogroup(argv[1], argv[2]);
  int64_t min_idle = 0;
  if (!parse_int64(argv[4], &min_idle)) {
    return Reply::error("ERR Invalid min-idle-time argument for XCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  std::vector<StreamId> ids;
  size_t i = 5;
  for (; i < argv.size(); ++i) {
    StreamId id;
    if (!parse_id(argv[i], 0, false, &id)) break;
    ids.push_back(id);
  }
  int64_t delivery_time = -1;
  int64_t retrycount = -1;
  bool force = false, justid = false;
  std::optional<StreamId> lastid;
  for (; i < argv.size(); ++i) {
    size_t left = argv.size() - i - 1;
    std::string_view o = argv[i];
    int64_t v = 0;
    if (equals_ci(o, "force")) {
      force = true;
    } else if (equals_ci(o, "justid")) {
      justid = true;
    } else if (equals_ci(o, "idle") && left >= 1) {
      if (!parse_int64(argv[++i], &v)) {
        return Reply::error("ERR Invalid IDLE option argument for XCLAIM");
      }
      delivery_time = ctx.now_ms - v;
    } else if (equals_ci(o, "time") && left >= 1) {
      if (!parse_int64(argv[++i], &v)) {
        return Reply::error("ERR Invalid TIME option argument for XCLAIM");
      }
      delivery_time = v;
    } else if (equals_ci(o, "retrycount") && left >= 1) {
      if (!parse_int64(argv[++i], &retrycount)) {
        return Reply::error("ERR Invalid RETRYCOUNT option argument for XCLAIM");
      }
    } else if (equals_ci(o, "lastid") && left >= 1) {
      StreamId id;
      if (!parse_id(argv[++i], 0, false, &id)) return bad_id();
      lastid = id;
    } else {
      return Reply::error("ERR Unrecognized XCLAIM option '" + std::string(o) + "'");
    }
  }
  if (delivery_time != -1 && (delivery_time < 0 || delivery_time > ctx.now_ms)) {
    delivery_time = ctx.now_ms;
  }
  if (delivery_time == -1) delivery_time = ctx.now_ms;
  if (lastid && g->last_id < *lastid) g->last_id = *lastid;
  const std::string& name = argv[3];
  std::vector<Reply> out;
  for (StreamId id : ids) {
    auto nack_it = g->pending.find(id);
    auto entry = s->entries.find(id);
    if (entry == s->entries.end()) {
      // A deleted entry leaves the PEL (Redis 7.0).
      if (nack_it != g->pending.end()) {
        auto c = g->consumers.find(nack_it->second.consumer);
        if (c != g->consumers.end()) c->second.pending.erase(id);
        g->pending.erase(nack_it);
      }
      continue;
    }
    if (nack_it == g->pending.end()) {
      if (!force) continue;
      nack_it = g->pending.emplace(id, StreamNack{ctx.now_ms, 0, name}).first;
    }
    StreamNack& nack = nack_it->second;
    if (min_idle > 0 && ctx.now_ms - nack.delivery_time_ms < min_idle) continue;
    StreamConsumer& c = consumer_of(ctx, argv[1], *g, name);
    move_nack(*g, id, nack, c, name);
    nack.delivery_time_ms = delivery_time;
    if (retrycount >= 0) {
      nack.delivery_count = static_cast<uint64_t>(retrycount);
    } else if (!justid) {
      ++nack.delivery_count;
    }
    out.push_back(justid ? id_reply(id) : entry_reply(id, entry->second));
  }
  return Reply::array(std::move(out));
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
Reply xautoclaim(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  // Every argument is checked before the key and group (unlike XCLAIM).
  int64_t min_idle = 0;
  if (!parse_int64(argv[4], &min_idle)) {
    return Reply::error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  StreamId start;
  bool ex = false;
  if (!parse_interval_id(argv[5], 0, &start, &ex)) return bad_id();
  if (ex && !incr_id(&start)) return Reply::error("ERR invalid start ID for the interval");
  int64_t count = 100;
  bool justid = false;
  for (size_t i = 6; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "count") && i + 1 < argv.size()) {
      constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max() / (16 * 10);
      if (!parse_int64(argv[i + 1], &count) || count < 1 || count > kMaxCount) {
        return Reply::error("ERR COUNT must be > 0");
      }
      ++i;
    } else if (equals_ci(argv[i], "justid")) {
      justid = true;
    } else {
      return errors::syntax();
    }
  }
  Stream* s = nullptr;
  bool wrong = false;
  StreamGroup* g = find_group(ctx, argv[1], argv[2], &s, &wrong);
  if (wrong) return errors::wrong_type();
  if (g == nullptr) return nogroup(argv[1], argv[2]);
  const std::string& name = argv[3];
  StreamConsumer* c = nullptr;
  std::vector<Reply> claimed, deleted;
  int64_t attempts = count * 10;
  auto it = g->pending.lower_bound(start);
  while (it != g->pending.end() && count > 0 && attempts-- > 0) {
    StreamId id = it->first;
    auto entry = s->entries.find(id);
    if (entry == s->entries.end()) {
      auto owner = g->consumers.find(it->second.consumer);
      if (owner != g->consumers.end()) owner->second.pending.erase(id);
      it = g->pending.erase(it);
      deleted.push_back(id_reply(id));
      --count;  // a deleted entry uses up the COUNT too
      continue;
    }
    StreamNack& nack = it->second;
    if (min_idle > 0 && ctx.now_ms - nack.delivery_time_ms < min_idle) {
      ++it;
      continue;
    }
    if (c == nullptr) c = &consumer_of(ctx, argv[1], *g, name);
    move_nack(*g, id, nack, *c, name);
    nack.delivery_time_ms = ctx.now_ms;
    if (!justid) ++nack.delivery_count;
    claimed.push_back(justid ? id_reply(id) : entry_reply(id, entry->second));
    --count;
    ++it;
  }
  // The consumer is created only when an entry is claimed (7.0.15, as XCLAIM).
  StreamId cursor = it == g->pending.end() ? StreamId{} : it->first;
  return Reply::array(
      {id_reply(cursor), Reply::array(std::move(claimed)), Reply::array(std::move(deleted))});
}

Reply xinfo(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  const std::string sub = admin::lower(argv[1]);
  const size_t argc = argv.size();
  if (sub == "help") {
    if (argc != 2) return admin::sub_arity("xinfo", sub);
    return help_reply(
        "XINFO", {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.",
                  "GROUPS <key>", "    Show the stream consumer groups.",
                  "STREAM <key> [FULL [COUNT <count>]", "    Show information about the stream."});
  }
  if (sub != "stream" && sub != "groups" && sub != "consumers") {
    return admin::unknown_subcommand(argv[1], "XINFO");
  }
  if ((sub == "stream" && argc < 3) || (sub == "groups" && argc != 3) ||
      (sub == "consumers" && argc != 4)) {
    return admin::sub_arity("xinfo", sub);
  }
  bool full = false;
  int64_t count = 10;
  if (sub == "stream" && argc > 3) {
    if (!equals_ci(argv[3], "full") || (argc != 4 && argc != 6) ||
        (argc == 6 && !equals_ci(argv[4], "count"))) {
      return Reply::error(
          "ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.");
    }
    full = true;
    if (argc == 6) {
      if (!parse_int64(argv[5], &count)) return errors::not_integer();
      if (count < 0) count = 10;
    }
  }
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[2], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::error("ERR no such key");
  auto idle_of = [&](int64_t t) { return Reply::integer(std::max<int64_t>(ctx.now_ms - t, 0)); };
  if (sub == "consumers") {
    auto g = s->groups.find(argv[3]);
    if (g == s->groups.end()) {
      return Reply::error("NOGROUP No such consumer group '" + argv[3] + "' for key name '" +
                          argv[2] + "'");
    }
    std::vector<Reply> out;
    for (const auto& [name, c] : g->second.consumers) {
      out.push_back(Reply::map({Reply::bulk("name"), Reply::bulk(name), Reply::bulk("pending"),
                                Reply::integer(static_cast<int64_t>(c.pending.size())),
                                Reply::bulk("idle"), idle_of(c.seen_time_ms)}));
    }
    return Reply::array(std::move(out));
  }
  if (sub == "groups") {
    std::vector<Reply> out;
    for (const auto& [name, g] : s->groups) {
      out.push_back(Reply::map(
          {Reply::bulk("name"), Reply::bulk(name), Reply::bulk("consumers"),
           Reply::integer(static_cast<int64_t>(g.consumers.size())), Reply::bulk("pending"),
           Reply::integer(static_cast<int64_t>(g.pending.size())), Reply::bulk("last-delivered-id"),
           id_reply(g.last_id), Reply::bulk("entries-read"), entries_read_reply(g),
           Reply::bulk("lag"), lag_reply(*s, g)}));
    }
    return Reply::array(std::move(out));
  }
  const int64_t nodes = static_cast<int64_t>(s->nodes.size());
  std::vector<Reply> out = {
      Reply::bulk("length"),
      Reply::integer(static_cast<int64_t>(s->size())),
      Reply::bulk("radix-tree-keys"),
      Reply::integer(nodes),
      Reply::bulk("radix-tree-nodes"),
      Reply::integer(nodes + 1),
      Reply::bulk("last-generated-id"),
      id_reply(s->last_id),
      Reply::bulk("max-deleted-entry-id"),
      id_reply(s->max_deleted_id),
      Reply::bulk("entries-added"),
      Reply::integer(static_cast<int64_t>(s->entries_added)),
      Reply::bulk("recorded-first-entry-id"),
      id_reply(s->first_id()),
  };
  if (!full) {
    out.push_back(Reply::bulk("groups"));
    out.push_back(Reply::integer(static_cast<int64_t>(s->groups.size())));
    auto edge = [&](bool last) {
      if (s->entries.empty()) return Reply::nil();
      const auto& e = last ? *s->entries.rbegin() : *s->entries.begin();
      return entry_reply(e.first, e.second);
    };
    out.push_back(Reply::bulk("first-entry"));
    out.push_back(edge(false));
    out.push_back(Reply::bulk("last-entry"));
    out.push_back(edge(true));
    return Reply::map(std::move(out));
  }
  std::vector<Reply> entries;
  for (auto& [id, f] : range(*s, StreamId{}, StreamId::max(), false, count)) {
    entries.push_back(entry_reply(id, *f));
  }
  out.push_back(Reply::bulk("entries"));
  out.push_back(Reply::array(std::move(entries)));
  std::vector<Reply> groups;
  for (const auto& [name, g] : s->groups) {
    std::vector<Reply> pel;
    for (const auto& [id, nack] : g.pending) {
      if (count > 0 && static_cast<int64_t>(pel.size()) >= count) break;
      pel.push_back(Reply::array({id_reply(id), Reply::bulk(nack.consumer),
                                  Reply::integer(nack.delivery_time_ms),
                                  Reply::integer(static_cast<int64_t>(nack.delivery_count))}));
    }
    std::vector<Reply> consumers;
    for (const auto& [cname, c] : g.consumers) {
      std::vector<Reply> cpel;
      for (StreamId id : c.pending) {
        if (count > 0 && static_cast<int64_t>(cpel.size()) >= count) break;
        auto n = g.pending.find(id);
        if (n == g.pending.end()) continue;
        cpel.push_back(
            Reply::array({id_reply(id), Reply::integer(n->second.delivery_time_ms),
                          Reply::integer(static_cast<int64_t>(n->second.delivery_count))}));
      }
      consumers.push_back(
          Reply::map({Reply::bulk("name"), Reply::bulk(cname), Reply::bulk("seen-time"),
                      Reply::integer(c.seen_time_ms), Reply::bulk("pel-count"),
                      Reply::integer(static_cast<int64_t>(c.pending.size())),
                      Reply::bulk("pending"), Reply::array(std::move(cpel))}));
    }
    groups.push_back(
        Reply::map({Reply::bulk("name"), Reply::bulk(name), Reply::bulk("last-delivered-id"),
                    id_reply(g.last_id), Reply::bulk("entries-read"), entries_read_reply(g),
                    Reply::bulk("lag"), lag_reply(*s, g), Reply::bulk("pel-count"),
                    Reply::integer(static_cast<int64_t>(g.pending.size())), Reply::bulk("pending"),
                    Reply::array(std::move(pel)), Reply::bulk("consumers"),
                    Reply::array(std::move(consumers))}));
  }
  out.push_back(Reply::bulk("groups"));
  out.push_back(Reply::array(std::move(groups)));
  return Reply::map(std::move(out));
}

}  // namespace redsim::sim
