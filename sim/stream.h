// Stream: the value of a Redis 7.0 stream key, as plain ordered maps (Redis
// keeps a radix tree of listpacks; only the order and the counters are
// observable, so an ordered map of ids is enough). Consumer groups, their
// pending entries lists (PEL) and consumers are held the same way.
//
//   Stream s;
//   s.entries[StreamId{5, 0}] = {"field", "value"};
//   s.last_id = StreamId{5, 0};
//   s.entries_added = 1;
//
// Sources: Redis 7.0 src/stream.h and src/t_stream.c (facts only): an id is
// two unsigned 64-bit numbers "ms-seq"; a stream remembers its last id, the
// largest id ever deleted and how many entries were ever added (XINFO's
// max-deleted-entry-id and entries-added); a group has a last delivered id,
// an entries-read counter (-1 when unknown: SCG_INVALID_ENTRIES_READ), a
// PEL of (id -> delivery time, delivery count, consumer) and consumers in
// name order, each with its own PEL and seen-time. Not an installed header.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::sim {

struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;

  auto operator<=>(const StreamId&) const = default;
  // "ms-seq", as every reply prints it.
  std::string str() const { return std::to_string(ms) + "-" + std::to_string(seq); }
  static constexpr StreamId max() { return {UINT64_MAX, UINT64_MAX}; }
};

// One pending entry of a group: who holds it, since when, how often delivered.
struct StreamNack {
  int64_t delivery_time_ms = 0;  // server clock
  uint64_t delivery_count = 0;
  std::string consumer;
};

struct StreamConsumer {
  int64_t seen_time_ms = 0;    // server clock: last read or claim
  std::set<StreamId> pending;  // its part of the group's PEL
};

struct StreamGroup {
  StreamId last_id;
  int64_t entries_read = -1;  // -1: unknown (SCG_INVALID_ENTRIES_READ)
  std::map<StreamId, StreamNack> pending;
  std::map<std::string, StreamConsumer, std::less<>> consumers;
};

class Stream {
 public:
  // Redis keeps entries in listpack nodes of at most stream-node-max-entries
  // (100) entries and about stream-node-max-bytes (4096) bytes; trimming
  // with `~` only drops whole nodes, and XINFO counts them. A node here is
  // the run of ids from `first` up to the next node's first.
  struct Node {
    StreamId first;
    StreamId last;       // the last id added to it
    uint64_t added = 0;  // entries ever added to it (deleted ones count)
    uint64_t live = 0;   // entries still there
    uint64_t bytes = 0;  // estimated listpack bytes
  };

  // field, value, field, value, ... in the order XADD gave them.
  using Fields = std::vector<std::string>;

  std::map<StreamId, Fields> entries;
  StreamId last_id;         // the top id ever added (or set by XSETID)
  StreamId max_deleted_id;  // the largest id XDEL / XTRIM removed
  uint64_t entries_added = 0;
  std::map<std::string, StreamGroup, std::less<>> groups;
  std::vector<Node> nodes;  // ascending by first

  size_t size() const { return entries.size(); }
  // The first entry's id, 0-0 when empty.
  StreamId first_id() const { return entries.empty() ? StreamId{} : entries.begin()->first; }
};

}  // namespace redsim::sim
