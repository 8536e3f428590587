// Splitting a line into arguments with redis-cli's quoting rules (Redis's
// sdssplitargs): what `redsim repl` does to a typed line, what the TCP
// server does to an inline command, and what redis-server does to a config
// file line and to `--name value` arguments. Behaviour observed on
// redis-cli 7.0.15.
//
//   base::split_args(R"(SET k "a b\x41")")  // {"SET", "k", "a bA"}
//   base::split_args(R"(SET "k)")           // nullopt: unbalanced quote
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redsim::base {

// Blanks (space, \n, \r, \t, \0) separate arguments; "double quotes"
// understand \n \r \t \b \a \\ \" and \xHH; 'single quotes' understand \'
// only; a closing quote must be followed by a blank or the end. Returns the
// arguments (empty for a blank line), or nullopt for unbalanced or malformed
// quoting (redis-cli prints "Invalid argument(s)").
std::optional<std::vector<std::string>> split_args(std::string_view line);

}  // namespace redsim::base
