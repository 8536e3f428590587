// `redsim check --script-lock DIR`: the manifest reader (good input and each
// kind of bad input), and the command end to end on examples/script-locks.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tools/cli/check_cmd.h"
#include "tools/cli/script_lock_check.h"
#include "tools/cli/script_lock_manifest.h"
#include "tools/testing/test_paths.h"

namespace redsim::cli {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(REDSIM_SOURCE_DIR) / "examples" / "script-locks";

// A directory with acquire.lua, release.lua and renew.lua (any text), one
// per test process: ctest runs these tests in parallel processes, and one
// rewriting the scripts while another reads them made a script look empty.
fs::path scripts_dir() {
  const fs::path dir = fs::path(::testing::TempDir()) / ("redsim_" + std::to_string(getpid())) /
                       "redsim_script_lock_manifest";
  fs::create_directories(dir);
  for (const char* name : {"acquire.lua", "release.lua", "renew.lua"}) {
    std::ofstream(dir / name) << "return 1\n";
  }
  return dir;
}

constexpr const char* kGood = R"({
  "name": "mine",
  "lease_ms": 200,
  "acquire": {"script": "acquire.lua", "keys": ["{key}"], "argv": ["{token}", "{lease_ms}"],
              "acquired": [null], "pttl_reply": true},
  "release": {"script": "release.lua", "keys": ["{key}", "unlock:{{{key}}}"],
              "argv": ["{owner}"], "released": [1, "OK"]},
  "renew": {"script": "renew.lua", "keys": ["{key}"], "argv": ["{token}"], "renewed": [1],
            "interval_ms": 50},
  "wait": {"mode": "pubsub", "channel": "unlock:{key}", "message": "0", "timeout_ms": 900}
})";

ScriptLockManifest parse(const std::string& text) {
  return parse_script_lock_manifest(text, "dir/lock.json", scripts_dir());
}

// The ManifestError text for `text`, or "" when it parsed.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ManifestError& e) {
    return e.what();
  }
  return "";
}

// kGood with `from` replaced by `to` (once; `from` must occur).
std::string good_with(const std::string& from, const std::string& to) {
  std::string text = kGood;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ScriptLockManifest, ReadsEveryField) {
  const ScriptLockManifest m = parse(kGood);
  const lock::ScriptLockSpec& s = *m.spec;
  EXPECT_EQ(s.name, "mine");
  EXPECT_EQ(s.lease, std::chrono::milliseconds(200));
  EXPECT_EQ(s.command_timeout, std::chrono::milliseconds(100)) << "default lease / 2";
  EXPECT_EQ(s.acquire.script.name(), "acquire.lua");
  EXPECT_EQ(s.acquire.script.text(), "return 1\n");
  EXPECT_EQ(s.acquire.argv, (std::vector<std::string>{"{token}", "{lease_ms}"}));
  ASSERT_EQ(s.acquire.success.size(), 1u);
  EXPECT_TRUE(s.acquire.success[0].matches(resp::Reply::nil()));
  EXPECT_TRUE(s.acquire_replies_pttl);
  EXPECT_EQ(s.release.keys[1], "unlock:{{{key}}}");
  ASSERT_EQ(s.release.success.size(), 2u);
  EXPECT_TRUE(s.release.success[0].matches(resp::Reply::integer(1)));
  EXPECT_TRUE(s.release.success[1].matches(resp::Reply::status("OK")));
  EXPECT_FALSE(s.release.success[1].matches(resp::Reply::integer(1)));
  ASSERT_TRUE(s.renew.has_value());
  EXPECT_EQ(s.renew_interval, std::chrono::milliseconds(50));
  const auto* pubsub = std::get_if<lock::PubSubWait>(&s.wait);
  ASSERT_NE(pubsub, nullptr);
  EXPECT_EQ(pubsub->channel, "unlock:{key}");
  EXPECT_EQ(pubsub->message, "0");
  EXPECT_EQ(m.attempt_wait, std::chrono::milliseconds(900));
  EXPECT_EQ(m.retry_max, std::chrono::milliseconds(200)) << "pub/sub: a lost message costs a lease";
}

