#include "sim/world/timeline_svg.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "sim/world/scenarios/scenarios.h"

namespace redsim::world {
namespace {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

TEST(KeyState, TheLockKeyLeaseIsRecordedWithItsDeadline) {
  const ScenarioResult r = find_scenario("expire-then-delete")->run(1);
  int leases = 0, absent = 0;
  for (const HistoryEvent& e : r.history.events()) {
    if (e.kind != EventKind::kKeyState) continue;
    EXPECT_EQ(e.resource, "lock:orders");
    EXPECT_EQ(e.server, 0);
    if (e.key_state == KeyPresence::kLease) {
      ++leases;
      // A 100 ms lease set by the command just recorded: it ends 100 ms later.
      EXPECT_GT(e.value, e.t_us);
      EXPECT_LE(e.value, e.t_us + 100 * 1000);
    }
    absent += e.key_state == KeyPresence::kAbsent ? 1 : 0;
  }
  EXPECT_GE(leases, 2) << "A's lease and B's";
  EXPECT_GE(absent, 1) << "A's late DEL removed B's key";
}

TEST(KeyState, HiddenFromTheTextTimelineUnlessAsked) {
  const ScenarioResult r = find_scenario("expire-then-delete")->run(1);
  EXPECT_EQ(render_timeline(r.history).find("key lock:orders"), std::string::npos);
  TimelineOptions o;
  o.key_states = true;
  EXPECT_NE(render_timeline(r.history, o).find("key lock:orders: lease until"), std::string::npos);
}

TEST(RenderSvg, ExpireThenDeleteHasLanesSectionsLeasesAndTheViolationInRed) {
  const ScenarioResult r = find_scenario("expire-then-delete")->run(1);
  ASSERT_FALSE(r.violations.empty());
  SvgOptions o;
  o.title = "expire-then-delete, seed 1";
  o.violations = r.violations;
  const std::string svg = render_svg(r.history, o);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("expire-then-delete, seed 1"), std::string::npos);
  EXPECT_NE(svg.find("data-lane=\"c1\""), std::string::npos);
  EXPECT_NE(svg.find("data-lane=\"c2\""), std::string::npos);
  EXPECT_NE(svg.find("data-lane=\"s0\""), std::string::npos);
  EXPECT_GE(count(svg, "class=\"critical\""), 3);
  EXPECT_GE(count(svg, "class=\"lease\""), 2);
  EXPECT_GE(count(svg, "data-violation=\"1\""), 2) << "both overlapping sections are red";
  EXPECT_EQ(count(svg, "class=\"violation\""), r.violations.size());
  EXPECT_GT(count(svg, "class=\"command\""), 4);
}

TEST(RenderSvg, CrashesArePainted) {
  const ScenarioResult r = find_scenario("setnx-expire-crash")->run(1);
  const std::string svg = render_svg(r.history, {});
  EXPECT_GE(count(svg, "class=\"crash\""), 1);
}

TEST(RenderSvg, FencedWritesShowTheirTokenAndVerdict) {
  const ScenarioResult r = find_scenario("pause-past-lease-fenced")->run(1);
  const std::string svg = render_svg(r.history, {});
  EXPECT_GE(count(svg, "class=\"fenced-write\""), 2);
  EXPECT_GE(count(svg, "data-accepted=\"0\""), 1) << "A's stale token is rejected";
  EXPECT_GE(count(svg, "data-accepted=\"1\""), 1) << "B's write is accepted";
}

TEST(RenderSvg, TextIsEscaped) {
  History h;
  HistoryEvent e;
  e.kind = EventKind::kProcessStart;
  e.process = 1;
  e.text = "a<b & \"c\"";
  h.add(e);
  SvgOptions o;
  o.title = "<script>";
  const std::string svg = render_svg(h, o);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
}

}  // namespace
}  // namespace redsim::world
