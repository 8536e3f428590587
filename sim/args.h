// Argument parsing and the error replies shared by the command families.
// Integers follow Redis's string2ll (src/util.c): an optional '-', then
// digits with no leading zero (except "0" itself), no spaces, no '+', and
// the value must fit in int64. Error texts are Redis 7.0.15's, byte for byte.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "sim/resp/reply.h"

namespace redsim::sim {

// Redis's string2ll: true and *out set when `s` is a canonical int64.
bool parse_int64(std::string_view s, int64_t* out);

// Redis's strtod-based parsing for DEBUG SLEEP: the longest numeric prefix,
// 0 when there is none (Redis ignores the rest of the text).
double parse_double_prefix(const std::string& s);

// ASCII case-insensitive equality, for options such as "NX" or "px".
bool equals_ci(std::string_view a, std::string_view b);

// Redis replaces CR and LF in error texts with spaces so the reply stays
// one protocol line (addReplyErrorLength).
std::string one_line(std::string_view text);

// A HELP subcommand's reply as Redis's addReplyHelp builds it, each line a
// status: "<COMMAND> <subcommand> [<arg> [value] [opt] ...]. Subcommands
// are:", the lines of `body`, then "HELP" and "    Prints this help.".
// `command` is upper case ("OBJECT").
resp::Reply help_reply(std::string_view command, std::initializer_list<const char*> body);

namespace errors {
resp::Reply wrong_type();   // WRONGTYPE Operation against a key holding the wrong kind of value
resp::Reply syntax();       // ERR syntax error
resp::Reply not_integer();  // ERR value is not an integer or out of range
resp::Reply overflow();     // ERR increment or decrement would overflow
// ERR wrong number of arguments for '<name>' command; `name` is the lower-case command name.
resp::Reply arity(std::string_view name);
// ERR invalid expire time in '<name>' command
resp::Reply invalid_expire(std::string_view name);
}  // namespace errors

}  // namespace redsim::sim