TEST(ScriptLockManifest, DefaultsForOptionalFields) {
  const ScriptLockManifest m = parse(R"({"lease_ms": 100,
    "acquire": {"script": "acquire.lua", "acquired": ["OK"]},
    "release": {"script": "release.lua", "released": [1]},
    "wait": {"mode": "poll", "interval_ms": 7}})");
  EXPECT_EQ(m.spec->name, "redsim_script_lock_manifest") << "the directory's name";
  EXPECT_TRUE(m.spec->acquire.keys.empty());
  EXPECT_FALSE(m.spec->renew.has_value());
  EXPECT_EQ(std::get<lock::PollWait>(m.spec->wait).interval, std::chrono::milliseconds(7));
  EXPECT_EQ(m.attempt_wait, std::chrono::milliseconds(2000)) << "20 leases";
  EXPECT_EQ(m.retry_max, std::chrono::milliseconds(7));
}

// Every kind of bad input: the message names the file, the field and the problem.
TEST(ScriptLockManifest, EachBadInputNamesFileFieldAndProblem) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"{\"lease_ms\": 100,", "dir/lock.json: not valid JSON: parse error at line 1"},
      {"[1]", "dir/lock.json: expected a JSON object at the top, got [1]"},
      {good_with("\"lease_ms\": 200,", ""), "dir/lock.json: lease_ms: missing (required)"},
      {good_with("\"lease_ms\": 200", "\"lease_ms\": \"200\""),
       "dir/lock.json: lease_ms: expected a whole number of milliseconds > 0, got \"200\""},
      {good_with("\"lease_ms\": 200", "\"lease_ms\": 0"),
       "dir/lock.json: lease_ms: expected a whole number of milliseconds > 0, got 0"},
      {good_with("\"name\"", "\"nmae\""), "dir/lock.json: nmae: unknown field (known here: name,"},
      {good_with("\"pttl_reply\": true", "\"pttl\": true"),
       "dir/lock.json: acquire.pttl: unknown field"},
      {good_with("\"pttl_reply\": true", "\"pttl_reply\": 1"),
       "dir/lock.json: acquire.pttl_reply: expected true or false, got 1"},
      {good_with("\"script\": \"acquire.lua\"", "\"script\": \"missing.lua\""),
       "dir/lock.json: acquire.script: cannot read "},
      {good_with("\"script\": \"acquire.lua\", ", ""), "dir/lock.json: acquire.script: missing"},
      {good_with("[\"{token}\", \"{lease_ms}\"]", "[\"{tokn}\"]"),
       "dir/lock.json: acquire.argv[0]: unknown placeholder '{tokn}'; one of {key}, {token}, "
       "{owner}, {lease_ms}"},
      {good_with("\"unlock:{{{key}}}\"", "\"unlock:{key\""),
       "dir/lock.json: release.keys[1]: unclosed '{'"},
      {good_with("\"argv\": [\"{owner}\"]", "\"argv\": \"{owner}\""),
       "dir/lock.json: release.argv: expected an array of strings, got \"{owner}\""},
      {good_with("\"argv\": [\"{owner}\"]", "\"argv\": [7]"),
       "dir/lock.json: release.argv[0]: expected a string, got 7"},
      {good_with("\"released\": [1, \"OK\"]", "\"released\": []"),
       "dir/lock.json: release.released: expected a non-empty list of"},
      {good_with("\"released\": [1, \"OK\"]", "\"released\": [1.5]"),
       "dir/lock.json: release.released[0]: expected \"OK\" (a status), \"nil\" or null, or an "
       "integer, got 1.5"},
      {good_with("\"acquired\": [null], ", ""), "dir/lock.json: acquire.acquired: missing"},
      {good_with("\"interval_ms\": 50", "\"interval_ms\": -1"),
       "dir/lock.json: renew.interval_ms: expected a whole number of milliseconds > 0, got -1"},
      {good_with("\"mode\": \"pubsub\"", "\"mode\": \"sleep\""),
       "dir/lock.json: wait.mode: expected \"poll\" or \"pubsub\", got \"sleep\""},
      {good_with("\"channel\": \"unlock:{key}\", ", ""), "dir/lock.json: wait.channel: missing"},
      {good_with("\"message\": \"0\"", "\"interval_ms\": 5"),
       "dir/lock.json: wait.interval_ms: unknown field"},
      {R"({"lease_ms": 100, "acquire": {"script": "acquire.lua", "acquired": ["OK"]},
           "release": 3, "wait": {"mode": "poll", "interval_ms": 5}})",
       "dir/lock.json: release: expected an object, got 3"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.text);
    EXPECT_EQ(message.rfind(c.message, 0), 0u)
        << "got:      " << message << "\nexpected: " << c.message << "...\nfor " << c.text;
  }
}

