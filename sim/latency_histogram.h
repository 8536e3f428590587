// LatencyHistogram: the run times of one command, as Redis 7.0 keeps them
// for LATENCY HISTOGRAM and INFO latencystats (Server::CommandStats).
//
//   LatencyHistogram h;
//   h.record_us(5);                        // a 5 us run
//   h.value_at_percentile_ns(50.0);        // 5023: Redis prints p50=5.023
//   h.cdf_usec();                          // {{8, 1}}: LATENCY HISTOGRAM's pairs
//
// Redis (server.c call(), latency.c fillCommandCDF, server.c
// fillPercentileDistributionLatencies) records each duration, a whole
// number of us, as duration * 1000 ns clamped to [1 ns, 1 s] in an
// hdr_histogram of 2 significant figures (HdrHistogram_c: 256 sub-buckets,
// so every value is counted in a range of 2^b ns holding it, b growing with
// the value: 1000 ns counts in [1000, 1003], 5000 ns in [4992, 5023]).
// Here the durations are kept exactly (a count per us) and the hdr ranges
// are applied when read, which gives the same figures: the hdr range of the
// k-th smallest duration is the range where hdr's walk reaches count k.
//
// What INFO latencystats prints, per command with runs, while
// latency-tracking is yes: latency_percentiles_usec_<name>:p50=X,p99=Y,p99.9=Z
// (the percentiles of latency-tracking-info-percentiles), each the top of
// that run's hdr range in us with 3 decimals. Where the fake differs from
// Redis: durations come from the server's clock, so on a virtual clock a
// command takes 0 us unless it moves the clock (DEBUG SLEEP), printed as
// 0.001 (Redis's 1 ns floor); a block ended by a timeout or CLIENT UNBLOCK
// counts as a 0 us run (Redis adds the blocking call's own duration).
//
// Costs: record_us is O(1) for durations below kExactUs (a count in a
// vector grown to the longest such duration), O(log n) above (a map);
// memory is 8 bytes per us up to the longest short duration seen.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redsim::sim {

class LatencyHistogram {
 public:
  // Durations below this many us are counted in a flat vector.
  static constexpr int64_t kExactUs = 4096;
  // Redis's LATENCY_HISTOGRAM_MAX_VALUE: longer runs count as 1 s.
  static constexpr int64_t kMaxUs = 1'000'000;

  // One run of `duration_us` (< 0 counts as 0; above kMaxUs as kMaxUs).
  void record_us(int64_t duration_us) {
    if (duration_us >= 0 && duration_us < static_cast<int64_t>(short_.size())) {
      ++short_[static_cast<size_t>(duration_us)];
      ++count_;
      return;
    }
    record_slow(duration_us);
  }
  uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }

  // hdr_value_at_percentile, in ns: the top of the hdr range of the
  // smallest duration that at least round(percentile% of count()) runs
  // reach (at least 1 run). `percentile` in [0, 100]. 0 when empty.
  int64_t value_at_percentile_ns(double percentile) const;

  // LATENCY HISTOGRAM's "histogram_usec" (Redis's fillCommandCDF walking
  // the hdr log buckets from 1024 ns, doubling): for each bucket top
  // 1024 << k ns, the pair {its hdr range's top in us (1, 2, 4, 8, 16, 33,
  // 66, 132, 264, ...), the runs up to that range's top}, kept only where
  // the cumulative count grew; the last pair's count is count().
  std::vector<std::pair<int64_t, uint64_t>> cdf_usec() const;

  // HdrHistogram_c highest_equivalent_value for 2 significant figures and
  // a lowest value of 1: the top of the range `ns` (>= 1) is counted in.
  static int64_t highest_equivalent_ns(int64_t ns);

 private:
  void record_slow(int64_t duration_us);
  // Calls f(ns, runs) for each distinct duration, shortest first; ns is
  // duration * 1000, or 1 for a 0 us run (Redis's lower clamp).
  template <typename F>
  void for_each(F&& f) const;

  std::vector<uint64_t> short_;       // runs by duration in us, < kExactUs
  std::map<int64_t, uint64_t> long_;  // runs by duration in us, >= kExactUs
  uint64_t count_ = 0;
};

// A percentile as Redis prints it in CONFIG GET latency-tracking-info-percentiles
// and INFO latencystats' "p<percentile>=": "%f" with its trailing zeros and
// point trimmed (50.0 -> "50", 99.9 -> "99.9", 1e-7 -> "0").
std::string percentile_label(double percentile);

// CONFIG SET latency-tracking-info-percentiles' argument (Redis 7.0
// config.c): numbers split at each single space, each a whole strtold
// parse (hex and exponents allowed; no space, no NaN), each in [0, 100];
// "" alone is the empty list. On success fills *out and returns "";
// otherwise returns the reason CONFIG SET gives and leaves *out alone.
std::string parse_percentiles(std::string_view text, std::vector<double>* out);

}  // namespace redsim::sim
