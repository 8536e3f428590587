#include "sim/world/history_values.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/world/history.h"

namespace redsim::world {
namespace {

using resp::Reply;

TEST(HistoryValues, TextReadsLikeAString) {
  HistoryText t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t, "");
  t = "watchdog renewed lock";
  EXPECT_EQ(t.size(), 21u);
  EXPECT_TRUE(t.starts_with("watchdog"));
  EXPECT_EQ(t, std::string("watchdog renewed lock"));
  EXPECT_EQ("by " + t, "by watchdog renewed lock");
  EXPECT_EQ(t + "!", "watchdog renewed lock!");
  const std::string copy = t;
  const std::string_view view = t;
  EXPECT_EQ(copy, view);
  HistoryText shared = t;
  t += " again";  // a value of its own: the copy keeps the old one
  EXPECT_EQ(t, "watchdog renewed lock again");
  EXPECT_EQ(shared, "watchdog renewed lock");
  t = std::string();
  EXPECT_TRUE(t.empty());
}

TEST(HistoryValues, ArgvAndReplyReadLikeTheirTypes) {
  HistoryArgv a;
  EXPECT_TRUE(a.empty());
  a = {"SET", "k", "v"};
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], "SET");
  EXPECT_EQ(a, (std::vector<std::string>{"SET", "k", "v"}));
  const std::vector<std::string>& v = a;
  EXPECT_EQ(v.back(), "v");
  HistoryArgv b = a;
  b.push_back("NX");
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(b.size(), 4u);

  HistoryReply r;
  EXPECT_TRUE(r.is_nil());
  EXPECT_FALSE(r.is_nil_array());
  r = Reply::integer(7);
  EXPECT_TRUE(r.is_integer());
  EXPECT_EQ(r.integer(), 7);
  EXPECT_EQ(r, Reply::integer(7));
  r = Reply::nil_array();
  EXPECT_TRUE(r.is_nil_array());
  r = Reply::array({Reply::bulk("a"), Reply::integer(2)});
  ASSERT_EQ(r.elements().size(), 2u);
  EXPECT_EQ(r.elements()[0], Reply::bulk("a"));
}

TEST(HistoryValues, InternedEqualValuesShareOneNode) {
  HistoryInterner in;
  const HistoryText t1 = in.text("acquired lock as c1");
  const HistoryText t2 = in.text(std::string("acquired lock as c1"));
  const HistoryText t3 = in.text("acquired lock as c2");
  EXPECT_EQ(t1.data(), t2.data());  // one copy
  EXPECT_NE(t1.data(), t3.data());
  EXPECT_EQ(t3, "acquired lock as c2");

  const HistoryArgv a1 = in.argv({"EVALSHA", "abc", "1", "lock", "30000", "c1:1"});
  const HistoryArgv a2 = in.argv({"EVALSHA", "abc", "1", "lock", "30000", "c1:1"});
  const HistoryArgv a3 = in.argv({"EVALSHA", "abc", "1", "lock", "30000", "c1:2"});
  EXPECT_EQ(&a1.vec(), &a2.vec());
  EXPECT_NE(&a1.vec(), &a3.vec());
  EXPECT_EQ(a3[5], "c1:2");

  const HistoryReply r1 = in.reply(Reply::integer(1));
  const HistoryReply r2 = in.reply(Reply::integer(1));
  const HistoryReply r3 = in.reply(Reply::bulk("1"));  // same text, another kind
  EXPECT_EQ(&r1.get(), &r2.get());
  EXPECT_NE(&r1.get(), &r3.get());
  EXPECT_TRUE(r3.is_bulk());
  // Aggregates keep a node of their own, equal all the same.
  const HistoryReply r4 = in.reply(Reply::array({Reply::integer(1)}));
  const HistoryReply r5 = in.reply(Reply::array({Reply::integer(1)}));
  EXPECT_NE(&r4.get(), &r5.get());
  EXPECT_EQ(r4, r5);
}

TEST(HistoryValues, ValuesOutliveTheirHistory) {
  HistoryEvent kept;
  {
    History h;
    const auto make = [] {
      HistoryEvent e;
      e.kind = EventKind::kTrace;
      e.text = "a note";
      e.argv = {"GET", "k"};
      e.reply = Reply::bulk("v");
      return e;
    };
    h.add(make());
    h.add(make());
    // add() interned the second event's fields into the first's.
    EXPECT_EQ(h[0].text.data(), h[1].text.data());
    EXPECT_EQ(&h[0].argv.vec(), &h[1].argv.vec());
    kept = h[1];
  }
  EXPECT_EQ(kept.text, "a note");
  EXPECT_EQ(kept.argv, (std::vector<std::string>{"GET", "k"}));
  EXPECT_EQ(kept.reply, Reply::bulk("v"));
}

TEST(HistoryValues, EventsAreCompact) {
  // The point of the shared values: a long run's history grows by events of
  // this size (it was 240 bytes with a std::string, a vector and a Reply
  // of its own in every event).
  EXPECT_LE(sizeof(HistoryEvent), 80u);
}

}  // namespace
}  // namespace redsim::world
