// `redsim repl`: redis-cli's interactive loop over an embedded fake server.
#pragma once

#include <iosfwd>

namespace redsim::cli {

// Reads commands from `in`, one per line with redis-cli's quoting, runs them
// on a fresh embedded server whose clock only DEBUG SLEEP moves, and writes
// each reply to `out` as `redis-cli --no-raw` does. `quit`/`exit` stop.
// Differences from redis-cli: after SUBSCRIBE it keeps reading commands
// (redis-cli stops reading input and waits for messages).
// Returns the process exit code (0).
int run_repl(std::istream& in, std::ostream& out);

}  // namespace redsim::cli
