// ACL SETUSER users, AUTH, NOPERM and redis.acl_check_cmd. Expected texts
// are what redis-server 7.0.15 answered to the same commands.
#include "sim/acl.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class AclTest : public ServerTest {
 protected:
  // One field of ACL GETUSER's map ("commands", "keys", ...).
  resp::Reply getuser_field(const std::string& user, std::string_view field) {
    resp::Reply r = run({"ACL", "GETUSER", user});
    const auto& e = r.elements();
    for (size_t i = 0; i + 1 < e.size(); i += 2) {
      if (e[i].str() == field) return e[i + 1];
    }
    return resp::Reply::nil();
  }
  std::string commands_of(const std::string& user) { return getuser_field(user, "commands").str(); }
  // ACL LOG's newest entry as field -> text (integers as decimal).
  std::map<std::string, std::string> newest_log_entry() {
    resp::Reply log = run({"ACL", "LOG", "1"});
    std::map<std::string, std::string> out;
    if (log.elements().empty()) return out;
    const auto& e = log.elements()[0].elements();
    for (size_t i = 0; i + 1 < e.size(); i += 2) {
      out[e[i].str()] = e[i + 1].is_integer() ? std::to_string(e[i + 1].integer()) : e[i + 1].str();
    }
    return out;
  }
};

