#include "sim/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace redsim::sim {

namespace {

// HdrHistogram_c with 2 significant figures: 256 sub-buckets (2 * 10^2
// rounded up to a power of two), half of them per bucket after the first.
constexpr int kSubBucketMask = 255;
constexpr int kSubBucketBits = 8;
// The last value hdr's counts array reaches for Redis's 1 s maximum
// (bucket 22, sub-bucket 255): its log walk ends there.
constexpr int64_t kLastRangeTopNs = (int64_t{256} << 22) - 1;

}  // namespace

int64_t LatencyHistogram::highest_equivalent_ns(int64_t ns) {
  const auto v = static_cast<uint64_t>(std::max<int64_t>(ns, 1));
  const int bucket = std::bit_width(v | kSubBucketMask) - kSubBucketBits;
  const uint64_t lowest = (v >> bucket) << bucket;
  return static_cast<int64_t>(lowest + (uint64_t{1} << bucket) - 1);
}

void LatencyHistogram::record_slow(int64_t duration_us) {
  const int64_t us = std::clamp<int64_t>(duration_us, 0, kMaxUs);
  if (us < kExactUs) {
    short_.resize(static_cast<size_t>(us) + 1, 0);
    ++short_[static_cast<size_t>(us)];
  } else {
    ++long_[us];
  }
  ++count_;
}

template <typename F>
void LatencyHistogram::for_each(F&& f) const {
  for (size_t us = 0; us < short_.size(); ++us) {
    if (short_[us] != 0) f(us == 0 ? int64_t{1} : static_cast<int64_t>(us) * 1000, short_[us]);
  }
  for (const auto& [us, runs] : long_) f(us * 1000, runs);
}

int64_t LatencyHistogram::value_at_percentile_ns(double percentile) const {
  if (count_ == 0) return 0;
  const double p = std::min(percentile, 100.0);
  auto wanted = static_cast<uint64_t>((p / 100) * static_cast<double>(count_) + 0.5);
  wanted = std::max<uint64_t>(wanted, 1);
  uint64_t seen = 0;
  int64_t found = 0;
  for_each([&](int64_t ns, uint64_t runs) {
    if (seen >= wanted) return;
    seen += runs;
    if (seen >= wanted) found = ns;
  });
  return highest_equivalent_ns(found);
}

std::vector<std::pair<int64_t, uint64_t>> LatencyHistogram::cdf_usec() const {
  std::vector<std::pair<int64_t, uint64_t>> values;  // (ns, runs), shortest first
  for_each([&](int64_t ns, uint64_t runs) { values.emplace_back(ns, runs); });
  std::vector<std::pair<int64_t, uint64_t>> out;
  uint64_t cumulative = 0;
  size_t next = 0;
  for (int64_t level = 1024; cumulative < count_; level *= 2) {
    const int64_t top = level > kLastRangeTopNs ? kLastRangeTopNs : highest_equivalent_ns(level);
    const uint64_t before = cumulative;
    while (next < values.size() && values[next].first <= top) cumulative += values[next++].second;
    if (cumulative > before) out.emplace_back(top / 1000, cumulative);
    if (level > kLastRangeTopNs) break;
  }
  return out;
}

std::string percentile_label(double percentile) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%f", percentile);
  std::string out(buf, static_cast<size_t>(std::max(n, 0)));
  // Redis's trimDoubleString.
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

namespace {

// Redis's string2ld: the whole text is one strtold number, not NaN.
bool parse_long_double(std::string_view text, long double* out) {
  if (text.empty() || text.size() >= 5 * 1024) return false;
  std::string buf(text);
  if (std::isspace(static_cast<unsigned char>(buf[0]))) return false;
  errno = 0;
  char* end = nullptr;
  long double value = std::strtold(buf.c_str(), &end);
  if (*end != '\0' || errno == EINVAL || std::isnan(value)) return false;
  if (errno == ERANGE && (value == HUGE_VALL || value == -HUGE_VALL || value == 0)) return false;
  *out = value;
  return true;
}

}  // namespace

std::string parse_percentiles(std::string_view text, std::vector<double>* out) {
  std::vector<double> parsed;
  if (!text.empty()) {
    while (true) {
      size_t space = text.find(' ');
      long double value = 0;
      if (!parse_long_double(text.substr(0, space), &value)) {
        return "Invalid latency-tracking-info-percentiles parameters";
      }
      if (value > 100.0L || value < 0.0L) {
        return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      }
      parsed.push_back(static_cast<double>(value));
      if (space == std::string_view::npos) break;
      text.remove_prefix(space + 1);
    }
  }
  *out = std::move(parsed);
  return "";
}

}  // namespace redsim::sim
