// What redis-cli does to a line of input and to a reply, so that `redsim
// repl` prints byte for byte what `redis-cli --no-raw` prints for the same
// input against Redis 7.0. Behaviour observed on redis-cli 7.0.15.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/split_args.h"
#include "sim/resp/reply.h"

namespace redsim::cli {

// redis-cli's argument splitting (base/split_args.h), for the REPL.
using base::split_args;

// A reply as redis-cli prints it to a terminal (--no-raw), with the final
// newline: `OK`, `(integer) 1`, `"v"`, `(nil)`, `(error) ERR ...`,
// `(empty array)`, and numbered, indented arrays.
std::string format_reply(const resp::Reply& reply);

// A string quoted as redis-cli quotes bulk replies: "..." with \n \r \t \a
// \b \\ \" escaped and other non-printable bytes as \xhh.
std::string quote_bulk(std::string_view s);

}  // namespace redsim::cli