TEST_F(AclTest, SetUserAuthAndList) {
  EXPECT_EQ(run({"ACL", "SETUSER", "bob", "on", ">123", "+@scripting", "+set", "~x*"}), Ok());
  EXPECT_EQ(run({"ACL", "LIST"}),
            Bulks({"user bob on #a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3 "
                   "~x* resetchannels -@all +@scripting +set",
                   "user default on nopass ~* &* +@all"}));
  EXPECT_EQ(run({"ACL", "USERS"}), Bulks({"bob", "default"}));
  EXPECT_EQ(run({"AUTH", "foo"}),
            Err("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?"));
  EXPECT_EQ(run({"AUTH", "bob", "12"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(run({"AUTH", "nobody", "12"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(run({"AUTH", "bob", "123"}), Ok());
  EXPECT_EQ(run({"GET", "x"}), Err("NOPERM this user has no permissions to run the 'get' command"));
  EXPECT_EQ(run({"SET", "y", "1"}),
            Err("NOPERM this user has no permissions to access one of the keys used as arguments"));
  EXPECT_EQ(run({"SET", "xa", "1"}), Ok());
  EXPECT_EQ(run({"ACL", "WHOAMI"}),
            Err("NOPERM this user has no permissions to run the 'acl|whoami' command"));
  // Scripts run as their caller.
  EXPECT_EQ(run({"EVAL", "return redis.pcall('get','x')", "0"}),
            Err("ERR The user executing the script can't run this command or subcommand"));
  EXPECT_EQ(run({"EVAL", "return redis.pcall('set','y',1)", "0"}),
            Err("ERR The user executing the script can't access at least one of the keys "
                "mentioned in the command arguments"));
  EXPECT_EQ(run({"EVAL", "return redis.acl_check_cmd('set','xx',1)", "1", "xx"}), Int(1));
  EXPECT_EQ(run({"EVAL", "return redis.acl_check_cmd('hset','xx','f',1)", "1", "xx"}), Nil());
  EXPECT_EQ(run({"EVAL", "return redis.acl_check_cmd('set','yy',1)", "0"}), Nil());
  EXPECT_EQ(run({"EVAL", "return redis.acl_check_cmd('invalid-cmd','arg')", "0"}),
            Err("ERR Invalid command passed to redis.acl_check_cmd() script: "
                "a12d971d2c3928485c1688dce89f9c4972f603f6, on @user_script:1."));
  EXPECT_EQ(run({"AUTH", "default", "x"}), Ok());  // nopass takes any password
  EXPECT_EQ(run({"ACL", "WHOAMI"}), Bulk("default"));
}

TEST_F(AclTest, SetUserErrorsAndDeluser) {
  EXPECT_EQ(run({"ACL", "SETUSER", "a", "+@nosuch"}),
            Err("ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name "
                "in ACL"));
  EXPECT_EQ(run({"ACL", "SETUSER", "a", "bogus"}),
            Err("ERR Error in ACL SETUSER modifier 'bogus': Syntax error"));
  EXPECT_EQ(run({"ACL", "SETUSER", "a", "allkeys", "~foo"}),
            Err("ERR Error in ACL SETUSER modifier '~foo': Adding a pattern after the * pattern "
                "(or the 'allkeys' flag) is not valid and does not have any effect. Try "
                "'resetkeys' to start with an empty list of patterns"));
  EXPECT_EQ(run({"ACL", "GETUSER", "a"}), Nil());  // all or nothing
  EXPECT_EQ(run({"ACL", "SETUSER", "a"}), Ok());
  EXPECT_EQ(run({"ACL", "LIST"}),
            Bulks({"user a off resetchannels -@all", "user default on nopass ~* &* +@all"}));
  EXPECT_EQ(run({"ACL", "DRYRUN", "a", "get", "k"}),
            Bulk("This user has no permissions to run the 'get' command"));
  EXPECT_EQ(run({"ACL", "SETUSER", "a", "+get", "~k"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "a", "get", "k"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "a", "get", "j"}),
            Bulk("This user has no permissions to access the 'j' key"));
  EXPECT_EQ(run({"ACL", "DELUSER", "a", "zz"}), Int(1));
  EXPECT_EQ(run({"ACL", "DELUSER", "default"}), Err("ERR The 'default' user cannot be removed"));
}

TEST_F(AclTest, UsernamesWithSpacesAreRefused) {
  EXPECT_EQ(run({"ACL", "SETUSER", "a a"}),
            Err("ERR Usernames can't contain spaces or null characters"));
  EXPECT_EQ(run({"ACL", "SETUSER", std::string("a\0b", 3)}),
            Err("ERR Usernames can't contain spaces or null characters"));
}

// ACLDescribeSelectorCommandRules: the rules come back as Redis rebuilds
// them from the command bits (acl.tcl's expectations).
TEST_F(AclTest, GetuserRebuildsCommandRules) {
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "+@all", "-client|kill"}), Ok());
  EXPECT_EQ(commands_of("u"), "+@all -client|kill");
  EXPECT_EQ(run({"ACL", "SETUSER", "bob", "+memory|doctor"}), Ok());
  EXPECT_EQ(commands_of("bob"), "-@all +memory|doctor");
  EXPECT_EQ(run({"ACL", "SETUSER", "bob", "+memory"}), Ok());
  EXPECT_EQ(commands_of("bob"), "-@all +memory");
  EXPECT_EQ(run({"ACL", "SETUSER", "bob", "+@all", "+client|id"}), Ok());
  EXPECT_EQ(commands_of("bob"), "+@all");
  EXPECT_EQ(run({"ACL", "SETUSER", "bob", "-@all", "+select|0", "+debug|object"}), Ok());
  EXPECT_EQ(commands_of("bob"), "-@all +debug|object +select|0");
  for (std::string_view c : acl_categories()) {
    std::string cat(c);
    EXPECT_EQ(run({"ACL", "SETUSER", "add", "reset", "+@all", "-@" + cat}), Ok());
    EXPECT_EQ(commands_of("add"), "+@all -@" + cat);
    EXPECT_EQ(run({"ACL", "SETUSER", "res", "reset", "-@all", "+@" + cat}), Ok());
    EXPECT_EQ(commands_of("res"), "-@all +@" + cat);
  }
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "+config|get|appendonly"}),
            Err("ERR Error in ACL SETUSER modifier '+config|get|appendonly': Allowing first-arg "
                "of a subcommand is not supported"));
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "+config|asdf"}),
            Err("ERR Error in ACL SETUSER modifier '+config|asdf': Unknown command or category "
                "name in ACL"));
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "-get|key1|key2"}),
            Err("ERR Error in ACL SETUSER modifier '-get|key1|key2': Unknown command or category "
                "name in ACL"));
}

