// Redis's glob-style matching (stringmatchlen in src/util.c), as used by
// PSUBSCRIBE and PUBLISH to match channels against patterns.
//
//   glob_match("news.*", "news.art")   // true
//   glob_match("h[ae]llo", "hillo")    // false
//
// Rules (verified against redis-server 7.0.15 with KEYS):
//   *        any run of bytes, also empty
//   ?        exactly one byte
//   [abc]    one byte of the set; [^abc] one byte not in it; [a-z] a range,
//            either order ([z-a] == [a-z]); \x inside a set is a literal x;
//            a set with no closing ']' ends at the pattern's end; "[]" and
//            "[]...]" never match (the ']' right after '[' closes the set)
//   \x       a literal x; a trailing '\' matches a '\'
// Matching is byte-wise and case-sensitive.
#pragma once

#include <string_view>

namespace redsim::sim {

bool glob_match(std::string_view pattern, std::string_view subject);

}  // namespace redsim::sim
