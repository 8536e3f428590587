#include "sim/world/history.h"

#include <algorithm>
#include <cstdio>
#include <new>
#include <set>

#include "sim/world/prng.h"
#include "sim/world/quote.h"

namespace redsim::world {

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kProcessStart:
      return "process-start";
    case EventKind::kProcessEnd:
      return "process-end";
    case EventKind::kProcessCrash:
      return "process-crash";
    case EventKind::kProcessPause:
      return "process-pause";
    case EventKind::kProcessResume:
      return "process-resume";
    case EventKind::kTaskStart:
      return "task-start";
    case EventKind::kTaskEnd:
      return "task-end";
    case EventKind::kTaskError:
      return "task-error";
    case EventKind::kCommand:
      return "command";
    case EventKind::kPush:
      return "push";
    case EventKind::kDisconnect:
      return "disconnect";
    case EventKind::kServerNote:
      return "server-note";
    case EventKind::kEnterCritical:
      return "enter";
    case EventKind::kLeaveCritical:
      return "leave";
    case EventKind::kAcquireStart:
      return "acquire-start";
    case EventKind::kAcquireEnd:
      return "acquire-end";
    case EventKind::kHold:
      return "hold";
    case EventKind::kTrace:
      return "trace";
    case EventKind::kResult:
      return "result";
    case EventKind::kKeyState:
      return "key-state";
    case EventKind::kProcessRestart:
      return "process-restart";
    case EventKind::kMessageSent:
      return "message-sent";
    case EventKind::kMessageDelivered:
      return "message-delivered";
    case EventKind::kMessageLost:
      return "message-lost";
    case EventKind::kMessageDelayed:
      return "message-delayed";
    case EventKind::kLinkBroken:
      return "link-broken";
    case EventKind::kPartitionStart:
      return "partition-start";
    case EventKind::kPartitionHeal:
      return "partition-heal";
    case EventKind::kServerCrash:
      return "server-crash";
    case EventKind::kServerRestart:
      return "server-restart";
    case EventKind::kFailover:
      return "failover";
    case EventKind::kClockJump:
      return "clock-jump";
    case EventKind::kClockDrift:
      return "clock-drift";
    case EventKind::kFencedWrite:
      return "fenced-write";
    case EventKind::kUnlockEnd:
      return "unlock-end";
    case EventKind::kValidity:
      return "validity";
  }
  return "?";
}

std::string_view to_string(HoldOp op) {
  switch (op) {
    case HoldOp::kLock:
      return "lock";
    case HoldOp::kUnlock:
      return "unlock";
    case HoldOp::kUnlockRejected:
      return "unlock-rejected";
  }
  return "?";
}

std::string_view to_string(KeyPresence state) {
  switch (state) {
    case KeyPresence::kAbsent:
      return "absent";
    case KeyPresence::kLease:
      return "lease";
    case KeyPresence::kPersistent:
      return "persistent";
  }
  return "?";
}

std::string_view to_string(FenceVerdict verdict) {
  switch (verdict) {
    case FenceVerdict::kAccepted:
      return "accepted";
    case FenceVerdict::kRejected:
      return "rejected";
  }
  return "?";
}

std::string_view to_string(UnlockOutcome outcome) {
  switch (outcome) {
    case UnlockOutcome::kNotReleased:
      return "not released";
    case UnlockOutcome::kReleased:
      return "released";
    case UnlockOutcome::kError:
      return "error";
  }
  return "?";
}

EventLog& EventLog::operator=(const EventLog& other) {
  if (this == &other) return *this;
  clear();
  for (const HistoryEvent& e : other) push_back(e);
  return *this;
}

void* EventLog::next_slot() {
  if (size_ == chunks_.size() * kChunk) {
    chunks_.push_back(static_cast<HistoryEvent*>(
        ::operator new (sizeof(HistoryEvent) * kChunk, std::align_val_t{alignof(HistoryEvent)})));
  }
  return chunks_[size_ / kChunk] + size_ % kChunk;
}

void EventLog::push_back(HistoryEvent&& e) {
  new (next_slot()) HistoryEvent(std::move(e));
  ++size_;
}