TEST_F(AclTest, FirstArgsReadWriteKeysAndSelectors) {
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "on", "nopass", "-@all", "+select|0", "+get", "+set",
                 "%R~r*", "%W~w*", "(+lpush ~l*)"}),
            Ok());
  EXPECT_EQ(run({"ACL", "LIST"}),
            Bulks({"user default on nopass ~* &* +@all",
                   "user u on nopass %R~r* %W~w* resetchannels -@all +get +select|0 +set (~l* "
                   "resetchannels -@all +lpush)"}));
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "SELECT", "0"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "SELECT", "1"}),
            Bulk("This user has no permissions to run the 'select' command"));
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "GET", "r1"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "SET", "r1", "v"}),
            Bulk("This user has no permissions to access the 'r1' key"));
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "SET", "w1", "v"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "GET", "w1"}),
            Bulk("This user has no permissions to access the 'w1' key"));
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "LPUSH", "l1", "v"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "LPUSH", "r1", "v"}),
            Bulk("This user has no permissions to access the 'r1' key"));
  EXPECT_EQ(run({"ACL", "DRYRUN", "u", "GET", "r1", "x"}),
            Err("ERR wrong number of arguments for 'get' command"));
  resp::Reply selectors = getuser_field("u", "selectors");
  ASSERT_EQ(selectors.elements().size(), 1u);
  // A map in RESP3; this session speaks RESP2.
  EXPECT_EQ(selectors.elements()[0],
            Bulks({"commands", "-@all +lpush", "keys", "~l*", "channels", ""}));
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "(+get", "~x)"}), Ok());
  EXPECT_EQ(getuser_field("u", "selectors").elements().size(), 2u);
  EXPECT_EQ(run({"ACL", "SETUSER", "u", "(+get"}),
            Err("ERR Unmatched parenthesis in acl selector starting at '(+get'."));
}

TEST_F(AclTest, ChannelsAndPubsubDefault) {
  EXPECT_EQ(run({"ACL", "SETUSER", "ps", "on", "nopass", "+@pubsub", "&foo:*"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "ps", "PUBLISH", "foo:1", "m"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "ps", "PUBLISH", "bar", "m"}),
            Bulk("This user has no permissions to access the 'bar' channel"));
  EXPECT_EQ(run({"ACL", "DRYRUN", "ps", "SPUBLISH", "foo:1", "m"}), Ok());
  // A PSUBSCRIBE pattern must be one of the user's patterns, literally.
  EXPECT_EQ(run({"ACL", "DRYRUN", "ps", "PSUBSCRIBE", "foo:*"}), Ok());
  EXPECT_EQ(run({"ACL", "DRYRUN", "ps", "PSUBSCRIBE", "foo:1"}),
            Bulk("This user has no permissions to access the 'foo:1' channel"));
  EXPECT_EQ(run({"CONFIG", "SET", "acl-pubsub-default", "allchannels"}), Ok());
  EXPECT_EQ(run({"ACL", "SETUSER", "all"}), Ok());
  EXPECT_EQ(getuser_field("all", "channels"), Bulk("&*"));
  EXPECT_EQ(run({"ACL", "SETUSER", "all", "&x"}),
            Err("ERR Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or "
                "the 'allchannels' flag) is not valid and does not have any effect. Try "
                "'resetchannels' to start with an empty list of channels"));
  EXPECT_EQ(getuser_field("ps", "channels"), Bulk("&foo:*"));  // existing users keep theirs
}

