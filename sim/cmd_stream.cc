// Stream commands, the entries: XADD XRANGE XREVRANGE XLEN XDEL XTRIM
// XREAD XSETID, and XREADGROUP's parsing and blocking, on the Stream value
// of sim/stream.h; XREAD and XREADGROUP with BLOCK block on the server
// clock (sim/blocking.h). The consumer groups are in cmd_stream_groups.cc,
// what both use in cmd_stream.h. Error texts are Redis 7.0.15's (checked
// against redis-server 7.0.15). Sources: Redis 7.0 src/t_stream.c
// (streamParseAddOrTrimArgsOrReply, streamTrim, xreadCommand,
// streamReplyWithRange, xsetidCommand) and the stream command pages; facts
// only.
#include "sim/cmd_stream.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/blocking.h"
#include "sim/cmd_admin.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

Reply bad_id() {
  return Reply::error("ERR Invalid stream ID specified as stream command argument");
}

Reply id_reply(StreamId id) { return Reply::bulk(id.str()); }

namespace {

Reply fields_reply(const Stream::Fields& f) {
  std::vector<Reply> out;
  out.reserve(f.size());
  for (const std::string& s : f) out.push_back(Reply::bulk(s));
  return Reply::array(std::move(out));
}

}  // namespace

Reply entry_reply(StreamId id, const Stream::Fields& f) {
  return Reply::array({id_reply(id), fields_reply(f)});
}

Stream* read_stream(CommandContext& ctx, std::string_view key, bool* wrong) {
  Entry* e = lookup_typed(ctx, key, ValueType::kStream, wrong);
  return e == nullptr ? nullptr : &e->stream();
}

