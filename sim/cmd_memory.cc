// MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP: documented
// approximations of Redis 7.0.15's answers (the MEMORY command page;
// object.c memoryCommand and objectComputeSize for what is counted).
//
// MEMORY USAGE key [SAMPLES count] estimates what Redis 7.0 built with
// jemalloc would report for the key: the key's sds and dictEntry plus the
// value's cost in the encoding OBJECT ENCODING names, every allocation
// rounded up to jemalloc's size classes. Per encoding, as objectComputeSize:
//   int      the robj (16)                embstr  one robj+sds allocation
//   raw      robj + sds                   listpack  robj + the listpack's bytes
//   intset   robj + 8-byte header + n * width (2, 4 or 8)
//   hashtable  robj + dict (56) + 8 per bucket + per element dictEntry (24)
//            and its sds (a hash's value too)
//   skiplist robj + zset, skiplist, dict, the 32-level header, per element
//            a one-level node, its sds and a dictEntry
//   quicklist  robj + quicklist (40) + per node (32) its listpack; nodes
//            hold 8 KB, as list-max-listpack-size -2
//   stream   robj + stream (64) + per node a preallocated 4096-byte listpack
//            and its radix-tree node, and the consumer groups' PELs
// Aggregates are sampled as Redis does: the first `count` elements
// (default 5, 0 all) averaged and multiplied by the element count. Checked
// against redis-server 7.0.15 (a few bytes apart at most for small values).
//
// MEMORY STATS answers Redis's fields from used_memory (Server::
// used_memory_bytes) with no allocator fragmentation (ratios 1); DOCTOR
// answers what Redis answers under 5 MB; MALLOC-STATS what a non-jemalloc
// build answers; PURGE does nothing and answers OK.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_admin.h"
#include "sim/internal.h"
#include "sim/lua/script_engine.h"
#include "sim/stream.h"