HistoryEvent& EventLog::emplace_back() {
  HistoryEvent* e = new (next_slot()) HistoryEvent();
  ++size_;
  return *e;
}

void EventLog::clear() {
  for (size_t i = 0; i < size_; ++i) chunks_[i / kChunk][i % kChunk].~HistoryEvent();
  for (HistoryEvent* chunk : chunks_) {
    ::operator delete (chunk, std::align_val_t{alignof(HistoryEvent)});
  }
  chunks_.clear();
  size_ = 0;
}

size_t History::add(HistoryEvent&& e) {
  interner_.intern(e.resource);
  interner_.intern(e.argv);
  interner_.intern(e.text);
  interner_.intern(e.reply);
  interner_.intern(e.client_id);
  events_.push_back(std::move(e));
  return events_.size() - 1;
}

int64_t History::end_us() const {
  if (end_us_ >= 0) return end_us_;
  return events_.empty() ? 0 : events_.back().t_us;
}

std::string History::process_name(ProcessId pid) const {
  for (const HistoryEvent& e : events_) {
    if (e.kind == EventKind::kProcessStart && e.process == pid) return e.text;
  }
  return "";
}

namespace {

void put_field(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
  out += '|';
}

void put_int(std::string& out, int64_t v) {
  out += std::to_string(v);
  out += '|';
}

bool is_bare(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '\\';
  });
}

std::string quote(std::string_view s, size_t max_chars, bool always = false) {
  const bool cut = max_chars > 0 && s.size() > max_chars;
  if (cut) s = s.substr(0, max_chars);
  std::string out = !always && is_bare(s) ? std::string(s) : quote_escaped(s, QuoteStyle::kC);
  if (cut) out += "...";
  return out;
}

std::string cut(std::string s, size_t max_chars) {
  if (max_chars > 0 && s.size() > max_chars) {
    s.resize(max_chars);
    s += "...";
  }
  return s;
}

// The text slot of canonical(): the free text, or the typed field that
// replaced the text this kind used to carry.
std::string_view text_slot(const HistoryEvent& e) {
  switch (e.kind) {
    case EventKind::kCommand:
      return e.orphaned ? std::string_view("orphaned") : std::string_view(e.text);
    case EventKind::kHold:
      return to_string(e.hold_op);
    case EventKind::kKeyState:
      return to_string(e.key_state);
    case EventKind::kFencedWrite:
      return to_string(e.verdict);
    default:
      return e.text;
  }
}

// The reply slot of canonical(), appended to `out`.
void put_reply_slot(std::string& out, const HistoryEvent& e) {
  switch (e.kind) {
    case EventKind::kCommand:
    case EventKind::kPush:
      put_field(out, format_reply(e.reply));
      return;
    case EventKind::kProcessStart:
    case EventKind::kProcessRestart:
      put_field(out, e.client_id);
      return;
    default:
      put_field(out, "");
  }
}

}  // namespace

std::string History::canonical() const {
  std::string out;
  for (const HistoryEvent& e : events_) {
    put_int(out, e.t_us);
    put_field(out, to_string(e.kind));
    put_int(out, e.process);
    put_int(out, static_cast<int64_t>(e.task));
    put_int(out, e.server);
    put_field(out, e.resource);
    put_int(out, static_cast<int64_t>(e.argv.size()));
    for (const std::string& arg : e.argv) put_field(out, arg);
    put_field(out, text_slot(e));
    put_reply_slot(out, e);
    put_int(out, e.value);
    out += '\n';
  }
  return out;
}

uint64_t History::hash() const { return fnv1a64(canonical()); }

std::string format_argv(const std::vector<std::string>& argv, size_t max_arg_chars) {
  std::string out;
  for (const std::string& arg : argv) {
    if (!out.empty()) out += ' ';
    out += quote(arg, max_arg_chars);
  }
  return out;
}

