// INFO latencystats, errorstats and commandstats, CONFIG latency-tracking
// and latency-tracking-info-percentiles, CONFIG RESETSTAT: the cases of
// Redis's tests/unit/info.tcl, with the texts redis-server 7.0.15 gave.
// On the manual clock a command takes no time: Redis records that as 1 ns,
// printed 0.001.
#include <gtest/gtest.h>

#include <string>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class InfoStatsTest : public ServerTest {
 protected:
  std::string info(const std::string& section) { return run({"INFO", section}).str(); }
  // The value of `field` in INFO `section`, "" when absent (the suite's
  // cmdrstat / errorrstat / latencyrstat_percentiles).
  std::string field(const std::string& section, const std::string& field) {
    std::string text = info(section);
    std::string key = "\r\n" + field + ":";
    size_t at = text.find(key);
    if (at == std::string::npos) return "";
    at += key.size();
    return text.substr(at, text.find("\r\n", at) - at);
  }
  std::string latency(const std::string& cmd) {
    return field("latencystats", "latency_percentiles_usec_" + cmd);
  }
  std::string cmdstat(const std::string& cmd) { return field("commandstats", "cmdstat_" + cmd); }
  std::string errorstat(const std::string& code) {
    return field("errorstats", "errorstat_" + code);
  }
  std::string total_errors() { return field("stats", "total_error_replies"); }
};

