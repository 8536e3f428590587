// Geo commands over sorted sets: GEOADD (NX XX CH), GEOPOS, GEODIST,
// GEOHASH, GEORADIUS[_RO], GEORADIUSBYMEMBER[_RO], GEOSEARCH and
// GEOSEARCHSTORE.
//
// Source: Redis 7.0 geo.c and geohash.c / geohash_helper.c behaviour
// (facts only), texts checked against redis-server 7.0.15:
// - A position is stored as the score of its member: a 52-bit geohash
//   interleaving 26 bits of latitude (even bits, range -85.05112878 to
//   85.05112878) and 26 of longitude (odd bits, -180 to 180). Positions
//   read back as the centre of that cell; GEOHASH re-encodes the centre
//   with latitude in -90..90 as 11 base-32 characters (the last always '0').
// - Distances are the haversine formula on a sphere of radius
//   6372797.560856 m, printed "%.4f" in the requested unit (m, km, ft, mi);
//   coordinates print as Redis's human long doubles.
// - A search walks the centre's geohash cell and its eight neighbours at
//   the step the radius suggests (geohash_helper.c), each in score order,
//   and keeps the members whose cell centre is within the radius (BYRADIUS)
//   or whose latitude and longitude distances fit in half the box (BYBOX):
//   that walk is the order without ASC/DESC and where ANY stops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "sim/args.h"
#include "sim/cmd_util.h"

namespace redsim::sim {

using resp::Reply;

namespace {

constexpr double kLatMin = -85.05112878;
constexpr double kLatMax = 85.05112878;
constexpr double kLongMin = -180;
constexpr double kLongMax = 180;
constexpr int kStep = 26;
constexpr double kEarthRadiusM = 6372797.560856;
constexpr double kDegToRad = std::numbers::pi / 180.0;

uint64_t interleave(uint32_t x, uint32_t y) {  // x in the even bits, y in the odd
  uint64_t out = 0;
  for (int i = 0; i < 32; ++i) {
    out |= static_cast<uint64_t>((x >> i) & 1) << (2 * i);
    out |= static_cast<uint64_t>((y >> i) & 1) << (2 * i + 1);
  }
  return out;
}

void deinterleave(uint64_t bits, uint32_t* x, uint32_t* y) {
  *x = 0;
  *y = 0;
  for (int i = 0; i < 32; ++i) {
    *x |= static_cast<uint32_t>((bits >> (2 * i)) & 1) << i;
    *y |= static_cast<uint32_t>((bits >> (2 * i + 1)) & 1) << i;
  }
}

// geohashEncode with the given latitude range; nullopt outside the limits.
std::optional<uint64_t> encode(double lon, double lat, double lat_min, double lat_max,
                               int step = kStep) {
  if (lon > kLongMax || lon < kLongMin || lat > kLatMax || lat < kLatMin) return std::nullopt;
  double lat_offset = (lat - lat_min) / (lat_max - lat_min);
  double long_offset = (lon - kLongMin) / (kLongMax - kLongMin);
  lat_offset *= static_cast<double>(1ULL << step);
  long_offset *= static_cast<double>(1ULL << step);
  return interleave(static_cast<uint32_t>(lat_offset), static_cast<uint32_t>(long_offset));
}

// geohashDecode: the cell of `bits` at `step` (WGS84 ranges).
struct Area {
  double lat_lo, lat_hi, lon_lo, lon_hi;
};
Area cell(uint64_t bits, int step) {
  uint32_t ilat = 0;
  uint32_t ilon = 0;
  deinterleave(bits, &ilat, &ilon);
  const double cells = static_cast<double>(1ULL << step);
  const double lat_scale = kLatMax - kLatMin;
  const double long_scale = kLongMax - kLongMin;
  return Area{kLatMin + (ilat * 1.0 / cells) * lat_scale,
              kLatMin + ((ilat + 1) * 1.0 / cells) * lat_scale,
              kLongMin + (ilon * 1.0 / cells) * long_scale,
              kLongMin + ((ilon + 1) * 1.0 / cells) * long_scale};
}

// The geohash bits of a member's score. Redis's decodeGeohash casts the
// score to uint64_t, which C leaves undefined for a NaN, a negative or an
// infinite score (a ZADD can store those in a geo key); the fake gives them
// fixed bits instead: what gcc's x86-64 conversion yields.
uint64_t geohash_bits(double score) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (score >= 0 && score < 2 * kTwo63) return static_cast<uint64_t>(score);
  if (score >= 2 * kTwo63) return 0;  // +inf, too large
  if (score >= -kTwo63) return static_cast<uint64_t>(static_cast<int64_t>(score));
  return uint64_t{1} << 63;  // NaN, below -2^63
}

// decodeGeohash: the centre of the cell, clamped to the limits.
void decode(double score, double* lon, double* lat) {
  const Area a = cell(geohash_bits(score), kStep);
  *lon = std::clamp((a.lon_lo + a.lon_hi) / 2, kLongMin, kLongMax);
  *lat = std::clamp((a.lat_lo + a.lat_hi) / 2, kLatMin, kLatMax);
}

double lat_distance(double lat1, double lat2) {
  return kEarthRadiusM * std::fabs(lat2 * kDegToRad - lat1 * kDegToRad);
}

double distance(double lon1, double lat1, double lon2, double lat2) {
  const double lon1r = lon1 * kDegToRad;
  const double lon2r = lon2 * kDegToRad;
  const double v = std::sin((lon2r - lon1r) / 2);
  if (v == 0.0) return lat_distance(lat1, lat2);
  const double lat1r = lat1 * kDegToRad;
  const double lat2r = lat2 * kDegToRad;
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

std::string format_distance(double d) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.4f", d);
  return buf;
}

Reply coord_reply(double v) {
  return Reply::double_text(format_long_double(static_cast<long double>(v)));
}

// extractLongLatOrReply.
std::optional<Reply> parse_lonlat(const std::string& lon_arg, const std::string& lat_arg,
                                  double* lon, double* lat) {
  if (!parse_double(lon_arg, lon) || !parse_double(lat_arg, lat)) return errors::not_float();
  if (*lon < kLongMin || *lon > kLongMax || *lat < kLatMin || *lat > kLatMax) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "ERR invalid longitude,latitude pair %f,%f", *lon, *lat);
    return Reply::error(buf);
  }
  return std::nullopt;
}

