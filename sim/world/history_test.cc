#include "sim/world/history.h"

#include <gtest/gtest.h>

namespace redsim::world {
namespace {

using resp::Reply;

HistoryEvent command(int64_t t, ProcessId p, TaskId task, std::vector<std::string> argv,
                     Reply reply) {
  HistoryEvent e;
  e.t_us = t;
  e.kind = EventKind::kCommand;
  e.process = p;
  e.task = task;
  e.server = 0;
  e.argv = std::move(argv);
  e.reply = std::move(reply);
  return e;
}

HistoryEvent simple(int64_t t, EventKind kind, ProcessId p, TaskId task,
                    std::string resource = "") {
  HistoryEvent e;
  e.t_us = t;
  e.kind = kind;
  e.process = p;
  e.task = task;
  e.resource = std::move(resource);
  return e;
}

TEST(History, FormatsRepliesCompactly) {
  EXPECT_EQ(format_reply(Reply::ok()), "OK");
  EXPECT_EQ(format_reply(Reply::error("ERR syntax error")), "(error) ERR syntax error");
  EXPECT_EQ(format_reply(Reply::integer(-3)), "(integer) -3");
  EXPECT_EQ(format_reply(Reply::bulk("v")), "\"v\"");
  EXPECT_EQ(format_reply(Reply::bulk("a\"b\n")), "\"a\\\"b\\n\"");
  EXPECT_EQ(format_reply(Reply::nil()), "(nil)");
  EXPECT_EQ(format_reply(Reply::nil_array()), "(nil array)");
  EXPECT_EQ(format_reply(Reply::array({Reply::bulk("a"), Reply::integer(2)})),
            "[\"a\", (integer) 2]");
}

TEST(History, FormatsArgvWithQuotingAndCuts) {
  EXPECT_EQ(format_argv({"SET", "lock", "tok", "NX", "PX", "100"}), "SET lock tok NX PX 100");
  EXPECT_EQ(format_argv({"SET", "a b", ""}), "SET \"a b\" \"\"");
  EXPECT_EQ(format_argv({"EVAL", "return redis.call('get', KEYS[1])", "1"}, 10),
            "EVAL \"return red\"... 1");
  EXPECT_EQ(format_argv({std::string("\x01\xff", 2)}), "\"\\x01\\xff\"");
}

TEST(History, RendersTheTimelineLine) {
  History h;
  h.add(command(12345, 2, 1, {"SET", "lock", "tok", "NX", "PX", "100"}, Reply::ok()));
  h.add(simple(20000, EventKind::kEnterCritical, 2, 1, "lock"));
  EXPECT_EQ(render_event(h, h[0]), "t=    12.345ms  c2/1    SET lock tok NX PX 100 -> OK");
  const std::string all = render_timeline(h);
  EXPECT_NE(all.find("   t=    12.345ms  c2/1    SET lock tok NX PX 100 -> OK\n"),
            std::string::npos);
  EXPECT_NE(all.find("ENTER lock"), std::string::npos);
}

TEST(History, WindowedTimelineMarksFocusAndSkips) {
  History h;
  for (int i = 0; i < 30; ++i) h.add(command(i * 1000, 1, 1, {"PING"}, Reply::status("PONG")));
  TimelineOptions o;
  o.focus = {15};
  o.context_events = 2;
  const std::string out = render_timeline(h, o);
  size_t lines = 0;
  for (char c : out) lines += c == '\n';
  EXPECT_EQ(lines, 7u);  // ..., 13, 14, >>15, 16, 17, ...
  EXPECT_EQ(out.rfind("   ...\n", 0), 0u);
  EXPECT_NE(out.find(">> t=    15.000ms"), std::string::npos);
}

TEST(History, ShowsServerOnlyWithSeveralServers) {
  History h;
  auto e = command(0, 1, 1, {"GET", "k"}, Reply::nil());
  e.server = 2;
  h.add(e);
  EXPECT_EQ(render_event(h, h[0]).find("s2:"), std::string::npos);
  h.set_server_count(3);
  EXPECT_NE(render_event(h, h[0]).find("s2: GET k -> (nil)"), std::string::npos);
}

TEST(History, HashIsStableAndSensitive) {
  History a, b;
  for (History* h : {&a, &b}) {
    h->add(command(1, 1, 1, {"SET", "k", "v"}, Reply::ok()));
    h->add(simple(2, EventKind::kEnterCritical, 1, 1, "k"));
  }
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.canonical(), b.canonical());
  // Pinned: the canonical form and FNV-1a are specified, so the hash of a
  // fixed history never changes across platforms or builds.
  EXPECT_EQ(a.canonical(),
            "1|7:command|1|1|0|0:|3|3:SET|1:k|1:v|0:|2:OK|0|\n"
            "2|5:enter|1|1|-1|1:k|0|0:|0:|0|\n");
  b.add(simple(3, EventKind::kLeaveCritical, 1, 1, "k"));
  EXPECT_NE(a.hash(), b.hash());
  History c;
  c.add(command(1, 1, 1, {"SET", "k", "w"}, Reply::ok()));  // one byte differs
  c.add(simple(2, EventKind::kEnterCritical, 1, 1, "k"));
  EXPECT_NE(a.hash(), c.hash());
  // Argument boundaries matter: {"ab"} differs from {"a", "b"}.
  History d, e;
  d.add(command(1, 1, 1, {"ab"}, Reply::ok()));
  e.add(command(1, 1, 1, {"a", "b"}, Reply::ok()));
  EXPECT_NE(d.hash(), e.hash());
}

// The typed fields print in the slots the string fields had (the golden
// history hashes depend on it): the enums' spellings and "orphaned" in the
// text slot, the formatted reply or the client id in the reply slot.
TEST(History, TypedFieldsKeepTheirCanonicalSlots) {
  History h;
  HistoryEvent start = simple(0, EventKind::kProcessStart, 1, 0);
  start.text = "a";
  start.client_id = "c1-00ab";
  h.add(start);
  HistoryEvent cmd = command(1, 1, 1, {"DEL", "k"}, Reply::integer(1));
  cmd.orphaned = true;
  h.add(cmd);
  HistoryEvent hold = simple(2, EventKind::kHold, 1, 1, "k");
  hold.hold_op = HoldOp::kUnlockRejected;
  hold.value = 0;
  h.add(hold);
  HistoryEvent key = simple(3, EventKind::kKeyState, 0, 0, "k");
  key.server = 0;
  key.key_state = KeyPresence::kLease;
  key.value = 100;
  key.argv = {"tok"};
  h.add(key);
  HistoryEvent fenced = simple(4, EventKind::kFencedWrite, 1, 1, "r");
  fenced.verdict = FenceVerdict::kRejected;
  fenced.value = 7;
  h.add(fenced);
  HistoryEvent push = simple(5, EventKind::kPush, 1, 0);
  push.server = 0;
  push.text = "ch";
  push.reply = Reply::bulk("m");
  h.add(push);
  EXPECT_EQ(h.canonical(),
            "0|13:process-start|1|0|-1|0:|0|1:a|7:c1-00ab|0|\n"
            "1|7:command|1|1|0|0:|2|3:DEL|1:k|8:orphaned|11:(integer) 1|0|\n"
            "2|4:hold|1|1|-1|1:k|0|15:unlock-rejected|0:|0|\n"
            "3|9:key-state|0|0|0|1:k|1|3:tok|5:lease|0:|100|\n"
            "4|12:fenced-write|1|1|-1|1:r|0|8:rejected|0:|7|\n"
            "5|4:push|1|0|0|0:|0|2:ch|3:\"m\"|0|\n");
  EXPECT_EQ(render_event(h, h[1]), "t=     0.001ms  c1/1    DEL k -> (integer) 1  (orphaned)");
  EXPECT_EQ(render_event(h, h[2]),
            "t=     0.002ms  c1/1    hold count of k after unlock-rejected: 0");
}

TEST(History, FormatsTimes) {
  EXPECT_EQ(format_time_ms(0), "0.000ms");
  EXPECT_EQ(format_time_ms(12345), "12.345ms");
  EXPECT_EQ(format_time_ms(7), "0.007ms");
  EXPECT_EQ(format_time_ms(-1500), "-1.500ms");
}

}  // namespace
}  // namespace redsim::world
