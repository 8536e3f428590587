// Geo commands. Expected replies are what redis-server 7.0.15 answered to
// the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class GeoTest : public ServerTest {
 protected:
  void add_nyc() {
    ASSERT_EQ(run({"GEOADD",      "nyc",         "-73.9454966",  "40.747533",
                   "lic market",  "-73.9733487", "40.7648057",   "central park n/q/r",
                   "-73.9903085", "40.7362513",  "union square", "-74.0131604",
                   "40.7126674",  "wtc one",     "-73.7858139",  "40.6428986",
                   "jfk",         "-73.9375699", "40.7498929",   "q4",
                   "-73.9564142", "40.7480973",  "4545"}),
              Int(7));
  }
};

// A score no GEOADD writes (ZADD stores it) decodes to the position
// redis-server 7.0.15 answers; found by dispatch_fuzz (UB on an inf score).
TEST_F(GeoTest, ScoresOutsideTheGeohashRangeDecodeAsRedisDoes) {
  EXPECT_EQ(run({"ZADD", "g", "inf", "a", "-inf", "b", "-5", "c", "1e300", "d"}), Int(4));
  EXPECT_EQ(run({"GEOPOS", "g", "a", "b", "c", "d"}),
            Arr({Bulks({"-179.99999731779098511", "-85.05112751263942528"}),
                 Bulks({"180", "-85.05112751263942528"}), Bulks({"180", "85.0511287799999991"}),
                 Bulks({"-179.99999731779098511", "-85.05112751263942528"})}));
}

TEST_F(GeoTest, AddPosDistHash) {
  add_nyc();
  EXPECT_EQ(run({"GEOADD", "nyc", "200", "100", "x"}),
            Err("ERR invalid longitude,latitude pair 200.000000,100.000000"));
  EXPECT_EQ(run({"GEOADD", "nyc", "XX", "NX", "1", "1", "x"}), Err(kSyntax));
  EXPECT_EQ(run({"GEOADD", "nyc", "CH", "-73.9454966", "40.747533", "lic market", "1", "1", "n"}),
            Int(1));
  EXPECT_EQ(run({"ZSCORE", "nyc", "jfk"}), Bulk("1791895905559723"));
  EXPECT_EQ(
      run({"GEOPOS", "nyc", "wtc one", "nothere"}),
      Arr({Bulks({"-74.01316255331039429", "40.71266718145121644"}), resp::Reply::nil_array()}));
  EXPECT_EQ(run({"GEODIST", "nyc", "wtc one", "jfk", "km"}), Bulk("20.6880"));
  EXPECT_EQ(run({"GEODIST", "nyc", "wtc one", "jfk", "foo"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(run({"GEODIST", "nyc", "wtc one", "nothere"}), Nil());
  EXPECT_EQ(run({"GEOHASH", "nyc", "jfk", "nothere"}), Arr({Bulk("dr5x0yyf1c0"), Nil()}));
}

TEST_F(GeoTest, RadiusAndSearch) {
  add_nyc();
  EXPECT_EQ(run({"GEORADIUS", "nyc", "-73.9798091", "40.7598464", "3", "km", "ASC"}),
            Bulks({"central park n/q/r", "4545", "union square"}));
  EXPECT_EQ(
      run({"GEORADIUS", "nyc", "-73.9798091", "40.7598464", "3", "km", "WITHDIST", "COUNT", "1"}),
      Arr({Arr({Bulk("central park n/q/r"), Bulk("0.7750")})}));
  EXPECT_EQ(run({"GEORADIUS", "nyc", "-73.9798091", "40.7598464", "10", "km", "ANY"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(run({"GEORADIUS", "nyc", "-73.9798091", "40.7598464", "10", "km", "COUNT", "0"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(
      run({"GEORADIUS", "nyc", "-73.9798091", "40.7598464", "10", "km", "STORE", "d", "WITHDIST"}),
      Err("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
          "WITHCOORD options"));
  EXPECT_EQ(run({"GEOSEARCH", "nyc", "FROMMEMBER", "wtc one", "BYRADIUS", "7", "km", "ASC"}),
            Bulks({"wtc one", "union square", "4545", "central park n/q/r", "lic market"}));
  EXPECT_EQ(run({"GEOSEARCH", "nyc", "BYBOX", "6", "6", "km", "ASC"}),
            Err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH"));
  EXPECT_EQ(run({"GEOSEARCHSTORE", "d", "nyc", "FROMLONLAT", "-73.9798091", "40.7598464", "BYBOX",
                 "6", "6", "km", "STOREDIST"}),
            Int(4));
  EXPECT_EQ(run({"ZRANGE", "d", "0", "0", "WITHSCORES"}),
            Bulks({"central park n/q/r", "0.77501636173928778"}));
  EXPECT_EQ(run({"GEOSEARCHSTORE", "d", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}),
            Int(0));
  EXPECT_EQ(run({"EXISTS", "d"}), Int(0));
}

}  // namespace
}  // namespace redsim::sim
