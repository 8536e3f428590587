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
// - A search keeps the members whose cell centre is within the radius
//   (BYRADIUS) or whose latitude and longitude distances fit in half the
//   box (BYBOX). Known difference: Redis walks the nine geohash boxes
//   around the centre, so its order without ASC/DESC (and which members
//   ANY stops at) follows those boxes; the fake walks the whole set in
//   score order.
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
std::optional<uint64_t> encode(double lon, double lat, double lat_min, double lat_max) {
  if (lon > kLongMax || lon < kLongMin || lat > kLatMax || lat < kLatMin) return std::nullopt;
  double lat_offset = (lat - lat_min) / (lat_max - lat_min);
  double long_offset = (lon - kLongMin) / (kLongMax - kLongMin);
  lat_offset *= static_cast<double>(1ULL << kStep);
  long_offset *= static_cast<double>(1ULL << kStep);
  return interleave(static_cast<uint32_t>(lat_offset), static_cast<uint32_t>(long_offset));
}

// decodeGeohash: the centre of the cell, clamped to the limits.
void decode(double score, double* lon, double* lat) {
  uint32_t ilat = 0;
  uint32_t ilon = 0;
  deinterleave(static_cast<uint64_t>(score), &ilat, &ilon);
  const double cells = static_cast<double>(1ULL << kStep);
  const double lat_scale = kLatMax - kLatMin;
  const double long_scale = kLongMax - kLongMin;
  const double lat_lo = kLatMin + (ilat * 1.0 / cells) * lat_scale;
  const double lat_hi = kLatMin + ((ilat + 1) * 1.0 / cells) * lat_scale;
  const double lon_lo = kLongMin + (ilon * 1.0 / cells) * long_scale;
  const double lon_hi = kLongMin + ((ilon + 1) * 1.0 / cells) * long_scale;
  *lon = std::clamp((lon_lo + lon_hi) / 2, kLongMin, kLongMax);
  *lat = std::clamp((lat_lo + lat_hi) / 2, kLatMin, kLatMax);
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
  const EncodingLimits& limits = ctx.server.keyspace().limits();
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

// GEOPOS key member [...]: [lon, lat] or a nil array per member.
Reply geopos(CommandContext& ctx) {
  bool wrong = false;
  Zset* z = read_geo(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  for (size_t j = 2; j < ctx.argv.size(); ++j) {
    const double* s = z == nullptr ? nullptr : z->score(ctx.argv[j]);
    if (s == nullptr) {
      out.push_back(Reply::nil_array());
      continue;
    }
    double lon = 0;
    double lat = 0;
    decode(*s, &lon, &lat);
    out.push_back(Reply::array({coord_reply(lon), coord_reply(lat)}));
  }
  return Reply::array(std::move(out));
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

// GEOHASH key member [...]
Reply geohash(CommandContext& ctx) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  bool wrong = false;
  Zset* z = read_geo(ctx, ctx.argv[1], &wrong);
  if (wrong) return errors::wrong_type();
  std::vector<Reply> out;
  for (size_t j = 2; j < ctx.argv.size(); ++j) {
    const double* s = z == nullptr ? nullptr : z->score(ctx.argv[j]);
    if (s == nullptr) {
      out.push_back(Reply::nil());
      continue;
    }
    double lon = 0;
    double lat = 0;
    decode(*s, &lon, &lat);
    std::optional<uint64_t> bits = encode(lon, lat, -90, 90);
    if (!bits) {
      out.push_back(Reply::nil());
      continue;
    }
    std::string text(11, '0');
    for (int i = 0; i < 10; ++i)
      text[static_cast<size_t>(i)] = kAlphabet[(*bits >> (52 - (i + 1) * 5)) & 0x1f];
    out.push_back(Reply::bulk(std::move(text)));
  }
  return Reply::array(std::move(out));
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
  std::vector<Point> found;
  for (const Zset::Item& item : z->items()) {
    Point p{&item.member, item.score, 0, 0, 0};
    decode(item.score, &p.lon, &p.lat);
    if (!shape.box) {
      p.dist = distance(shape.lon, shape.lat, p.lon, p.lat);
      if (p.dist > shape.radius * shape.conversion) continue;
    } else {
      if (lat_distance(p.lat, shape.lat) > shape.height * shape.conversion / 2) continue;
      if (distance(p.lon, p.lat, shape.lon, p.lat) > shape.width * shape.conversion / 2) continue;
      p.dist = distance(shape.lon, shape.lat, p.lon, p.lat);
    }
    found.push_back(p);
    if (any && static_cast<int64_t>(found.size()) >= count) break;
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
  if (returned == 0) {
    if (db.remove(*store)) notify_keyspace_event(ctx, notify::kGeneric, "del", *store);
    return Reply::integer(0);
  }
  const EncodingLimits& limits = ctx.server.keyspace().limits();
  Zset result;
  for (const Point& p : found) {
    result.set(*p.member, storedist ? p.dist / shape.conversion : p.score, limits);
  }
  Entry fresh;
  fresh.value = std::move(result);
  db.put(*store, std::move(fresh));
  db.touch(*store);
  notify_keyspace_event(ctx, notify::kZset, (flags & kSearch) ? "geosearchstore" : "georadiusstore",
                        *store);
  return Reply::integer(static_cast<int64_t>(returned));
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