TEST(ScriptLockManifest, MissingDirectoryOrFile) {
  try {
    load_script_lock_manifest("/nonexistent/redsim");
    ADD_FAILURE() << "no error";
  } catch (const ManifestError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/redsim: not a directory", 0), 0u)
        << e.what();
  }
  const fs::path dir = scripts_dir();
  fs::remove(dir / "lock.json");
  try {
    load_script_lock_manifest(dir);
    ADD_FAILURE() << "no error";
  } catch (const ManifestError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "lock.json").string() + ": cannot read the manifest");
  }
}

TEST(ScriptLockManifest, EveryExampleParses) {
  for (const char* name : {"correct", "redisson-style", "blind-release", "setnx-then-pexpire"}) {
    EXPECT_NO_THROW(load_script_lock_manifest(kExamples / name)) << name;
    EXPECT_TRUE(fs::exists(kExamples / name / "README.md")) << name;
  }
}

TEST(ScriptLockPlan, TimesScaleWithTheLease) {
  ScriptLockManifest m = load_script_lock_manifest(kExamples / "correct");
  const world::ExplorePlan base = script_lock_plan(m, 9, 3, std::nullopt);
  auto spec = std::make_shared<lock::ScriptLockSpec>(*m.spec);
  spec->lease = std::chrono::milliseconds(1000);
  m.spec = spec;
  const world::ExplorePlan tenfold = script_lock_plan(m, 9, 3, std::nullopt);
  EXPECT_EQ(tenfold.lease_ms, 1000);
  ASSERT_EQ(base.clients.size(), 3u);
  EXPECT_EQ(tenfold.clients[0].attempts[0].work_us, 10 * base.clients[0].attempts[0].work_us);
  EXPECT_EQ(tenfold.faults.pause_max, 10 * base.faults.pause_max);
  ASSERT_TRUE(base.faults.stall_budget && tenfold.faults.stall_budget) << "the budgeted profile";
  EXPECT_EQ(*tenfold.faults.stall_budget, 10 * *base.faults.stall_budget);
  EXPECT_EQ(*base.faults.stall_budget, world::Micros{base.lease_ms * 1000 / 5})
      << "the budgeted profile";
}

// --- the command, end to end ----------------------------------------------

CheckOptions script_options(const std::string& example) {
  CheckOptions options;
  options.script_lock_dir = (kExamples / example).string();
  return options;
}

