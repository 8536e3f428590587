// SLOWLOG, LATENCY, CLIENT KILL/LIST and COMMAND GETKEYS/LIST/INFO. Expected
// texts are what redis-server 7.0.15 answered to the same commands;
// durations come from DEBUG SLEEP on the manual clock.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class MonitorCommandsTest : public ServerTest {};

TEST_F(MonitorCommandsTest, SlowlogLogsCommandsAtLeastTheThreshold) {
  EXPECT_EQ(run({"SLOWLOG", "LEN"}), Int(0));
  run({"CONFIG", "SET", "slowlog-log-slower-than", "100000"});
  run({"PING"});
  EXPECT_EQ(run({"SLOWLOG", "LEN"}), Int(0));  // takes no virtual time
  run({"CLIENT", "SETNAME", "foobar"});
  int64_t before_s = now_ms() / 1000;
  run({"DEBUG", "SLEEP", "0.2"});
  ASSERT_EQ(run({"SLOWLOG", "LEN"}), Int(1));
  resp::Reply got = run({"SLOWLOG", "GET"});
  ASSERT_EQ(got.elements().size(), 1u);
  const resp::Reply& e = got.elements()[0];
  ASSERT_EQ(e.elements().size(), 6u);
  EXPECT_EQ(e.elements()[0], Int(0));  // the first id
  EXPECT_EQ(e.elements()[1], Int(before_s));
  EXPECT_EQ(e.elements()[2], Int(200000));
  EXPECT_EQ(e.elements()[3], Bulks({"DEBUG", "SLEEP", "0.2"}));
  EXPECT_EQ(e.elements()[4], Bulk(""));  // in process: no peer address
  EXPECT_EQ(e.elements()[5], Bulk("foobar"));
  // -1 turns it off.
  run({"CONFIG", "SET", "slowlog-log-slower-than", "-1"});
  run({"DEBUG", "SLEEP", "0.2"});
  EXPECT_EQ(run({"SLOWLOG", "LEN"}), Int(1));
  EXPECT_EQ(run({"SLOWLOG", "RESET"}), Ok());
  EXPECT_EQ(run({"SLOWLOG", "LEN"}), Int(0));
}

