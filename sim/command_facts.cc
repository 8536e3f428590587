// Redis 7.0.15's command facts (sim/command_facts.inc, generated) and the
// key-spec walk of COMMAND GETKEYS (see sim/command_facts.h).
#include "sim/command_facts.h"

#include <algorithm>
#include <optional>
#include <string>

#include "sim/args.h"

namespace redsim::sim {

namespace {
#include "sim/command_facts.inc"
}  // namespace

std::span<const KeySpecFact> CommandFact::key_specs() const {
  return std::span<const KeySpecFact>(kKeySpecFacts).subspan(spec_begin, spec_count);
}

std::span<const CommandFact> all_command_facts() { return kCommandFacts; }

const CommandFact* find_command_fact(std::string_view full_name) {
  const CommandFact* end = std::end(kCommandFacts);
  const CommandFact* it =
      std::lower_bound(std::begin(kCommandFacts), end, full_name,
                       [](const CommandFact& f, std::string_view name) { return f.name < name; });
  return it != end && it->name == full_name ? it : nullptr;
}

namespace {

// The keys one key spec finds; none when its search cannot run on these
// arguments (keyword missing, begin or range outside argv, bad numkeys):
// Redis skips such a spec for a command of variable arity.
void keys_of_spec(const KeySpecFact& spec, const Argv& argv, std::vector<KeyRef>& out) {
  const int argc = static_cast<int>(argv.size());
  int first = 0;
  switch (spec.begin) {
    case BeginSearch::kIndex:
      first = spec.begin_arg;
      break;
    case BeginSearch::kKeyword: {
      // Forward from startfrom, or backward from argc + startfrom; the
      // key range starts right after the keyword.
      int start = spec.begin_arg > 0 ? spec.begin_arg : argc + spec.begin_arg;
      int stop = spec.begin_arg > 0 ? argc - 1 : 0;
      for (int i = start; i != stop; i = start <= stop ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (equals_ci(argv[static_cast<size_t>(i)], spec.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (first == 0) return;
      break;
    }
    case BeginSearch::kUnknown:
      return;
  }
  if (first >= argc) return;
  int last = 0;
  int step = 1;
  switch (spec.find) {
    case FindKeys::kRange: {
      int lastkey = spec.find_a;
      int limit = spec.find_c;
      step = spec.find_b;
      if (lastkey >= 0) {
        last = first + lastkey;
      } else if (limit <= 1) {
        last = argc + lastkey;
      } else {
        last = first + ((argc - first) / limit + lastkey);
      }
      break;
    }
    case FindKeys::kKeynum: {
      int idx = first + spec.find_a;
      if (idx >= argc) return;
      int64_t numkeys = 0;
      if (!parse_int64(argv[static_cast<size_t>(idx)], &numkeys) || numkeys < 0 || numkeys > argc) {
        return;
      }
      step = spec.find_c;
      first += spec.find_b;
      last = first + static_cast<int>(numkeys - 1) * step;
      break;
    }
    case FindKeys::kUnknown:
      return;
  }
  if (step <= 0) step = 1;
  if (last >= argc || last < first) return;
  for (int i = first; i <= last; i += step) out.push_back({static_cast<size_t>(i), spec.flags});
}

// Redis's sortGetKeys / sortROGetKeys: the key, then the last STORE's
// destination (SORT only), skipping the arguments of LIMIT, GET and BY.
void sort_keys(const Argv& argv, bool store_allowed, std::vector<KeyRef>& out) {
  out.push_back({1, "RO access"});
  std::optional<size_t> store;
  for (size_t j = 2; j < argv.size(); ++j) {
    if (equals_ci(argv[j], "limit")) {
      j += 2;
    } else if (equals_ci(argv[j], "get") || equals_ci(argv[j], "by")) {
      j += 1;
    } else if (store_allowed && equals_ci(argv[j], "store") && j + 1 < argv.size()) {
      store = ++j;
    }
  }
  if (store) out.push_back({*store, "OW update"});
}

// Redis's migrateGetKeys: argv[3], or with an empty argv[3] the keys after
// KEYS (AUTH takes one argument, AUTH2 two).
void migrate_keys(const Argv& argv, std::vector<KeyRef>& out) {
  constexpr std::string_view kFlags = "RW access delete";
  if (argv.size() > 6 && argv[3].empty()) {
    for (size_t j = 6; j < argv.size(); ++j) {
      if (equals_ci(argv[j], "auth")) {
        j += 1;
      } else if (equals_ci(argv[j], "auth2")) {
        j += 2;
      } else if (equals_ci(argv[j], "keys")) {
        for (size_t k = j + 1; k < argv.size(); ++k) out.push_back({k, kFlags});
        return;
      }
    }
  }
  out.push_back({3, kFlags});
}

// Redis's setGetKeys: GET makes SET read the old value.
void set_keys(const Argv& argv, std::vector<KeyRef>& out) {
  for (size_t j = 3; j < argv.size(); ++j) {
    if (equals_ci(argv[j], "get")) {
      out.push_back({1, "RW access update"});
      return;
    }
  }
  out.push_back({1, "OW update"});
}

// Redis's bitfieldGetKeys: read-only when every operation is a GET.
void bitfield_keys(const Argv& argv, std::vector<KeyRef>& out) {
  bool readonly = true;
  for (size_t j = 2; j < argv.size(); ++j) {
    if (equals_ci(argv[j], "get")) {
      j += 2;
    } else if (equals_ci(argv[j], "set") || equals_ci(argv[j], "incrby")) {
      readonly = false;
      j += 3;
    } else if (equals_ci(argv[j], "overflow")) {
      j += 1;
    } else {
      readonly = false;  // a syntax error to the command; its key is written
    }
  }
  out.push_back({1, readonly ? "RO access" : "RW access update"});
}

}  // namespace

std::vector<KeyRef> command_keys(const CommandFact& fact, const Argv& argv) {
  std::vector<KeyRef> out;
  if (argv.size() < 2) return out;
  if (fact.name == "sort" || fact.name == "sort_ro") {
    sort_keys(argv, fact.name == "sort", out);
  } else if (fact.name == "migrate") {
    migrate_keys(argv, out);
  } else if (fact.name == "set") {
    set_keys(argv, out);
  } else if (fact.name == "bitfield") {
    bitfield_keys(argv, out);
  } else {
    for (const KeySpecFact& spec : fact.key_specs()) keys_of_spec(spec, argv, out);
  }
  return out;
}

}  // namespace redsim::sim