std::string format_reply(const resp::Reply& reply) {
  switch (reply.kind()) {
    case resp::Kind::kStatus:
      return reply.str();
    case resp::Kind::kError:
      return "(error) " + reply.str();
    case resp::Kind::kInteger:
      return "(integer) " + std::to_string(reply.integer());
    case resp::Kind::kBulk:
      return quote(reply.str(), 0, /*always=*/true);
    case resp::Kind::kNil:
      return reply.is_nil_array() ? "(nil array)" : "(nil)";
    case resp::Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < reply.elements().size(); ++i) {
        if (i > 0) out += ", ";
        out += format_reply(reply.elements()[i]);
      }
      return out + "]";
    }
    case resp::Kind::kDouble:
    case resp::Kind::kBoolean:
    case resp::Kind::kVerbatim:
    case resp::Kind::kBigNumber:
    case resp::Kind::kMap:
    case resp::Kind::kSet:
    case resp::Kind::kPush:
      // A RESP3 reply (a HELLO 3 connection) shows its kind.
      return reply.debug_string();
  }
  return "?";
}

std::string format_time_ms(int64_t t_us) {
  const char* sign = t_us < 0 ? "-" : "";
  const uint64_t abs_us =
      t_us < 0 ? static_cast<uint64_t>(-(t_us + 1)) + 1 : static_cast<uint64_t>(t_us);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llums", sign,
                static_cast<unsigned long long>(abs_us / 1000),
                static_cast<unsigned long long>(abs_us % 1000));
  return buf;
}

namespace {

std::string who(const HistoryEvent& e) {
  if (e.process == 0) return e.server >= 0 ? "s" + std::to_string(e.server) : "-";
  std::string w = "c" + std::to_string(e.process);
  if (e.task != 0) w += "/" + std::to_string(e.task);
  return w;
}

std::string body(const History& h, const HistoryEvent& e, size_t max_chars) {
  const std::string server_tag =
      h.server_count() > 1 && e.server >= 0 ? "s" + std::to_string(e.server) + ": " : "";
  switch (e.kind) {
    case EventKind::kProcessStart:
      return "start " + quote(e.text, 0) + " (client " + e.client_id + ")";
    case EventKind::kProcessEnd:
      return "end";
    case EventKind::kProcessCrash:
      return "CRASH (" + e.text + ")";
    case EventKind::kProcessPause:
      return "PAUSE for " + format_time_ms(e.value);
    case EventKind::kProcessResume:
      return "RESUME";
    case EventKind::kTaskStart:
      return "task start " + quote(e.text, 0);
    case EventKind::kTaskEnd:
      return "task end";
    case EventKind::kTaskError:
      return "uncaught exception: " + cut(e.text, max_chars * 2);
    case EventKind::kCommand:
      return server_tag + format_argv(e.argv, max_chars) + " -> " +
             cut(format_reply(e.reply), max_chars) + (e.orphaned ? "  (orphaned)" : "");
    case EventKind::kPush:
      return server_tag + "<- message " + quote(e.text, max_chars) + " " +
             cut(format_reply(e.reply), max_chars);
    case EventKind::kDisconnect:
      return "disconnected from s" + std::to_string(e.server);
    case EventKind::kServerNote:
      return e.text;
    case EventKind::kEnterCritical:
      return "ENTER " + e.resource;
    case EventKind::kLeaveCritical:
      return "LEAVE " + e.resource;
    case EventKind::kAcquireStart:
      return "acquire " + e.resource + " (wait " +
             (e.value < 0 ? std::string("unbounded") : "up to " + format_time_ms(e.value)) + ")";
    case EventKind::kAcquireEnd:
      return "acquire " + e.resource + ": " +
             (e.value == 1   ? std::string("ok")
              : e.value == 0 ? std::string("gave up")
                             : "ERROR (" + cut(e.text, max_chars * 2) + ")");
    case EventKind::kHold:
      return "hold count of " + e.resource + " after " + std::string(to_string(e.hold_op)) + ": " +
             std::to_string(e.value);
    case EventKind::kTrace:
      return "# " + e.text;
    case EventKind::kResult:
      return "= " + e.text;
    case EventKind::kKeyState:
      return server_tag + "key " + e.resource + ": " +
             (e.key_state == KeyPresence::kLease ? "lease until t=" + format_time_ms(e.value)
                                                 : std::string(to_string(e.key_state))) +
             (e.argv.empty() ? "" : ", holding " + format_argv(e.argv, max_chars));
    case EventKind::kProcessRestart:
      return "RESTART " + quote(e.text, 0) + " (client " + e.client_id + ")";
    case EventKind::kMessageSent:
      return server_tag + e.text + " sent, arrives at " + format_time_ms(e.value);
    case EventKind::kMessageDelivered:
      return server_tag + e.text + " delivered, sent at " + format_time_ms(e.value);
    case EventKind::kMessageLost:
      return server_tag + "LOST " + e.text;
    case EventKind::kMessageDelayed:
      return server_tag + e.text + " DELAYED by " + format_time_ms(e.value);
    case EventKind::kLinkBroken:
      return "connection to s" + std::to_string(e.server) + " BROKEN (" + e.text + ")";
    case EventKind::kPartitionStart:
      return "PARTITION from s" + std::to_string(e.server) + " until " + format_time_ms(e.value);
    case EventKind::kPartitionHeal:
      return "partition from s" + std::to_string(e.server) + " healed";
    case EventKind::kServerCrash:
      return "SERVER CRASH " + e.text + " (" + std::to_string(e.value) + " key(s) kept)";
    case EventKind::kServerRestart:
      return "server restart " + e.text + " with " + std::to_string(e.value) + " key(s)";
    case EventKind::kFailover:
      return "FAILOVER " + e.text + " (" + std::to_string(e.value) + " write(s) lost)";
    case EventKind::kClockJump:
      return (e.process == 0 ? e.text + " " : std::string()) + "CLOCK JUMP " +
             (e.value >= 0 ? "+" : "") + format_time_ms(e.value);
    case EventKind::kClockDrift:
      return (e.process == 0 ? e.text + " " : std::string()) + "clock drift " +
             std::to_string(e.value) + " ppm";
    case EventKind::kFencedWrite:
      return "WRITE " + e.resource + " token " + std::to_string(e.value) + ": " +
             std::string(to_string(e.verdict));
    case EventKind::kUnlockEnd:
      return "unlock " + e.resource + ": " +
             std::string(to_string(static_cast<UnlockOutcome>(e.value))) +
             (e.text.empty() ? "" : " (" + cut(e.text, max_chars * 2) + ")");
    case EventKind::kValidity:
      return "VALID " + e.resource + " until t=" + format_time_ms(e.value) + " (promised " +
             format_time_ms(e.value - e.t_us) + ")";
  }
  return "?";
}

}  // namespace

