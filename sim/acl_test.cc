// ACL SETUSER users, AUTH, NOPERM and redis.acl_check_cmd. Expected texts
// are what redis-server 7.0.15 answered to the same commands.
#include "sim/acl.h"

#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

class AclTest : public ServerTest {};

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("123"), "a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3");
  EXPECT_EQ(sha256_hex(std::string(100, 'a')).size(), 64u);
}

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

}  // namespace
}  // namespace redsim::sim
