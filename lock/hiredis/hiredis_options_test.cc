#include "lock/hiredis/hiredis_options.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace redsim::lock {
namespace {

using std::chrono::milliseconds;

std::string parse_error(std::string_view url) {
  try {
    HiredisOptions::parse_url(url);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(HiredisOptions, Defaults) {
  HiredisOptions o;
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 6379);
  EXPECT_EQ(o.database, 0);
  EXPECT_EQ(o.connect_timeout, milliseconds(2000));
  EXPECT_EQ(o.command_timeout, milliseconds(5000));
}

TEST(HiredisOptions, ParsesHostPortDatabase) {
  const auto o = HiredisOptions::parse_url("redis://10.0.0.5:6380/3");
  EXPECT_EQ(o.host, "10.0.0.5");
  EXPECT_EQ(o.port, 6380);
  EXPECT_EQ(o.database, 3);
  EXPECT_EQ(o.user, "");
  EXPECT_EQ(o.password, "");
  EXPECT_EQ(o.url(), "redis://10.0.0.5:6380/3");
}

TEST(HiredisOptions, PortAndDatabaseDefault) {
  const auto o = HiredisOptions::parse_url("redis://cache.local");
  EXPECT_EQ(o.host, "cache.local");
  EXPECT_EQ(o.port, 6379);
  EXPECT_EQ(o.database, 0);
  EXPECT_EQ(HiredisOptions::parse_url("redis://h:1/").database, 0);
}

TEST(HiredisOptions, ParsesCredentials) {
  auto o = HiredisOptions::parse_url("redis://:s3cret@h:7000/1");
  EXPECT_EQ(o.user, "");
  EXPECT_EQ(o.password, "s3cret");
  o = HiredisOptions::parse_url("redis://alice:pa%40ss%3a@h");
  EXPECT_EQ(o.user, "alice");
  EXPECT_EQ(o.password, "pa@ss:");
  o = HiredisOptions::parse_url("redis://lonely@h");
  EXPECT_EQ(o.user, "");
  EXPECT_EQ(o.password, "lonely");
  EXPECT_EQ(o.url(), "redis://h:6379/0") << "no credentials in the printable form";
}

TEST(HiredisOptions, ParsesBracketedIpv6) {
  const auto o = HiredisOptions::parse_url("redis://[::1]:6390/2");
  EXPECT_EQ(o.host, "::1");
  EXPECT_EQ(o.port, 6390);
  EXPECT_EQ(o.url(), "redis://[::1]:6390/2");
}

TEST(HiredisOptions, RefusesBadUrlsWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://h:1", "it must start with redis://"},
      {"127.0.0.1:6379", "it must start with redis://"},
      {"rediss://h:1", "TLS (rediss://) is not supported"},
      {"unix:///tmp/redis.sock", "unix sockets are not supported"},
      {"redis://h:0", "port must be 1..65535, got '0'"},
      {"redis://h:65536", "port must be 1..65535, got '65536'"},
      {"redis://h:12ab", "port must be 1..65535, got '12ab'"},
      {"redis://h:", "empty port"},
      {"redis://:6379", "missing host"},
      {"redis://", "missing host"},
      {"redis://h/x", "database must be a non-negative integer, got 'x'"},
      {"redis://h/-1", "database must be a non-negative integer, got '-1'"},
      {"redis://h?timeout=1", "query parameters and fragments are not supported"},
      {"redis://u:@h", "empty password"},
      {"redis://u:p%4@h", "bad percent-escape in user or password"},
      {"redis://[::1:6379", "unclosed '[' in the IPv6 host"},
  };
  for (const auto& [url, why] : cases) {
    const std::string error = parse_error(url);
    EXPECT_EQ(error, "bad Redis URL '" + std::string(url) + "': " + why) << url;
  }
}

}  // namespace
}  // namespace redsim::lock