std::string render_event(const History& history, const HistoryEvent& event, size_t max_text_chars) {
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "t=%12s  %-7s ", format_time_ms(event.t_us).c_str(),
                who(event).c_str());
  return prefix + body(history, event, max_text_chars);
}

std::string render_timeline(const History& history, const TimelineOptions& options) {
  const auto& events = history.events();
  std::set<size_t> focus;
  for (size_t f : options.focus) {
    if (f < events.size()) focus.insert(f);
  }
  // The lines a reader can see at all; context counts these, so hidden
  // lines (key states, server notes) do not eat a focus event's neighbours.
  std::vector<size_t> shown;
  for (size_t i = 0; i < events.size(); ++i) {
    const bool hidden = (events[i].kind == EventKind::kServerNote && !options.server_notes) ||
                        (events[i].kind == EventKind::kKeyState && !options.key_states);
    if (!hidden || focus.contains(i)) shown.push_back(i);
  }
  std::vector<bool> visible(shown.size(), focus.empty() || options.whole_history);
  for (size_t pos = 0; pos < shown.size(); ++pos) {
    if (!focus.contains(shown[pos])) continue;
    const size_t lo = pos >= options.context_events ? pos - options.context_events : 0;
    const size_t hi = std::min(shown.size() - 1, pos + options.context_events);
    for (size_t k = lo; k <= hi; ++k) visible[k] = true;
  }
  std::string out;
  bool skipped = false;
  for (size_t pos = 0; pos < shown.size(); ++pos) {
    if (!visible[pos]) {
      skipped = true;
      continue;
    }
    if (skipped) out += "   ...\n";
    skipped = false;
    const size_t i = shown[pos];
    out += focus.contains(i) ? ">> " : "   ";
    out += render_event(history, events[i], options.max_text_chars);
    out += '\n';
  }
  if (skipped) out += "   ...\n";
  return out;
}

}  // namespace redsim::world