// extractUnitOrReply: meters per unit, or -1.
double unit_meters(const std::string& u) {
  if (equals_ci(u, "m")) return 1;
  if (equals_ci(u, "km")) return 1000;
  if (equals_ci(u, "ft")) return 0.3048;
  if (equals_ci(u, "mi")) return 1609.34;
  return -1;
}

Reply unit_error() {
  return Reply::error("ERR unsupported unit provided. please use M, KM, FT, MI");
}

Zset* read_geo(CommandContext& ctx, const std::string& key, bool* wrong) {
  Entry* e = lookup_typed(ctx, key, ValueType::kZset, wrong);
  return e == nullptr ? nullptr : &e->zset();
}

// GEOADD key [NX|XX] [CH] longitude latitude member [...]
Reply geoadd(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  bool nx = false;
  bool xx = false;
  bool ch = false;
  size_t i = 2;
  for (; i < argv.size(); ++i) {
    if (equals_ci(argv[i], "nx")) {
      nx = true;
    } else if (equals_ci(argv[i], "xx")) {
      xx = true;
    } else if (equals_ci(argv[i], "ch")) {
      ch = true;
    } else {
      break;
    }
  }
  if ((argv.size() - i) % 3 != 0 || (nx && xx)) return errors::syntax();
  if (argv.size() == i) return errors::syntax();
  std::vector<std::pair<double, std::string>> items;
  for (size_t j = i; j < argv.size(); j += 3) {
    double lon = 0;
    double lat = 0;
    if (auto err = parse_lonlat(argv[j], argv[j + 1], &lon, &lat)) return *err;
    items.emplace_back(static_cast<double>(*encode(lon, lat, kLatMin, kLatMax)), argv[j + 2]);
  }
  bool wrong = false;
  Zset* z = read_geo(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  Db& db = current_db(ctx);
  const EncodingLimits& limits = ServerAccess::keyspace(ctx.server).limits();
  if (z == nullptr) {
    if (xx) return Reply::integer(0);
    Zset fresh;
    fresh.note_length(items[0].second.size(), limits);
    z = &db.add(argv[1], std::move(fresh)).zset();
  }
  int64_t added = 0;
  int64_t changed = 0;
  for (const auto& [score, member] : items) {
    const double* cur = z->score(member);
    if (cur != nullptr) {
      if (nx || *cur == score) continue;
      z->set(member, score, limits);
      ++changed;
    } else {
      if (xx) continue;
      z->set(member, score, limits);
      ++added;
    }
  }
  if (added + changed > 0) {
    db.touch(argv[1]);
    notify_keyspace_event(ctx, notify::kZset, "zadd", argv[1]);
  } else if (z->empty()) {
    db.remove(argv[1]);
  }
  return Reply::integer(ch ? added + changed : added);
}

// GEOPOS and GEOHASH: one reply per member argv[2..], `missing` for a
// member (or key) that is not there, else `of` its decoded position.
template <class Of>
Reply per_member(CommandContext& ctx, const Reply& missing, Of of) {
  bool wrong = false;
  Zset* z = read_geo(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  for (size_t j = 2; j < ctx.argv.size(); ++j) {
    const double* s = z == nullptr ? nullptr : z->score(ctx.argv[j]);
    if (s == nullptr) {
      out.push_back(missing);
      continue;
    }
    double lon = 0;
    double lat = 0;
    decode(*s, &lon, &lat);
    out.push_back(of(lon, lat));
  }
  return Reply::array(std::move(out));
}

// GEOPOS key member [...]: [lon, lat] or a nil array per member.
Reply geopos(CommandContext& ctx) {
  return per_member(ctx, Reply::nil_array(), [](double lon, double lat) {
    return Reply::array({coord_reply(lon), coord_reply(lat)});
  });
}

// GEODIST key member1 member2 [M|KM|FT|MI]
Reply geodist(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  double to_meter = 1;
  if (argv.size() == 5) {
    to_meter = unit_meters(argv[4]);
    if (to_meter < 0) return unit_error();
  } else if (argv.size() > 5) {
    return errors::syntax();
  }
  bool wrong = false;
  Zset* z = read_geo(ctx, argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  if (z == nullptr) return Reply::nil();
  const double* s1 = z->score(argv[2]);
  const double* s2 = z->score(argv[3]);
  if (s1 == nullptr || s2 == nullptr) return Reply::nil();
  double x1 = 0;
  double y1 = 0;
  double x2 = 0;
  double y2 = 0;
  decode(*s1, &x1, &y1);
  decode(*s2, &x2, &y2);
  return Reply::bulk(format_distance(distance(x1, y1, x2, y2) / to_meter));
}

// GEOHASH key member [...]: the 11-character geohash, or nil per member.
Reply geohash(CommandContext& ctx) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  return per_member(ctx, Reply::nil(), [](double lon, double lat) {
    std::optional<uint64_t> bits = encode(lon, lat, -90, 90);
    if (!bits) return Reply::nil();
    std::string text(11, '0');
    for (int i = 0; i < 10; ++i)
      text[static_cast<size_t>(i)] = kAlphabet[(*bits >> (52 - (i + 1) * 5)) & 0x1f];
    return Reply::bulk(std::move(text));
  });
}

// ---- searches ---------------------------------------------------------------

enum SearchFlag : unsigned {
  kCoords = 1,       // GEORADIUS: center and radius from arguments
  kByMember = 2,     // GEORADIUSBYMEMBER
  kSearch = 4,       // GEOSEARCH
  kSearchStore = 8,  // GEOSEARCHSTORE
  kNoStore = 16,     // the _RO forms
};

struct Shape {
  bool box = false;
  double lon = 0, lat = 0;
  double radius = 0, width = 0, height = 0;  // in the unit
  double conversion = 1;                     // meters per unit
};

std::optional<Reply> parse_distance(const std::string& value, const std::string& unit, double* out,
                                    double* conversion) {
  if (!parse_double(value, out)) return Reply::error("ERR need numeric radius");
  if (*out < 0) return Reply::error("ERR radius cannot be negative");
  *conversion = unit_meters(unit);
  if (*conversion < 0) return unit_error();
  return std::nullopt;
}

struct Point {
  const std::string* member;
  double score;
  double lon, lat, dist;
};

// geohash_move_x / geohash_move_y: the neighbouring cell east/west (x,
// the odd bits) or north/south (y, the even bits) at `step`.
uint64_t move_x(uint64_t bits, int step, int d) {
  if (d == 0) return bits;
  uint64_t x = bits & 0xaaaaaaaaaaaaaaaaULL;
  const uint64_t y = bits & 0x5555555555555555ULL;
  const uint64_t zz = 0x5555555555555555ULL >> (64 - step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - step * 2));
  return x | y;
}

uint64_t move_y(uint64_t bits, int step, int d) {
  if (d == 0) return bits;
  const uint64_t x = bits & 0xaaaaaaaaaaaaaaaaULL;
  uint64_t y = bits & 0x5555555555555555ULL;
  const uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - step * 2));
  return x | y;
}

