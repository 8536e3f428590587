// GEOADD key [NX|XX] [CH] longitude latitude member [...]: as Redis 7.0's
// geoaddCommand, the coordinates become the 52-bit geohash score of a
// sorted-set member and the rest is ZADD's work (ZADD's handler is run with
// the rewritten arguments, so replies, WRONGTYPE, NX/XX/CH and the "zadd"
// keyspace event are ZADD's, while the stats stay GEOADD's). The other GEO
// commands are not simulated.
//
// Geohash (Redis's geohashEncodeWGS84 at step 26, facts of the format):
// longitude in [-180, 180] and latitude in [-85.05112878, 85.05112878]
// (Web Mercator's limits) each scaled to 26 bits, latitude's bits in the
// even positions, longitude's in the odd ones.
#include <cstdio>
#include <string>

#include "sim/args.h"
#include "sim/cmd_util.h"
#include "sim/internal.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr double kLonMin = -180;
constexpr double kLonMax = 180;
constexpr double kLatMin = -85.05112878;
constexpr double kLatMax = 85.05112878;
constexpr int kGeoStep = 26;

// The bits of `v` spread to the even positions of the result.
uint64_t spread_bits(uint32_t v) {
  uint64_t out = 0;
  for (int i = 0; i < 32; ++i) out |= static_cast<uint64_t>((v >> i) & 1) << (2 * i);
  return out;
}

uint64_t geohash52(double lon, double lat) {
  double lat_offset = (lat - kLatMin) / (kLatMax - kLatMin);
  double lon_offset = (lon - kLonMin) / (kLonMax - kLonMin);
  auto lat_bits = static_cast<uint32_t>(lat_offset * static_cast<double>(1ULL << kGeoStep));
  auto lon_bits = static_cast<uint32_t>(lon_offset * static_cast<double>(1ULL << kGeoStep));
  return spread_bits(lat_bits) | (spread_bits(lon_bits) << 1);
}

Reply geoadd(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  size_t lon_idx = 2;
  bool nx = false;
  bool xx = false;
  for (; lon_idx < argv.size(); ++lon_idx) {
    if (equals_ci(argv[lon_idx], "nx")) {
      nx = true;
    } else if (equals_ci(argv[lon_idx], "xx")) {
      xx = true;
    } else if (!equals_ci(argv[lon_idx], "ch")) {
      break;
    }
  }
  if ((argv.size() - lon_idx) % 3 != 0 || (nx && xx)) return errors::syntax();
  Argv zadd(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(lon_idx));
  zadd[0] = "zadd";
  for (size_t j = lon_idx; j + 2 < argv.size(); j += 3) {
    double lon = 0;
    double lat = 0;
    if (!parse_double(argv[j], &lon) || !parse_double(argv[j + 1], &lat)) {
      return Reply::error("ERR value is not a valid float");
    }
    if (lon < kLonMin || lon > kLonMax || lat < kLatMin || lat > kLatMax) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "ERR invalid longitude,latitude pair %f,%f", lon, lat);
      return Reply::error(buf);
    }
    zadd.push_back(std::to_string(geohash52(lon, lat)));
    zadd.push_back(argv[j + 2]);
  }
  const CommandSpec* spec = ctx.server.commands().find("zadd");
  CommandContext inner{ctx.server, ctx.session, zadd, ctx.now_ms, ctx.in_script, nullptr};
  return spec->handler(inner);
}

}  // namespace

void register_geo_commands(CommandTable& table) {
  table.add({"geoadd", -5, kCmdWrite | kCmdDenyOom, &geoadd});
}

}  // namespace redsim::sim