namespace redsim::sim {

using resp::Reply;

namespace {

// jemalloc's size classes: 8, 16, then four per doubling (32 48 64 80 96
// 112 128 160 192 ...), pages beyond.
int64_t alloc_size(int64_t n) {
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) / 16 * 16;
  int64_t group = 128;
  while (group * 2 < n) group *= 2;
  int64_t step = group / 4;
  return (n + step - 1) / step * step;
}

// An sds string of `len` bytes as sdsnewlen allocates it (header by type).
int64_t sds_size(size_t len) {
  int64_t header = len < 32 ? 1 : len < 256 ? 3 : len < 65536 ? 5 : 9;
  return alloc_size(header + static_cast<int64_t>(len) + 1);
}

// One listpack entry (encoding, data, back length) for `s`.
int64_t listpack_entry(std::string_view s) {
  int64_t v = 0;
  int64_t body;
  if (s.size() <= 20 && parse_int64(s, &v) && std::to_string(v) == s) {
    body = (v >= 0 && v <= 127)                 ? 1
           : (v >= -4096 && v <= 4095)          ? 2
           : (v >= -32768 && v <= 32767)        ? 3
           : (v >= -8388608 && v <= 8388607)    ? 4
           : (v >= INT32_MIN && v <= INT32_MAX) ? 5
                                                : 9;
  } else {
    int64_t len = static_cast<int64_t>(s.size());
    body = (len <= 63 ? 1 : len <= 4095 ? 2 : 5) + len;
  }
  int64_t backlen = body <= 127 ? 1 : body < 16383 ? 2 : body < 2097151 ? 3 : 4;
  return body + backlen;
}

constexpr int64_t kListpackOverhead = 7;  // 6-byte header, 1-byte end mark
constexpr int64_t kRobj = 16;
constexpr int64_t kDictEntry = 24;
constexpr int64_t kDict = 56;

int64_t dict_slots(size_t n) {
  int64_t slots = 4;
  while (slots < static_cast<int64_t>(n)) slots *= 2;
  return slots;
}

// Average of the first `samples` costs (all when 0) times `count`.
template <typename Range, typename Cost>
int64_t sampled(const Range& items, size_t count, int64_t samples, Cost cost) {
  if (count == 0) return 0;
  int64_t total = 0;
  int64_t taken = 0;
  for (const auto& item : items) {
    if (samples != 0 && taken >= samples) break;
    total += cost(item);
    ++taken;
  }
  return taken == 0 ? 0 : static_cast<int64_t>(static_cast<double>(total) / taken * count);
}

int64_t value_size(const Entry& e, int64_t samples) {
  std::string_view enc = encoding_name(e);
  switch (e.type()) {
    case ValueType::kString:
      if (enc == "int") return kRobj;
      if (enc == "embstr") return alloc_size(kRobj + 3 + static_cast<int64_t>(e.str().size()) + 1);
      return kRobj + sds_size(e.str().size());
    case ValueType::kHash: {
      const Hash& h = e.hash();
      if (enc == "listpack") {
        int64_t lp = kListpackOverhead;
        for (const auto& [field, value] : h.entries()) {
          lp += listpack_entry(field) + listpack_entry(value);
        }
        return kRobj + alloc_size(lp);
      }
      return kRobj + kDict + 8 * dict_slots(h.size()) +
             sampled(h.entries(), h.size(), samples, [](const Hash::Field& f) {
               return kDictEntry + sds_size(f.first.size()) + sds_size(f.second.size());
             });
    }
    case ValueType::kList: {
      // quicklist: nodes of at most 8 KB of listpack.
      std::vector<int64_t> nodes;
      int64_t lp = kListpackOverhead;
      for (const std::string& item : e.list()) {
        int64_t add = listpack_entry(item);
        if (lp > kListpackOverhead && lp + add > 8192) {
          nodes.push_back(lp);
          lp = kListpackOverhead;
        }
        lp += add;
      }
      nodes.push_back(lp);
      return kRobj + 40 + sampled(nodes, nodes.size(), samples, [](int64_t bytes) {
               return 32 + alloc_size(bytes);
             });
    }
    case ValueType::kSet: {
      const Set& s = e.set();
      if (s.intset()) {
        int64_t width = 2;
        for (const std::string& m : s.members()) {
          int64_t v = 0;
          parse_int64(m, &v);
          if (v < INT16_MIN || v > INT16_MAX) width = std::max<int64_t>(width, 4);
          if (v < INT32_MIN || v > INT32_MAX) width = 8;
        }
        return kRobj + alloc_size(8 + width * static_cast<int64_t>(s.size()));
      }
      return kRobj + kDict + 8 * dict_slots(s.size()) +
             sampled(s.members(), s.size(), samples,
                     [](const std::string& m) { return kDictEntry + sds_size(m.size()); });
    }
    case ValueType::kZset: {
      const Zset& z = e.zset();
      if (enc == "listpack") {
        int64_t lp = kListpackOverhead;
        char buf[32];
        for (const Zset::Item& item : z.items()) {
          std::snprintf(buf, sizeof buf, "%.17g", item.score);
          lp += listpack_entry(item.member) + listpack_entry(buf);
        }
        return kRobj + alloc_size(lp);
      }
      // zset (16), zskiplist (32), dict, buckets, the 32-level header.
      return kRobj + 16 + 32 + kDict + 8 * dict_slots(z.size()) + alloc_size(24 + 32 * 16) +
             sampled(z.items(), z.size(), samples, [](const Zset::Item& item) {
               return sds_size(item.member.size()) + kDictEntry + alloc_size(24 + 16);
             });
    }
    case ValueType::kStream: {
      const Stream& s = e.stream();
      size_t nodes = std::max<size_t>(s.nodes.size(), s.entries.empty() ? 0 : 1);
      int64_t size = kRobj + 64 + 48;  // the stream and its rax
      size += static_cast<int64_t>(nodes) * (4096 + 64);
      for (const auto& [name, group] : s.groups) {
        size += 128 + sds_size(name.size());
        size += static_cast<int64_t>(group.pending.size()) * (64 + 48);
        for (const auto& [consumer, c] : group.consumers) {
          size += 64 + sds_size(consumer.size()) + static_cast<int64_t>(c.pending.size()) * 32;
        }
      }
      return size;
    }
  }
  return kRobj;
}

Reply memory(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  std::string sub = admin::lower(argv[1]);
  size_t argc = argv.size();
  if (sub == "help") {
    if (argc != 2) return admin::sub_arity("memory", sub);
    return help_reply(
        "MEMORY", {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
                   "    Return internal statistics report from the memory allocator.", "PURGE",
                   "    Attempt to purge dirty pages for reclamation by the allocator.", "STATS",
                   "    Return information about the memory usage of the server.",
                   "USAGE <key> [SAMPLES <count>]",
                   "    Return memory in bytes used by <key> and its value. Nested "
                   "values are",
                   "    sampled up to <count> times (default: 5, 0 means sample all)."});
  }
  if (sub == "usage") {
    if (argc < 3) return admin::sub_arity("memory", sub);
    int64_t samples = 5;
    for (size_t i = 3; i < argc; ++i) {
      if (equals_ci(argv[i], "samples") && i + 1 < argc) {
        if (!parse_int64(argv[i + 1], &samples)) return errors::not_integer();
        if (samples < 0) return Reply::error("ERR syntax error");
        ++i;
      } else {
        return Reply::error("ERR syntax error");
      }
    }
    // Redis finds the key without an expiry check (dbFind).
    const Entry* e = current_db(ctx).peek(argv[2]);
    if (e == nullptr) return Reply::nil();
    return Reply::integer(value_size(*e, samples) + sds_size(argv[2].size()) + kDictEntry);
  }
  if (sub == "stats" || sub == "doctor" || sub == "malloc-stats" || sub == "purge") {
    if (argc != 2) return admin::sub_arity("memory", sub);
  } else {
    return admin::unknown_subcommand(argv[1], "MEMORY");
  }
  if (sub == "purge") return Reply::ok();
  if (sub == "malloc-stats") return Reply::bulk("Stats not supported for the current allocator");
  int64_t used = ctx.server.used_memory_bytes();
  if (sub == "doctor") {
    return Reply::verbatim(
        "txt",
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't "
        "be used in these conditions. Please, leave for your mission on Earth and fill it with "
        "some data. The new Sam and I will be back to our programming as soon as I finished "
        "rebooting.");
  }
  // STATS: Redis's fields in its order; no fragmentation, no peak beyond now.
  Keyspace& ks = ServerAccess::keyspace(ctx.server);
  int64_t startup = Server::kBaseUsedMemoryBytes;
  int64_t scripts = static_cast<int64_t>(ServerAccess::scripts(ctx.server).script_count());
  int64_t lua_caches = scripts * 200;
  std::vector<Reply> out;
  auto field = [&out](const char* name, Reply value) {
    out.push_back(Reply::bulk(name));
    out.push_back(std::move(value));
  };
  field("peak.allocated", Reply::integer(used));
  field("total.allocated", Reply::integer(used));
  field("startup.allocated", Reply::integer(startup));
  field("replication.backlog", Reply::integer(0));
  field("clients.slaves", Reply::integer(0));
  field("clients.normal", Reply::integer(0));
  field("cluster.links", Reply::integer(0));
  field("aof.buffer", Reply::integer(0));
  field("lua.caches", Reply::integer(lua_caches));
  field("functions.caches", Reply::integer(0));
  int64_t keys = 0;
  int64_t overhead = startup + lua_caches;
  for (int i = 0; i < ks.databases(); ++i) {
    Db& db = ks.db(i);
    if (db.size() == 0) continue;
    keys += static_cast<int64_t>(db.size());
    int64_t main = kDict + 8 * dict_slots(db.size()) + kDictEntry * static_cast<int64_t>(db.size());
    int64_t expires = db.volatile_count() == 0
                          ? 0
                          : kDict + 8 * dict_slots(db.volatile_count()) +
                                kDictEntry * static_cast<int64_t>(db.volatile_count());
    overhead += main + expires;
    field(("db." + std::to_string(i)).c_str(),
          Reply::map({Reply::bulk("overhead.hashtable.main"), Reply::integer(main),
                      Reply::bulk("overhead.hashtable.expires"), Reply::integer(expires),
                      Reply::bulk("overhead.hashtable.slot-to-keys"), Reply::integer(0)}));
  }
  overhead = std::min(overhead, used);
  int64_t dataset = used - overhead;
  field("overhead.total", Reply::integer(overhead));
  field("keys.count", Reply::integer(keys));
  field("keys.bytes-per-key", Reply::integer(keys == 0 ? 0 : (used - startup) / keys));
  field("dataset.bytes", Reply::integer(dataset));
  double net = static_cast<double>(used - startup);
  field("dataset.percentage", Reply::double_value(net > 0 ? dataset * 100.0 / net : 0));
  field("peak.percentage", Reply::double_value(100.0));
  field("allocator.allocated", Reply::integer(used));
  field("allocator.active", Reply::integer(used));
  field("allocator.resident", Reply::integer(used));
  field("allocator-fragmentation.ratio", Reply::double_value(1.0));
  field("allocator-fragmentation.bytes", Reply::integer(0));
  field("allocator-rss.ratio", Reply::double_value(1.0));
  field("allocator-rss.bytes", Reply::integer(0));
  field("rss-overhead.ratio", Reply::double_value(1.0));
  field("rss-overhead.bytes", Reply::integer(0));
  field("fragmentation", Reply::double_value(1.0));
  field("fragmentation.bytes", Reply::integer(0));
  return Reply::map(std::move(out));
}

// Redis 7.0.15's MEMORY subcommands (COMMAND INFO): a script may run them.
constexpr SubcommandSpec kMemorySubcommands[] = {
    {"doctor", 2, 0}, {"help", 2, 0},  {"malloc-stats", 2, 0},
    {"purge", 2, 0},  {"stats", 2, 0}, {"usage", -3, kCmdReadonly},
};

}  // namespace

void register_memory_commands(CommandTable& table) {
  table.add({"memory", -2, kCmdContainer, &memory});
  table.add_subcommands("memory", kMemorySubcommands);
}

}  // namespace redsim::sim