// Finds a violation, prints a replay line with --script-lock DIR, and the
// replay prints the same counterexample.
void expect_found_and_replayed(CheckOptions options, const std::string& checker) {
  std::ostringstream out;
  EXPECT_EQ(check(options, out, out), 1) << out.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("VIOLATION (" + checker + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("timeline of the shrunk run:"), std::string::npos) << text;
  const std::string prefix =
      "replay: build/redsim check --script-lock " + options.script_lock_dir + " --seed ";
  // (the replay line names the faults after the seed)
  const size_t at = text.find(prefix);
  ASSERT_NE(at, std::string::npos) << text;
  const uint64_t seed = std::stoull(text.substr(at + prefix.size()));
  EXPECT_EQ(check_replay_command(options, seed) + "\n", text.substr(at + 8)) << text;
  std::ostringstream again;
  options.seed = seed;
  EXPECT_EQ(check(options, again, again), 1);
  EXPECT_EQ(again.str(), text) << "a replay must print the same counterexample";
}

// A blind release only harms when its holder outlives its lease: the
// budgeted default never makes it, a pause past the lease does, and the
// release then deletes the next holder's key (a foreign write).
TEST(CheckScriptLock, BlindReleaseDeletesAnotherHoldersLockAfterAPause) {
  CheckOptions budgeted = script_options("blind-release");
  budgeted.seeds = 200;
  std::ostringstream quiet;
  EXPECT_EQ(check(budgeted, quiet, quiet), 0) << quiet.str();
  CheckOptions options = script_options("blind-release");
  options.faults = world::parse_fault_set("pause");
  expect_found_and_replayed(options, "foreign-write");
}

TEST(CheckScriptLock, SetnxThenPexpireLeavesALockForever) {
  expect_found_and_replayed(script_options("setnx-then-pexpire"), "liveness");
}

// --jobs 2 prints what a serial run prints (the worlds run on two threads,
// each script lock in its own).
TEST(CheckScriptLock, JobsGiveTheSerialOutput) {
  for (const char* example : {"blind-release", "correct"}) {
    CheckOptions options = script_options(example);
    options.faults = world::parse_fault_set("pause");
    options.seeds = 150;
    std::ostringstream serial, parallel;
    const int code = check(options, serial, serial);
    options.jobs = 2;
    EXPECT_EQ(check(options, parallel, parallel), code) << example;
    EXPECT_EQ(parallel.str(), serial.str()) << example;
  }
}

TEST(CheckScriptLock, CorrectLockIsCleanWithAndWithoutFaults) {
  // Without --faults: the budgeted profile, where every checker judges.
  // With faults, unbounded: pauses, partitions and clock jumps past the
  // lease let any lease lock's holders overlap, so what is judged is what
  // the lock does beyond that (foreign writes, ghost locks).
  for (const char* faults : {"", "crash,loss,lost-reply,partition", "pause,latency,clock"}) {
    CheckOptions options = script_options("correct");
    options.seeds = 300;
    if (*faults != '\0') options.faults = world::parse_fault_set(faults);
    std::ostringstream out;
    EXPECT_EQ(check(options, out, out), 0) << faults << "\n" << out.str();
    EXPECT_NE(out.str().find("no violation: script lock set-nx-px ("), std::string::npos)
        << out.str();
    EXPECT_NE(out.str().find("300 seeds (1..300)"), std::string::npos) << out.str();
  }
}

// Pub/sub waiting and Redisson's nil/PTTL replies, clean the same way.
TEST(CheckScriptLock, RedissonStyleLockIsCleanWithAndWithoutFaults) {
  for (const char* faults : {"", "crash,loss,lost-reply,partition"}) {
    CheckOptions options = script_options("redisson-style");
    options.seeds = 300;
    if (*faults != '\0') options.faults = world::parse_fault_set(faults);
    std::ostringstream out;
    EXPECT_EQ(check(options, out, out), 0) << faults << "\n" << out.str();
  }
}

TEST(CheckScriptLock, TheReplayLineNamesTheFaults) {
  CheckOptions options = script_options("blind-release");
  options.faults = world::parse_fault_set("pause");
  options.seeds = 300;
  std::ostringstream out;
  EXPECT_EQ(check(options, out, out), 1) << out.str();
  EXPECT_NE(out.str().find(" --faults pause\n"), std::string::npos) << out.str();
}

