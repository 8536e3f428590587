// Replication for `redsim server` (tools/server/tcp_replication.cc): the
// RDB file a master sends a replica, loading one as a replica, and the
// replication stream. The network lives in the transport; the embedded
// sim::Server stays deterministic: without ReplicationHooks::propagate
// nothing is recorded.
//
// The RDB file (save_rdb) is Redis 7.0's version 10 layout (rdb.c
// rdbSaveRio, rdbSaveInfoAuxFields, rdbSaveKeyValuePair; rdb.h opcodes):
//   "REDIS0010", AUX fields (0xFA name value: redis-ver 7.0.15, redis-bits,
//   ctime, used-mem, repl-stream-db, repl-id, repl-offset, aof-base), then
//   per non-empty db SELECTDB (0xFE db), RESIZEDB (0xFB keys expires), and
//   each key as [EXPIRETIME_MS (0xFC, 8 bytes LE ms)] type key value, the
//   value as DUMP serializes it (sim/rdb.h); EOF (0xFF) and the CRC-64 of
//   everything before it, 8 bytes LE. Streams are not written (DUMP does
//   not serialize them either), nor functions.
// load_rdb reads any version 1..10 file of these opcodes, values through
// RESTORE's reader (Redis's own listpack, intset, quicklist encodings
// included), so a redis-server 7.0.15 master's file loads; FUNCTION2 and
// MODULE_AUX records are refused.
//
// The replication stream (propagate_changes): Redis 7.0 propagates each
// write command as rewritten by the command (replication.c
// replicationFeedSlaves, server.c alsoPropagate: absolute PEXPIREAT / SET
// PXAT, DEL of expired keys, a script's effects inside MULTI/EXEC). The
// fake propagates the effect on each key instead, which is what the replica
// must end with: a key a command modified is sent as
//   RESTORE key <absolute deadline ms or 0> <DUMP payload> REPLACE ABSTTL
// and a key it deleted (or that expired) as DEL key, with SELECT when the
// db changes (the transport inserts it), several keys of one command inside
// MULTI ... EXEC. FLUSHALL, FLUSHDB and SWAPDB, PUBLISH and SPUBLISH
// (forceCommandPropagation in publishCommand/spublishCommand) and FUNCTION
// LOAD/DELETE/FLUSH/RESTORE go as the client sent them. Not propagated: a
// stream key's changes, and those commands inside MULTI or a script.
// The cost: each write sends the whole value of each key it touched (an
// RPUSH to a long list resends the list), O(value size) per write where
// Redis sends the command; the effects are exact whatever the command
// (random, relative time, a blocked client served), which is why.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/server.h"

namespace redsim::sim {

// The RDB file of every db's data, as above. `replid` and `offset` go into
// the repl-id and repl-offset AUX fields.
std::string save_rdb(Server& server, std::string_view replid, uint64_t offset);

// Replaces every db's data with the file's keys (readSyncBulkPayload:
// emptyData, then rdbLoad); a key past its deadline is kept until expiry
// deletes it. "" on success, else why the file was refused (nothing
// changed then).
std::string load_rdb(Server& server, std::string_view file);

// Whether key changes are recorded and commands propagated (on after
// set_replication_hooks with `propagate`): a transport turns it off while
// it has no replica, so that commands cost nothing more then.
void record_changes(Server& server, bool on);

// Sends the key changes recorded since the last call down
// ReplicationHooks::propagate, as above. Server::execute calls it after
// every command while recording; a transport calls it after the active expiry cycle and
// after blocked clients were served.
void propagate_changes(Server& server);

}  // namespace redsim::sim