TEST_F(MonitorCommandsTest, SlowlogMaxLenGetCountAndTrimming) {
  run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  run({"CONFIG", "SET", "slowlog-max-len", "10"});
  for (int i = 0; i < 100; ++i) run({"PING"});
  EXPECT_EQ(run({"SLOWLOG", "LEN"}), Int(10));
  EXPECT_EQ(run({"SLOWLOG", "GET", "5"}).elements().size(), 5u);
  EXPECT_EQ(run({"SLOWLOG", "GET", "-1"}).elements().size(), 10u);
  EXPECT_EQ(run({"SLOWLOG", "GET", "0"}).elements().size(), 0u);
  EXPECT_EQ(run({"SLOWLOG", "GET", "-2"}), Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(run({"SLOWLOG", "GET", "x"}), Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(
      run({"SLOWLOG", "GET", "1", "2"}),
      Err("ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP."));
  EXPECT_EQ(run({"SLOWLOG", "LEN", "x"}),
            Err("ERR wrong number of arguments for 'slowlog|len' command"));
  EXPECT_EQ(run({"SLOWLOG", "foo"}), Err("ERR unknown subcommand 'foo'. Try SLOWLOG HELP."));
  // 33 arguments: 31 kept and a note; an argument of 129 bytes cut to 128.
  run({"SLOWLOG", "RESET"});
  Argv sadd = {"sadd", "set"};
  for (int i = 3; i <= 33; ++i) sadd.push_back(std::to_string(i));
  server_->execute(*s_, sadd);
  resp::Reply args = run({"SLOWLOG", "GET"}).elements()[0].elements()[3];  // newest first
  ASSERT_EQ(args.elements().size(), 32u);
  EXPECT_EQ(args.elements()[30], Bulk("31"));
  EXPECT_EQ(args.elements()[31], Bulk("... (2 more arguments)"));
  run({"SLOWLOG", "RESET"});
  run({"SADD", "set", "foo", std::string(129, 'A')});
  args = run({"SLOWLOG", "GET"}).elements()[0].elements()[3];
  std::string cut(128, 'A');
  cut.append("... (1 more bytes)");
  EXPECT_EQ(args.elements()[3], Bulk(cut));
}

TEST_F(MonitorCommandsTest, SlowlogLogsTheCommandsOfExecNotExec) {
  run({"CONFIG", "SET", "slowlog-log-slower-than", "100000"});
  run({"MULTI"});
  run({"DEBUG", "SLEEP", "0.2"});
  run({"EXEC"});
  resp::Reply got = run({"SLOWLOG", "GET"});
  ASSERT_EQ(got.elements().size(), 1u);
  EXPECT_EQ(got.elements()[0].elements()[3], Bulks({"DEBUG", "SLEEP", "0.2"}));
}

TEST_F(MonitorCommandsTest, LatencyEventsHistoryLatestReset) {
  EXPECT_EQ(run({"LATENCY", "LATEST"}), Arr({}));
  run({"DEBUG", "SLEEP", "0.3"});  // threshold 0: off
  EXPECT_EQ(run({"LATENCY", "LATEST"}), Arr({}));
  EXPECT_EQ(run({"CONFIG", "SET", "latency-monitor-threshold", "200"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "latency-monitor-threshold"}),
            Bulks({"latency-monitor-threshold", "200"}));
  int64_t t1 = (now_ms() + 300) / 1000;
  run({"DEBUG", "SLEEP", "0.3"});
  advance_ms(1100);
  int64_t t2 = (now_ms() + 400) / 1000;
  run({"DEBUG", "SLEEP", "0.4"});
  run({"PING"});  // under the threshold
  EXPECT_EQ(run({"LATENCY", "HISTORY", "command"}),
            Arr({Arr({Int(t1), Int(300)}), Arr({Int(t2), Int(400)})}));
  EXPECT_EQ(run({"LATENCY", "LATEST"}), Arr({Arr({Bulk("command"), Int(t2), Int(400), Int(400)})}));
  EXPECT_EQ(run({"LATENCY", "HISTORY", "blabla"}), Arr({}));
  EXPECT_EQ(run({"LATENCY", "RESET", "blabla"}), Int(0));
  EXPECT_EQ(run({"LATENCY", "GRAPH", "nope"}), Err("ERR No samples available for event 'nope'"));
  EXPECT_FALSE(run({"LATENCY", "DOCTOR"}).str().empty());
  EXPECT_EQ(run({"LATENCY", "RESET"}), Int(1));
  EXPECT_EQ(run({"LATENCY", "LATEST"}), Arr({}));
  EXPECT_EQ(run({"LATENCY", "HELP", "x"}),
            Err("ERR wrong number of arguments for 'latency|help' command"));
  EXPECT_EQ(run({"CONFIG", "SET", "latency-monitor-threshold", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') "
                "- argument must be between 0 and 9223372036854775807 inclusive"));
}

TEST_F(MonitorCommandsTest, LatencyHistogramCountsCallsPerCommand) {
  run({"CONFIG", "RESETSTAT"});
  EXPECT_EQ(run({"LATENCY", "HISTOGRAM"}),
            Arr({Bulk("config|resetstat"),
                 Arr({Bulk("calls"), Int(1), Bulk("histogram_usec"), Arr({Int(1), Int(1)})})}));
  run({"CONFIG", "RESETSTAT"});
  run({"SET", "a", "b"});
  run({"SET", "c", "d"});
  run({"CLIENT", "ID"});
  run({"DEBUG", "SLEEP", "0.003"});  // 3000 us: the hdr bucket from 4194304 ns, top 4227071 ns
  EXPECT_EQ(run({"LATENCY", "HISTOGRAM", "set", "blabla"}),
            Arr({Bulk("set"),
                 Arr({Bulk("calls"), Int(2), Bulk("histogram_usec"), Arr({Int(1), Int(2)})})}));
  EXPECT_EQ(run({"LATENCY", "HISTOGRAM", "client"}),
            Arr({Bulk("client|id"),
                 Arr({Bulk("calls"), Int(1), Bulk("histogram_usec"), Arr({Int(1), Int(1)})})}));
  EXPECT_EQ(run({"LATENCY", "HISTOGRAM", "debug"}),
            Arr({Bulk("debug"),
                 Arr({Bulk("calls"), Int(1), Bulk("histogram_usec"), Arr({Int(4227), Int(1)})})}));
}

TEST_F(MonitorCommandsTest, ClientKillFiltersAndErrors) {
  auto a = server_->connect();
  auto b = server_->connect();
  run(*b, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(run({"CLIENT", "KILL"}),
            Err("ERR wrong number of arguments for 'client|kill' command"));
  EXPECT_EQ(run({"CLIENT", "KILL", "id", "10", "wrong_arg"}), Err(kSyntax));
  EXPECT_EQ(run({"CLIENT", "KILL", "id", "str"}), Err("ERR client-id should be greater than 0"));
  EXPECT_EQ(run({"CLIENT", "KILL", "id", "0"}), Err("ERR client-id should be greater than 0"));
  EXPECT_EQ(run({"CLIENT", "KILL", "type", "wrong_type"}),
            Err("ERR Unknown client type 'wrong_type'"));
  EXPECT_EQ(run({"CLIENT", "KILL", "user", "wrong_user"}), Err("ERR No such user 'wrong_user'"));
  EXPECT_EQ(run({"CLIENT", "KILL", "skipme", "yes_or_no"}), Err(kSyntax));
  EXPECT_EQ(run({"CLIENT", "KILL", "1.2.3.4:5"}), Err("ERR No such client"));
  EXPECT_FALSE(server_->take_kill_requests());
  EXPECT_EQ(run({"CLIENT", "KILL", "type", "pubsub"}), Int(1));
  EXPECT_TRUE(b->kill_requested());
  EXPECT_FALSE(a->kill_requested());
  EXPECT_TRUE(server_->take_kill_requests());
  EXPECT_FALSE(server_->take_kill_requests());
  // SKIPME yes by default: all but the caller (b already on its way out).
  EXPECT_EQ(run({"CLIENT", "KILL", "user", "default"}), Int(1));
  EXPECT_TRUE(a->kill_requested());
  EXPECT_FALSE(s_->kill_requested());
  EXPECT_EQ(run({"CLIENT", "KILL", "id", std::to_string(s_->id()), "skipme", "no"}), Int(1));
  EXPECT_TRUE(s_->kill_requested());
}

TEST_F(MonitorCommandsTest, ClientListFields) {
  std::string line = run({"CLIENT", "INFO"}).str();
  // The request's RESP size: *2 $6 client $4 info.
  EXPECT_NE(line.find(" qbuf=26 "), std::string::npos) << line;
  EXPECT_NE(line.find(" argv-mem=10 "), std::string::npos) << line;
  EXPECT_NE(line.find(" cmd=client|info user=default redir=-1 resp=2\n"), std::string::npos)
      << line;
  auto other = server_->connect();
  run(*other, {"HELLO", "3"});
  std::string list = run({"CLIENT", "LIST", "ID", std::to_string(other->id())}).str();
  EXPECT_NE(list.find(" qbuf=0 "), std::string::npos) << list;
  EXPECT_NE(list.find(" resp=3\n"), std::string::npos) << list;
}

TEST_F(MonitorCommandsTest, CommandGetkeys) {
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "get", "key"}), Bulks({"key"}));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "mset", "a", "b", "c", "d"}), Bulks({"a", "c"}));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "eval", "return 1", "1", "key"}), Bulks({"key"}));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "eval", "return 1", "0"}), Arr({}));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "eval", "a", "x"}), Arr({}));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "lrange", "a", "x"}),
            Err("ERR Invalid number of arguments specified for command"));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "ping"}), Err("ERR The command has no key arguments"));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "config", "get", "a"}),
            Err("ERR The command has no key arguments"));
  EXPECT_EQ(run({"COMMAND", "GETKEYS", "nope"}), Err("ERR Invalid command specified"));
  EXPECT_EQ(run({"COMMAND", "GETKEYS"}),
            Err("ERR wrong number of arguments for 'command|getkeys' command"));
  auto flags = [](std::string key, std::initializer_list<std::string> f) {
    std::vector<resp::Reply> out;
    for (const auto& s : f) out.push_back(Status(s));
    return Arr({Bulk(std::move(key)), resp::Reply::array(std::move(out))});
  };
  EXPECT_EQ(run({"COMMAND", "GETKEYSANDFLAGS", "set", "k1", "v1"}),
            Arr({flags("k1", {"OW", "update"})}));
  EXPECT_EQ(run({"COMMAND", "GETKEYSANDFLAGS", "set", "k1", "v1", "get"}),
            Arr({flags("k1", {"RW", "access", "update"})}));
  EXPECT_EQ(run({"COMMAND", "GETKEYSANDFLAGS", "LMOVE", "k1", "k2", "left", "right"}),
            Arr({flags("k1", {"RW", "access", "delete"}), flags("k2", {"RW", "insert"})}));
}