// geohashEstimateStepsByRadius.
int estimate_steps(double range_m, double lat) {
  constexpr double kMercatorMax = 20037726.37;
  if (range_m == 0) return 26;
  int step = 1;
  while (range_m < kMercatorMax) {
    range_m *= 2;
    ++step;
  }
  step -= 2;
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  return std::clamp(step, 1, 26);
}

struct Box {
  uint64_t bits = 0;
  int step = 0;  // 0 with bits 0: excluded
};

// geohashCalculateAreasByShapeWGS84: the centre's cell and its eight
// neighbours (north, south, east, west, NE, NW, SE, SW), in Redis's order,
// those outside the bounding box zeroed.
std::vector<Box> search_boxes(const Shape& shape) {
  const double height = shape.conversion * (shape.box ? shape.height / 2 : shape.radius);
  const double width = shape.conversion * (shape.box ? shape.width / 2 : shape.radius);
  const double rad_to_deg = 180.0 / std::numbers::pi;
  const double lat_delta = height / kEarthRadiusM * rad_to_deg;
  const double long_delta_top =
      width / kEarthRadiusM / std::cos((shape.lat + lat_delta) * kDegToRad) * rad_to_deg;
  const double long_delta_bottom =
      width / kEarthRadiusM / std::cos((shape.lat - lat_delta) * kDegToRad) * rad_to_deg;
  const bool south = shape.lat < 0;
  const double min_lon = south ? shape.lon - long_delta_bottom : shape.lon - long_delta_top;
  const double max_lon = south ? shape.lon + long_delta_bottom : shape.lon + long_delta_top;
  const double min_lat = shape.lat - lat_delta;
  const double max_lat = shape.lat + lat_delta;
  double radius_m = shape.box ? std::sqrt((shape.width / 2) * (shape.width / 2) +
                                          (shape.height / 2) * (shape.height / 2))
                              : shape.radius;
  radius_m *= shape.conversion;
  int steps = estimate_steps(radius_m, shape.lat);
  auto neighbours = [](uint64_t h, int st) {
    // north, south, east, west, north_east, north_west, south_east, south_west
    return std::vector<uint64_t>{move_y(h, st, 1),
                                 move_y(h, st, -1),
                                 move_x(h, st, 1),
                                 move_x(h, st, -1),
                                 move_y(move_x(h, st, 1), st, 1),
                                 move_y(move_x(h, st, -1), st, 1),
                                 move_y(move_x(h, st, 1), st, -1),
                                 move_y(move_x(h, st, -1), st, -1)};
  };
  uint64_t hash = encode(shape.lon, shape.lat, kLatMin, kLatMax, steps).value_or(0);
  std::vector<uint64_t> nb = neighbours(hash, steps);
  const Area n = cell(nb[0], steps), s = cell(nb[1], steps), e = cell(nb[2], steps),
             w = cell(nb[3], steps);
  const bool decrease =
      n.lat_hi < max_lat || s.lat_lo > min_lat || e.lon_hi < max_lon || w.lon_lo > min_lon;
  if (steps > 1 && decrease) {
    --steps;
    hash = encode(shape.lon, shape.lat, kLatMin, kLatMax, steps).value_or(0);
    nb = neighbours(hash, steps);
  }
  const Area area = cell(hash, steps);
  std::vector<Box> boxes{{hash, steps}};
  for (uint64_t b : nb) boxes.push_back({b, steps});
  if (steps >= 2) {
    auto zero = [&](std::initializer_list<int> idx) {
      for (int i : idx) boxes[static_cast<size_t>(i)] = Box{};
    };
    // Indices: 1 north, 2 south, 3 east, 4 west, 5 NE, 6 NW, 7 SE, 8 SW.
    if (area.lat_lo < min_lat) zero({2, 8, 7});
    if (area.lat_hi > max_lat) zero({1, 5, 6});
    if (area.lon_lo < min_lon) zero({4, 8, 6});
    if (area.lon_hi > max_lon) zero({3, 7, 5});
  }
  return boxes;
}

