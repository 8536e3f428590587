// SAVE BGSAVE BGREWRITEAOF LASTSAVE LOLWUT MODULE, and the replication and
// cluster commands of a standalone server (sim/cmd_replication.cc). Expected
// texts are what redis-server 7.0.15 (--save '' --appendonly no, no
// replicas, no modules) answered to the same commands.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class PersistenceCommandsTest : public ServerTest {};

TEST_F(PersistenceCommandsTest, SaveMovesLastsave) {
  const int64_t start_s = now_ms() / 1000;
  EXPECT_EQ(run({"LASTSAVE"}), Int(start_s));
  advance_ms(5000);
  EXPECT_EQ(run({"LASTSAVE"}), Int(start_s));
  EXPECT_EQ(run({"SAVE"}), Ok());
  EXPECT_EQ(run({"LASTSAVE"}), Int(start_s + 5));
  advance_ms(3000);
  EXPECT_EQ(run({"BGSAVE"}), Status("Background saving started"));
  EXPECT_EQ(run({"LASTSAVE"}), Int(start_s + 8));
  EXPECT_EQ(run({"BGSAVE", "SCHEDULE"}), Status("Background saving started"));
  EXPECT_EQ(run({"BGSAVE", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"BGREWRITEAOF"}), Status("Background append only file rewriting started"));
  EXPECT_EQ(run({"SAVE", "x"}), Err("ERR wrong number of arguments for 'save' command"));
  EXPECT_EQ(run({"LASTSAVE", "x"}), Err("ERR wrong number of arguments for 'lastsave' command"));
}

