// to_reply: a hiredis redisReply as the resp::Reply the fake returns, so
// lock code and tests compare replies from both worlds with ==.
//
//   redisReply* raw = ...;              // from redisCommandArgv
//   resp::Reply r = lock::to_reply(*raw);
//
// Mapping (hiredis 0.14, RESP2): STRING -> bulk, STATUS -> status, ERROR ->
// error (text without '-'), INTEGER -> integer, ARRAY -> array (recursively),
// NIL -> nil. hiredis reports a null bulk ($-1) and a null array (*-1) both
// as NIL, so both become Reply::nil(); the fake returns Reply::nil_array()
// only for EXEC after a failed WATCH, which no lock script sends.
// Throws lock::ProtocolError for a reply type hiredis 0.14 never produces.
#pragma once

#include "sim/resp/reply.h"

struct redisReply;

namespace redsim::lock {

resp::Reply to_reply(const redisReply& reply);

}  // namespace redsim::lock