TEST(CheckScriptLock, JsonNamesTheScriptLock) {
  CheckOptions options = script_options("correct");
  options.seeds = 3;
  options.json = true;
  std::ostringstream out, err;
  EXPECT_EQ(check(options, out, err), 0) << err.str();
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["lock"], "set-nx-px");
  EXPECT_EQ(j["script_lock"], options.script_lock_dir);
  EXPECT_EQ(j["faults"], "");
  EXPECT_EQ(j["violation"], false);
  EXPECT_EQ(out.str().rfind("{\"lock\":\"set-nx-px\",\"script_lock\":", 0), 0u) << out.str();
}

// Any bytes in a name give valid JSON: a script lock in a directory whose
// name is not UTF-8 (0xff, a lone continuation byte, a truncated sequence)
// next to valid UTF-8 (é). nlohmann's strict parser reads the output back;
// each invalid byte became U+FFFD, the valid é stayed, in the directory and
// in the replay line of the violation found.
TEST(CheckScriptLock, JsonIsValidForAnyBytesInNames) {
  const std::string name = "lock-\xff\x80-\xc3-\xc3\xa9";
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::create_directories(dir);
  for (const auto& f : fs::directory_iterator(kExamples / "setnx-then-pexpire")) {
    fs::copy_file(f.path(), dir / f.path().filename(), fs::copy_options::overwrite_existing);
  }
  CheckOptions options;
  options.script_lock_dir = dir.string();
  options.json = true;
  std::ostringstream out, err;
  EXPECT_EQ(check(options, out, err), 1) << err.str();
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(out.str())) << out.str();
  const std::string shown = "lock-\uFFFD\uFFFD-\uFFFD-\u00e9";
  const std::string shown_utf8 = nlohmann::json::parse("\"" + shown + "\"").get<std::string>();
  const std::string dir_shown = (fs::path(::testing::TempDir()) / shown_utf8).string();
  EXPECT_EQ(j["script_lock"], dir_shown);
  EXPECT_EQ(j["violation"], true);
  EXPECT_NE(j["replay"].get<std::string>().find(dir_shown), std::string::npos)  // shell-quoted
      << j["replay"];
  EXPECT_EQ(j["violations"][0]["checker"], "liveness");
}

TEST(CheckScriptLock, ABadManifestIsAUsageError) {
  const fs::path dir = scripts_dir();
  std::ofstream(dir / "lock.json") << good_with("\"lease_ms\": 200", "\"lease_ms\": -5");
  CheckOptions options;
  options.script_lock_dir = dir.string();
  std::ostringstream out, err;
  EXPECT_EQ(check(options, out, err), 2);
  EXPECT_EQ(err.str(), "redsim: " + (dir / "lock.json").string() +
                           ": lease_ms: expected a whole number of milliseconds > 0, got -5\n");
  EXPECT_TRUE(out.str().empty());
}

// Under unbounded faults a correct script lock does no harm beyond lease
// expiry: no foreign write, no ghost, even across failovers and restarts.
TEST(CheckScriptLock, TheCorrectExampleIsCleanUnderEveryUnboundedFault) {
  CheckOptions options = script_options("correct");
  options.faults = world::parse_fault_set(
      "pause,latency,loss,lost-reply,partition,crash,restart,failover,clock");
  options.seeds = 150;
  std::ostringstream out, err;
  EXPECT_EQ(check(options, out, err), 0) << out.str() << err.str();
}

