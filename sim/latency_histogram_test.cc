// LatencyHistogram against figures redis-server 7.0.15 printed for the same
// durations (INFO latencystats, LATENCY HISTOGRAM after DEBUG SLEEP), and
// the percentile texts of CONFIG SET/GET latency-tracking-info-percentiles.
#include "sim/latency_histogram.h"

#include <gtest/gtest.h>

namespace redsim::sim {
namespace {

TEST(LatencyHistogram, HighestEquivalentFollowsHdrTwoSignificantFigures) {
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(1), 1);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(255), 255);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(256), 257);
  // Redis: p50=1.003 for 1 us, 5.023 for 5 us, 9.023, 39.167, 88.063.
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(1000), 1003);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(5000), 5023);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(9000), 9023);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(39000), 39167);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(88000), 88063);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(179000), 179199);
  EXPECT_EQ(LatencyHistogram::highest_equivalent_ns(3096000), 3096575);
}

TEST(LatencyHistogram, PercentilesPickTheRoundedRankedRun) {
  LatencyHistogram h;
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.value_at_percentile_ns(50), 0);
  h.record_us(179);
  h.record_us(3096);
  EXPECT_EQ(h.count(), 2u);
  // Redis after DEBUG SLEEP 0.0001 and 0.003: p50=179.199,p99=3096.575.
  EXPECT_EQ(h.value_at_percentile_ns(50), 179199);
  EXPECT_EQ(h.value_at_percentile_ns(99), 3096575);
  EXPECT_EQ(h.value_at_percentile_ns(99.9), 3096575);
  EXPECT_EQ(h.value_at_percentile_ns(0), 179199);  // at least one run
  EXPECT_EQ(h.value_at_percentile_ns(100), 3096575);
}

TEST(LatencyHistogram, ZeroRunsCountAsOneNanosecondAndLongOnesAsOneSecond) {
  LatencyHistogram h;
  h.record_us(0);
  EXPECT_EQ(h.value_at_percentile_ns(50), 1);  // INFO prints p50=0.001
  h.record_us(-5);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.value_at_percentile_ns(100), 1);
  LatencyHistogram slow;
  slow.record_us(5'000'000);
  slow.record_us(LatencyHistogram::kExactUs);  // the first duration kept in the map
  EXPECT_EQ(slow.value_at_percentile_ns(100),
            LatencyHistogram::highest_equivalent_ns(1'000'000'000));
  EXPECT_EQ(slow.value_at_percentile_ns(50), LatencyHistogram::highest_equivalent_ns(4'096'000));
}

TEST(LatencyHistogram, CdfKeysAreTheLogBucketTopsWhereTheCountGrows) {
  LatencyHistogram h;
  h.record_us(3000);
  // Redis: LATENCY HISTOGRAM debug after DEBUG SLEEP 0.003 -> {4227: 1}.
  EXPECT_EQ(h.cdf_usec(), (std::vector<std::pair<int64_t, uint64_t>>{{4227, 1}}));
  h.record_us(180);  // then DEBUG SLEEP 0.0001 -> {264: 1, 4227: 2}
  EXPECT_EQ(h.cdf_usec(), (std::vector<std::pair<int64_t, uint64_t>>{{264, 1}, {4227, 2}}));
  LatencyHistogram small;
  small.record_us(0);
  small.record_us(1);
  small.record_us(5);  // Redis: a 5 us GET -> {8: 1}
  EXPECT_EQ(small.cdf_usec(), (std::vector<std::pair<int64_t, uint64_t>>{{1, 2}, {8, 3}}));
  LatencyHistogram second;
  second.record_us(2'000'000);  // clamped to 1 s: hdr's last range, top 1073741823 ns
  EXPECT_EQ(second.cdf_usec(), (std::vector<std::pair<int64_t, uint64_t>>{{1073741, 1}}));
}

TEST(LatencyHistogram, PercentileLabelsTrimAsRedis) {
  EXPECT_EQ(percentile_label(50.0), "50");
  EXPECT_EQ(percentile_label(99.9), "99.9");
  EXPECT_EQ(percentile_label(0.001), "0.001");
  EXPECT_EQ(percentile_label(33.3333333), "33.333333");
  EXPECT_EQ(percentile_label(1e-7), "0");
  EXPECT_EQ(percentile_label(99.99999999), "100");
}

TEST(LatencyHistogram, ParsePercentilesAsConfigSet) {
  std::vector<double> out = {1.0};
  EXPECT_EQ(parse_percentiles("0.0 50.0 100.0", &out), "");
  EXPECT_EQ(out, (std::vector<double>{0.0, 50.0, 100.0}));
  EXPECT_EQ(parse_percentiles("0x10 1e1", &out), "");
  EXPECT_EQ(out, (std::vector<double>{16.0, 10.0}));
  EXPECT_EQ(parse_percentiles("", &out), "");
  EXPECT_TRUE(out.empty());
  out = {7.0};
  const std::string invalid = "Invalid latency-tracking-info-percentiles parameters";
  const std::string range =
      "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
  EXPECT_EQ(parse_percentiles("10.0 50.0 a", &out), invalid);
  EXPECT_EQ(parse_percentiles("  50   60 ", &out), invalid);
  EXPECT_EQ(parse_percentiles("50 ", &out), invalid);
  EXPECT_EQ(parse_percentiles(" ", &out), invalid);
  EXPECT_EQ(parse_percentiles("nan", &out), invalid);
  EXPECT_EQ(parse_percentiles("10.0 50.0 101.0", &out), range);
  EXPECT_EQ(parse_percentiles("-1", &out), range);
  EXPECT_EQ(parse_percentiles("inf", &out), range);
  EXPECT_EQ(parse_percentiles("101 a", &out), range);  // checked in order
  EXPECT_EQ(out, std::vector<double>{7.0});            // untouched on error
}

}  // namespace
}  // namespace redsim::sim