Reply georadius_generic(CommandContext& ctx, size_t src_index, unsigned flags) {
  const Argv& argv = ctx.argv;
  bool wrong = false;
  Zset* z = read_geo(ctx, argv[src_index], &wrong);
  if (wrong) return errors::wrong_type();
  Shape shape;
  size_t base = 0;
  std::optional<std::string> store;
  bool storedist = false;
  auto from_member = [&](const std::string& m) -> std::optional<Reply> {
    const double* s = z->score(m);
    if (s == nullptr) return Reply::error("ERR could not decode requested zset member");
    decode(*s, &shape.lon, &shape.lat);
    return std::nullopt;
  };
  if (flags & kCoords) {
    base = 6;
    if (auto err = parse_lonlat(argv[2], argv[3], &shape.lon, &shape.lat)) return *err;
    if (auto err = parse_distance(argv[4], argv[5], &shape.radius, &shape.conversion)) return *err;
  } else if (flags & kByMember) {
    base = 5;
    if (z != nullptr) {
      if (auto err = from_member(argv[2])) return *err;
      if (auto err = parse_distance(argv[3], argv[4], &shape.radius, &shape.conversion)) {
        return *err;
      }
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      store = argv[1];
    }
  }
  bool withdist = false, withhash = false, withcoord = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  int sort = 0;  // 0 none, 1 asc, -1 desc
  bool any = false;
  int64_t count = 0;
  const size_t remaining = argv.size() > base ? argv.size() - base : 0;
  for (size_t i = 0; i < remaining; ++i) {
    const std::string& arg = argv[base + i];
    const std::string* next = i + 1 < remaining ? &argv[base + i + 1] : nullptr;
    if (equals_ci(arg, "withdist")) {
      withdist = true;
    } else if (equals_ci(arg, "withhash")) {
      withhash = true;
    } else if (equals_ci(arg, "withcoord")) {
      withcoord = true;
    } else if (equals_ci(arg, "any")) {
      any = true;
    } else if (equals_ci(arg, "asc")) {
      sort = 1;
    } else if (equals_ci(arg, "desc")) {
      sort = -1;
    } else if (equals_ci(arg, "count") && next != nullptr) {
      if (!parse_int64(*next, &count)) return errors::not_integer();
      if (count <= 0) return Reply::error("ERR COUNT must be > 0");
      ++i;
    } else if ((equals_ci(arg, "store") || equals_ci(arg, "storedist")) && next != nullptr &&
               !(flags & kNoStore) && !(flags & kSearch)) {
      store = *next;
      storedist = equals_ci(arg, "storedist");
      ++i;
    } else if (equals_ci(arg, "storedist") && (flags & kSearchStore)) {
      storedist = true;
    } else if (equals_ci(arg, "frommember") && next != nullptr && (flags & kSearch) && !fromloc) {
      if (z != nullptr) {
        if (auto err = from_member(*next)) return *err;
      }
      frommember = true;
      ++i;
    } else if (equals_ci(arg, "fromlonlat") && i + 2 < remaining && (flags & kSearch) &&
               !frommember) {
      if (auto err = parse_lonlat(argv[base + i + 1], argv[base + i + 2], &shape.lon, &shape.lat)) {
        return *err;
      }
      fromloc = true;
      i += 2;
    } else if (equals_ci(arg, "byradius") && i + 2 < remaining && (flags & kSearch) && !bybox) {
      if (auto err = parse_distance(argv[base + i + 1], argv[base + i + 2], &shape.radius,
                                    &shape.conversion)) {
        return *err;
      }
      shape.box = false;
      byradius = true;
      i += 2;
    } else if (equals_ci(arg, "bybox") && i + 3 < remaining && (flags & kSearch) && !byradius) {
      if (!parse_double(argv[base + i + 1], &shape.width)) {
        return Reply::error("ERR need numeric width");
      }
      if (!parse_double(argv[base + i + 2], &shape.height)) {
        return Reply::error("ERR need numeric height");
      }
      if (shape.width < 0 || shape.height < 0) {
        return Reply::error("ERR height or width cannot be negative");
      }
      shape.conversion = unit_meters(argv[base + i + 3]);
      if (shape.conversion < 0) return unit_error();
      shape.box = true;
      bybox = true;
      i += 3;
    } else {
      return errors::syntax();
    }
  }
  if (store && (withdist || withhash || withcoord)) {
    return Reply::error(std::string("ERR ") +
                        ((flags & kSearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
                        " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  }
  if ((flags & kSearch) && !(frommember || fromloc)) {
    return Reply::error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                        argv[0]);
  }
  if ((flags & kSearch) && !(byradius || bybox)) {
    return Reply::error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + argv[0]);
  }
  if (any && count == 0) return Reply::error("ERR the ANY argument requires COUNT argument");
  Db& db = current_db(ctx);
  if (z == nullptr) {
    if (store) {
      if (db.remove(*store)) notify_keyspace_event(ctx, notify::kGeneric, "del", *store);
      return Reply::integer(0);
    }
    return Reply::array({});
  }
  if (count != 0 && sort == 0 && !any) sort = 1;
  // membersOfAllNeighbors: each box's score range [min, max) in score
  // order, a box equal to the previous one processed skipped.
  std::vector<Point> found;
  const uint64_t limit = any ? static_cast<uint64_t>(count) : 0;
  const std::vector<Box> boxes = search_boxes(shape);
  size_t last = 0;
  for (size_t bi = 0; bi < boxes.size(); ++bi) {
    const Box& b = boxes[bi];
    if (b.bits == 0 && b.step == 0) continue;
    if (last != 0 && b.bits == boxes[last].bits && b.step == boxes[last].step) continue;
    if (!found.empty() && limit != 0 && found.size() >= limit) break;
    const int shift = 52 - b.step * 2;
    const double lo = static_cast<double>(b.bits << shift);
    const double hi = static_cast<double>((b.bits + 1) << shift);
    for (size_t r = z->lower_bound(lo, ""); r < z->size(); ++r) {
      const Zset::Item& item = z->at(r);
      if (item.score >= hi) break;
      Point p{&item.member, item.score, 0, 0, 0};
      decode(item.score, &p.lon, &p.lat);
      if (!shape.box) {
        p.dist = distance(shape.lon, shape.lat, p.lon, p.lat);
        if (p.dist > shape.radius * shape.conversion) continue;
      } else {
        if (lat_distance(p.lat, shape.lat) > shape.height * shape.conversion / 2) continue;
        if (distance(p.lon, p.lat, shape.lon, p.lat) > shape.width * shape.conversion / 2) {
          continue;
        }
        p.dist = distance(shape.lon, shape.lat, p.lon, p.lat);
      }
      found.push_back(p);
      if (limit != 0 && found.size() >= limit) break;
    }
    last = bi;
  }
  if (found.empty() && !store) return Reply::array({});
  const size_t returned =
      count == 0 ? found.size() : std::min(found.size(), static_cast<size_t>(count));
  if (sort != 0) {
    std::stable_sort(found.begin(), found.end(), [&](const Point& a, const Point& b) {
      return sort > 0 ? a.dist < b.dist : a.dist > b.dist;
    });
  }
  found.resize(returned);
  if (!store) {
    const size_t options = (withdist ? 1 : 0) + (withhash ? 1 : 0) + (withcoord ? 1 : 0);
    std::vector<Reply> out;
    for (const Point& p : found) {
      if (options == 0) {
        out.push_back(Reply::bulk(*p.member));
        continue;
      }
      std::vector<Reply> row{Reply::bulk(*p.member)};
      if (withdist) row.push_back(Reply::bulk(format_distance(p.dist / shape.conversion)));
      if (withhash) row.push_back(Reply::integer(static_cast<int64_t>(p.score)));
      if (withcoord) row.push_back(Reply::array({coord_reply(p.lon), coord_reply(p.lat)}));
      out.push_back(Reply::array(std::move(row)));
    }
    return Reply::array(std::move(out));
  }
  const EncodingLimits& limits = ServerAccess::keyspace(ctx.server).limits();
  Zset result;
  for (const Point& p : found) {
    result.set(*p.member, storedist ? p.dist / shape.conversion : p.score, limits);
  }
  // The reply counts the points found (Redis's returned_items), as stored.
  return store_value(ctx, *store, Value(Boxed<Zset>(std::move(result))), returned, notify::kZset,
                     (flags & kSearch) ? "geosearchstore" : "georadiusstore");
}

Reply georadius(CommandContext& ctx) { return georadius_generic(ctx, 1, kCoords); }
Reply georadius_ro(CommandContext& ctx) { return georadius_generic(ctx, 1, kCoords | kNoStore); }
Reply georadiusbymember(CommandContext& ctx) { return georadius_generic(ctx, 1, kByMember); }
Reply georadiusbymember_ro(CommandContext& ctx) {
  return georadius_generic(ctx, 1, kByMember | kNoStore);
}
Reply geosearch(CommandContext& ctx) { return georadius_generic(ctx, 1, kSearch); }
Reply geosearchstore(CommandContext& ctx) {
  return georadius_generic(ctx, 2, kSearch | kSearchStore);
}

}  // namespace

void register_geo_commands(CommandTable& table) {
  table.add({"geoadd", -5, kCmdWrite | kCmdDenyOom, &geoadd});
  table.add({"geopos", -2, kCmdReadonly, &geopos});
  table.add({"geodist", -4, kCmdReadonly, &geodist});
  table.add({"geohash", -2, kCmdReadonly, &geohash});
  table.add({"georadius", -6, kCmdWrite | kCmdDenyOom, &georadius});
  table.add({"georadius_ro", -6, kCmdReadonly, &georadius_ro});
  table.add({"georadiusbymember", -5, kCmdWrite | kCmdDenyOom, &georadiusbymember});
  table.add({"georadiusbymember_ro", -5, kCmdReadonly, &georadiusbymember_ro});
  table.add({"geosearch", -7, kCmdReadonly, &geosearch});
  table.add({"geosearchstore", -8, kCmdWrite | kCmdDenyOom, &geosearchstore});
}

}  // namespace redsim::sim
