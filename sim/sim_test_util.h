// Test helpers for sim/*_test.cc: a server on a manual clock, one default
// session, short reply constructors, and readable Reply printing in gtest.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sim/clock.h"
#include "sim/resp/reply.h"
#include "sim/server.h"

namespace redsim::resp {
// Internal linkage: other test files may print Replies their own way.
static inline void PrintTo(const Reply& r, std::ostream* os) { *os << r.debug_string(); }
}  // namespace redsim::resp

namespace redsim::sim::testing {

inline resp::Reply Ok() { return resp::Reply::ok(); }
inline resp::Reply Nil() { return resp::Reply::nil(); }
inline resp::Reply Int(int64_t v) { return resp::Reply::integer(v); }
inline resp::Reply Bulk(std::string s) { return resp::Reply::bulk(std::move(s)); }
inline resp::Reply Status(std::string s) { return resp::Reply::status(std::move(s)); }
inline resp::Reply Err(std::string s) { return resp::Reply::error(std::move(s)); }
inline resp::Reply Arr(std::initializer_list<resp::Reply> e) { return resp::Reply::array(e); }
// An array of bulk strings.
inline resp::Reply Bulks(std::initializer_list<std::string> items) {
  std::vector<resp::Reply> e;
  for (const auto& s : items) e.push_back(resp::Reply::bulk(s));
  return resp::Reply::array(std::move(e));
}

inline const char* kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
inline const char* kNotInt = "ERR value is not an integer or out of range";
inline const char* kSyntax = "ERR syntax error";

class ServerTest : public ::testing::Test {
 protected:
  explicit ServerTest(ServerOptions options = {})
      : server_(std::make_unique<Server>(clock_, options)), s_(server_->connect()) {}

  resp::Reply run(std::initializer_list<std::string> argv) { return run(*s_, argv); }
  resp::Reply run(Session& s, std::initializer_list<std::string> argv) {
    return server_->execute(s, Argv(argv));
  }
  void advance_ms(int64_t ms) { clock_.advance_ms(ms); }
  int64_t now_ms() const { return clock_.now_us() / 1000; }

  ManualClock clock_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Session> s_;
};

}  // namespace redsim::sim::testing
