// proc-title-template: the expansion (Redis 7.0 sdstemplate and
// expandProcTitleTemplate) and CONFIG SET's check, texts as redis-server
// 7.0.15 answered.
#include "sim/proc_title.h"

#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace redsim::sim {
namespace {

using namespace testing;  // NOLINT

ProcTitleVars example() {
  ProcTitleVars v;
  v.title = "/usr/bin/redis-server";
  v.listen_addr = "127.0.0.1:6379";
  v.config_file = "/tmp/redis.conf";
  v.port = "6379";
  v.tls_port = "0";
  v.unixsocket = "/tmp/socket";
  return v;
}

TEST(ProcTitle, ExpandsVariablesAndTrimsSpaces) {
  EXPECT_EQ(expand_proc_title(kDefaultProcTitleTemplate, example()),
            "/usr/bin/redis-server 127.0.0.1:6379");
  EXPECT_EQ(expand_proc_title("TEST {title} {listen-addr} {port} {tls-port} {unixsocket} "
                              "{config-file}",
                              example()),
            "TEST /usr/bin/redis-server 127.0.0.1:6379 6379 0 /tmp/socket /tmp/redis.conf");
  EXPECT_EQ(expand_proc_title("{{port}} }", example()), "{port}} }");
  EXPECT_EQ(expand_proc_title("  x  ", example()), "x");
  EXPECT_EQ(expand_proc_title("{invalid-var}", example()), std::nullopt);
  EXPECT_EQ(expand_proc_title("{port", example()), std::nullopt);
  EXPECT_EQ(expand_proc_title("x {", example()), std::nullopt);
}

TEST(ProcTitle, ValidTemplatesGiveATitleWithoutTheirTitle) {
  EXPECT_TRUE(valid_proc_title_template(kDefaultProcTitleTemplate));
  EXPECT_TRUE(valid_proc_title_template("{port}"));
  EXPECT_FALSE(valid_proc_title_template("{title}"));
  EXPECT_FALSE(valid_proc_title_template("   "));
  EXPECT_FALSE(valid_proc_title_template("{invalid-var}"));
}

class ProcTitleConfigTest : public ServerTest {};

TEST_F(ProcTitleConfigTest, ConfigSetChecksTheTemplateAndTellsTheTransport) {
  EXPECT_EQ(run({"CONFIG", "GET", "proc-title-template"}),
            Bulks({"proc-title-template", "{title} {listen-addr} {server-mode}"}));
  std::vector<std::string> changed;
  server_->set_config_change_handler([&](std::string_view name) { changed.emplace_back(name); });
  EXPECT_EQ(run({"CONFIG", "SET", "proc-title-template", "{invalid-var}"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                "template format is invalid or contains unknown variables"));
  EXPECT_TRUE(changed.empty());
  EXPECT_EQ(run({"CONFIG", "SET", "proc-title-template", "TEST {title}", "hz", "20"}), Ok());
  EXPECT_EQ(changed, (std::vector<std::string>{"proc-title-template", "hz"}));
  EXPECT_EQ(run({"CONFIG", "GET", "proc-title-template"}),
            Bulks({"proc-title-template", "TEST {title}"}));
  EXPECT_EQ(run({"CONFIG", "SET", "set-proc-title", "no"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'set-proc-title') - can't "
                "set immutable config"));
}

}  // namespace
}  // namespace redsim::sim
