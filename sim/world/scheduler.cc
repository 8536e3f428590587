#include "sim/world/scheduler.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <limits>
#include <string_view>
#include <utility>

#include "sim/command_facts.h"
#include "sim/world/pct.h"
#include "sim/world/schedule.h"

namespace redsim::world {

namespace {

// Commands whose only key is argv[1] (Redis's key specs: first = last = 1).
constexpr std::array<std::string_view, 56> kFirstKeyCommands = {
    "APPEND",    "DECR",        "DECRBY",  "EXPIRE",        "EXPIREAT", "EXPIRETIME",
    "GET",       "GETDEL",      "GETEX",   "GETSET",        "HDEL",     "HEXISTS",
    "HGET",      "HGETALL",     "HINCRBY", "HKEYS",         "HLEN",     "HMGET",
    "HMSET",     "HSET",        "HSETNX",  "HVALS",         "INCR",     "INCRBY",
    "LLEN",      "LPOP",        "LPUSH",   "LRANGE",        "PERSIST",  "PEXPIRE",
    "PEXPIREAT", "PEXPIRETIME", "PSETEX",  "PTTL",          "RPOP",     "RPUSH",
    "SADD",      "SCARD",       "SET",     "SETEX",         "SETNX",    "SISMEMBER",
    "SMEMBERS",  "SREM",        "STRLEN",  "TTL",           "TYPE",     "ZADD",
    "ZCARD",     "ZINCRBY",     "ZRANGE",  "ZRANGEBYSCORE", "ZREM",     "ZREMRANGEBYSCORE",
    "ZSCORE",    "INCRBYFLOAT"};
// Commands whose every argument is a key.
constexpr std::array<std::string_view, 5> kAllKeyCommands = {"DEL", "EXISTS", "MGET", "TOUCH",
                                                             "UNLINK"};
// Pub/sub commands (no keys; they publish or change subscriptions).
constexpr std::array<std::string_view, 8> kPubSubCommands = {
    "PUBLISH",    "SPUBLISH",     "SUBSCRIBE",  "UNSUBSCRIBE",
    "PSUBSCRIBE", "PUNSUBSCRIBE", "SSUBSCRIBE", "SUNSUBSCRIBE"};
// Scripts: any key (Redis asks scripts to declare their keys in KEYS, but a
// standalone server runs them anyway, and so does ours); they may publish
// (Redisson's unlock does).
constexpr std::array<std::string_view, 6> kScriptCommands = {"EVAL",       "EVALSHA", "EVAL_RO",
                                                             "EVALSHA_RO", "FCALL",   "FCALL_RO"};

bool among(std::string_view name, auto& table) {
  return std::find(table.begin(), table.end(), name) != table.end();
}

}  // namespace

bool Footprint::commutes_with(const Footprint& other) const {
  if (server != other.server) return true;
  if (anything() || other.anything()) return false;  // case 17
  // A script load against a script (or EXEC) that may read or fill the cache.
  if ((loads_script && (other.any_key || other.reads_scripts)) ||
      (other.loads_script && (any_key || reads_scripts))) {
    return false;
  }
  if (pubsub && other.pubsub) {
    // Two sessions' own subscription changes (exhaustive.h, case 10): a
    // removal and anything, or additions of different channels.
    if (!subscriptions_only || !other.subscriptions_only) return false;
    if (!all_channels && !other.all_channels) {
      for (const std::string& c : channels) {
        if (std::find(other.channels.begin(), other.channels.end(), c) != other.channels.end()) {
          return false;
        }
      }
    }
  }
  if ((any_key && (other.any_key || !other.keys.empty())) || (other.any_key && !keys.empty())) {
    return false;
  }
  for (const std::string& k : keys) {
    if (std::find(other.keys.begin(), other.keys.end(), k) != other.keys.end()) return false;
  }
  return true;
}

std::shared_ptr<const Footprint> command_footprint(size_t server,
                                                   const std::vector<std::string>& argv,
                                                   std::shared_ptr<const bool> server_effects) {
  if (argv.empty()) return nullptr;
  std::string name = argv[0];
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  auto f = std::make_shared<Footprint>();
  f->server = server;
  f->server_effects = std::move(server_effects);
  if (name == "PING" || name == "ECHO") return f;
  if (among(name, kFirstKeyCommands)) {
    if (argv.size() < 2) return f;  // an arity error touches nothing
    f->keys.push_back(argv[1]);
    return f;
  }
  if (among(name, kAllKeyCommands)) {
    f->keys.assign(argv.begin() + 1, argv.end());
    return f;
  }
  if (among(name, kPubSubCommands)) {
    f->pubsub = true;
    // The (un)subscriptions of its own session (exhaustive.h, case 10);
    // PUBLISH and SPUBLISH reach every subscriber.
    f->subscriptions_only = name != "PUBLISH" && name != "SPUBLISH";
    if (f->subscriptions_only) {
      f->channels.assign(argv.begin() + 1, argv.end());
      f->all_channels = f->channels.empty();  // UNSUBSCRIBE with no channel: all of them
    }
    return f;
  }
  if (among(name, kScriptCommands)) {
    f->any_key = true;
    f->pubsub = true;
    // The script cache (case 16): EVAL fills it, EVALSHA reads it. FCALL
    // keeps no narrower footprint: a library's functions may keep state
    // in their upvalues from call to call.
    f->loads_script = name == "EVAL" || name == "EVAL_RO";
    f->reads_scripts = name == "EVALSHA" || name == "EVALSHA_RO";
    if (!f->loads_script && !f->reads_scripts) return f;
    auto within = std::make_shared<Footprint>();
    within->server = server;
    within->server_effects = f->server_effects;
    within->pubsub = true;
    within->loads_script = f->loads_script;
    within->reads_scripts = f->reads_scripts;
    // Its declared KEYS, found as COMMAND GETKEYS finds them (the key
    // spec's numkeys); a numkeys out of range declares none (the script is
    // refused before it runs, and touches nothing).
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (const sim::CommandFact* fact = sim::find_command_fact(lower)) {
      for (const sim::KeyRef& key : sim::command_keys(*fact, argv)) {
        within->keys.push_back(argv[key.index]);
      }
    }
    f->within = std::move(within);
    return f;
  }
  // A transaction (exhaustive.h, case 11). WATCH reads its keys' expiry and
  // joins their watcher lists; MULTI, UNWATCH and DISCARD change only their
  // own session (a watcher's removal commutes with another session's write
  // to the key, since UNWATCH also clears the mark that write would set);
  // EXEC runs what was queued, so it may touch anything a script may.
  if (name == "WATCH") {
    f->keys.assign(argv.begin() + 1, argv.end());
    return f;
  }
  if (name == "MULTI" || name == "UNWATCH" || name == "DISCARD") return f;
  if (name == "EXEC") {
    f->any_key = true;
    f->pubsub = true;
    return f;
  }
  // SCRIPT LOAD adds to the script cache, which only scripts read (and
  // EVAL writes): case 12.
  if (name == "SCRIPT" && argv.size() == 3) {
    std::string sub = argv[1];
    std::transform(sub.begin(), sub.end(), sub.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (sub == "LOAD") {
      f->loads_script = true;
      return f;
    }
  }
  return nullptr;
}

std::shared_ptr<const Footprint> script_footprint(
    const Footprint& script, const std::vector<std::vector<std::string>>& calls, bool shared,
    bool* within) {
  *within = false;
  if (shared || script.within == nullptr) return nullptr;
  const std::vector<std::string>& declared = script.within->keys;
  auto f = std::make_shared<Footprint>();
  f->server = script.server;
  f->server_effects = script.server_effects;
  f->loads_script = script.loads_script;
  f->reads_scripts = script.reads_scripts;
  f->keys = declared;
  bool all_declared = true;
  for (const std::vector<std::string>& call : calls) {
    const std::shared_ptr<const Footprint> c = command_footprint(script.server, call);
    // What a script may not run (SUBSCRIBE, SCRIPT LOAD) is refused; it
    // still counts, as does anything not key-addressed.
    if (c == nullptr || c->any_key || c->loads_script || c->subscriptions_only) return nullptr;
    f->pubsub = f->pubsub || c->pubsub;
    for (const std::string& k : c->keys) {
      if (std::find(declared.begin(), declared.end(), k) != declared.end()) continue;
      all_declared = false;
      if (std::find(f->keys.begin(), f->keys.end(), k) == f->keys.end()) f->keys.push_back(k);
    }
  }
  *within = all_declared;
  return f;
}

namespace {
// std heap functions build a max-heap; "greater" puts the earliest on top.
// A function object, not a function pointer, so the heap algorithms inline it.
struct Later {
  bool operator()(const auto& a, const auto& b) const {
    if (a.t_us != b.t_us) return a.t_us > b.t_us;
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.seq > b.seq;
  }
};

int64_t saturating_add(int64_t a, int64_t b) {
  if (b > 0 && a > std::numeric_limits<int64_t>::max() - b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a + b;
}
}  // namespace

void Scheduler::at(int64_t t_us, Action action, bool daemon, uint32_t owner) {
  if (owner == kInheritOwner) owner = current_owner_;
  push(t_us, owner, daemon, current_server_side_, 0, std::move(action), nullptr, 0, false);
}

void Scheduler::at_message(int64_t t_us, Action action, uint32_t owner, uintptr_t channel,
                           bool server_side, std::shared_ptr<const Footprint> footprint,
                           uint64_t task) {
  push(t_us, owner, false, server_side, channel, std::move(action), std::move(footprint), task,
       false);
}

void Scheduler::at_task(int64_t t_us, Action action, uint64_t task, bool runs_code) {
  push(t_us, current_owner_, false, current_server_side_, 0, std::move(action), nullptr,
       current_server_side_ ? 0 : task, runs_code && !current_server_side_);
}

void Scheduler::after_task(int64_t delay_us, Action action, uint64_t task) {
  at_task(saturating_add(now_us_, std::max<int64_t>(delay_us, 0)), std::move(action), task);
}

void Scheduler::push(int64_t t_us, uint32_t owner, bool daemon, bool server_side, uintptr_t channel,
                     Action&& action, std::shared_ptr<const Footprint>&& footprint, uint64_t task,
                     bool runs_code) {
  const uint64_t priority = priorities_ != nullptr ? priorities_->priority(owner) : 0;
  if (!daemon) ++live_;
  uint32_t index;
  if (free_.empty()) {
    index = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    index = free_.back();
    free_.pop_back();
  }
  // A free slot's action and footprint are empty (run_key left them so).
  Slot& slot = slots_[index];
  slot.owner = owner;
  slot.daemon = daemon;
  slot.server_side = server_side;
  slot.channel = channel;
  slot.action.swap(action);
  slot.footprint.swap(footprint);
  slot.task = task;
  slot.runs_code = runs_code;
  slot.ahead = Ahead::kNo;
  slot.run_of = nullptr;
  last_slot_ = index;
  const int64_t t = std::max(t_us, now_us_);
  const uint64_t seq = next_seq_++;
  if (t - now_us_ < kRing || chooser_ != nullptr) {
    if (priorities_ == nullptr && chooser_ == nullptr) {
      ring_push(index, t, seq);
      return;
    }
    heap_.push_back(Key{t, priority, seq, index});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    return;
  }
  far_.push_back(Key{t, priority, seq, index});
  std::push_heap(far_.begin(), far_.end(), Later{});
}

void Scheduler::ring_push(uint32_t index, int64_t t_us, uint64_t seq) {
  Slot& slot = slots_[index];
  slot.t_us = t_us;
  slot.seq = seq;
  slot.next = kNone;
  const size_t b = static_cast<size_t>(t_us) & (kRing - 1);
  if (ring_head_[b] == kNone) {
    ring_head_[b] = index;
    ring_bits_[b / 64] |= uint64_t{1} << (b % 64);
  } else {
    slots_[ring_tail_[b]].next = index;
  }
  ring_tail_[b] = index;
  if (ring_size_++ == 0 || t_us < ring_first_t_) ring_first_t_ = t_us;
}

Scheduler::Key Scheduler::ring_pop() {
  const size_t b = static_cast<size_t>(ring_first_t_) & (kRing - 1);
  const uint32_t index = ring_head_[b];
  const Slot& slot = slots_[index];
  const Key key{ring_first_t_, 0, slot.seq, index};
  ring_head_[b] = slot.next;
  --ring_size_;
  if (ring_head_[b] != kNone) return key;
  ring_bits_[b / 64] &= ~(uint64_t{1} << (b % 64));
  if (ring_size_ == 0) return key;
  // The next non-empty bucket after b, going round: its events are the
  // earliest left (they all lie within kRing us of b's time).
  // (ring_size_ > 0: some bit is set, so the loop ends within a round.)
  constexpr size_t kWords = kRing / 64;
  const size_t from = (b + 1) & (kRing - 1);
  size_t w = from / 64;
  uint64_t bits = ring_bits_[w] & (~uint64_t{0} << (from % 64));
  while (bits == 0) {
    w = (w + 1) & (kWords - 1);
    bits = ring_bits_[w];
  }
  const size_t next = w * 64 + static_cast<size_t>(std::countr_zero(bits));
  ring_first_t_ += 1 + static_cast<int64_t>((next - from) & (kRing - 1));
  return key;
}

Scheduler::Part Scheduler::first() const {
  if (ring_first()) return Part::kRing;
  Part part = Part::kRing;
  Key best{};
  if (ring_size_ > 0) {
    best = ring_top();
  } else if (!heap_.empty()) {
    best = heap_.front();
    part = Part::kHeap;
  } else {
    return Part::kFar;
  }
  if (part == Part::kRing && !heap_.empty() && Later{}(best, heap_.front())) {
    best = heap_.front();
    part = Part::kHeap;
  }
  if (!far_.empty() && Later{}(best, far_.front())) part = Part::kFar;
  return part;
}

Scheduler::Key Scheduler::top_of(Part part) const {
  switch (part) {
    case Part::kRing:
      return ring_top();
    case Part::kHeap:
      return heap_.front();
    case Part::kFar:
      break;
  }
  return far_.front();
}

Scheduler::Key Scheduler::pop_of(Part part) {
  if (part == Part::kRing) return ring_pop();
  std::vector<Key>& queue = part == Part::kHeap ? heap_ : far_;
  std::pop_heap(queue.begin(), queue.end(), Later{});
  const Key key = queue.back();
  queue.pop_back();
  return key;
}

void Scheduler::queue_all_in_heap(bool far_too) {
  if (ring_size_ == 0 && (!far_too || far_.empty())) return;
  while (ring_size_ > 0) heap_.push_back(ring_pop());
  if (far_too) {
    heap_.insert(heap_.end(), far_.begin(), far_.end());
    far_.clear();
  }
  std::make_heap(heap_.begin(), heap_.end(), Later{});
}

void Scheduler::after(int64_t delay_us, Action action, bool daemon) {
  at(saturating_add(now_us_, std::max<int64_t>(delay_us, 0)), std::move(action), daemon);
}

Scheduler::Action Scheduler::begin_event(const Key& key) {
  Slot& slot = slots_[key.slot];
  // The action leaves its slot before it runs: what it schedules may reuse
  // the slot (or grow slots_, moving it).
  Action action = std::move(slot.action);
  slot.action = nullptr;
  slot.footprint.reset();
  if (!slot.daemon) --live_;
  now_us_ = key.t_us;
  ++events_run_;
  current_owner_ = slot.owner;
  current_server_side_ = slot.server_side;
  current_process_wide_ = false;
  current_runs_code_ = slot.runs_code;
  current_links_ = false;
  current_ended_ = false;
  current_fence_ = false;
  free_.push_back(key.slot);
  return action;
}

void Scheduler::run_key(const Key& key) {
  begin_event(key)();
  current_runs_code_ = false;
  current_owner_ = 0;
  current_server_side_ = false;
}

void Scheduler::step() { run_key(pop()); }

void Scheduler::run_next_ahead() {
  const uint32_t owner = current_owner_;
  const bool server_side = current_server_side_, process_wide = current_process_wide_,
             runs_code = current_runs_code_, links = current_links_, ended = current_ended_,
             fence = current_fence_;
  try {
    step();
  } catch (...) {
    pending_error_ = std::current_exception();
  }
  current_owner_ = owner;
  current_server_side_ = server_side;
  current_process_wide_ = process_wide;
  current_runs_code_ = runs_code;
  current_links_ = links;
  current_ended_ = ended;
  current_fence_ = fence;
}

void Scheduler::take_next_ahead() {
  begin_event(pop());  // its action (the run) is dropped: the task runs on
}

Scheduler::Asleep Scheduler::asleep(uint64_t seq, const Slot& s, bool known_narrow) {
  // A script whose sibling run touched only its declared KEYS (case 16).
  const bool within =
      s.server_side && known_narrow && s.footprint != nullptr && s.footprint->within != nullptr;
  return Asleep{seq,
                s.owner,
                s.server_side,
                within ? s.footprint->within : s.footprint,
                s.runs_code && !known_narrow ? 0 : s.task,
                s.runs_code,
                /*links=*/s.runs_code,
                /*ended_task=*/0,
                /*fence=*/s.runs_code && !known_narrow};
}

bool Scheduler::independent(const Asleep& a, const Asleep& b) const {
  // explore/exhaustive.h has the argument. Events of no process (the active expiry
  // cycle, world-level faults) are dependent on everything.
  if (!reduce_ || a.owner == 0 || b.owner == 0) return false;
  // A delivery that touches no state (case 8).
  if ((!a.server_side && a.task == kNoTask) || (!b.server_side && b.task == kNoTask)) return true;
  const bool other_tasks = a.task != 0 && b.task != 0 && a.task != b.task;
  // Two client processes' own events; or two events of one process that
  // each touch only one task's state, different tasks, of which at most
  // one runs its task's fiber (case 4), or both, when task runs commute
  // (case 5).
  if (!a.server_side && !b.server_side) {
    // Two runs that (may) write a FencedResource, memory every process
    // shares (case 13).
    if (fence_writes_ && a.fence && b.fence) return false;
    // A run that ended the process and a timer or plain reply of another
    // of its tasks (case 9).
    auto ends_before = [](const Asleep& end, const Asleep& wait) {
      return end.ended_task != 0 && !wait.runs_code && wait.task != 0 &&
             wait.task != end.ended_task;
    };
    if (a.owner == b.owner && (ends_before(a, b) || ends_before(b, a))) return true;
    return a.owner != b.owner ||
           (other_tasks && (task_runs_commute_ || !(a.runs_code && b.runs_code)) &&
            !(a.links && b.links));
  }
  // Two commands: on different servers or disjoint keys (even of one process:
  // they travel on different connections and only schedule its replies).
  // Two commands on one server that draw from its stream (a crash, a clock
  // jump) are dependent: the draws follow their order (case 15).
  if (a.server_side && b.server_side) {
    if (a.footprint == nullptr || b.footprint == nullptr) return false;
    if (commands_draw_ && a.footprint->server == b.footprint->server) return false;
    return a.footprint->commutes_with(*b.footprint);
  }
  // A command and another process's client-side event: the world gives a
  // footprint only when client-side events cannot reach server state but
  // through a partition (case 14: a client-side event that may start one,
  // one not known to stay within its task, resets its process's sessions
  // as closes would, which a publishing command reads). Of the same
  // process: an event touching only a task other than the command's
  // sender (case 4). A command that may crash its server breaks links
  // that any client-side event may use (case 15).
  const Asleep& command = a.server_side ? a : b;
  const Asleep& client = a.server_side ? b : a;
  if (command.footprint == nullptr || commands_break_links_) return false;
  if (sessions_reset_ && client.task == 0 && command.footprint->publishes()) return false;
  return a.owner != b.owner || other_tasks;
}

std::vector<size_t> Scheduler::persistent_heads(const std::vector<size_t>& due,
                                                const std::vector<size_t>& heads) const {
  // Runs count as touching their whole process (and, with fence_writes, as
  // writing a fence) here: their extent is not known before they run.
  std::vector<Asleep> view;
  view.reserve(due.size());
  for (size_t d : due) view.push_back(asleep(heap_[d].seq, slots_[heap_[d].slot], false));
  // Two due events are linked when a search must keep both orders, or when
  // one may run only after the other: dependent; one connection direction
  // (FIFO); or two events of one process of which one is client-side,
  // since a client-side event may start, in this microsecond, a run, a
  // crash or a pause of its process, which reaches its other tasks and
  // breaks its links (a reply nobody waits for starts nothing).
  auto linked = [&](size_t i, size_t j) {
    const Asleep& a = view[i];
    const Asleep& b = view[j];
    if (!independent(a, b)) return true;
    const uintptr_t channel = slots_[heap_[due[i]].slot].channel;
    if (channel != 0 && channel == slots_[heap_[due[j]].slot].channel) return true;
    const bool a_quiet = !a.server_side && a.task == kNoTask;
    const bool b_quiet = !b.server_side && b.task == kNoTask;
    if (a_quiet || b_quiet) return false;
    // With fence_writes, a client-side event may start a run of its
    // process that writes a fence, on which another process's run (which
    // may write one) depends (case 13).
    if (fence_writes_ && !a.server_side && !b.server_side && (a.fence || b.fence)) return true;
    return a.owner == b.owner && (!a.server_side || !b.server_side);
  };
  // The components of that relation (it is symmetric): what can run in
  // this microsecond before a component's events is only other components'
  // events and what those start here, all independent of it. So each
  // component is a persistent set; the search takes the one with the fewest
  // awake heads (the earliest head breaks ties).
  std::vector<size_t> component(due.size());
  for (size_t i = 0; i < due.size(); ++i) component[i] = i;
  auto root = [&component](size_t i) {
    while (component[i] != i) i = component[i] = component[component[i]];
    return i;
  };
  for (size_t i = 0; i < due.size(); ++i) {
    for (size_t j = i + 1; j < due.size(); ++j) {
      if (root(i) != root(j) && linked(i, j)) component[root(j)] = root(i);
    }
  }
  auto position = [&due](size_t h) {
    return static_cast<size_t>(std::find(due.begin(), due.end(), h) - due.begin());
  };
  auto awake_heads = [&](size_t r) {
    size_t n = 0;
    for (size_t h : heads) {
      if (root(position(h)) != r) continue;
      n += std::none_of(sleep_.begin(), sleep_.end(),
                        [&](const Asleep& a) { return a.seq == heap_[h].seq; });
    }
    return n;
  };
  size_t best = SIZE_MAX, best_awake = SIZE_MAX;
  for (size_t h : heads) {
    const size_t r = root(position(h));
    if (r == best) continue;
    const size_t n = awake_heads(r);
    if (n < best_awake) {
      best = r;
      best_awake = n;
    }
  }
  std::vector<size_t> out;
  for (size_t h : heads) {
    if (root(position(h)) == best) out.push_back(h);
  }
  return out;
}

bool Scheduler::step_chosen() {
  // The events due first, in schedule order; of each channel only its oldest.
  const int64_t t = heap_.front().t_us;
  std::vector<size_t> due;
  for (size_t i = 0; i < heap_.size(); ++i) {
    if (heap_[i].t_us == t) due.push_back(i);
  }
  std::sort(due.begin(), due.end(),
            [this](size_t a, size_t b) { return heap_[a].seq < heap_[b].seq; });
  std::vector<size_t> awake;
  std::vector<size_t> heads;  // heads of their channels, asleep or not
  for (size_t k = 0; k < due.size(); ++k) {
    const Key& e = heap_[due[k]];
    const uintptr_t channel = slots_[e.slot].channel;
    bool head = true;
    for (size_t j = 0; j < k && head; ++j) {
      head = channel == 0 || slots_[heap_[due[j]].slot].channel != channel;
    }
    // A channel's older message due later cannot be: arrivals are FIFO in time.
    const bool asleep =
        std::any_of(sleep_.begin(), sleep_.end(), [&e](const Asleep& a) { return a.seq == e.seq; });
    if (head) heads.push_back(due[k]);
    if (head && !asleep) awake.push_back(due[k]);
  }
  if (awake.empty()) return false;
  uint32_t pick = 0;
  if (awake.size() > 1 && reduce_ && messages_take_time_) {
    // A persistent set (exhaustive.h, "Ties that need no choice"): only its
    // awake heads need trying first; when it has none, no order does.
    std::vector<size_t> persistent = persistent_heads(due, heads);
    std::erase_if(persistent, [this](size_t h) {
      return std::any_of(sleep_.begin(), sleep_.end(),
                         [&](const Asleep& a) { return a.seq == heap_[h].seq; });
    });
    if (persistent.empty()) return false;
    awake = std::move(persistent);
  }
  size_t point = SIZE_MAX;  // the tie's choice point, when there is one
  if (awake.size() > 1) {
    pick = chooser_->choose(static_cast<uint32_t>(awake.size()), /*tie=*/true);
    point = chooser_->points().size() - 1;
    // The orders that ran before this one (the DFS takes options in turn)
    // sleep. A run counts as touching every task of its process unless its
    // own sibling run showed otherwise (exhaustive.h, case 4).
    if (reduce_) {
      for (uint32_t k = 0; k < pick; ++k) {
        const Key& e = heap_[awake[k]];
        sleep_.push_back(asleep(e.seq, slots_[e.slot], chooser_->known_narrow(point, k)));
      }
    }
  }
  const size_t index = awake[pick];
  const Key key = heap_[index];
  heap_.erase(heap_.begin() + static_cast<std::ptrdiff_t>(index));
  std::make_heap(heap_.begin(), heap_.end(), Later{});
  Asleep ran = asleep(key.seq, slots_[key.slot], true);
  ran.footprint = slots_[key.slot].footprint;  // a script: as declared, until it ran
  run_key(key);
  // A script: its footprint as it ran (case 16).
  const bool noted = current_noted_;
  if (noted && current_footprint_ != nullptr) ran.footprint = std::move(current_footprint_);
  current_footprint_.reset();
  current_noted_ = false;
  // Judged as it ran: a run that reached beyond its task touched them all.
  if (current_ended_) ran.ended_task = ran.task;
  if (current_process_wide_) ran.task = 0;
  ran.links = current_links_;
  ran.fence = current_fence_;
  // Known narrow, for its sleeping siblings: it stayed inside its task and
  // wrote no fence (case 13).
  // A script: it touched only its declared KEYS (case 16).
  if (point != SIZE_MAX) {
    chooser_->note_narrow(point,
                          noted ? current_within_ : !current_process_wide_ && !current_fence_);
  }
  current_process_wide_ = false;
  std::erase_if(sleep_, [this, &ran](const Asleep& a) { return !independent(a, ran); });
  return true;
}

namespace {
// Sets what next_ahead() reads for the length of a run() / run_until().
struct AheadScope {
  int64_t& until;
  bool& daemons;
  int64_t old_until;
  bool old_daemons;
  AheadScope(int64_t& until_ref, bool& daemons_ref, int64_t t, bool with_daemons)
      : until(until_ref), daemons(daemons_ref), old_until(until_ref), old_daemons(daemons_ref) {
    until = t;
    daemons = with_daemons;
  }
  ~AheadScope() {
    until = old_until;
    daemons = old_daemons;
  }
};
}  // namespace

Scheduler::Stop Scheduler::run(int64_t limit_us) {
  const AheadScope scope(ahead_until_, ahead_daemons_, limit_us, false);
  while (live_ > 0) {
    if (top().t_us > limit_us) {
      now_us_ = std::max(now_us_, limit_us);
      return Stop::kTimeLimit;
    }
    if (chooser_ == nullptr) {
      step();
      throw_pending();
    } else if (!step_chosen()) {
      chooser_->prune();
      return Stop::kPruned;
    }
  }
  return Stop::kIdle;
}

void Scheduler::run_until(int64_t t_us) {
  const AheadScope scope(ahead_until_, ahead_daemons_, t_us, true);
  while (!empty() && top().t_us <= t_us) {
    if (chooser_ == nullptr) {
      step();
      throw_pending();
    } else if (!step_chosen()) {
      chooser_->prune();
      break;
    }
  }
  now_us_ = std::max(now_us_, t_us);
}

}  // namespace redsim::world