// multi.tcl "MULTI with SAVE": SAVE is no_multi; BGSAVE and BGREWRITEAOF
// queue, and EXEC's run of them is "scheduled" (server.in_exec).
TEST_F(PersistenceCommandsTest, SaveRefusedInMultiBackgroundOnesScheduled) {
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"SAVE"}), Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(run({"EXEC"}), Err("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"BGSAVE"}), Status("QUEUED"));
  EXPECT_EQ(run({"BGREWRITEAOF"}), Status("QUEUED"));
  EXPECT_EQ(run({"EXEC"}), Arr({Status("Background saving scheduled"),
                                Status("Background append only file rewriting scheduled")}));
  EXPECT_EQ(run({"EVAL", "return redis.call('save')", "0"}),
            Err("ERR This Redis command is not allowed from script script: "
                "6193f10595eca2a5c1f0a13b9bf6b16068e2fbea, on @user_script:1."));
}

TEST_F(PersistenceCommandsTest, Lolwut) {  // a verbatim string in RESP3
  EXPECT_EQ(run({"LOLWUT"}), Bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(run({"LOLWUT", "VERSION", "7"}), Bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(run({"LOLWUT", "foo"}), Bulk("Redis ver. 7.0.15\n"));
  EXPECT_EQ(run({"LOLWUT", "VERSION", "x"}), Err(kNotInt));
}

TEST_F(PersistenceCommandsTest, ModuleWithoutModules) {
  EXPECT_EQ(run({"MODULE", "LIST"}), Arr({}));
  const std::string not_allowed =
      "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", "
      "you can run it from a local connection, otherwise you need to set this option in the "
      "configuration file, and then restart the server.";
  EXPECT_EQ(run({"MODULE", "LOAD", "/nonexist"}), Err(not_allowed));
  EXPECT_EQ(run({"MODULE", "LOADEX", "/x"}), Err(not_allowed));
  EXPECT_EQ(run({"MODULE", "UNLOAD", "foo"}), Err(not_allowed));
  EXPECT_EQ(run({"MODULE", "foo"}), Err("ERR unknown subcommand 'foo'. Try MODULE HELP."));
  EXPECT_EQ(run({"MODULE", "UNLOAD"}),
            Err("ERR wrong number of arguments for 'module|unload' command"));
  resp::Reply help = run({"MODULE", "HELP"});
  ASSERT_TRUE(help.is_array());
  EXPECT_EQ(help.elements().size(), 11u);
  EXPECT_EQ(help.elements()[0],
            Status("MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
}

TEST_F(PersistenceCommandsTest, ClusterCommandsOfAStandaloneServer) {
  for (const char* cmd : {"ASKING", "READONLY", "READWRITE"}) {
    EXPECT_EQ(run({cmd}), Err("ERR This instance has cluster support disabled")) << cmd;
  }
  EXPECT_EQ(run({"RESTORE-ASKING", "k", "0", "x"}),
            Err("ERR DUMP payload version or checksum are wrong"));
  run({"SET", "src", "v"});
  resp::Reply payload = run({"DUMP", "src"});
  ASSERT_TRUE(payload.is_bulk());
  EXPECT_EQ(run({"RESTORE-ASKING", "dst", "0", payload.str()}), Ok());
  EXPECT_EQ(run({"GET", "dst"}), Bulk("v"));
}

TEST_F(PersistenceCommandsTest, ReplicationCommandsOfAMasterWithoutReplicas) {
  EXPECT_EQ(run({"ROLE"}), Arr({Bulk("master"), Int(0), Arr({})}));
  EXPECT_EQ(run({"ROLE", "x"}), Err("ERR wrong number of arguments for 'role' command"));
  EXPECT_EQ(run({"REPLICAOF", "NO", "ONE"}), Ok());
  EXPECT_EQ(run({"SLAVEOF", "no", "one"}), Ok());
  EXPECT_EQ(run({"REPLICAOF", "foo", "bar"}), Err("ERR Invalid master port"));
  EXPECT_EQ(run({"REPLICAOF", "h", "99999"}), Err("ERR Invalid master port"));
  EXPECT_EQ(run({"REPLICAOF", "a"}), Err("ERR wrong number of arguments for 'replicaof' command"));
  EXPECT_TRUE(run({"REPLICAOF", "127.0.0.1", "6379"}).is_error());

  EXPECT_EQ(run({"FAILOVER"}), Err("ERR FAILOVER requires connected replicas."));
  EXPECT_EQ(run({"FAILOVER", "TO", "h", "1", "FORCE", "TIMEOUT", "10"}),
            Err("ERR FAILOVER requires connected replicas."));
  EXPECT_EQ(run({"FAILOVER", "ABORT"}), Err("ERR No failover in progress."));
  EXPECT_EQ(run({"FAILOVER", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"FAILOVER", "TIMEOUT", "-1"}), Err("ERR FAILOVER timeout must be greater than 0"));
  EXPECT_EQ(run({"FAILOVER", "TIMEOUT", "0"}), Err("ERR FAILOVER timeout must be greater than 0"));
  EXPECT_EQ(run({"FAILOVER", "TIMEOUT", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"FAILOVER", "TO", "h", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"FAILOVER", "TO", "a"}), Err(kSyntax));
  EXPECT_EQ(run({"FAILOVER", "ABORT", "TIMEOUT", "5"}), Err(kSyntax));
  EXPECT_EQ(run({"FAILOVER", "TO", "h", "1", "TO", "h", "2"}), Err(kSyntax));

  EXPECT_EQ(run({"REPLCONF"}), Ok());
  EXPECT_EQ(run({"REPLCONF", "listening-port", "1"}), Ok());
  EXPECT_EQ(run({"REPLCONF", "capa", "eof", "capa", "psync2"}), Ok());
  EXPECT_EQ(run({"REPLCONF", "listening-port", "x"}), Err(kNotInt));
  EXPECT_EQ(run({"REPLCONF", "a"}), Err(kSyntax));
  EXPECT_EQ(run({"REPLCONF", "listening-port", "1", "foo"}), Err(kSyntax));
  EXPECT_EQ(run({"REPLCONF", "foo", "bar"}), Err("ERR Unrecognized REPLCONF option: foo"));
  run({"REPLCONF", "ACK", "1"});
  EXPECT_TRUE(s_->reply_suppressed());  // no reply at all, as Redis
  s_->command_done();
  EXPECT_EQ(run({"PING"}), Status("PONG"));
  EXPECT_FALSE(s_->reply_suppressed());
}

TEST_F(PersistenceCommandsTest, CommandInfoOfTheNewCommands) {
  resp::Reply info = run({"COMMAND", "INFO", "save", "module|list", "restore-asking", "lolwut"});
  ASSERT_EQ(info.elements().size(), 4u);
  const resp::Reply& save = info.elements()[0];
  EXPECT_EQ(save.elements()[0], Bulk("save"));
  EXPECT_EQ(save.elements()[1], Int(1));
  EXPECT_EQ(save.elements()[2],
            Arr({Status("admin"), Status("noscript"), Status("no_async_loading"),
                 Status("no_multi")}));  // a set in RESP3
  EXPECT_EQ(info.elements()[1].elements()[1], Int(2));
  EXPECT_EQ(info.elements()[2].elements()[3], Int(1));  // first key
  EXPECT_EQ(info.elements()[3].elements()[1], Int(-1));
  resp::Reply module = run({"COMMAND", "INFO", "module"});
  EXPECT_EQ(module.elements()[0].elements()[9].elements().size(), 5u);  // subcommands
}

}  // namespace
}  // namespace redsim::sim