namespace {

int64_t config_int(CommandContext& ctx, std::string_view name, int64_t fallback) {
  auto& others = ctx.server.config().others;
  auto it = others.find(name);
  int64_t v = 0;
  if (it != others.end() && parse_int64(it->second, &v)) return v;
  return fallback;
}

// ---- Nodes (see Stream::Node) and deletion ---------------------------------

size_t node_of(const Stream& s, StreamId id) {
  auto it = std::upper_bound(s.nodes.begin(), s.nodes.end(), id,
                             [](StreamId v, const Stream::Node& n) { return v < n.first; });
  return static_cast<size_t>(it - s.nodes.begin()) - 1;
}

uint64_t entry_bytes(const Stream::Fields& f) {
  uint64_t n = 4;
  for (const std::string& s : f) n += s.size() + 2;
  return n;
}

void append_entry(CommandContext& ctx, Stream& s, StreamId id, Stream::Fields fields) {
  const int64_t max_entries = config_int(ctx, "stream-node-max-entries", 100);
  const int64_t max_bytes = config_int(ctx, "stream-node-max-bytes", 4096);
  const uint64_t bytes = entry_bytes(fields);
  bool fresh = s.nodes.empty();
  if (!fresh) {
    const Stream::Node& back = s.nodes.back();
    if (max_entries > 0 && back.added >= static_cast<uint64_t>(max_entries)) fresh = true;
    if (max_bytes > 0 && back.bytes + bytes >= static_cast<uint64_t>(max_bytes)) fresh = true;
  }
  if (fresh) {
    s.nodes.push_back(Stream::Node{id, id, 0, 0, 16});
  }
  Stream::Node& node = s.nodes.back();
  node.last = id;
  ++node.added;
  ++node.live;
  node.bytes += bytes;
  s.entries.emplace(id, std::move(fields));
  s.last_id = id;
  ++s.entries_added;
}

// Removes the entry `id` (present) and its node once empty.
void erase_entry(Stream& s, StreamId id) {
  s.entries.erase(id);
  size_t n = node_of(s, id);
  if (n < s.nodes.size() && --s.nodes[n].live == 0) {
    s.nodes.erase(s.nodes.begin() + static_cast<std::ptrdiff_t>(n));
  }
}

// ---- Trimming (streamTrim) --------------------------------------------------

struct TrimArgs {
  enum Strategy { kNone, kMaxLen, kMinId } strategy = kNone;
  bool approx = false;
  int64_t maxlen = 0;
  StreamId minid;
  int64_t limit = -1;  // -1: not given
};

int64_t trim(CommandContext& ctx, Stream& s, const TrimArgs& t) {
  if (t.strategy == TrimArgs::kNone) return 0;
  int64_t limit = t.limit;
  if (limit < 0) limit = t.approx ? 100 * config_int(ctx, "stream-node-max-entries", 100) : 0;
  int64_t deleted = 0;
  while (!s.nodes.empty()) {
    if (t.strategy == TrimArgs::kMaxLen && static_cast<int64_t>(s.size()) <= t.maxlen) break;
    Stream::Node& node = s.nodes.front();
    const int64_t live = static_cast<int64_t>(node.live);
    bool whole = t.strategy == TrimArgs::kMaxLen ? static_cast<int64_t>(s.size()) - live >= t.maxlen
                                                 : node.last < t.minid;
    if (whole) {
      if (limit > 0 && deleted + live > limit) break;
      auto end = s.nodes.size() > 1 ? s.entries.lower_bound(s.nodes[1].first) : s.entries.end();
      s.entries.erase(s.entries.begin(), end);
      s.nodes.erase(s.nodes.begin());
      deleted += live;
      continue;
    }
    if (t.approx) break;
    // Exact: entry by entry within this node.
    while (!s.entries.empty()) {
      auto it = s.entries.begin();
      if (t.strategy == TrimArgs::kMaxLen ? static_cast<int64_t>(s.size()) <= t.maxlen
                                          : !(it->first < t.minid)) {
        break;
      }
      erase_entry(s, it->first);
      ++deleted;
    }
    break;
  }
  return deleted;
}

// MAXLEN|MINID [=|~] threshold [LIMIT count] at argv[*i]; false with *error.
bool parse_trim_option(const Argv& argv, size_t* i, TrimArgs* t, bool* limit_seen, Reply* error) {
  std::string_view opt = argv[*i];
  size_t left = argv.size() - *i - 1;
  if ((equals_ci(opt, "maxlen") || equals_ci(opt, "minid")) && left >= 1) {
    bool maxlen = equals_ci(opt, "maxlen");
    if ((maxlen && t->strategy == TrimArgs::kMinId) ||
        (!maxlen && t->strategy == TrimArgs::kMaxLen)) {
      *error = Reply::error(
          "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
      return false;
    }
    size_t v = *i + 1;
    t->approx = false;
    if ((argv[v] == "~" || argv[v] == "=") && left >= 2) {
      t->approx = argv[v] == "~";
      ++v;
    }
    if (maxlen) {
      if (!parse_int64(argv[v], &t->maxlen)) {
        *error = errors::not_integer();
        return false;
      }
      if (t->maxlen < 0) {
        *error = Reply::error("ERR The MAXLEN argument must be >= 0.");
        return false;
      }
      t->strategy = TrimArgs::kMaxLen;
    } else {
      if (!parse_id(argv[v], 0, false, &t->minid)) {
        *error = bad_id();
        return false;
      }
      t->strategy = TrimArgs::kMinId;
    }
    *i = v + 1;
    return true;
  }
  if (equals_ci(opt, "limit") && left >= 1) {
    if (!parse_int64(argv[*i + 1], &t->limit)) {
      *error = errors::not_integer();
      return false;
    }
    if (t->limit < 0) {
      *error = Reply::error("ERR The LIMIT argument must be >= 0.");
      return false;
    }
    *limit_seen = true;
    *i += 2;
    return true;
  }
  *error = errors::syntax();
  return false;
}

bool check_limit(const TrimArgs& t, bool limit_seen, Reply* error) {
  if (!limit_seen) return true;
  if (t.strategy == TrimArgs::kNone) {
    *error = Reply::error(
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return false;
  }
  if (!t.approx) {
    *error = Reply::error("ERR syntax error, LIMIT cannot be used without the special ~ option");
    return false;
  }
  return true;
}

// ---- XADD -------------------------------------------------------------------

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
Reply xadd(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  TrimArgs t;
  bool limit_seen = false;
  bool nomkstream = false;
  size_t i = 2;
  Reply error;
  // Options until the id: the first argument that is none of them.
  while (i < argv.size()) {
    std::string_view a = argv[i];
    size_t left = argv.size() - i - 1;
    if (equals_ci(a, "nomkstream")) {
      nomkstream = true;
      ++i;
    } else if ((equals_ci(a, "maxlen") || equals_ci(a, "minid") || equals_ci(a, "limit")) &&
               left >= 1) {
      if (!parse_trim_option(argv, &i, &t, &limit_seen, &error)) return error;
    } else {
      break;
    }
  }
  if (!check_limit(t, limit_seen, &error)) return error;
  if (i >= argv.size() || (argv.size() - i - 1) % 2 != 0 || argv.size() - i - 1 == 0) {
    return errors::arity("xadd");
  }
  bool auto_id = argv[i] == "*";
  StreamId id;
  bool seq_given = true;
  if (!auto_id) {
    if (!parse_id(argv[i], 0, false, &id, &seq_given)) return bad_id();
    if (seq_given && id.ms == 0 && id.seq == 0) {
      return Reply::error("ERR The ID specified in XADD must be greater than 0-0");
    }
  }
  const std::string& key = argv[1];
  bool wrong = false;
  Stream* s = read_stream(ctx, key, &wrong);
  if (wrong) return errors::wrong_type();
  Db& db = current_db(ctx);
  if (s == nullptr) {
    if (nomkstream) return Reply::nil();
  }
  const StreamId last = s == nullptr ? StreamId{} : s->last_id;
  if (auto_id) {
    if (last == StreamId::max()) {
      return Reply::error(
          "ERR The stream has exhausted the last possible ID, unable to add more items");
    }
    const uint64_t now = static_cast<uint64_t>(std::max<int64_t>(ctx.now_ms, 0));
    if (now > last.ms) {
      id = StreamId{now, 0};
    } else {
      id = last;
      incr_id(&id);
    }
  } else if (!seq_given) {
    if (id.ms < last.ms || (id.ms == last.ms && last.seq == kU64Max)) {
      return Reply::error(
          "ERR The ID specified in XADD is equal or smaller than the target stream top item");
    }
    id.seq = id.ms == last.ms ? last.seq + 1 : 0;
  } else if (!(last < id)) {
    return Reply::error(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
  }
  if (s == nullptr) s = &db.add(key, Stream()).stream();
  Stream::Fields fields(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
  append_entry(ctx, *s, id, std::move(fields));
  db.touch(key);
  notify_keyspace_event(ctx, notify::kStream, "xadd", key);
  if (trim(ctx, *s, t) > 0) notify_keyspace_event(ctx, notify::kStream, "xtrim", key);
  db.signal_ready(key);
  return id_reply(id);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
Reply xtrim(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  TrimArgs t;
  bool limit_seen = false;
  Reply error;
  size_t i = 2;
  while (i < argv.size()) {
    if (!parse_trim_option(argv, &i, &t, &limit_seen, &error)) return error;
  }
  if (t.strategy == TrimArgs::kNone) return errors::syntax();
  if (!check_limit(t, limit_seen, &error)) return error;
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::integer(0);
  int64_t deleted = trim(ctx, *s, t);
  if (deleted > 0) {
    current_db(ctx).touch(argv[1]);
    notify_keyspace_event(ctx, notify::kStream, "xtrim", argv[1]);
  }
  return Reply::integer(deleted);
}

Reply xlen(CommandContext& ctx) {
  bool wrong = false;
  Stream* s = read_stream(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  return Reply::integer(s == nullptr ? 0 : static_cast<int64_t>(s->size()));
}

// XDEL key id [id ...]
Reply xdel(CommandContext& ctx) {
  bool wrong = false;
  Stream* s = read_stream(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::integer(0);  // xdelCommand parses the ids after this
  std::vector<StreamId> ids;
  if (!parse_ids(ctx.argv, 2, &ids)) return bad_id();
  int64_t deleted = 0;
  for (StreamId id : ids) {
    if (!s->entries.contains(id)) continue;
    erase_entry(*s, id);
    if (s->max_deleted_id < id) s->max_deleted_id = id;
    ++deleted;
  }
  if (deleted > 0) {
    current_db(ctx).touch(ctx.argv[1]);
    notify_keyspace_event(ctx, notify::kStream, "xdel", ctx.argv[1]);
  }
  return Reply::integer(deleted);
}

// ---- XRANGE / XREVRANGE -----------------------------------------------------

}  // namespace

std::vector<std::pair<StreamId, const Stream::Fields*>> range(const Stream& s, StreamId start,
                                                              StreamId end, bool rev,
                                                              int64_t count) {
  std::vector<std::pair<StreamId, const Stream::Fields*>> out;
  if (end < start) return out;
  if (!rev) {
    for (auto it = s.entries.lower_bound(start); it != s.entries.end() && !(end < it->first);
         ++it) {
      if (count > 0 && static_cast<int64_t>(out.size()) >= count) break;
      out.emplace_back(it->first, &it->second);
    }
  } else {
    auto it = s.entries.upper_bound(end);
    while (it != s.entries.begin()) {
      --it;
      if (it->first < start) break;
      if (count > 0 && static_cast<int64_t>(out.size()) >= count) break;
      out.emplace_back(it->first, &it->second);
    }
  }
  return out;
}

namespace {

Reply range_generic(CommandContext& ctx, bool rev) {
  const Argv& argv = ctx.argv;
  std::string_view a = rev ? argv[3] : argv[2];
  std::string_view b = rev ? argv[2] : argv[3];
  StreamId start, end;
  bool start_ex = false, end_ex = false;
  if (!parse_interval_id(a, 0, &start, &start_ex)) return bad_id();
  if (start_ex && !incr_id(&start)) return Reply::error("ERR invalid start ID for the interval");
  if (!parse_interval_id(b, kU64Max, &end, &end_ex)) return bad_id();
  if (end_ex && !decr_id(&end)) return Reply::error("ERR invalid end ID for the interval");
  int64_t count = -1;
  for (size_t i = 4; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "count") && i + 1 < argv.size()) {
      if (!parse_int64(argv[i + 1], &count)) return errors::not_integer();
      if (count < 0) count = 0;
      ++i;
    } else {
      return errors::syntax();
    }
  }
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::array({});
  if (count == 0) return Reply::nil_array();  // xrangeGenericCommand: a stream, COUNT 0
  std::vector<Reply> out;
  for (auto& [id, f] : range(*s, start, end, rev, count < 0 ? 0 : count)) {
    out.push_back(entry_reply(id, *f));
  }
  return Reply::array(std::move(out));
}

Reply xrange(CommandContext& ctx) { return range_generic(ctx, false); }
Reply xrevrange(CommandContext& ctx) { return range_generic(ctx, true); }

// ---- XREAD / XREADGROUP -----------------------------------------------------

Reply xread_generic(CommandContext& ctx, bool group_mode) {
  const Argv& argv = ctx.argv;
  const std::string_view name = group_mode ? "xreadgroup" : "xread";
  int64_t count = 0;
  std::optional<int64_t> deadline;
  bool block = false;
  bool noack = false;
  std::string group, consumer;
  bool group_given = false;
  size_t streams_at = 0;
  Reply error;
  for (size_t i = 1; i < argv.size(); ++i) {
    size_t left = argv.size() - i - 1;
    if (equals_ci(argv[i], "block") && left >= 1) {
      // Redis 7.0's xreadCommand refuses BLOCK from a script outright (the
      // command name as the script spelled it).
      if (ctx.in_script) {
        return Reply::error("ERR " + argv[0] +
                            " command is not allowed with BLOCK option from scripts");
      }
      if (!parse_block_timeout(ctx, argv[i + 1], false, &deadline, &error)) return error;
      block = true;
      ++i;
    } else if (equals_ci(argv[i], "count") && left >= 1) {
      if (!parse_int64(argv[i + 1], &count)) return errors::not_integer();
      if (count < 0) count = 0;
      ++i;
    } else if (equals_ci(argv[i], "streams") && left >= 1) {
      streams_at = i + 1;
      break;
    } else if (group_mode && equals_ci(argv[i], "group") && left >= 2) {
      group = argv[i + 1];
      consumer = argv[i + 2];
      group_given = true;
      i += 2;
    } else if (group_mode && equals_ci(argv[i], "noack")) {
      noack = true;
    } else {
      return errors::syntax();
    }
  }
  if (streams_at == 0) return errors::syntax();
  const size_t nargs = argv.size() - streams_at;
  if (nargs % 2 != 0) {
    return Reply::error("ERR Unbalanced '" + std::string(name) +
                        "' list of streams: for each stream key an ID or '$' must be specified.");
  }
  if (group_mode && !group_given) {
    return Reply::error("ERR Missing GROUP option for XREADGROUP");
  }
  const size_t nkeys = nargs / 2;
  struct Target {
    std::string key;
    StreamId id;            // read entries after it
    bool new_only = false;  // ">"
    Stream* s = nullptr;
    StreamGroup* g = nullptr;
  };
  std::vector<Target> targets(nkeys);
  // Ids first (their errors come before type and group errors), then keys.
  for (size_t k = 0; k < nkeys; ++k) {
    Target& t = targets[k];
    t.key = argv[streams_at + k];
    std::string_view id = argv[streams_at + nkeys + k];
    if (id == ">") {
      if (!group_mode) {
        return Reply::error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
      }
      t.new_only = true;
    } else if (id == "$") {
      if (group_mode) {
        return Reply::error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
      }
    } else if (!parse_id(id, 0, true, &t.id)) {
      return bad_id();
    }
  }
  std::vector<std::string> keys;
  for (size_t k = 0; k < nkeys; ++k) {
    Target& t = targets[k];
    bool wrong = false;
    t.s = read_stream(ctx, t.key, &wrong);
    if (wrong) return errors::wrong_type();
    std::string_view id = argv[streams_at + nkeys + k];
    if (id == "$") t.id = t.s == nullptr ? StreamId{} : t.s->last_id;
    if (group_mode) {
      if (t.s != nullptr) {
        auto g = t.s->groups.find(group);
        if (g != t.s->groups.end()) t.g = &g->second;
      }
      if (t.g == nullptr) {
        return Reply::error("NOGROUP No such key '" + t.key + "' or consumer group '" + group +
                            "' in XREADGROUP with GROUP option");
      }
    }
    keys.push_back(t.key);
  }
  std::vector<Reply> out;  // [key, entries] pairs
  for (Target& t : targets) {
    std::vector<Reply> entries;
    if (!group_mode) {
      if (t.s == nullptr || !(t.id < t.s->last_id)) continue;
      StreamId start = t.id;
      if (!incr_id(&start)) continue;
      for (auto& [id, f] : range(*t.s, start, StreamId::max(), false, count)) {
        entries.push_back(entry_reply(id, *f));
      }
      if (entries.empty()) continue;
    } else if (t.new_only) {
      if (!read_group_new(ctx, t.key, *t.s, *t.g, consumer, noack, count, &entries)) continue;
    } else {
      read_group_history(ctx, t.key, *t.s, *t.g, consumer, t.id, count, &entries);
    }
    out.push_back(Reply::bulk(t.key));
    out.push_back(Reply::array(std::move(entries)));
  }
  if (!out.empty()) {
    if (ctx.session.protocol() == resp::Protocol::kResp3) return Reply::map(std::move(out));
    std::vector<Reply> pairs;
    for (size_t i = 0; i < out.size(); i += 2) {
      pairs.push_back(Reply::array({std::move(out[i]), std::move(out[i + 1])}));
    }
    return Reply::array(std::move(pairs));
  }
  bool may_wait = block;
  if (group_mode) {
    // Only new entries (">") are worth waiting for.
    for (const Target& t : targets) {
      if (!t.new_only) may_wait = false;
    }
  }
  if (!may_wait) return Reply::nil_array();
  // Re-run with "$" resolved to the ids seen now, as Redis keeps them.
  Argv rerun = argv;
  for (size_t k = 0; k < nkeys; ++k) {
    if (rerun[streams_at + nkeys + k] == "$") rerun[streams_at + nkeys + k] = targets[k].id.str();
  }
  return block_or_reply(ctx, keys, deadline, Reply::nil_array(), std::move(rerun),
                        ValueType::kStream);
}

Reply xread(CommandContext& ctx) { return xread_generic(ctx, false); }
Reply xreadgroup(CommandContext& ctx) { return xread_generic(ctx, true); }

// ---- XSETID -----------------------------------------------------------------

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
Reply xsetid(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  StreamId id;
  if (!parse_id(argv[2], 0, false, &id)) return bad_id();
  int64_t entries_added = -1;
  std::optional<StreamId> max_deleted;
  for (size_t i = 3; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "entriesadded") && i + 1 < argv.size()) {
      if (!parse_int64(argv[i + 1], &entries_added)) return errors::not_integer();
      if (entries_added < 0) {
        return Reply::error("ERR entries_added must be positive");
      }
      ++i;
    } else if (equals_ci(argv[i], "maxdeletedid") && i + 1 < argv.size()) {
      StreamId m;
      if (!parse_id(argv[i + 1], 0, false, &m)) return bad_id();
      if (id < m) {
        return Reply::error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
      }
      max_deleted = m;
      ++i;
    } else {
      return errors::syntax();
    }
  }
  bool wrong = false;
  Stream* s = read_stream(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (s == nullptr) return Reply::error("ERR no such key");
  // The top item first, then entries_added (xsetidCommand's order).
  if (!s->entries.empty() && id < s->entries.rbegin()->first) {
    return Reply::error(
        "ERR The ID specified in XSETID is smaller than the target stream top item");
  }
  if (entries_added >= 0 && static_cast<uint64_t>(entries_added) < s->size()) {
    return Reply::error(
        "ERR The entries_added specified in XSETID is smaller than the target stream length");
  }
  s->last_id = id;
  if (entries_added >= 0) s->entries_added = static_cast<uint64_t>(entries_added);
  if (max_deleted) s->max_deleted_id = *max_deleted;
  notify_keyspace_event(ctx, notify::kStream, "xsetid", argv[1]);
  return Reply::ok();
}

constexpr SubcommandSpec kXgroupSubcommands[] = {
    {"create", -5, kCmdWrite | kCmdDenyOom},
    {"createconsumer", 5, kCmdWrite | kCmdDenyOom},
    {"delconsumer", 5, kCmdWrite},
    {"destroy", 4, kCmdWrite},
    {"help", 2, 0},
    {"setid", -5, kCmdWrite},
};
constexpr SubcommandSpec kXinfoSubcommands[] = {
    {"consumers", 4, kCmdReadonly},
    {"groups", 3, kCmdReadonly},
    {"help", 2, 0},
    {"stream", -3, kCmdReadonly},
};

}  // namespace

void register_stream_commands(CommandTable& table) {
  table.add({"xadd", -5, kCmdWrite | kCmdDenyOom | kCmdFast, &xadd});
  table.add({"xrange", -4, kCmdReadonly, &xrange});
  table.add({"xrevrange", -4, kCmdReadonly, &xrevrange});
  table.add({"xlen", 2, kCmdReadonly | kCmdFast, &xlen});
  table.add({"xdel", -3, kCmdWrite | kCmdFast, &xdel});
  table.add({"xtrim", -4, kCmdWrite, &xtrim});
  table.add({"xread", -4, kCmdReadonly, &xread});
  table.add({"xreadgroup", -7, kCmdWrite, &xreadgroup});
  table.add({"xgroup", -2, kCmdContainer, &xgroup});
  table.add({"xack", -4, kCmdWrite | kCmdFast, &xack});
  table.add({"xpending", -3, kCmdReadonly, &xpending});
  table.add({"xclaim", -6, kCmdWrite | kCmdFast, &xclaim});
  table.add({"xautoclaim", -6, kCmdWrite | kCmdFast, &xautoclaim});
  table.add({"xsetid", -3, kCmdWrite | kCmdDenyOom | kCmdFast, &xsetid});
  table.add({"xinfo", -2, kCmdContainer, &xinfo});
  table.add_subcommands("xgroup", kXgroupSubcommands);
  table.add_subcommands("xinfo", kXinfoSubcommands);
}

}  // namespace redsim::sim
