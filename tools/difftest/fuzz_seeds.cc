// redsim_fuzz_seeds OUT_DIR: the seed corpora and the command dictionary of
// the fuzz targets (REDSIM_FUZZ builds run it at build time; see
// docs/fuzzing.md), drawn from the differential tester's generator:
//   OUT_DIR/dispatch/<n>  command sequences in dispatch_fuzz's line format
//                         (sim/dispatch_fuzz.cc): "<session> <argv quoted as
//                         redis-cli prints>", with "+<ms>" clock jumps
//   OUT_DIR/script/<n>    the Lua of the generator's EVAL steps
//   OUT_DIR/commands.dict every command of the table, a libFuzzer dictionary
// The same build always writes the same files.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/clock.h"
#include "sim/server.h"
#include "sim/world/quote.h"
#include "tools/difftest/difftest.h"

namespace {

namespace fs = std::filesystem;
using redsim::difftest::GenOptions;
using redsim::difftest::Step;

bool is_eval(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "eval" || lower == "eval_ro";
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: redsim_fuzz_seeds OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out / "dispatch");
  fs::create_directories(out / "script");

  const std::vector<std::string> families = {
      "string",  "hash",  "list",   "set",    "zset",   "keys",     "more",
      "expire",  "multi", "pubsub", "script", "data",   "lists",    "blocking",
      "algebra", "bits",  "geo",    "sort",   "stream", "function", ""};
  std::set<std::string> scripts;  // deduplicated, in a stable order
  int n = 0;
  for (const std::string& family : families) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      GenOptions options;
      options.seed = seed;
      options.commands = 40;
      if (!family.empty()) options.families = {family};
      std::string text;
      int line = 0;
      for (const Step& step : redsim::difftest::generate(options)) {
        text += std::to_string(step.conn % 4);
        for (const std::string& a : step.argv) {
          text += ' ';
          text += redsim::world::quote_escaped(a, redsim::world::QuoteStyle::kRedisCli);
        }
        text += '\n';
        if (++line % 8 == 0 && family == "expire") text += "+" + std::to_string(seed * 100) + "\n";
        if (step.argv.size() >= 2 && is_eval(step.argv[0])) scripts.insert(step.argv[1]);
      }
      write_file(out / "dispatch" / std::to_string(n++), text);
    }
  }
  int m = 0;
  for (const std::string& s : scripts) write_file(out / "script" / std::to_string(m++), s);

  // The dictionary: every command name, quoted as libFuzzer wants.
  redsim::sim::ManualClock clock;
  redsim::sim::Server server(clock);
  std::set<std::string> names;
  server.commands().for_each(
      [&](const redsim::sim::CommandSpec& spec) { names.insert(std::string(spec.name)); });
  // Then the option words commands take.
  for (const char* word : {"NX",
                           "XX",
                           "GT",
                           "LT",
                           "EX",
                           "PX",
                           "EXAT",
                           "PXAT",
                           "KEEPTTL",
                           "GET",
                           "PERSIST",
                           "CH",
                           "INCR",
                           "WITHSCORES",
                           "LIMIT",
                           "BYSCORE",
                           "BYLEX",
                           "REV",
                           "COUNT",
                           "MATCH",
                           "TYPE",
                           "LEFT",
                           "RIGHT",
                           "BEFORE",
                           "AFTER",
                           "RANK",
                           "MAXLEN",
                           "IDLETIME",
                           "FREQ",
                           "ABSTTL",
                           "REPLACE",
                           "DB",
                           "STORE",
                           "SORTING",
                           "WEIGHTS",
                           "AGGREGATE",
                           "KILL",
                           "FLUSH",
                           "LOAD",
                           "EXISTS",
                           "SLEEP",
                           "SET-ACTIVE-EXPIRE",
                           "busy-reply-threshold",
                           "maxmemory",
                           "hz",
                           "NOSAVE",
                           "NOW",
                           "ABORT",
                           "SETNAME",
                           "REPLY",
                           "OFF",
                           "SKIP",
                           "ON",
                           "+inf",
                           "-inf",
                           "(1",
                           "[a",
                           "-",
                           "+",
                           "9223372036854775807",
                           "-9223372036854775808",
                           "\\x00"}) {
    names.insert(word);
  }
  std::string dict;
  for (const std::string& name : names) dict += "\"" + name + "\"\n";
  write_file(out / "commands.dict", dict);
  std::printf("redsim_fuzz_seeds: %d command files, %d scripts, %zu words\n", n, m, names.size());
  return 0;
}