TEST_F(AclTest, LogRecordsRefusals) {
  EXPECT_EQ(run({"ACL", "SETUSER", "ant", "on", ">foo", "+set", "+publish", "+multi", "+exec",
                 "+incr", "~object:*"}),
            Ok());
  EXPECT_EQ(run({"AUTH", "ant", "foo"}), Ok());
  EXPECT_EQ(run({"GET", "x"}), Err("NOPERM this user has no permissions to run the 'get' command"));
  EXPECT_EQ(run({"GET", "x"}), Err("NOPERM this user has no permissions to run the 'get' command"));
  EXPECT_EQ(run({"SET", "nope", "1"}),
            Err("NOPERM this user has no permissions to access one of the keys used as arguments"));
  EXPECT_EQ(run({"PUBLISH", "ch", "m"}),
            Err("NOPERM this user has no permissions to access one of the channels used as "
                "arguments"));
  EXPECT_EQ(run({"MULTI"}), Ok());
  EXPECT_EQ(run({"INCR", "object:1"}), Status("QUEUED"));
  auto other = server_->connect();
  EXPECT_EQ(run(*other, {"ACL", "SETUSER", "ant", "-incr"}), Ok());
  EXPECT_EQ(run({"EXEC"}),
            Arr({Err("NOPERM ACLs rules changed between the moment the transaction was "
                     "accumulated and the EXEC call. This command is no longer allowed for the "
                     "following reason: no permission to execute the command or subcommand")}));
  EXPECT_EQ(run({"AUTH", "ant", "bad"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(run({"AUTH", "default", ""}), Ok());
  resp::Reply log = run({"ACL", "LOG"});
  ASSERT_EQ(log.elements().size(), 5u);
  auto e = newest_log_entry();
  EXPECT_EQ(e["reason"], "auth");
  EXPECT_EQ(e["object"], "AUTH");
  EXPECT_EQ(e["username"], "ant");
  EXPECT_EQ(e["context"], "toplevel");
  const auto& multi = log.elements()[1].elements();
  EXPECT_EQ(multi[5], Bulk("multi"));
  EXPECT_EQ(multi[7], Bulk("incr"));
  const auto& command = log.elements()[4].elements();
  EXPECT_EQ(command[1], Int(2));  // the two GETs are one entry
  EXPECT_EQ(command[7], Bulk("get"));
  EXPECT_EQ(log.elements()[3].elements()[7], Bulk("nope"));
  EXPECT_EQ(log.elements()[2].elements()[7], Bulk("ch"));
  EXPECT_EQ(run({"ACL", "LOG", "2"}).elements().size(), 2u);
  EXPECT_EQ(run({"CONFIG", "SET", "acllog-max-len", "2"}), Ok());
  EXPECT_EQ(run({"ACL", "LOG", "RESET"}), Ok());
  EXPECT_EQ(run({"ACL", "LOG"}), Arr({}));
}

// ACL SAVE and ACL LOAD with the aclfile option (Redis 7.0 acl.c
// aclCommand, ACLSaveToFile, ACLLoadFromFile); texts from redis-server
// 7.0.15 started with --aclfile.
TEST_F(AclTest, SaveAndLoadUseTheAclFile) {
  const std::string no_file =
      "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
      "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
      "Redis configuration file set) in order to store users in the Redis configuration.";
  EXPECT_EQ(run({"ACL", "SAVE"}), Err(no_file));
  EXPECT_EQ(run({"ACL", "LOAD"}), Err(no_file));
  const std::string path =
      ::testing::TempDir() + "redsim_" + std::to_string(getpid()) + "_users.acl";
  auto write = [&](std::string_view text) {
    std::ofstream(path, std::ios::trunc | std::ios::binary) << text;
  };
  auto read = [&] {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  write("user default on nopass ~* +@all\nuser bob on >x +get ~k\n");
  EXPECT_EQ(server_->load_acl_users({}, path), "");
  EXPECT_EQ(run({"ACL", "LIST"}),
            Bulks({"user bob on #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 "
                   "~k resetchannels -@all +get",
                   "user default on nopass ~* resetchannels +@all"}));
  write("user default on nopass ~* +@all\nuser bob on +bogus\nfoo bar\n");
  EXPECT_EQ(run({"ACL", "LOAD"}),
            Err("ERR " + path +
                ":2: Error in applying operation '+bogus': Unknown command or category name in "
                "ACL. " +
                path +
                ":3 should start with user keyword followed by the username. WARNING: ACL errors "
                "detected, no change to the previously active ACL rules was performed"));
  std::remove(path.c_str());
  EXPECT_EQ(run({"ACL", "LOAD"}),
            Err("ERR Error loading ACLs, opening file '" + path + "': No such file or directory"));
  EXPECT_EQ(run({"ACL", "SETUSER", "carol", "on", ">pw", "&ch", "+ping"}), Ok());
  EXPECT_EQ(run({"ACL", "SAVE"}), Ok());
  EXPECT_EQ(read(),
            "user bob on #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 ~k "
            "resetchannels -@all +get\n"
            "user carol on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 "
            "resetchannels &ch -@all +ping\n"
            "user default on nopass ~* resetchannels +@all\n");
  // What was saved is what ACL LOAD reads back.
  EXPECT_EQ(run({"ACL", "DELUSER", "carol"}), Int(1));
  EXPECT_EQ(run({"ACL", "LOAD"}), Ok());
  EXPECT_EQ(run({"ACL", "USERS"}), Bulks({"bob", "carol", "default"}));
  std::remove(path.c_str());
}

TEST_F(AclTest, ChangedUsersLoseTheirConnections) {
  EXPECT_EQ(
      run({"ACL", "SETUSER", "ps", "on", "nopass", "+@all", "resetchannels", "&foo:1", "&bar:*"}),
      Ok());
  auto sub = server_->connect();
  auto pat = server_->connect();
  EXPECT_EQ(run(*sub, {"AUTH", "ps", "x"}), Ok());
  EXPECT_EQ(run(*pat, {"AUTH", "ps", "x"}), Ok());
  run(*sub, {"SUBSCRIBE", "foo:1"});
  run(*pat, {"PSUBSCRIBE", "bar:*"});
  // A superset keeps everyone.
  EXPECT_EQ(run({"ACL", "SETUSER", "ps", "&baz"}), Ok());
  EXPECT_FALSE(sub->kill_requested());
  EXPECT_FALSE(pat->kill_requested());
  EXPECT_EQ(run({"ACL", "SETUSER", "ps", "resetchannels", "&foo:*"}), Ok());
  EXPECT_FALSE(sub->kill_requested());  // foo:1 still matches
  EXPECT_TRUE(pat->kill_requested());   // bar:* is not one of the patterns any more
  EXPECT_EQ(run({"ACL", "DELUSER", "ps"}), Int(1));
  EXPECT_TRUE(sub->kill_requested());
  EXPECT_EQ(sub->user(), "default");
  EXPECT_FALSE(s_->kill_requested());
}

TEST(AclFile, ParsesUsersAndReportsErrors) {
  AclUsers users;
  AclUsers::Loaded ok = users.parse_file(
      "user alice on allcommands allkeys &* >alice\n\nuser bob on -@all +@set ~set* &* >bob\n",
      "users.acl");
  EXPECT_EQ(ok.error, "");
  ASSERT_EQ(ok.users.size(), 2u);
  EXPECT_EQ(AclUsers::describe("bob", ok.users["bob"]),
            "user bob on #81b637d8fcd2c6da6359e6963113a1170de795e4b725b84d1e0b4cfd9ec58ce9 ~set* "
            "&* -@all +@set");
  AclUsers::Loaded dup = users.parse_file("user a on\nuser a off\nfoo\nuser b +nosuch\n", "f.acl");
  EXPECT_EQ(dup.error,
            "WARNING: Duplicate user 'a' found on line 2. f.acl:3 should start with user keyword "
            "followed by the username. f.acl:4: Error in applying operation '+nosuch': Unknown "
            "command or category name in ACL. WARNING: ACL errors detected, no change to the "
            "previously active ACL rules was performed");
  EXPECT_TRUE(dup.users.empty());
}

}  // namespace
}  // namespace redsim::sim
