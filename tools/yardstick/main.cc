// redsim_yardstick: schedules to first failure per exploration strategy, on
// redsim's broken kinds and on the bug zoo (a measurement, not a test: it
// prints Markdown tables; bench/README.md holds a run's figures).
//
//   build/redsim_yardstick [--runs R] [--cap C] [--time-cap S] [--kinds LIST]
//                          [--strategies random,pct:1,pct:3,coverage]
//   build/redsim_yardstick --zoo [--entries LIST] [--runs R] [--cap C] [--time-cap S]
//   build/redsim_yardstick --exhaustive B [--seeds N] [--first-seed S] [--max-runs M]
//                          [--time-cap S] [--kinds LIST] [--zoo [--entries LIST]] [--per-seed]
//   build/redsim_yardstick --replay ENTRY PLAN [--whole]
//
// Sampling strategies (random, pct:D, coverage). R runs (default 20), each
// from its own starting point, draw plans until the first failing one or C
// plans (default 1000); the table gives the median and 90th percentile of
// the plans drawn, counting the failing one (">C" when a run found none),
// and the seconds of the whole cell. A cell stops starting runs after S
// seconds (default 120): its remaining runs count as ">C".
//   - redsim's kinds: run r draws the budgeted plans of `redsim check --lock
//     KIND` (with `+FAULT`, `redsim check --faults FAULT`'s unbounded plans)
//     from seed 1 + (r-1)*C/2 on. random and pct:D run the seeds in order
//     (a seed's verdict is computed once per strategy and shared by the runs
//     that reach it); coverage interleaves those fresh seeds with mutations
//     of its corpus (tools/yardstick/coverage.h; its own stream per run).
//   - the zoo (--zoo): run r draws harness::gen_plan(lease, the entry's plan
//     options) from RapidCheck's generator with rc::Random(r * 1000003 + i)
//     for the i-th plan, at size i mod 101 (RapidCheck's own ramp), judged
//     by the harness's default checks; a correct entry is drawn under the
//     budgeted profile and any failure is a false alarm (printed, with the
//     plan's replay line: REDSIM_PLAN='<plan>' zoo_test, or --replay).
// Replay (--replay ENTRY PLAN): runs one plan (harness::encode_plan's text,
// as a false alarm prints it) against the zoo entry and prints the plan and
// harness::report (excerpts, or with --whole the whole timeline); exit 1
// when the run has a violation.
// Exhaustive (--exhaustive B): per kind or entry, seeds 1..N (default 20;
// with --first-seed S, seeds S..S+N-1) each give a small world (2 clients x up to 2 attempts:
// generate_small_plan, or the entry's gen_plan cut to that, every latency at least 1 us as in
// generate_small_plan) searched up to bound B, at most M
// runs (default 20000) per seed; the table gives the seeds with a
// violation, the median and p90 over searched seeds of the schedules to the
// counterexample (">M" when none), the schedules of each seed proved ("no
// violation in all N schedules"), the seeds cut by M, and the seconds;
// --per-seed prints each seed's answer on stderr.
#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock.h"
#include "props/zoo/zoo.h"
#include "sim/world/explore/exhaustive.h"
#include "sim/world/explore/explore.h"
#include "sim/world/pct.h"
#include "sim/world/testing/generators.h"
#include "sim/world/testing/harness.h"
#include "tools/yardstick/coverage.h"

