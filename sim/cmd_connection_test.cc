// HELLO CLIENT CONFIG INFO COMMAND FUNCTION REDSIM.ADVANCE. Expected texts
// are what redis-server 7.0.15 answered to the same commands.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config_rewrite.h"
#include "sim/resp/codec.h"
#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class ConnectionCommandsTest : public ServerTest {};

resp::Reply HelloMap(int64_t id) {
  return Arr({Bulk("server"), Bulk("redis"), Bulk("version"), Bulk("7.0.15"), Bulk("proto"), Int(2),
              Bulk("id"), Int(id), Bulk("mode"), Bulk("standalone"), Bulk("role"), Bulk("master"),
              Bulk("modules"), Arr({})});
}

TEST_F(ConnectionCommandsTest, Hello) {
  int64_t id = static_cast<int64_t>(s_->id());
  EXPECT_EQ(run({"HELLO"}), HelloMap(id));
  EXPECT_EQ(run({"HELLO", "2"}), HelloMap(id));
  EXPECT_EQ(run({"HELLO", "1"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(run({"HELLO", "4"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(run({"HELLO", "abc"}), Err("ERR Protocol version is not an integer or out of range"));
  EXPECT_EQ(run({"HELLO", "2", "bogus"}), Err("ERR Syntax error in HELLO option 'bogus'"));
  EXPECT_EQ(run({"HELLO", "2", "auth", "default"}), Err("ERR Syntax error in HELLO option 'auth'"));
  EXPECT_EQ(run({"HELLO", "2", "setname"}), Err("ERR Syntax error in HELLO option 'setname'"));
  EXPECT_EQ(run({"HELLO", "2", "auth", "a", "b"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(run({"HELLO", "2", "setname", "a b"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(run({"HELLO", "2", "AUTH", "default", "pw", "SETNAME", "me"}), HelloMap(id));
  EXPECT_EQ(run({"CLIENT", "GETNAME"}), Bulk("me"));
}

// requirepass and AUTH as redis-server 7.0.15 answered them (redis-cli).
TEST_F(ConnectionCommandsTest, AuthAndRequirepass) {
  EXPECT_EQ(run({"AUTH", "foo"}),
            Err("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?"));
  EXPECT_EQ(run({"AUTH", "a", "b", "c"}), Err("ERR syntax error"));
  EXPECT_EQ(run({"AUTH", "default", "anything"}), Status("OK"));  // nopass: any password
  EXPECT_EQ(run({"AUTH", "alice", "x"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(run({"CONFIG", "SET", "requirepass", std::string("p\0w", 3)}), Status("OK"));
  EXPECT_EQ(run({"CONFIG", "GET", "requirepass"}),
            Arr({Bulk("requirepass"), Bulk(std::string("p\0w", 3))}));
  EXPECT_EQ(run({"PING"}), Status("PONG"));  // connected before: still authenticated
  auto fresh = server_->connect();
  const auto on_fresh = [&](const Argv& argv) { return server_->execute(*fresh, argv); };
  EXPECT_FALSE(fresh->authenticated());
  EXPECT_EQ(on_fresh({"PING"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(on_fresh({"GET"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(on_fresh({"HELLO", "3"}),
            Err("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
                "the RESP protocol version at the same time"));
  EXPECT_EQ(on_fresh({"AUTH", "pw"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(on_fresh({"AUTH", std::string("p\0w", 3)}), Status("OK"));
  EXPECT_EQ(on_fresh({"PING"}), Status("PONG"));
  EXPECT_EQ(on_fresh({"RESET"}), Status("RESET"));  // back to an unauthenticated default user
  EXPECT_EQ(on_fresh({"PING"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(on_fresh({"HELLO", "2", "AUTH", "default", std::string("p\0w", 3)}),
            HelloMap(static_cast<int64_t>(fresh->id())));
  EXPECT_EQ(on_fresh({"PING"}), Status("PONG"));
  EXPECT_EQ(run({"CONFIG", "SET", "requirepass", ""}), Status("OK"));
  EXPECT_TRUE(server_->connect()->authenticated());
}

// HELLO 3 as redis-server 7.0.15 answers it (bytes read off a socket):
// the map, then the RESP3 forms of the replies that change with the
// protocol; HELLO 2 and RESET go back to RESP2.
TEST_F(ConnectionCommandsTest, Hello3SwitchesTheSessionToResp3) {
  const auto wire = [&](const Argv& argv) {
    const resp::Reply reply = server_->execute(*s_, argv);  // HELLO switches the protocol
    return resp::encode(reply, s_->protocol());
  };
  const std::string id = std::to_string(s_->id());
  EXPECT_EQ(s_->protocol(), resp::Protocol::kResp2);
  EXPECT_EQ(wire({"HELLO", "3"}),
            "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n"
            "$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:" +
                id +
                "\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
                "$7\r\nmodules\r\n*0\r\n");
  EXPECT_EQ(s_->protocol(), resp::Protocol::kResp3);
  run({"HSET", "h", "f", "v", "g", "w"});
  EXPECT_EQ(wire({"HGETALL", "h"}), "%2\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n");
  EXPECT_EQ(wire({"HKEYS", "h"}), "*2\r\n$1\r\nf\r\n$1\r\ng\r\n");
  run({"SADD", "s", "a"});
  EXPECT_EQ(wire({"SMEMBERS", "s"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(wire({"SMEMBERS", "nokey"}), "~0\r\n");
  run({"ZADD", "z", "1.5", "m"});
  EXPECT_EQ(wire({"ZSCORE", "z", "m"}), ",1.5\r\n");
  EXPECT_EQ(wire({"ZINCRBY", "z", "0.1", "m"}), ",1.6000000000000001\r\n");
  run({"ZADD", "z", "inf", "n"});
  EXPECT_EQ(wire({"ZSCORE", "z", "n"}), ",inf\r\n");
  EXPECT_EQ(wire({"GET", "nokey"}), "_\r\n");
  EXPECT_EQ(wire({"CONFIG", "GET", "maxmemory"}), "%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
  EXPECT_EQ(wire({"SUBSCRIBE", "ch"}), ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  EXPECT_EQ(run({"RESET"}), resp::Reply::status("RESET"));
  EXPECT_EQ(s_->protocol(), resp::Protocol::kResp2);
  EXPECT_EQ(wire({"ZSCORE", "z", "m"}), "$18\r\n1.6000000000000001\r\n");
  EXPECT_EQ(run({"HGETALL", "h"}), Arr({Bulk("f"), Bulk("v"), Bulk("g"), Bulk("w")}))
      << "a RESP2 session gets plain arrays, as before";
  EXPECT_EQ(run({"HELLO", "3", "SETNAME", "x"}).kind(), resp::Kind::kMap);
  EXPECT_EQ(run({"HELLO", "2"}), HelloMap(static_cast<int64_t>(s_->id())));
  EXPECT_EQ(s_->protocol(), resp::Protocol::kResp2);
}

// Messages reach a RESP3 subscriber as pushes, a RESP2 one as arrays.
TEST_F(ConnectionCommandsTest, PubSubMessagesArePushesInResp3) {
  auto other = server_->connect();
  server_->execute(*other, {"HELLO", "3"});
  server_->execute(*other, {"SUBSCRIBE", "ch"});
  run({"SUBSCRIBE", "ch"});
  auto publisher = server_->connect();
  server_->execute(*publisher, {"PUBLISH", "ch", "hi"});
  const std::vector<resp::Reply> pushed = other->take_pushes();
  ASSERT_EQ(pushed.size(), 1u);
  EXPECT_EQ(resp::encode(pushed[0], resp::Protocol::kResp3),
            ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n");
  EXPECT_EQ(s_->take_pushes(),
            (std::vector<resp::Reply>{Arr({Bulk("message"), Bulk("ch"), Bulk("hi")})}));
}

TEST_F(ConnectionCommandsTest, ClientNameAndId) {
  EXPECT_EQ(run({"CLIENT", "ID"}), Int(static_cast<int64_t>(s_->id())));
  EXPECT_EQ(run({"CLIENT", "GETNAME"}), Nil());
  EXPECT_EQ(run({"CLIENT", "SETNAME", "worker-1"}), Ok());
  EXPECT_EQ(run({"CLIENT", "GETNAME"}), Bulk("worker-1"));
  EXPECT_EQ(run({"CLIENT", "SETNAME", "a b"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(run({"CLIENT", "SETNAME", ""}), Ok());
  EXPECT_EQ(run({"CLIENT", "GETNAME"}), Nil());
  EXPECT_EQ(run({"CLIENT", "ID", "x"}),
            Err("ERR wrong number of arguments for 'client|id' command"));
  EXPECT_EQ(run({"CLIENT", "getname", "x"}),
            Err("ERR wrong number of arguments for 'client|getname' command"));
  EXPECT_EQ(run({"CLIENT"}), Err("ERR wrong number of arguments for 'client' command"));
  EXPECT_EQ(run({"CLIENT", "bogus"}), Err("ERR unknown subcommand 'bogus'. Try CLIENT HELP."));
  EXPECT_EQ(run({"CLIENT", "help", "x"}),
            Err("ERR wrong number of arguments for 'client|help' command"));
  resp::Reply help = run({"CLIENT", "HELP"});
  ASSERT_TRUE(help.is_array());
  ASSERT_EQ(help.elements().size(), 48u);  // redis-server 7.0.15's 48 lines
  EXPECT_EQ(help.elements()[1], Status("CACHING (YES|NO)"));
  // CLIENT SETINFO is Redis 7.2; 7.0 does not know it.
  EXPECT_EQ(run({"CLIENT", "SETINFO", "lib-name", "x"}),
            Err("ERR unknown subcommand 'SETINFO'. Try CLIENT HELP."));
  EXPECT_EQ(run({"CLIENT", "REPLY", "maybe"}), Err(kSyntax));
  EXPECT_EQ(run({"CLIENT", "REPLY"}),
            Err("ERR wrong number of arguments for 'client|reply' command"));
}

TEST_F(ConnectionCommandsTest, ClientListAndInfo) {
  s_->set_peer({"127.0.0.1:5000", "127.0.0.1:6379", 8});
  auto other = server_->connect();
  run(*other, {"SUBSCRIBE", "ch"});
  advance_ms(3000);
  run({"SET", "k", "v"});
  std::string info = run({"CLIENT", "INFO"}).str();
  EXPECT_EQ(info, "id=" + std::to_string(s_->id()) +
                      " addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=8 name= age=3 idle=0 flags=N "
                      "db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=26 qbuf-free=20448 argv-mem=10 "
                      "multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 tot-mem=1836 events=r "
                      "cmd=client|info user=default redir=-1 resp=2\n");
  std::string list = run({"CLIENT", "LIST"}).str();
  EXPECT_EQ(std::count(list.begin(), list.end(), '\n'), 2);
  EXPECT_NE(list.find("flags=P db=0 sub=1"), std::string::npos) << list;
  std::string pubsub = run({"CLIENT", "LIST", "TYPE", "pubsub"}).str();
  EXPECT_EQ(std::count(pubsub.begin(), pubsub.end(), '\n'), 1);
  EXPECT_EQ(pubsub.find("id=" + std::to_string(other->id()) + " "), 0u);
  EXPECT_EQ(run({"CLIENT", "LIST", "TYPE", "master"}), Bulk(""));
  EXPECT_EQ(run({"CLIENT", "LIST", "bogus"}), Err(kSyntax));
  run({"MULTI"});
  run({"GET", "k"});
  auto third = server_->connect();
  std::string in_multi = run(*third, {"CLIENT", "LIST", "ID", std::to_string(s_->id())}).str();
  EXPECT_NE(in_multi.find("flags=x db=0 sub=0 psub=0 ssub=0 multi=1 "), std::string::npos)
      << in_multi;
}

TEST_F(ConnectionCommandsTest, ClientReplyFlags) {
  EXPECT_FALSE(s_->reply_suppressed());
  run({"CLIENT", "REPLY", "SKIP"});
  EXPECT_TRUE(s_->reply_suppressed());  // SKIP's own reply
  s_->command_done();
  run({"PING"});
  EXPECT_TRUE(s_->reply_suppressed());  // the next command's
  s_->command_done();
  run({"PING"});
  EXPECT_FALSE(s_->reply_suppressed());
  s_->command_done();
  run({"CLIENT", "REPLY", "OFF"});
  EXPECT_TRUE(s_->reply_suppressed());
  s_->command_done();
  EXPECT_EQ(run({"CLIENT", "REPLY", "ON"}), Ok());
  EXPECT_FALSE(s_->reply_suppressed());
}

TEST_F(ConnectionCommandsTest, ConfigGet) {
  EXPECT_EQ(run({"CONFIG", "GET", "maxmemory"}), Bulks({"maxmemory", "0"}));
  EXPECT_EQ(run({"CONFIG", "GET", "databases"}), Bulks({"databases", "16"}));
  EXPECT_EQ(run({"CONFIG", "GET", "save"}), Bulks({"save", ""}));
  EXPECT_EQ(run({"CONFIG", "GET", "APPENDONLY"}), Bulks({"appendonly", "no"}));
  EXPECT_EQ(run({"CONFIG", "GET", "bogus"}), Arr({}));
  EXPECT_EQ(run({"CONFIG", "GET", "busy-reply-threshold", "hz"}),
            Bulks({"busy-reply-threshold", "5000", "hz", "10"}));
  resp::Reply glob = run({"CONFIG", "GET", "maxmemory*"});
  ASSERT_TRUE(glob.is_array());
  EXPECT_EQ(glob.elements().size(), 8u);  // maxmemory, -policy, -samples, -clients
  EXPECT_EQ(run({"CONFIG", "GET"}), Err("ERR wrong number of arguments for 'config|get' command"));
  EXPECT_EQ(run({"CONFIG"}), Err("ERR wrong number of arguments for 'config' command"));
  EXPECT_EQ(run({"CONFIG", "bogus"}), Err("ERR unknown subcommand 'bogus'. Try CONFIG HELP."));
  EXPECT_EQ(run({"CONFIG", "help", "x"}),
            Err("ERR wrong number of arguments for 'config|help' command"));
  resp::Reply help = run({"CONFIG", "HELP"});
  ASSERT_TRUE(help.is_array());
  ASSERT_EQ(help.elements().size(), 11u);  // redis-server 7.0.15's 11 lines
  EXPECT_EQ(help.elements()[10], Status("    Prints this help."));
}

TEST_F(ConnectionCommandsTest, ConfigSet) {
  EXPECT_EQ(run({"CONFIG", "SET", "hz", "0"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "hz"}), Bulks({"hz", "1"}));  // clamped as Redis does
  EXPECT_EQ(run({"CONFIG", "SET", "hz", "1000"}), Ok());
  EXPECT_EQ(server_->config().hz, 500);
  EXPECT_EQ(run({"CONFIG", "SET", "lua-time-limit", "4000"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "busy-reply-threshold"}),
            Bulks({"busy-reply-threshold", "4000"}));
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory", "100mb"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "maxmemory"}), Bulks({"maxmemory", "104857600"}));
  EXPECT_EQ(run({"CONFIG", "SET", "save", "3600 1"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "save"}), Bulks({"save", "3600 1"}));
  EXPECT_EQ(run({"CONFIG", "SET", "bogus", "1"}),
            Err("ERR Unknown option or number of arguments for CONFIG SET - 'bogus'"));
  EXPECT_EQ(run({"CONFIG", "SET", "hz", "abc"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't "
                "be parsed into an integer"));
  EXPECT_EQ(run({"CONFIG", "SET", "hz", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument must be "
                "between 0 and 2147483647 inclusive"));
  EXPECT_EQ(run({"CONFIG", "SET", "port", "1", "port", "2"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'port') - duplicate "
                "parameter"));
  EXPECT_EQ(run({"CONFIG", "SET", "databases", "3"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                "immutable config"));
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory", "1x"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument "
                "must be a memory value"));
  EXPECT_EQ(run({"CONFIG", "SET", "save", "x"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save "
                "parameters"));
  EXPECT_EQ(run({"CONFIG", "SET", "appendonly", "maybe"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument "
                "must be 'yes' or 'no'"));
  EXPECT_EQ(run({"CONFIG", "SET", "busy-reply-threshold", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'busy-reply-threshold') - "
                "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(run({"CONFIG", "SET", "proto-max-bulk-len", "1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
                "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(run({"CONFIG", "SET", "maxmemory-policy", "bogus"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                "noeviction"));
  EXPECT_EQ(run({"CONFIG", "SET", "hz"}),
            Err("ERR wrong number of arguments for 'config|set' command"));
  EXPECT_EQ(run({"CONFIG", "SET", "hz", "1", "port"}), Err(kSyntax));
  // Redis's MULTI_ARG enum: flags in the choices' order, "default" for none.
  EXPECT_EQ(run({"CONFIG", "GET", "shutdown-on-sigterm"}),
            Bulks({"shutdown-on-sigterm", "default"}));
  EXPECT_EQ(run({"CONFIG", "SET", "shutdown-on-sigterm", "now nosave"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "shutdown-on-sigterm"}),
            Bulks({"shutdown-on-sigterm", "nosave now"}));
  EXPECT_EQ(run({"CONFIG", "SET", "shutdown-on-sigint", "save default"}), Ok());
  EXPECT_EQ(run({"CONFIG", "GET", "shutdown-on-sigint"}), Bulks({"shutdown-on-sigint", "save"}));
  for (std::string bad : {"bogus", "", "now bogus"}) {
    EXPECT_EQ(run({"CONFIG", "SET", "shutdown-on-sigint", bad}),
              Err("ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - "
                  "argument(s) must be one of the following: default, save, nosave, now, force"));
  }
  // Nothing of a refused CONFIG SET is applied.
  EXPECT_EQ(run({"CONFIG", "SET", "hz", "20", "hz", "30"}).is_error(), true);
  EXPECT_EQ(server_->config().hz, 500);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::string& path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string temp_path(std::string_view name) {
  return ::testing::TempDir() + "redsim_" + std::to_string(getpid()) + "_" + std::string(name);
}

// redis-server 7.0.15 started from the old file below, given the same
// CONFIG SET and ACL SETUSER commands, wrote the same file (its appended
// lines in another order: Redis walks a hash table, redsim its table).
TEST_F(ConnectionCommandsTest, ConfigRewriteKeepsTheFileAndWritesChangesAndUsers) {
  EXPECT_EQ(run({"CONFIG", "REWRITE"}), Err("ERR The server is running without a config file"));
  EXPECT_EQ(run({"CONFIG", "REWRITE", "x"}),
            Err("ERR wrong number of arguments for 'config|rewrite' command"));
  const std::string path = temp_path("rewrite.conf");
  write_text(path,
             "# Redis configuration for testing.\n\nnotify-keyspace-events KEA\nport 6379\n"
             "bind 127.0.0.1\nsave 900 1\nsave 100 2\ndir ./\n"
             "user default on nopass ~* +@all -flushdb\nuser alice on >pw ~k* &ch* -@all +get\n"
             "hz 10\nmaxmemory 10mb\npidfile /tmp/x.pid\nhash-max-ziplist-entries 100\n");
  set_config_file(*server_, path);
  for (auto cmd :
       {Argv{"CONFIG", "SET", "notify-keyspace-events", "KEA", "port", "6379", "bind", "127.0.0.1",
             "save", "900 1 100 2", "maxmemory", "10mb"},
        Argv{"CONFIG", "SET", "hash-max-ziplist-entries", "100", "hz", "20", "maxmemory-samples",
             "7", "proc-title-template", "{title} x"},
        Argv{"ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "+@all", "-flushdb"},
        Argv{"ACL", "SETUSER", "alice", "on", ">pw", "~k*", "&ch*", "-@all", "+get"},
        Argv{"ACL", "SETUSER", "bob", "on",
             "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8", "+set"}}) {
    ASSERT_FALSE(server_->execute(*s_, cmd).is_error()) << cmd[0] << " " << cmd[1];
  }
  EXPECT_EQ(run({"CONFIG", "REWRITE"}), Ok());
  const std::string cwd = std::filesystem::current_path().string();
  const std::string rewritten =
      "# Redis configuration for testing.\n\nnotify-keyspace-events \"AKE\"\nport 6379\n"
      "bind 127.0.0.1\nsave 900 1\nsave 100 2\ndir \"" +
      cwd +
      "\"\n"
      "user alice on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~k* "
      "resetchannels &ch* -@all +get\n"
      "user bob on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 "
      "resetchannels -@all +set\n"
      "hz 20\nmaxmemory 10mb\npidfile /tmp/x.pid\nhash-max-listpack-entries 100\n\n"
      "# Generated by CONFIG REWRITE\nmaxmemory-samples 7\n"
      "latency-tracking-info-percentiles 50 99 99.9\nproc-title-template \"{title} x\"\n"
      "user default on nopass sanitize-payload ~* resetchannels +@all -flushdb\n";
  EXPECT_EQ(read_text(path), rewritten);
  // With an ACL file the users live there: their lines go.
  EXPECT_EQ(run({"CONFIG", "SET", "save", "", "hz", "10", "maxmemory", "3000"}), Ok());
  server_->config().others["aclfile"] = "/nonexistent/users.acl";
  EXPECT_EQ(run({"CONFIG", "REWRITE"}), Ok());
  EXPECT_EQ(read_text(path),
            "# Redis configuration for testing.\n\nnotify-keyspace-events \"AKE\"\nport 6379\n"
            "bind 127.0.0.1\nsave \"\"\n\ndir \"" +
                cwd +
                "\"\n\nhz 10\nmaxmemory 3000\npidfile /tmp/x.pid\nhash-max-listpack-entries "
                "100\n\n# Generated by CONFIG REWRITE\nmaxmemory-samples 7\n"
                "latency-tracking-info-percentiles 50 99 99.9\nproc-title-template \"{title} "
                "x\"\n\naclfile \"/nonexistent/users.acl\"\n");
  std::filesystem::remove(path);
  // A missing file is written from nothing; a missing directory fails.
  server_->config().others.erase("aclfile");
  EXPECT_EQ(run({"CONFIG", "SET", "save", "3600 1", "proc-title-template", "{title} y"}), Ok());
  EXPECT_EQ(run({"ACL", "DELUSER", "alice", "bob"}), Int(2));
  EXPECT_EQ(run({"ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all"}), Ok());
  EXPECT_EQ(run({"CONFIG", "REWRITE"}), Ok());
  EXPECT_EQ(read_text(path),
            "# Generated by CONFIG REWRITE\nbind 127.0.0.1\nmaxmemory 3000\nsave 3600 1\n"
            "maxmemory-samples 7\ndir \"" +
                cwd +
                "\"\nnotify-keyspace-events \"AKE\"\nlatency-tracking-info-percentiles 50 99 "
                "99.9\nhash-max-listpack-entries 100\nproc-title-template \"{title} y\"\n"
                "user default on nopass sanitize-payload ~* &* +@all\n");
  // DEBUG CONFIG-REWRITE-FORCE-ALL (rewriteConfig's force_write): the
  // options at their defaults are written too.
  EXPECT_EQ(run({"DEBUG", "CONFIG-REWRITE-FORCE-ALL"}), Ok());
  const std::string all = read_text(path);
  for (std::string_view line :
       {"\ndatabases 16\n", "\nport 6379\n", "\nhz 10\n", "\nio-threads 1\n",
        "\nhash-max-listpack-value 64\n", "\nmaxmemory-policy noeviction\n",
        "\nproto-max-bulk-len 512mb\n", "\naclfile \"\"\n"}) {
    EXPECT_NE(all.find(line), std::string::npos) << line;
  }
  EXPECT_EQ(all.find("ziplist"), std::string::npos);  // aliases are not
  std::filesystem::remove(path);
  set_config_file(*server_, "/nonexistent-redsim-dir/redis.conf");
  EXPECT_EQ(run({"CONFIG", "REWRITE"}),
            Err("ERR Rewriting config file: No such file or directory"));
}

TEST_F(ConnectionCommandsTest, InfoSections) {
  run({"SET", "a", "1"});
  run({"SET", "b", "2", "PX", "100000"});
  run({"SELECT", "2"});
  run({"SET", "c", "3"});
  advance_ms(5000);
  std::string keyspace = run({"INFO", "keyspace"}).str();
  EXPECT_EQ(
      keyspace,
      "# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=95000\r\ndb2:keys=1,expires=0,avg_ttl=0\r\n");
  std::string all = run({"INFO"}).str();
  EXPECT_NE(all.find("# Server\r\nredis_version:7.0.15\r\n"), std::string::npos);
  EXPECT_NE(all.find("uptime_in_seconds:5\r\n"), std::string::npos);
  EXPECT_NE(all.find("\r\n\r\n# Clients\r\nconnected_clients:1\r\n"), std::string::npos);
  EXPECT_NE(all.find("total_commands_processed:6\r\n"), std::string::npos) << all;
  EXPECT_NE(all.find("# Keyspace\r\n"), std::string::npos);
  EXPECT_EQ(run({"INFO", "bogus"}), Bulk(""));
  std::string two = run({"INFO", "clients", "server"}).str();
  EXPECT_EQ(two.find("# Server\r\n"), 0u);  // Redis's section order, not the order asked
  EXPECT_NE(two.find("\r\n\r\n# Clients\r\n"), std::string::npos);
}

// INFO commandstats after the session run on redis-server 7.0.15 (which
// also reports usec; the fake times nothing and reports 0).
TEST_F(ConnectionCommandsTest, InfoCommandstatsCountsCallsRejectionsAndFailures) {
  run({"SET", "stale", "1"});
  EXPECT_EQ(run({"CONFIG", "RESETSTAT"}), Ok());
  auto stat = [](std::string name, int calls, int rejected, int failed) {
    return "cmdstat_" + name + ":calls=" + std::to_string(calls) +
           ",usec=0,usec_per_call=0.00,rejected_calls=" + std::to_string(rejected) +
           ",failed_calls=" + std::to_string(failed) + "\r\n";
  };
  // RESETSTAT clears, then counts itself; INFO is counted after it answers.
  EXPECT_EQ(run({"INFO", "commandstats"}),
            Bulk("# Commandstats\r\n" + stat("config|resetstat", 1, 0, 0)));
  run({"SET", "a", "1"});
  EXPECT_TRUE(run({"GET"}).is_error());              // arity: rejected, not called
  EXPECT_TRUE(run({"LPUSH", "a", "x"}).is_error());  // WRONGTYPE: called and failed
  EXPECT_TRUE(run({"NOSUCH"}).is_error());           // unknown: no stats at all
  EXPECT_EQ(run({"EVAL", "return redis.call('get','a')", "0"}), Bulk("1"));  // counts GET
  run({"CLIENT", "ID"});
  run({"MULTI"});
  EXPECT_TRUE(run({"GET"}).is_error());   // rejected inside MULTI
  run({"SET", "b", "2"});                 // queued, never run
  EXPECT_TRUE(run({"EXEC"}).is_error());  // EXECABORT: called and failed
  EXPECT_EQ(run({"INFO", "commandstats"}),
            Bulk("# Commandstats\r\n" + stat("client|id", 1, 0, 0) +
                 stat("config|resetstat", 1, 0, 0) + stat("eval", 1, 0, 0) + stat("exec", 1, 0, 1) +
                 stat("get", 1, 2, 0) + stat("info", 1, 0, 0) + stat("lpush", 1, 0, 1) +
                 stat("multi", 1, 0, 0) + stat("set", 1, 0, 0)));
}

// The sections Redis's info-command unit reads: CPU (all zero: the fake
// measures no CPU), Memory (the fake's count), Replication; "all" and
// "everything" add commandstats, "default" does not; unknown ones are empty.
TEST_F(ConnectionCommandsTest, InfoCpuMemoryReplicationAndDefaultVersusAll) {
  EXPECT_EQ(run({"INFO", "CPU"}),
            Bulk("# CPU\r\nused_cpu_sys:0.000000\r\nused_cpu_user:0.000000\r\n"
                 "used_cpu_sys_children:0.000000\r\nused_cpu_user_children:0.000000\r\n"
                 "used_cpu_sys_main_thread:0.000000\r\nused_cpu_user_main_thread:0.000000\r\n"));
  // An empty fake counts Server::kBaseUsedMemoryBytes: 876000 B = 855.47K.
  EXPECT_EQ(run({"INFO", "memory"}),
            Bulk("# Memory\r\nused_memory:876000\r\nused_memory_human:855.47K\r\n"
                 "mem_allocator:jemalloc-5.3.0\r\nlazyfree_pending_objects:0\r\n"
                 "mem_not_counted_for_evict:0\r\nnumber_of_cached_scripts:0\r\n"));
  run({"SET", "k", std::string(2000, 'v')});
  EXPECT_EQ(run({"INFO", "memory"}),
            Bulk("# Memory\r\nused_memory:878057\r\nused_memory_human:857.48K\r\n"
                 "mem_allocator:jemalloc-5.3.0\r\nlazyfree_pending_objects:0\r\n"
                 "mem_not_counted_for_evict:0\r\nnumber_of_cached_scripts:0\r\n"));
  EXPECT_EQ(run({"INFO", "replication"}),
            Bulk("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n"
                 "master_failover_state:no-failover\r\nmaster_repl_offset:0\r\n"
                 "second_repl_offset:-1\r\nrepl_backlog_active:0\r\n"
                 "repl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:0\r\n"
                 "repl_backlog_histlen:0\r\n"));
  EXPECT_EQ(run({"INFO", "sentinel"}), Bulk(""));
  for (std::string arg : {"", "default", "all", "everything"}) {
    std::string info = arg.empty() ? run({"INFO"}).str() : run({"INFO", arg}).str();
    EXPECT_NE(info.find("used_cpu_user:"), std::string::npos) << arg;
    EXPECT_NE(info.find("used_memory:"), std::string::npos) << arg;
    EXPECT_NE(info.find("master_repl_offset:"), std::string::npos) << arg;
    bool stats = info.find("rejected_calls=") != std::string::npos;
    EXPECT_EQ(stats, arg == "all" || arg == "everything") << arg;
  }
  std::string twice = run({"INFO", "cpu", "all"}).str();
  EXPECT_EQ(twice.find("used_cpu_user:"), twice.rfind("used_cpu_user:"));  // once
}

TEST_F(ConnectionCommandsTest, CommandCountInfoDocs) {
  resp::Reply count = run({"COMMAND", "COUNT"});
  ASSERT_TRUE(count.is_integer());
  EXPECT_EQ(count.integer(), static_cast<int64_t>(server_->commands().size()));
  resp::Reply all = run({"COMMAND"});
  ASSERT_TRUE(all.is_array());
  EXPECT_EQ(static_cast<int64_t>(all.elements().size()), count.integer());
  resp::Reply get = run({"COMMAND", "INFO", "get", "nosuch"});
  ASSERT_EQ(get.elements().size(), 2u);
  EXPECT_EQ(get.elements()[0].elements()[0], Bulk("get"));
  EXPECT_EQ(get.elements()[0].elements()[1], Int(2));
  EXPECT_TRUE(get.elements()[1].is_nil() && !get.elements()[1].is_nil_array());  // $-1, as Redis
  resp::Reply docs = run({"COMMAND", "DOCS"});
  ASSERT_TRUE(docs.is_array());
  EXPECT_EQ(static_cast<int64_t>(docs.elements().size()), 2 * count.integer());
  EXPECT_EQ(run({"COMMAND", "bogus"}), Err("ERR unknown subcommand 'bogus'. Try COMMAND HELP."));
}

TEST_F(ConnectionCommandsTest, FunctionFlushAndReset) {
  EXPECT_EQ(run({"FUNCTION", "FLUSH"}), Ok());
  EXPECT_EQ(run({"FUNCTION", "FLUSH", "async"}), Ok());
  EXPECT_EQ(run({"FUNCTION", "FLUSH", "x"}),
            Err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"));
  run({"CLIENT", "SETNAME", "n"});
  EXPECT_EQ(run({"RESET"}), Status("RESET"));
  EXPECT_EQ(run({"CLIENT", "GETNAME"}), Nil());
}

TEST_F(ConnectionCommandsTest, RedsimAdvanceMovesTheClock) {
  run({"SET", "k", "v", "PX", "100"});
  EXPECT_EQ(run({"REDSIM.ADVANCE", "100"}), Ok());
  EXPECT_EQ(run({"PTTL", "k"}), Int(0));
  EXPECT_EQ(run({"REDSIM.ADVANCE", "1"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Nil());
  EXPECT_EQ(run({"REDSIM.ADVANCE", "-1"}), Err(kNotInt));
  EXPECT_EQ(run({"REDSIM.ADVANCE", "x"}), Err(kNotInt));
}

}  // namespace
}  // namespace redsim::sim

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class DebugCommandsTest : public ServerTest {};

TEST_F(DebugCommandsTest, SetActiveExpireSwitchesTheCycle) {
  run({"SET", "k", "v", "PX", "10"});
  advance_ms(20);
  EXPECT_EQ(run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}), Ok());
  EXPECT_EQ(server_->active_expire_cycle(), 0u);
  EXPECT_EQ(run({"DBSIZE"}), Int(1));  // still stored, expired
  EXPECT_EQ(run({"DEBUG", "set-active-expire", "1"}), Ok());
  EXPECT_EQ(server_->active_expire_cycle(), 1u);
  EXPECT_EQ(run({"DBSIZE"}), Int(0));
  EXPECT_EQ(run({"DEBUG", "SET-ACTIVE-EXPIRE", "x"}), Ok());  // atoi("x") == 0: off
  EXPECT_FALSE(server_->config().active_expire_enabled);
  EXPECT_EQ(run({"DEBUG", "SET-ACTIVE-EXPIRE"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'SET-ACTIVE-EXPIRE'. "
                "Try DEBUG HELP."));
}

TEST_F(DebugCommandsTest, ReloadKeepsDataHelpListsAndJmapIsUnknown) {
  run({"SET", "k", "v"});
  EXPECT_EQ(run({"DEBUG", "RELOAD"}), Ok());
  EXPECT_EQ(run({"GET", "k"}), Bulk("v"));
  resp::Reply help = run({"DEBUG", "HELP"});
  ASSERT_TRUE(help.is_array());
  EXPECT_EQ(help.elements().front(),
            Status("DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements().back(), Status("    Prints this help."));
  EXPECT_EQ(run({"DEBUG", "JMAP"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'JMAP'. Try DEBUG HELP."));
}

}  // namespace
}  // namespace redsim::sim
