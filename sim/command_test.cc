// CommandTable: case-insensitive lookup (the hash folds case, the comparison
// decides), re-registration, growth, and the subcommand tables.
#include "sim/command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace redsim::sim {
namespace {

resp::Reply none(CommandContext&) { return resp::Reply::nil(); }
resp::Reply other(CommandContext&) { return resp::Reply::ok(); }

TEST(CommandTable, FindIgnoresCaseAndNothingElse) {
  CommandTable table;
  table.add({"get", 2, kCmdReadonly, &none});
  table.add({"a_b", 1, 0, &none});
  ASSERT_NE(table.find("get"), nullptr);
  EXPECT_EQ(table.find("GET"), table.find("get"));
  EXPECT_EQ(table.find("gEt"), table.find("get"));
  EXPECT_EQ(table.find("get")->name, "get");
  EXPECT_EQ(table.find("A_B"), table.find("a_b"));
  // '_' | 0x20 is 0x7f: the same hash, but not the same name.
  EXPECT_EQ(table.find(std::string{'a', '\x7f', 'b'}), nullptr);
  EXPECT_EQ(table.find("ge"), nullptr);
  EXPECT_EQ(table.find("gett"), nullptr);
  EXPECT_EQ(table.find(""), nullptr);
  EXPECT_EQ(table.find(std::string(100, 'g')), nullptr);
}

TEST(CommandTable, AddingANameAgainReplacesItsSpec) {
  CommandTable table;
  table.add({"ping", -1, 0, &none});
  const CommandSpec* first = table.find("ping");
  table.add({"ping", 1, kCmdFast, &other});
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.find("ping"), first) << "the pointer stays valid";
  EXPECT_EQ(table.find("ping")->arity, 1);
  EXPECT_EQ(table.find("ping")->handler, &other);
}

TEST(CommandTable, EveryCommandIsFoundAfterTheTableGrows) {
  CommandTable table;
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("cmd" + std::to_string(i) + "x");
  for (const std::string& n : names) table.add({n, 1, 0, &none});
  EXPECT_EQ(table.size(), names.size());
  size_t seen = 0;
  table.for_each([&](const CommandSpec&) { ++seen; });
  EXPECT_EQ(seen, names.size());
  for (const std::string& n : names) {
    const CommandSpec* spec = table.find(n);
    ASSERT_NE(spec, nullptr) << n;
    EXPECT_EQ(spec->name, n);
  }
  EXPECT_EQ(table.find("cmd500x"), nullptr);
}

constexpr SubcommandSpec kSubs[] = {{"get", -3, 0}, {"help", 2, kCmdNoScript}};

TEST(CommandTable, Subcommands) {
  CommandTable table;
  // Same size and first letter as the container, to pass its quick checks.
  table.add({"config", -2, kCmdContainer, &none});
  table.add({"client", -2, 0, &none});
  table.add({"get", 2, 0, &none});
  table.add_subcommands("config", kSubs);
  const CommandSpec& config = *table.find("CONFIG");
  EXPECT_TRUE(table.has_subcommands(config));
  EXPECT_FALSE(table.has_subcommands(*table.find("client")));
  EXPECT_FALSE(table.has_subcommands(*table.find("get")));
  EXPECT_EQ(table.find_subcommand(config, "GeT"), &kSubs[0]);
  EXPECT_EQ(table.find_subcommand(config, "help"), &kSubs[1]);
  EXPECT_EQ(table.find_subcommand(config, "set"), nullptr);
  EXPECT_EQ(table.find_subcommand(config, "gett"), nullptr);
  EXPECT_EQ(table.find_subcommand(*table.find("client"), "get"), nullptr);
  // A copy of the spec (not the table's own) is recognised by its name.
  const CommandSpec copy = config;
  std::string name(config.name);
  const CommandSpec elsewhere{name, -2, 0, &none};
  EXPECT_TRUE(table.has_subcommands(copy));
  EXPECT_TRUE(table.has_subcommands(elsewhere));
  EXPECT_EQ(table.find_subcommand(elsewhere, "get"), &kSubs[0]);
}

TEST(CommandTable, LookupGivesSpecContainerAndAStableIndex) {
  CommandTable table;
  // Subcommands registered before their container still mark it.
  table.add_subcommands("script", kSubs);
  table.add({"get", 2, 0, &none});
  table.add({"config", -2, kCmdContainer, &none});
  table.add({"script", -2, kCmdContainer, &none});
  table.add_subcommands("config", kSubs);
  const CommandTable::Lookup get = table.lookup("GET");
  const CommandTable::Lookup config = table.lookup("config");
  const CommandTable::Lookup script = table.lookup("Script");
  EXPECT_EQ(get.spec, table.find("get"));
  EXPECT_EQ(config.spec, table.find("config"));
  EXPECT_FALSE(get.container);
  EXPECT_TRUE(config.container);
  EXPECT_TRUE(script.container);
  // Distinct indices in [0, size()), unchanged by later registrations.
  EXPECT_LT(get.index, table.size());
  EXPECT_LT(config.index, table.size());
  EXPECT_LT(script.index, table.size());
  EXPECT_NE(get.index, config.index);
  EXPECT_NE(config.index, script.index);
  EXPECT_NE(get.index, script.index);
  std::vector<std::string> more;  // the table keeps views of the names
  more.reserve(40);
  for (int i = 0; i < 40; ++i) {
    more.push_back("more" + std::to_string(i));
    table.add({more.back(), 1, 0, &none});
  }
  EXPECT_EQ(table.size(), 43u);
  EXPECT_EQ(table.lookup("get").index, get.index);
  EXPECT_EQ(table.lookup("config").index, config.index);
  // Registered again: the last spec wins, the index stays.
  table.add({"get", 3, 0, &none});
  EXPECT_EQ(table.lookup("get").index, get.index);
  EXPECT_EQ(table.lookup("get").spec->arity, 3);
  EXPECT_EQ(table.lookup("nope").spec, nullptr);
}

}  // namespace
}  // namespace redsim::sim