TEST_F(InfoStatsTest, LatencyTrackingOnByDefaultAndOffPrintsNothing) {
  EXPECT_EQ(run({"CONFIG", "GET", "latency-tracking"}), Bulks({"latency-tracking", "yes"}));
  EXPECT_EQ(run({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            Bulks({"latency-tracking-info-percentiles", "50 99 99.9"}));
  run({"SET", "a", "b"});
  EXPECT_EQ(latency("set"), "p50=0.001,p99=0.001,p99.9=0.001");
  run({"CONFIG", "SET", "latency-tracking", "no"});
  EXPECT_EQ(info("latencystats"), "# Latencystats\r\n");  // the set line is kept, not shown
  run({"GET", "a"});
  run({"CONFIG", "SET", "latency-tracking", "yes"});
  EXPECT_EQ(latency("get"), "");  // not recorded while off
  EXPECT_EQ(latency("set"), "p50=0.001,p99=0.001,p99.9=0.001");
  EXPECT_EQ(run({"LATENCY", "HISTOGRAM", "get"}), Arr({}));
  run({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(latency("set"), "");
  EXPECT_EQ(run({"CONFIG", "SET", "latency-tracking", "maybe"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'latency-tracking') - "
                "argument must be 'yes' or 'no'"));
}

TEST_F(InfoStatsTest, PercentilesFollowTheConfigAndMeasureTheServerClock) {
  run({"CONFIG", "SET", "latency-tracking-info-percentiles", "0.0 50.0 100.0"});
  EXPECT_EQ(run({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            Bulks({"latency-tracking-info-percentiles", "0 50 100"}));
  run({"CONFIG", "RESETSTAT"});
  run({"DEBUG", "SLEEP", "0.05"});  // 50000 us: hdr range top 50069503 ns
  run({"DEBUG", "SLEEP", "0"});
  run({"DEBUG", "SLEEP", "0.003"});
  EXPECT_EQ(latency("debug"), "p0=0.001,p50=3014.655,p100=50069.503");
  run({"CLIENT", "ID"});
  EXPECT_EQ(latency("client|id"), "p0=0.001,p50=0.001,p100=0.001");
  EXPECT_EQ(latency("config|resetstat"), "p0=0.001,p50=0.001,p100=0.001");
  run({"CONFIG", "SET", "latency-tracking-info-percentiles", ""});
  EXPECT_EQ(latency("debug"), "");
  EXPECT_NE(info("latencystats").find("\r\nlatency_percentiles_usec_debug:\r\n"),
            std::string::npos);
}

TEST_F(InfoStatsTest, BadPercentilesAreRefusedAndCountedAsErrors) {
  run({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(run({"CONFIG", "SET", "latency-tracking-info-percentiles", "10.0 50.0 a"}),
            Err("ERR CONFIG SET failed (possibly related to argument "
                "'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles "
                "parameters"));
  EXPECT_EQ(total_errors(), "1");
  EXPECT_EQ(run({"CONFIG", "SET", "latency-tracking-info-percentiles", "10.0 50.0 101.0"}),
            Err("ERR CONFIG SET failed (possibly related to argument "
                "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles "
                "parameters should sit between [0.0,100.0]"));
  EXPECT_EQ(total_errors(), "2");
  EXPECT_EQ(run({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            Bulks({"latency-tracking-info-percentiles", "50 99 99.9"}));
  EXPECT_EQ(errorstat("ERR"), "count=2");
  run({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(errorstat("ERR"), "");
  EXPECT_EQ(total_errors(), "0");
}

TEST_F(InfoStatsTest, BlockedCommandIsTimedWhenServed) {
  auto rd = server_->connect();
  run({"CONFIG", "RESETSTAT"});
  server_->execute(*rd, {"BLPOP", "list1{t}", "0"});
  ASSERT_TRUE(rd->blocked());
  EXPECT_EQ(latency("blpop"), "");  // counted once its block ends
  run({"LPUSH", "list1{t}", "a"});
  ASSERT_EQ(server_->take_unblocked().size(), 1u);
  EXPECT_EQ(latency("blpop"), "p50=0.001,p99=0.001,p99.9=0.001");
  EXPECT_EQ(cmdstat("blpop"), "calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0");
  // CLIENT UNBLOCK ERROR: a failed call and an UNBLOCKED error reply.
  server_->execute(*rd, {"BLPOP", "list1{t}", "0"});
  EXPECT_EQ(run({"CLIENT", "UNBLOCK", std::to_string(rd->id()), "ERROR"}), Int(1));
  ASSERT_EQ(server_->take_unblocked().size(), 1u);
  EXPECT_EQ(cmdstat("blpop"), "calls=2,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1");
  EXPECT_EQ(errorstat("UNBLOCKED"), "count=1");
  EXPECT_EQ(total_errors(), "1");
  // CLIENT UNBLOCK with the timeout reply: redis-server 7.0.15 counts it
  // failed too; a timeout is a call that did not fail.
  server_->execute(*rd, {"BLPOP", "list1{t}", "0"});
  EXPECT_EQ(run({"CLIENT", "UNBLOCK", std::to_string(rd->id())}), Int(1));
  ASSERT_EQ(server_->take_unblocked().size(), 1u);
  EXPECT_EQ(cmdstat("blpop"), "calls=3,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=2");
  server_->execute(*rd, {"BLPOP", "list1{t}", "0.1"});
  advance_ms(200);
  EXPECT_EQ(server_->time_out_blocked(), 1u);
  EXPECT_EQ(cmdstat("blpop"), "calls=4,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=2");
  EXPECT_EQ(total_errors(), "1");
}

TEST_F(InfoStatsTest, ErrorStatsAndRejectedCallsAsInfoTcl) {
  run({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(run({"AUTH", "k"}).str().substr(0, 8), "ERR AUTH");
  EXPECT_EQ(errorstat("ERR"), "count=1");
  EXPECT_EQ(cmdstat("auth"), "calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1");
  // Within MULTI/EXEC: the failed command counts, EXEC does not fail.
  run({"CONFIG", "RESETSTAT"});
  run({"MULTI"});
  run({"SET", "a", "b"});
  run({"AUTH", "a"});
  run({"EXEC"});
  EXPECT_EQ(errorstat("ERR"), "count=1");
  EXPECT_EQ(cmdstat("exec"), "calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0");
  EXPECT_EQ(run({"EXEC"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(cmdstat("exec"), "calls=2,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1");
  EXPECT_EQ(total_errors(), "2");
  // Wrong arity is a rejected call; an unknown command has no line.
  run({"CONFIG", "RESETSTAT"});
  run({"SET", "k"});
  run({"SET", "k1", "v1"});
  run({"asdf"});
  EXPECT_EQ(cmdstat("set"), "calls=1,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0");
  EXPECT_EQ(errorstat("ERR"), "count=2");
  // OOM refuses before running.
  run({"CONFIG", "RESETSTAT"});
  run({"CONFIG", "SET", "maxmemory", "1"});
  EXPECT_EQ(run({"SET", "a", "b"}).str().substr(0, 3), "OOM");
  run({"CONFIG", "SET", "maxmemory", "0"});
  EXPECT_EQ(errorstat("OOM"), "count=1");
  EXPECT_EQ(cmdstat("set"), "calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0");
}

}  // namespace
}  // namespace redsim::sim