TEST_F(MonitorCommandsTest, CommandListAndInfo) {
  resp::Reply all = run({"COMMAND", "LIST"});
  auto has = [](const resp::Reply& list, const std::string& name) {
    for (const auto& e : list.elements()) {
      if (e.str() == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(all, "set"));
  EXPECT_TRUE(has(all, "client|list"));
  EXPECT_EQ(run({"COMMAND", "LIST", "bad_arg"}), Err(kSyntax));
  EXPECT_EQ(run({"COMMAND", "LIST", "FILTERBY", "bad", "x"}), Err(kSyntax));
  EXPECT_EQ(run({"COMMAND", "LIST", "FILTERBY", "aclcat", "non_existing_category"}), Arr({}));
  resp::Reply scripting = run({"COMMAND", "LIST", "FILTERBY", "aclcat", "scripting"});
  EXPECT_TRUE(has(scripting, "eval"));
  EXPECT_TRUE(has(scripting, "script|kill"));
  EXPECT_FALSE(has(scripting, "set"));
  EXPECT_EQ(run({"COMMAND", "LIST", "FILTERBY", "pattern", "set"}), Bulks({"set"}));
  resp::Reply config = run({"COMMAND", "LIST", "FILTERBY", "pattern", "config|*re*"});
  EXPECT_TRUE(has(config, "config|resetstat"));
  EXPECT_TRUE(has(config, "config|rewrite"));
  EXPECT_EQ(run({"COMMAND", "LIST", "FILTERBY", "module", "m"}), Arr({}));
  // Redis's own facts: first/last/step, categories, key specs.
  resp::Reply get = run({"COMMAND", "INFO", "get"}).elements()[0];
  EXPECT_EQ(get.elements()[2], Arr({Status("readonly"), Status("fast")}));
  EXPECT_EQ(get.elements()[3], Int(1));
  EXPECT_EQ(get.elements()[6], Arr({Status("@read"), Status("@string"), Status("@fast")}));
  EXPECT_EQ(get.elements()[8].elements().size(), 1u);
  resp::Reply eval = run({"COMMAND", "INFO", "EVAL"}).elements()[0];
  EXPECT_TRUE(has(eval.elements()[2], "movablekeys"));
  EXPECT_EQ(run({"COMMAND", "INFO", "get|key", "config|get|key"}), Arr({Nil(), Nil()}));
  resp::Reply config_get = run({"COMMAND", "INFO", "config|get"}).elements()[0];
  EXPECT_EQ(config_get.elements()[0], Bulk("config|get"));
  EXPECT_EQ(config_get.elements()[1], Int(-3));
}

TEST_F(MonitorCommandsTest, AclHasTheDefaultUserOnly) {
  EXPECT_EQ(run({"ACL", "WHOAMI"}), Bulk("default"));
  EXPECT_EQ(run({"ACL", "WHOAMI", "x"}),
            Err("ERR wrong number of arguments for 'acl|whoami' command"));
  EXPECT_EQ(run({"ACL", "USERS"}), Bulks({"default"}));
  EXPECT_EQ(run({"ACL", "LIST"}), Bulks({"user default on nopass ~* &* +@all"}));
  EXPECT_EQ(run({"ACL", "GETUSER", "nope"}), Nil());
  EXPECT_EQ(run({"ACL", "DELUSER", "nope"}), Int(0));
  EXPECT_EQ(run({"ACL", "DELUSER", "default"}), Err("ERR The 'default' user cannot be removed"));
  EXPECT_EQ(run({"ACL", "CAT", "nope"}), Err("ERR Unknown category 'nope'"));
  EXPECT_EQ(run({"ACL", "CAT"}).elements().size(), 21u);
  resp::Reply connection = run({"ACL", "CAT", "connection"});
  bool has_client_id = false;
  bool has_get = false;
  for (const auto& e : connection.elements()) {
    has_client_id = has_client_id || e.str() == "client|id";
    has_get = has_get || e.str() == "get";
  }
  EXPECT_TRUE(has_client_id);
  EXPECT_FALSE(has_get);
  EXPECT_EQ(run({"ACL", "foo"}), Err("ERR unknown subcommand 'foo'. Try ACL HELP."));
}

TEST_F(MonitorCommandsTest, MonitorShowsCommandsScriptsAndNotAdmin) {
  auto m = server_->connect();
  EXPECT_EQ(run(*m, {"MONITOR"}), Ok());
  run({"SET", "foo", "bar"});
  run({"CONFIG", "GET", "hz"});  // admin: not shown
  run({"EVAL", "redis.call('set', KEYS[1], ARGV[1])", "1", "k", "a\"b"});
  run({"MULTI"});
  run({"GET", "foo"});
  run({"EXEC"});
  std::vector<resp::Reply> lines = m->take_pushes();
  ASSERT_EQ(lines.size(), 6u);
  const std::string ts = std::to_string(now_ms() / 1000) + ".000000 ";
  EXPECT_EQ(lines[0], Status(ts + "[0 ] \"SET\" \"foo\" \"bar\""));
  EXPECT_NE(lines[1].str().find("[0 ] \"EVAL\""), std::string::npos) << lines[1].str();
  EXPECT_EQ(lines[2], Status(ts + "[0 lua] \"set\" \"k\" \"a\\\"b\""));
  EXPECT_EQ(lines[3], Status(ts + "[0 ] \"MULTI\""));
  EXPECT_EQ(lines[4], Status(ts + "[0 ] \"GET\" \"foo\""));
  EXPECT_EQ(lines[5], Status(ts + "[0 ] \"EXEC\""));
  m.reset();  // a closed monitor is forgotten
  run({"PING"});
}

// GEOADD's scores are redis-server 7.0.15's for the same coordinates.
TEST_F(MonitorCommandsTest, GeoaddStoresGeohashScoresThroughZadd) {
  EXPECT_EQ(run({"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(run({"ZSCORE", "g", "Palermo"}), Bulk("3479099956230698"));
  EXPECT_EQ(run({"ZSCORE", "g", "Catania"}), Bulk("3479447370796909"));
  EXPECT_EQ(run({"GEOADD", "g", "180", "85.05112878", "b"}), Int(1));
  EXPECT_EQ(run({"ZSCORE", "g", "b"}), Bulk("13510798882111488"));
  EXPECT_EQ(run({"GEOADD", "g", "181", "47", "m"}),
            Err("ERR invalid longitude,latitude pair 181.000000,47.000000"));
  EXPECT_EQ(run({"GEOADD", "g", "abc", "47", "m"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(run({"GEOADD", "g", "xx", "nx", "1", "2", "m"}), Err(kSyntax));
  EXPECT_EQ(run({"GEOADD", "g", "xx", "ch", "1", "2", "Palermo"}), Int(1));
  EXPECT_EQ(run({"GEOADD", "g", "1", "2"}),
            Err("ERR wrong number of arguments for 'geoadd' command"));
  run({"SET", "s", "x"});
  EXPECT_EQ(run({"GEOADD", "s", "1", "2", "m"}), Err(kWrongType));
  std::string stats = run({"INFO", "commandstats"}).str();
  EXPECT_NE(stats.find("cmdstat_geoadd:calls=7"), std::string::npos) << stats;
  EXPECT_EQ(stats.find("cmdstat_zadd"), std::string::npos) << stats;
}

}  // namespace
}  // namespace redsim::sim