namespace {

using redsim::lock::LockKind;
namespace world = redsim::world;
namespace harness = redsim::harness;
namespace zoo = redsim::zoo;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Options {
  uint64_t runs = 20;
  uint64_t cap = 1000;
  double time_cap_s = 120;
  uint64_t seeds = 20;
  uint64_t first_seed = 1;  // --first-seed: exhaustive seeds first_seed .. first_seed + seeds - 1
  uint64_t max_runs = 20000;
  int bound = -1;
  bool zoo = false;
  bool per_seed = false;  // --per-seed: each exhaustive seed's answer on stderr
  std::vector<std::string> kinds = {"get-del",        "blind-del", "setnx-expire", "redlock+clock",
                                    "fenced+restart", "simple",    "reentrant"};
  std::vector<std::string> entries;  // empty: every zoo entry
  std::vector<std::string> strategies = {"random", "pct:1", "pct:3", "coverage"};
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// "get-del" or "redlock+clock": a kind and the explicit faults of its plans.
struct KindSpec {
  LockKind kind;
  std::optional<world::FaultSet> faults;
};
std::optional<KindSpec> parse_kind(const std::string& name) {
  const size_t plus = name.find('+');
  const auto kind = redsim::lock::parse_lock_kind(name.substr(0, plus));
  if (!kind) return std::nullopt;
  KindSpec spec{*kind, std::nullopt};
  if (plus != std::string::npos) spec.faults = world::parse_fault_set(name.substr(plus + 1));
  return spec;
}

// One cell: the plans each run drew to its first failure (cap + 1: none).
struct Cell {
  std::vector<uint64_t> counts;
  uint64_t cap = 0;
  uint64_t flagged_runs = 0;  // runs that found a failure
  double seconds = 0;
};

std::string quantile(std::vector<uint64_t> v, size_t num, size_t den, uint64_t cap) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  const uint64_t x = v[std::min(v.size() - 1, v.size() * num / den)];
  return x > cap ? ">" + std::to_string(cap) : std::to_string(x);
}

// Runs `runs` sampling runs; `run(r, deadline)` returns the plans drawn to
// the first failure (cap + 1 when none).
Cell sample(const Options& o, const std::function<uint64_t(uint64_t)>& run) {
  const auto t0 = Clock::now();
  Cell cell;
  cell.cap = o.cap;
  for (uint64_t r = 1; r <= o.runs; ++r) {
    const uint64_t n = since(t0) < o.time_cap_s ? run(r) : o.cap + 1;
    cell.counts.push_back(n);
    cell.flagged_runs += n <= o.cap;
  }
  cell.seconds = since(t0);
  return cell;
}

void print_row(const std::string& name, const std::string& strategy, const Cell& c) {
  std::printf("| %s | %s | %llu / %zu | %s | %s | %.1f |\n", name.c_str(), strategy.c_str(),
              static_cast<unsigned long long>(c.flagged_runs), c.counts.size(),
              quantile(c.counts, 1, 2, c.cap).c_str(), quantile(c.counts, 9, 10, c.cap).c_str(),
              c.seconds);
  std::fflush(stdout);
}

world::MutationLimits kind_limits(LockKind kind) {
  const bool string_kind = !redsim::lock::is_reentrant_kind(kind);
  return {.think_max_us = 50'000, .work_max_us = string_kind ? 50'000 : 1'500'000};
}

int kinds_table(const Options& o) {
  std::printf(
      "| kind | strategy | runs that found it | plans to first failure: median | p90 | "
      "seconds |\n|---|---|---|---|---|---|\n");
  for (const std::string& name : o.kinds) {
    const auto spec = parse_kind(name);
    if (!spec) {
      std::fprintf(stderr, "redsim_yardstick: unknown kind '%s'\n", name.c_str());
      return 2;
    }
    auto plan_of = [&](uint64_t seed) {
      return world::generate_plan(spec->kind, seed, 0, spec->faults);
    };
    for (const std::string& strategy_text : o.strategies) {
      const bool coverage = strategy_text == "coverage";
      const world::Strategy strategy =
          coverage ? world::Strategy{} : world::parse_strategy(strategy_text);
      std::map<uint64_t, bool> verdict;  // seed -> fails (random, pct)
      auto fails = [&](const world::ExplorePlan& p) {
        return !world::run_plan(p).violations.empty();
      };
      const Cell cell = sample(o, [&](uint64_t r) -> uint64_t {
        const uint64_t first = 1 + (r - 1) * (o.cap / 2);
        if (!coverage) {
          for (uint64_t i = 0; i < o.cap; ++i) {
            const uint64_t seed = first + i;
            auto it = verdict.find(seed);
            if (it == verdict.end()) {
              world::ExplorePlan p = plan_of(seed);
              p.strategy = strategy;
              it = verdict.emplace(seed, fails(p)).first;
            }
            if (it->second) return i + 1;
          }
          return o.cap + 1;
        }
        world::CoverageCorpus corpus(r, kind_limits(spec->kind));
        uint64_t next_seed = first;
        for (uint64_t i = 0; i < o.cap; ++i) {
          const world::ExplorePlan p = corpus.next([&] { return plan_of(next_seed++); });
          const world::ExploreOutcome out = world::run_plan(p);
          if (!out.violations.empty()) return i + 1;
          corpus.add(p, out.history);
        }
        return o.cap + 1;
      });
      print_row(name, strategy_text, cell);
    }
  }
  return 0;
}

std::vector<zoo::Entry> pick_entries(const Options& o) {
  std::vector<zoo::Entry> out;
  for (zoo::Entry& e : zoo::entries()) {
    if (o.entries.empty() ||
        std::find(o.entries.begin(), o.entries.end(), e.name) != o.entries.end()) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

harness::PlanOptions entry_options(const zoo::Entry& e) {
  return e.buggy ? e.plan : zoo::plan_for(e, harness::FaultProfile::kBudgeted);
}

world::ExplorePlan draw_entry_plan(const zoo::Entry& e, const harness::PlanOptions& options,
                                   uint64_t key, int size) {
  return harness::gen_plan(e.lease, options)(rc::Random(key), size).value();
}

int zoo_table(const Options& o) {
  std::printf(
      "| zoo entry | strategy | runs that found a failure | plans to first failure: median "
      "| p90 | seconds |\n|---|---|---|---|---|---|\n");
  for (const zoo::Entry& e : pick_entries(o)) {
    const std::string name = e.name + (e.buggy ? "" : " (correct)");
    for (const std::string& strategy_text : o.strategies) {
      const bool coverage = strategy_text == "coverage";
      harness::PlanOptions options = entry_options(e);
      options.strategy = coverage ? world::Strategy{} : world::parse_strategy(strategy_text);
      const world::MutationLimits limits{
          .think_max_us = e.lease.count() / 2 * 1000,
          .work_max_us =
              (options.profile == harness::FaultProfile::kBudgeted ? e.lease * 2 / 5 : e.lease / 2)
                  .count() *
              1000};
      const Cell cell = sample(o, [&](uint64_t r) -> uint64_t {
        world::CoverageCorpus corpus(r, limits);
        uint64_t i = 0;
        for (; i < o.cap; ++i) {
          auto fresh = [&] {
            return draw_entry_plan(e, options, r * 1000003 + i, static_cast<int>(i % 101));
          };
          const world::ExplorePlan p = coverage ? corpus.next(fresh) : fresh();
          const harness::RunResult res = harness::run_plan(p, e.factory, e.run);
          if (!res.safe()) {
            if (!e.buggy) {
              std::fprintf(stderr,
                           "FALSE ALARM: %s under %s (run %llu, plan %llu): %s\n"
                           "  replay: build/redsim_yardstick --replay %s '%s'\n",
                           e.name.c_str(), strategy_text.c_str(),
                           static_cast<unsigned long long>(r),
                           static_cast<unsigned long long>(i + 1), harness::encode_plan(p).c_str(),
                           e.name.c_str(), harness::encode_plan(p).c_str());
            }
            return i + 1;
          }
          if (coverage) corpus.add(p, res.history);
        }
        return o.cap + 1;
      });
      print_row(name, strategy_text, cell);
    }
  }
  return 0;
}

int replay(const std::string& entry, const std::string& text, bool whole) {
  const std::optional<world::ExplorePlan> plan = harness::parse_plan(text);
  if (!plan) {
    std::fprintf(stderr, "redsim_yardstick: not a plan: %s\n", text.c_str());
    return 2;
  }
  for (const zoo::Entry& e : zoo::entries()) {
    if (e.name != entry) continue;
    harness::RunOptions run = e.run;
    run.excerpt.whole_timeline = whole;
    const harness::RunResult r = harness::run_plan(*plan, e.factory, run);
    std::printf("%s (%s): %s\nstrategy %s\n%s", e.name.c_str(), e.buggy ? "buggy" : "correct",
                harness::describe_schedule(*plan).c_str(),
                world::strategy_name(plan->strategy).c_str(), harness::report(r, text).c_str());
    return r.safe() ? 0 : 1;
  }
  std::fprintf(stderr, "redsim_yardstick: unknown zoo entry '%s'\n", entry.c_str());
  return 2;
}

// One exhaustive row: `search(seed)` runs one seed's search.
void exhaustive_row(const Options& o, const std::string& name,
                    const std::function<world::ExhaustiveResult(uint64_t)>& search) {
  const auto t0 = Clock::now();
  uint64_t found = 0, cut = 0, searched = 0;
  std::vector<uint64_t> to_failure;
  std::string proved;
  for (uint64_t s = o.first_seed; s < o.first_seed + o.seeds && since(t0) < o.time_cap_s; ++s) {
    const world::ExhaustiveResult r = search(s);
    ++searched;
    if (o.per_seed) {
      std::fprintf(stderr, "%s seed %llu: %s after %llu schedules (%llu placements, %llu pruned)\n",
                   name.c_str(), static_cast<unsigned long long>(s),
                   r.counterexample ? "violation"
                   : r.complete     ? "proved"
                                    : "cut",
                   static_cast<unsigned long long>(r.schedules),
                   static_cast<unsigned long long>(r.placements),
                   static_cast<unsigned long long>(r.pruned));
    }
    if (r.counterexample) {
      ++found;
      to_failure.push_back(r.schedules);
    } else {
      to_failure.push_back(o.max_runs + 1);
      if (r.complete) {
        proved += (proved.empty() ? "" : ", ") + std::to_string(r.schedules);
      } else {
        ++cut;
      }
    }
  }
  std::printf(
      "| %s | exhaustive:%d | %llu / %llu | %s | %s | %s | %llu | %.1f |\n", name.c_str(), o.bound,
      static_cast<unsigned long long>(found), static_cast<unsigned long long>(searched),
      quantile(to_failure, 1, 2, o.max_runs).c_str(),
      quantile(to_failure, 9, 10, o.max_runs).c_str(), proved.empty() ? "-" : proved.c_str(),
      static_cast<unsigned long long>(cut), since(t0));
  std::fflush(stdout);
}

int exhaustive_table(const Options& o) {
  std::printf(
      "| kind | strategy | seeds with a violation / searched | schedules to the counterexample: "
      "median | p90 | proved seeds: schedules each | cut at %llu runs | seconds |\n"
      "|---|---|---|---|---|---|---|---|\n",
      static_cast<unsigned long long>(o.max_runs));
  if (o.zoo) {
    for (const zoo::Entry& e : pick_entries(o)) {
      harness::PlanOptions options = entry_options(e);
      options.max_clients = 2;
      options.max_attempts = 2;
      options.max_tasks = std::min(options.max_tasks, 2);
      // Fenced storage is world memory the clients share: the search orders
      // its writes (exhaustive.h, case 13), so every entry is reduced; the
      // entries whose sections write none say so (fewer orders kept).
      harness::RunOptions run = e.run;
      run.fenced_writes = e.name.find("fence") != std::string::npos;
      exhaustive_row(o, e.name + (e.buggy ? "" : " (correct)"), [&](uint64_t s) {
        // harness::explore_exhaustive gives the plan the small worlds' rule
        // (explore.h, apply_small_world_latency): every message takes at
        // least 1 us, so a tie whose first event commutes with every other
        // due event needs no choice (exhaustive.h).
        const world::ExplorePlan plan = draw_entry_plan(e, options, s, 100);
        if (o.per_seed) std::fprintf(stderr, "%s", world::describe_plan(plan).c_str());
        return harness::explore_exhaustive(plan, e.factory, o.bound, run, /*reduce=*/true,
                                           o.max_runs)
            .search;
      });
    }
    return 0;
  }
  for (const std::string& name : o.kinds) {
    const auto spec = parse_kind(name);
    if (!spec) {
      std::fprintf(stderr, "redsim_yardstick: unknown kind '%s'\n", name.c_str());
      return 2;
    }
    exhaustive_row(o, name, [&](uint64_t s) {
      world::ExplorePlan plan = world::generate_small_plan(spec->kind, s);
      if (spec->faults) {
        world::ExplorePlan faulty = world::generate_plan(spec->kind, s, 2, spec->faults);
        faulty.clients = plan.clients;
        plan = faulty;
      }
      plan.strategy = world::Strategy{.bound = o.bound};
      if (o.per_seed) std::fprintf(stderr, "%s", world::describe_plan(plan).c_str());
      return world::explore_exhaustive(plan, o.max_runs);
    });
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc >= 4 && std::string_view(argv[1]) == "--replay") {
    return replay(argv[2], argv[3], argc >= 5 && std::string_view(argv[4]) == "--whole");
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--zoo") {
      o.zoo = true;
      continue;
    }
    if (flag == "--per-seed") {
      o.per_seed = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "redsim_yardstick: %s needs a value\n", argv[i]);
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--runs") {
      o.runs = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--cap") {
      o.cap = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--time-cap") {
      o.time_cap_s = std::strtod(value.c_str(), nullptr);
    } else if (flag == "--seeds") {
      o.seeds = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--first-seed") {
      o.first_seed = std::max<uint64_t>(1, std::strtoull(value.c_str(), nullptr, 10));
    } else if (flag == "--max-runs") {
      o.max_runs = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--exhaustive") {
      o.bound = std::atoi(value.c_str());
    } else if (flag == "--kinds") {
      o.kinds = split(value);
    } else if (flag == "--entries") {
      o.entries = split(value);
    } else if (flag == "--strategies") {
      o.strategies = split(value);
    } else {
      std::fprintf(stderr,
                   "usage: redsim_yardstick [--zoo [--entries LIST]] [--kinds LIST] "
                   "[--strategies LIST] [--runs R] [--cap C] [--time-cap S] "
                   "[--exhaustive B [--seeds N] [--first-seed S] [--max-runs M]]\n");
      return 2;
    }
  }
  if (o.runs == 0 || o.cap == 0) {
    std::fprintf(stderr, "redsim_yardstick: --runs and --cap must be >= 1\n");
    return 2;
  }
  if (o.bound >= 0) return exhaustive_table(o);
  return o.zoo ? zoo_table(o) : kinds_table(o);
}
