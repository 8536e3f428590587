// The manifest of a script lock, DIR/lock.json: which Lua scripts in DIR
// make the lock, how to call them and what their replies mean. `redsim check
// --script-lock DIR` reads it into a lock::ScriptLockSpec (lock/script_lock.h
// says how a ScriptLock runs the scripts).
//
//   {
//     "name": "set-nx-px",                  optional; default: DIR's name
//     "lease_ms": 100,                      required, > 0: the lock's lease ({lease_ms})
//     "command_timeout_ms": 50,             optional: each call's reply timeout;
//                                           default lease_ms / 2, at least 1
//     "acquire": {
//       "script": "acquire.lua",            a file in DIR
//       "keys": ["{key}"],                  KEYS templates (default [])
//       "argv": ["{token}", "{lease_ms}"],  ARGV templates (default [])
//       "acquired": ["OK"],                 replies meaning "taken" (see Replies)
//       "pttl_reply": false,                optional: an integer reply not listed in
//                                           "acquired" is the holder's PTTL in ms
//                                           (Redisson: nil = taken, integer = PTTL)
//       "then": [{"script": ..., "keys": ..., "argv": ...}]
//                                           optional: scripts run in order after a
//                                           successful acquire (a non-atomic
//                                           protocol: SETNX, then PEXPIRE)
//     },
//     "release": {"script": ..., "keys": ..., "argv": ..., "released": [1]},
//     "renew": {"script": ..., "keys": ..., "argv": ..., "renewed": [1],
//               "interval_ms": 33},          optional; interval default lease_ms / 3
//     "wait": {"mode": "poll", "interval_ms": 10, "timeout_ms": 2000}
//          or {"mode": "pubsub", "channel": "unlock:{key}", "message": "released",
//              "timeout_ms": 2000}
//   }
//
// Placeholders in keys, argv and channel: {key} (the lock key), {token} (16
// hex digits from Env::random_u64, fresh per acquisition), {owner} (client
// id + ":" + task id), {lease_ms}; "{{" and "}}" are literal braces.
// Replies: "OK" (or any other status text: a status, or a bulk of that
// text), "nil" or null (a nil reply), an integer (an integer reply).
// wait: poll sleeps a jittered interval between attempts; pubsub subscribes
// to the channel and waits for `message` (any message when absent), but at
// most the PTTL the acquire reply gave, or lease_ms. timeout_ms (default 20 x
// lease_ms) is how long each explored attempt waits (try_lock_for).
//
// Every problem is reported as "<file>: <field>: <problem>", e.g.
// "locks/x/lock.json: acquire.keys[0]: unknown placeholder '{tokn}'; ...".
// Unknown fields are errors (a misspelt optional field would otherwise be
// silently ignored).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "lock/script_lock.h"

namespace redsim::cli {

// A manifest that cannot be used: what() is "<file>: <field>: <problem>".
class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScriptLockManifest {
  std::shared_ptr<const lock::ScriptLockSpec> spec;
  std::chrono::milliseconds attempt_wait{0};  // wait.timeout_ms
  // The wait between a waiter's attempts at most: the poll interval, or for
  // pub/sub the lease (a lost message): what the liveness bound must cover.
  std::chrono::milliseconds retry_max{0};
};

// Parses `json_text` (the contents of `file`, named in messages) and reads
// its scripts from `dir`. Throws ManifestError.
ScriptLockManifest parse_script_lock_manifest(std::string_view json_text, const std::string& file,
                                              const std::filesystem::path& dir);

// Reads DIR/lock.json and parses it. Throws ManifestError (also when DIR or
// the file cannot be read).
ScriptLockManifest load_script_lock_manifest(const std::filesystem::path& dir);

}  // namespace redsim::cli
