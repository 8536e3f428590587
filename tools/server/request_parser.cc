#include "tools/server/request_parser.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "base/split_args.h"
#include "sim/args.h"

namespace redsim::server {

namespace {

// The first '\r' at or after pos, as Redis's strchr (but NUL-safe).
size_t find_cr(std::string_view buf, size_t pos) {
  const void* p = std::memchr(buf.data() + pos, '\r', buf.size() - pos);
  return p == nullptr ? std::string_view::npos
                      : static_cast<size_t>(static_cast<const char*>(p) - buf.data());
}

}  // namespace

RequestParser::Status RequestParser::fail(std::string text) {
  // Redis's addReplyErrorFormat turns CR and LF into spaces.
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  error_ = "Protocol error: " + text;
  return Status::kError;
}

size_t RequestParser::pending_bulk_bytes(size_t available) const {
  if (multibulk_left_ == 0 || bulk_len_ < 0) return 0;
  size_t need = static_cast<size_t>(bulk_len_) + 2;
  return need > available ? need - available : 0;
}

RequestParser::Status RequestParser::supply_bulk(std::string&& bulk) {
  if (argc_ < argv_.size()) {
    argv_[argc_] = std::move(bulk);
  } else {
    argv_.push_back(std::move(bulk));
  }
  ++argc_;
  bulk_len_ = -1;
  if (--multibulk_left_ > 0) return Status::kNeedMore;
  argv_.resize(argc_);
  return Status::kCommand;
}

size_t RequestParser::release_large_args(size_t max_bytes) {
  size_t held = 0;
  if (multibulk_left_ > 0) {
    // redsim server's cron calls this for every connection, also one whose
    // request is still arriving: dropping its parsed arguments lost the
    // start of a big MSET read over several reads (unit/protocol "test
    // large number of args", now and then: "unknown command 'k'").
    for (const std::string& a : argv_) held += a.capacity();
    return held + argv_.capacity() * sizeof(std::string);
  }
  for (std::string& a : argv_) {
    if (a.capacity() > max_bytes) std::string().swap(a);
    held += a.capacity();
  }
  if (argv_.capacity() > kKeptArgSlots) {
    // A command with very many arguments (MSET of a million keys).
    held = 0;
    std::vector<std::string>().swap(argv_);
  }
  return held + argv_.capacity() * sizeof(std::string);
}

RequestParser::Status RequestParser::parse(std::string_view buf, size_t* pos) {
  while (multibulk_left_ == 0) {
    if (*pos >= buf.size()) return Status::kNeedMore;
    if (buf[*pos] != '*') {
      // Inline: one line; a blank one is skipped.
      const void* nl = std::memchr(buf.data() + *pos, '\n', buf.size() - *pos);
      if (nl == nullptr) {
        if (buf.size() - *pos > kInlineMaxBytes) return fail("too big inline request");
        return Status::kNeedMore;
      }
      size_t end = static_cast<size_t>(static_cast<const char*>(nl) - buf.data());
      size_t line_end = (end > *pos && buf[end - 1] == '\r') ? end - 1 : end;
      auto args = base::split_args(buf.substr(*pos, line_end - *pos));
      if (!args) return fail("unbalanced quotes in request");
      *pos = end + 1;
      if (args->empty()) continue;
      argv_ = std::move(*args);
      return Status::kCommand;
    }
    size_t cr = find_cr(buf, *pos);
    if (cr == std::string_view::npos) {
      if (buf.size() - *pos > kInlineMaxBytes) return fail("too big mbulk count string");
      return Status::kNeedMore;
    }
    if (cr + 1 >= buf.size()) return Status::kNeedMore;  // the '\n' has not arrived
    int64_t n = 0;
    if (!sim::parse_int64(buf.substr(*pos + 1, cr - *pos - 1), &n) || n > INT_MAX) {
      return fail("invalid multibulk length");
    }
    if (unauthenticated_ && n > 10) return fail("unauthenticated multibulk length");
    *pos = cr + 2;
    if (n <= 0) continue;  // an empty request
    multibulk_left_ = n;
    bulk_len_ = -1;
    // Reuse the previous command's strings: their buffers stay allocated,
    // so a steady stream of similar commands parses without allocating.
    argc_ = 0;
    if (argv_.size() > static_cast<size_t>(n)) argv_.resize(static_cast<size_t>(n));
  }
  while (multibulk_left_ > 0) {
    if (bulk_len_ < 0) {
      if (*pos >= buf.size()) return Status::kNeedMore;
      size_t cr = find_cr(buf, *pos);
      if (cr == std::string_view::npos) {
        if (buf.size() - *pos > kInlineMaxBytes) return fail("too big bulk count string");
        return Status::kNeedMore;
      }
      if (cr + 1 >= buf.size()) return Status::kNeedMore;
      if (buf[*pos] != '$') {
        multibulk_left_ = 0;
        return fail(std::string("expected '$', got '") + buf[*pos] + "'");
      }
      int64_t len = 0;
      if (!sim::parse_int64(buf.substr(*pos + 1, cr - *pos - 1), &len) || len < 0 ||
          len > max_bulk_len_) {
        multibulk_left_ = 0;
        return fail("invalid bulk length");
      }
      if (unauthenticated_ && len > 16384) {
        multibulk_left_ = 0;
        return fail("unauthenticated bulk length");
      }
      *pos = cr + 2;
      bulk_len_ = len;
    }
    size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (buf.size() - *pos < need) return Status::kNeedMore;
    if (argc_ < argv_.size()) {
      argv_[argc_].assign(buf.data() + *pos, static_cast<size_t>(bulk_len_));
    } else {
      argv_.emplace_back(buf.data() + *pos, static_cast<size_t>(bulk_len_));
    }
    ++argc_;
    *pos += need;
    bulk_len_ = -1;
    --multibulk_left_;
  }
  argv_.resize(argc_);  // a shorter command than the slots kept
  return Status::kCommand;
}

}  // namespace redsim::server
