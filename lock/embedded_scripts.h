// The Lua scripts of scripts/*.lua, embedded into the library at build time
// by cmake/embed_scripts.cmake (the generated embedded_scripts.cc defines the
// table). Look scripts up through lock/script.h, not here.
#pragma once

#include <string_view>

namespace redsim::lock {

struct EmbeddedScript {
  std::string_view name;  // the file stem: "simple_unlock" for scripts/simple_unlock.lua
  std::string_view text;  // the file's bytes, unchanged
};

// Sorted by name. kEmbeddedScriptCount entries; when there are no scripts the
// table holds one empty placeholder and the count is 0.
extern const EmbeddedScript kEmbeddedScripts[];
extern const int kEmbeddedScriptCount;

}  // namespace redsim::lock