// The binary: exit codes and messages of the command line itself.
int run_redsim(const std::string& args, std::string& output) {
  FILE* pipe = popen((std::string(REDSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  output.clear();
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  const int status = pclose(pipe);
  // Under ASan the binary warns once about its fibers' makecontext, with its
  // pid: not part of what it says.
  const std::string asan_note = "WARNING: ASan doesn't fully support makecontext/swapcontext";
  for (size_t at = output.find(asan_note); at != std::string::npos; at = output.find(asan_note)) {
    const size_t begin = output.rfind('\n', at);
    const size_t from = begin == std::string::npos ? 0 : begin + 1;
    const size_t end = output.find('\n', at);
    output.erase(from, end == std::string::npos ? std::string::npos : end + 1 - from);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CheckScriptLockBinary, UsageErrorsExitTwo) {
  std::string output;
  EXPECT_EQ(run_redsim("check --script-lock /nonexistent/dir", output), 2);
  EXPECT_NE(output.find("redsim: /nonexistent/dir: not a directory"), std::string::npos) << output;
  EXPECT_EQ(
      run_redsim("check --lock simple --script-lock " + (kExamples / "correct").string(), output),
      2);
  EXPECT_NE(output.find("excludes"), std::string::npos) << output;
  EXPECT_EQ(run_redsim("check --seeds 3", output), 2);
  EXPECT_NE(output.find("give one of --lock KIND or --script-lock DIR"), std::string::npos)
      << output;
  EXPECT_EQ(run_redsim("check --help", output), 0);
  EXPECT_NE(output.find("--script-lock"), std::string::npos) << output;
  EXPECT_EQ(run_redsim("check --lock simple --shard 3/2", output), 2);
  EXPECT_NE(output.find("--shard wants K/N"), std::string::npos) << output;
  EXPECT_EQ(run_redsim("check --lock simple --strategy pct:0", output), 2);
  EXPECT_NE(output.find("pct depth must be 1..8"), std::string::npos) << output;
  EXPECT_EQ(run_redsim("check --lock simple --jobs 0", output), 2);
  EXPECT_EQ(run_redsim("check merge /nonexistent/shard.json", output), 2);
  EXPECT_NE(output.find("/nonexistent/shard.json: cannot be read"), std::string::npos) << output;
}

// A CI matrix end to end: two shards' --json results, merged by the binary.
TEST(CheckScriptLockBinary, ShardsMergeIntoTheSerialCounterexample) {
  const fs::path dir = fs::temp_directory_path() / ("redsim_merge_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string serial;
  ASSERT_EQ(run_redsim("check --lock get-del --seeds 400", serial), 1) << serial;
  const std::string replay = serial.substr(serial.find("replay: "));
  std::string files;
  for (const char* shard : {"1/2", "2/2"}) {
    const fs::path file = dir / (std::string("shard") + shard[0] + ".json");
    std::string result;
    run_redsim("check --lock get-del --seeds 400 --jobs 2 --json --shard " + std::string(shard),
               result);
    std::ofstream(file) << result;
    files += " " + file.string();
  }
  std::string merged;
  EXPECT_EQ(run_redsim("check merge" + files, merged), 1) << merged;
  EXPECT_NE(merged.find("merged 2 results (shards 1/2, 2/2): lock get-del, seeds 1..400"),
            std::string::npos)
      << merged;
  EXPECT_NE(merged.find(replay), std::string::npos) << merged << "\nserial:\n" << serial;
  fs::remove_all(dir);
}

TEST(CheckScriptLockBinary, TheReplayLineItPrintsReproducesTheViolation) {
  std::string first;
  ASSERT_EQ(
      run_redsim("check --faults pause --script-lock " + (kExamples / "blind-release").string(),
                 first),
      1)
      << first;
  const size_t at = first.find("replay: build/redsim ");
  ASSERT_NE(at, std::string::npos) << first;
  const size_t args = at + std::string("replay: build/redsim ").size();
  const std::string replay_args = first.substr(args, first.find('\n', args) - args);
  EXPECT_NE(
      replay_args.find("--script-lock " + (kExamples / "blind-release").string() + " --seed "),
      std::string::npos)
      << replay_args;
  std::string again;
  EXPECT_EQ(run_redsim(replay_args, again), 1) << again;
  EXPECT_EQ(again, first);
}

}  // namespace
}  // namespace redsim::cli
