// EVAL / EVALSHA / SCRIPT on one sandboxed Lua 5.4 state (see
// script_engine.h). The hot path, EVALSHA of a cached script, does no
// formatting and no compilation: a hash lookup, two fresh tables for KEYS
// and ARGV, the protected call, and the reply built straight off the stack.
#include "sim/lua/script_engine.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/args.h"
#include "sim/lua/engine_impl.h"
#include "sim/lua/internal.h"
#include "sim/server.h"

namespace redsim::sim {
namespace script_detail {

constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// The line of a compile error "user_script:<line>: ..." (0 if none).
int error_line(const char* msg) {
  constexpr std::string_view kPrefix = "user_script:";
  std::string_view m = msg != nullptr ? msg : "";
  if (m.substr(0, kPrefix.size()) != kPrefix) return 0;
  int line = 0;
  for (size_t i = kPrefix.size(); i < m.size() && m[i] >= '0' && m[i] <= '9'; ++i) {
    line = line * 10 + (m[i] - '0');
  }
  return line;
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

// ---- Bounded chunks: the count hook set lazily ------------------------------

namespace {

bool is_word_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_word_char(char c) { return is_word_start(c) || (c >= '0' && c <= '9'); }
bool is_newline(char c) { return c == '\n' || c == '\r'; }

// The level of a long bracket opening at `at` ("[[" 0, "[=[" 1, ...), or -1.
int long_bracket_level(std::string_view code, size_t at) {
  size_t i = at + 1;
  while (i < code.size() && code[i] == '=') ++i;
  if (i < code.size() && code[i] == '[') return static_cast<int>(i - at - 1);
  return -1;
}

// The index just past the long bracket of `level` opened at `at`, or npos
// when it is not closed.
size_t skip_long_bracket(std::string_view code, size_t at, int level) {
  std::string close = "]" + std::string(static_cast<size_t>(level), '=') + "]";
  size_t end = code.find(close, at + static_cast<size_t>(level) + 2);
  return end == std::string_view::npos ? end : end + close.size();
}

}  // namespace

bool bounded_chunk(std::string_view code) {
  if (code.size() > kBoundedSourceBytes) return false;
  size_t i = 0;
  const size_t n = code.size();
  while (i < n) {
    const char c = code[i];
    if (c == '-' && i + 1 < n && code[i + 1] == '-') {  // a comment
      i += 2;
      int level = i < n && code[i] == '[' ? long_bracket_level(code, i) : -1;
      if (level >= 0) {
        i = skip_long_bracket(code, i, level);
        if (i == std::string_view::npos) return false;
      } else {
        while (i < n && !is_newline(code[i])) ++i;
      }
    } else if (c == '[') {  // a long string, or an index
      int level = long_bracket_level(code, i);
      if (level >= 0) {
        i = skip_long_bracket(code, i, level);
        if (i == std::string_view::npos) return false;
      } else {
        ++i;
      }
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && code[i] != c) {
        if (is_newline(code[i])) return false;  // unfinished, or an escaped line break
        i += code[i] == '\\' ? 2 : 1;
      }
      if (i >= n) return false;
      ++i;
    } else if (is_word_start(c)) {
      const size_t start = i;
      while (i < n && is_word_char(code[i])) ++i;
      const std::string_view word = code.substr(start, i - start);
      if (word == "while" || word == "for" || word == "repeat" || word == "goto" ||
          word == "function") {
        return false;
      }
    } else {
      ++i;
    }
  }
  return true;
}

// ---- Chunks that only read globals: _ENV without the proxy -------------------

namespace {

// Lua 5.4's opcodes (lopcodes.h) that expose or write a chunk's _ENV, or
// make a closure (which would share it).
constexpr uint32_t kOpGetUpval = 9;
constexpr uint32_t kOpSetUpval = 10;
constexpr uint32_t kOpSetTabUp = 15;
constexpr uint32_t kOpClosure = 79;
constexpr uint32_t kOpLoadI = 1;
constexpr uint32_t kOpLoadF = 2;
constexpr uint32_t kOpLoadK = 3;
constexpr uint32_t kOpGetTabUp = 11;
constexpr uint32_t kOpGetTable = 12;
constexpr uint32_t kOpGetI = 13;
constexpr uint32_t kOpGetField = 14;
constexpr uint32_t kOpSelf = 20;
constexpr uint32_t kOpcodeMask = 0x7F;  // an instruction's low 7 bits (then A 8, k 1, B 8, C 8)

// The type tags of a dumped constant (lobject.h makevariant).
constexpr unsigned char kTagNil = 0;
constexpr unsigned char kTagFalse = 1;
constexpr unsigned char kTagTrue = 17;
constexpr unsigned char kTagInteger = 3;
constexpr unsigned char kTagFloat = 19;
constexpr unsigned char kTagShortString = 4;
constexpr unsigned char kTagLongString = 20;

// The globals a chunk may read and still keep KEYS and ARGV as filled:
// none of them reaches the globals table (as _G, load, loadstring or
// getmetatable could) or takes a table it is not handed.
constexpr std::string_view kSealedGlobals[] = {
    "redis", "KEYS",     "ARGV", "tonumber", "tostring", "type",  "string", "table",  "math",
    "cjson", "cmsgpack", "bit",  "struct",   "pcall",    "error", "assert", "select", "unpack"};

// A size or int of lua_dump's format (ldump.c dumpSize): 7 bits a byte,
// most significant first, the last byte flagged 0x80.
bool read_dump_size(std::string_view& in, uint64_t& out) {
  out = 0;
  for (int i = 0; i < 10 && !in.empty(); ++i) {
    const auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    out = (out << 7) | (b & 0x7Fu);
    if (b & 0x80u) return true;
  }
  return false;
}

int append_dump(lua_State*, const void* p, size_t size, void* ud) {
  static_cast<std::string*>(ud)->append(static_cast<const char*>(p), size);
  return 0;
}

}  // namespace

ChunkFacts chunk_facts(lua_State* L) {
  ChunkFacts facts;
  std::string dump;
  if (lua_dump(L, append_dump, &dump, /*strip=*/1) != 0) return facts;
  std::string_view in = dump;
  // The header (ldump.c dumpHeader): signature, version 5.4, format 0,
  // LUAC_DATA, the sizes of Instruction, lua_Integer and lua_Number, then
  // a test integer and a test float; then the main closure's upvalue count.
  static constexpr char kHeadBytes[] = LUA_SIGNATURE "\x54\x00\x19\x93\r\n\x1a\n\x04";
  constexpr std::string_view kHead(kHeadBytes, sizeof kHeadBytes - 1);  // it holds a NUL
  constexpr size_t kHeaderBytes = kHead.size() + 2 + 8 + 8 + 1;
  if (in.size() < kHeaderBytes || in.substr(0, kHead.size()) != kHead) return facts;
  in.remove_prefix(kHeaderBytes);
  // The main function: its source (stripped: size 0), lines defined, the
  // parameter, vararg and stack bytes, then its code and its constants.
  uint64_t source = 0, line = 0, last_line = 0, count = 0;
  if (!read_dump_size(in, source) || source != 0) return facts;
  if (!read_dump_size(in, line) || !read_dump_size(in, last_line) || in.size() < 3) return facts;
  in.remove_prefix(3);
  if (!read_dump_size(in, count) || count > in.size() / 4) return facts;
  std::vector<uint32_t> code(count);
  std::memcpy(code.data(), in.data(), count * 4);
  in.remove_prefix(count * 4);
  for (uint32_t instruction : code) {
    const uint32_t op = instruction & kOpcodeMask;
    if (op == kOpGetUpval || op == kOpSetUpval || op == kOpSetTabUp || op == kOpClosure) {
      return facts;
    }
  }
  facts.reads_globals_only = true;
  // The constants (ldump.c dumpConstants): a type tag, then a float or an
  // integer (8 bytes), a string (size + 1, then the bytes) or nothing.
  std::vector<std::string_view> constants;
  uint64_t constant_count = 0;
  if (!read_dump_size(in, constant_count) || constant_count > in.size()) return facts;
  for (uint64_t i = 0; i < constant_count; ++i) {
    if (in.empty()) return facts;
    const auto tag = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    std::string_view value;
    if (tag == kTagFloat || tag == kTagInteger) {
      if (in.size() < 8) return facts;
      in.remove_prefix(8);
    } else if (tag == kTagShortString || tag == kTagLongString) {
      uint64_t size = 0;
      if (!read_dump_size(in, size) || size == 0 || size - 1 > in.size()) return facts;
      value = in.substr(0, size - 1);
      in.remove_prefix(size - 1);
    } else if (tag != kTagNil && tag != kTagFalse && tag != kTagTrue) {
      return facts;
    }
    constants.push_back(value);
  }
  // Every global read: a name of kSealedGlobals, and KEYS or ARGV read into
  // a register that the very next instruction indexes and overwrites.
  bool direct_redis = true;
  std::vector<bool> global_index(code.size(), false);  // the index instructions of those reads
  for (size_t pc = 0; pc < code.size(); ++pc) {
    if ((code[pc] & kOpcodeMask) != kOpGetTabUp) continue;
    const uint32_t a = (code[pc] >> 7) & 0xFF;
    const uint32_t c = (code[pc] >> 24) & 0xFF;
    if (c >= constants.size()) return facts;
    const std::string_view name = constants[c];
    if (std::find(std::begin(kSealedGlobals), std::end(kSealedGlobals), name) ==
        std::end(kSealedGlobals)) {
      return facts;
    }
    if (name == "redis") {
      const uint32_t next = pc + 1 < code.size() ? code[pc + 1] : 0;
      direct_redis = direct_redis && (next & kOpcodeMask) == kOpGetField &&
                     ((next >> 7) & 0xFF) == a && ((next >> 16) & 0xFF) == a;
      if (direct_redis) global_index[pc + 1] = true;
      continue;
    }
    if (name != "KEYS" && name != "ARGV") {
      direct_redis = false;
      continue;
    }
    // KEYS[1] (GETI; the number model's KEYS[1.0] loads the key first:
    // LOADF into another register, then GETTABLE), KEYS.x (GETFIELD),
    // KEYS[i] (GETTABLE of a local's register).
    size_t at = pc + 1;
    if (at + 1 < code.size()) {
      const uint32_t load_op = code[at] & kOpcodeMask;
      if ((load_op == kOpLoadI || load_op == kOpLoadF || load_op == kOpLoadK) &&
          ((code[at] >> 7) & 0xFF) != a && (code[at + 1] & kOpcodeMask) == kOpGetTable &&
          (code[at + 1] >> 24) == ((code[at] >> 7) & 0xFF)) {
        ++at;
      }
    }
    if (at >= code.size()) return facts;
    const uint32_t next = code[at];
    const uint32_t next_op = next & kOpcodeMask;
    if ((next_op != kOpGetTable && next_op != kOpGetI && next_op != kOpGetField) ||
        ((next >> 7) & 0xFF) != a || ((next >> 16) & 0xFF) != a ||
        (next_op == kOpGetTable && (next >> 24) == a)) {
      return facts;
    }
    global_index[at] = true;
  }
  facts.keeps_arrays = true;
  facts.direct_redis = direct_redis;
  bool c_calls_only = direct_redis;
  for (size_t pc = 0; c_calls_only && pc < code.size(); ++pc) {
    const uint32_t op = code[pc] & kOpcodeMask;
    c_calls_only = op != kOpSelf &&
                   ((op != kOpGetTable && op != kOpGetI && op != kOpGetField) || global_index[pc]);
  }
  facts.c_calls_only = c_calls_only;
  return facts;
}

bool reads_globals_only(lua_State* L) { return chunk_facts(L).reads_globals_only; }

// ---- Time limit: the instruction-count hook --------------------------------

constexpr std::string_view kKilled = "ERR Script killed by user with SCRIPT KILL...";

// The running script's run time in ms, as ServerOptions::script_time says.
int64_t elapsed_ms(const lua::EngineState& st) {
  const ServerOptions& options = st.server->options();
  if (options.script_time == ScriptTime::kClock) {
    return (st.server->clock().now_us() - st.run.start_us) / 1000;
  }
  return st.run.instructions / std::max<int64_t>(1, options.lua_instructions_per_ms);
}

void killed_hook(lua_State* L, lua_Debug*);

// Fails the script with Redis's SCRIPT KILL error. Like Redis (which
// switches to a line hook), every later instruction raises again, so a
// pcall in the script cannot swallow the kill.
[[noreturn]] void raise_killed(lua_State* L) {
  lua_sethook(L, killed_hook, LUA_MASKCOUNT, 1);
  lua::push_error_table(L, kKilled, false);
  lua_error(L);
  __builtin_unreachable();  // lua_error throws in the C++ build
}

void killed_hook(lua_State* L, lua_Debug*) { raise_killed(L); }

// Redis's luaMaskCountHook + scriptInterrupt: charges the instructions,
// marks the script busy once it has run busy-reply-threshold ms, then lets
// the owner serve other clients (Server::set_busy_script_handler) on every
// call while busy, and fails the script once SCRIPT KILL was accepted.
void count_hook(lua_State* L, lua_Debug*) {
  lua::EngineState& st = lua::state_of(L);
  lua::ScriptRun& run = st.run;
  if (run.killed) raise_killed(L);
  run.instructions += ScriptEngine::kHookInstructions;
  // The owner stopping (a signal to redsim server) ends any script.
  if (const Server::StopCheck& stop = st.server->stop_check(); stop && stop()) {
    run.killed = true;
    raise_killed(L);
  }
  if (!run.busy) {
    int64_t threshold_ms = st.server->config().busy_reply_threshold_ms;
    if (threshold_ms <= 0 || elapsed_ms(st) < threshold_ms) return;
    run.busy = true;
  }
  if (const Server::BusyScriptHandler& handler = st.server->busy_script_handler()) {
    std::string failure;
    try {
      handler(*st.session);
    } catch (const std::exception& e) {
      // Must not unwind through the Lua VM as a foreign exception.
      failure = std::string("ERR internal error: ") + e.what();
    }
    if (!failure.empty()) lua::raise_error_table(L, failure);
  }
  if (run.killed) raise_killed(L);
}

void arm_count_hook(lua_State* L, lua_Debug* ar, bool tail_call);

// ---- Call depth: 5.1's LUAI_MAXCALLS ------------------------------------------

// Redis's Lua 5.1 keeps its call frames in an array that doubles as it
// fills (8, 16, ... 16,384) and raises "stack overflow" (at the caller's
// line) when the doubling would pass LUAI_MAXCALLS = 20,000; after that
// first overflow the array stays at 32,768 (its GC never shrinks an array
// that overflowed) and the limit is the 20,000 frames themselves. Measured
// on redis-server 7.0.15 with `local function f() d=d+1 f() end pcall(f)`:
// d = 16,381 on a fresh Lua state, 19,997 after an overflow (the C base
// frame, the chunk and pcall hold the others). 5.4 would go on to about
// 200,000. The call hook counts the frames lua_getstack sees (all but the
// base frame). lua_getstack walks the frames, so a shallow stack is
// checked only every kDepthStride calls (each call adds one frame at most).
constexpr int kMaxFramesFresh = 16'383;
constexpr int kMaxFramesGrown = 19'999;
constexpr int kDepthStride = 64;

void check_depth(lua_State* L) {
  lua::EngineState& st = lua::state_of(L);
  lua::ScriptRun& run = st.run;
  if (run.depth_skip > 0) {
    --run.depth_skip;
    return;
  }
  lua_Debug ar;
  int max_frames = st.frames_grown ? kMaxFramesGrown : kMaxFramesFresh;
  if (lua_getstack(L, max_frames, &ar) != 0) {
    st.frames_grown = true;
    lua::note_shared_state(st);
    run.depth_skip = 0;
    luaL_where(L, 1);  // in a hook level 1 is the caller: 5.1 reports its line
    lua_pushliteral(L, "stack overflow");
    lua_concat(L, 2);
    lua_error(L);
  }
  const bool near = lua_getstack(L, max_frames - kDepthStride, &ar) != 0;
  if (!near) run.depth_skip = kDepthStride - 1;
  // Near the fresh limit, which an earlier script's overflow raises: this
  // script's outcome depends on other scripts' (and it may raise it).
  if (near || (st.frames_grown && lua_getstack(L, kMaxFramesFresh - kDepthStride, &ar) != 0)) {
    lua::note_shared_state(st);
  }
}

// The hook of a running script: call events check the depth, count events
// charge the time (count_hook).
void script_hook(lua_State* L, lua_Debug* ar) {
  if (ar->event == LUA_HOOKCALL) {
    if (!(lua_gethookmask(L) & LUA_MASKCOUNT)) arm_count_hook(L, ar, false);
    check_depth(L);
  } else if (ar->event == LUA_HOOKTAILCALL) {
    if (!(lua_gethookmask(L) & LUA_MASKCOUNT)) arm_count_hook(L, ar, true);
  } else if (ar->event == LUA_HOOKCOUNT) {
    count_hook(L, ar);
  }
}

// A bounded chunk's run (ScriptEngine::Impl::call) starts with the call
// hook only. The first call of a Lua function other than the chunk itself
// (a function the chunk got from loadstring(), a library function written in Lua,
// a coroutine's body) sets the count hook on its thread, which then counts
// as before; the chunk's own instructions before that call (fewer than
// kHookInstructions) are not charged. C functions (redis.call) leave it off.
// A tail call always sets it (the chunk itself is never tail-called).
void arm_count_hook(lua_State* L, lua_Debug* ar, bool tail_call) {
  if (!tail_call) {
    // redis.call and redis.pcall, nearly every call event of a bounded chunk.
    if (lua::is_marked_c_call(L)) return;
    // The chunk's own call (the test below would find it the first frame of
    // the engine's thread), told without lua_getinfo and lua_getstack.
    if (std::exchange(lua::state_of(L).run.entry_call_pending, false)) return;
    if (lua_getinfo(L, "f", ar) == 0) return;
    const bool c_function = lua_iscfunction(L, -1) != 0;
    lua_pop(L, 1);
    if (c_function) return;
    // The chunk itself: the first frame of the engine's own thread.
    lua_Debug caller;
    const bool main_thread = lua_pushthread(L) == 1;
    lua_pop(L, 1);
    if (main_thread && lua_getstack(L, 1, &caller) == 0) return;
  }
  lua_sethook(L, script_hook, LUA_MASKCALL | LUA_MASKCOUNT, ScriptEngine::kHookInstructions);
}

// ---- Memory cap: the state's allocator ---------------------------------------

}  // namespace script_detail

// The functions' Lua state is opened by the first FUNCTION or FCALL
// (functions.cc), so servers that never use functions pay nothing for it.
ScriptEngine::ScriptEngine(Server& server) : impl_(std::make_unique<Impl>(server)) {
  impl_->open();
}

ScriptEngine::~ScriptEngine() = default;

bool ScriptEngine::running() const { return active() != nullptr; }

bool ScriptEngine::busy() const {
  const Impl* impl = active();
  return impl != nullptr && impl->state.run.busy;
}

bool ScriptEngine::wrote() const {
  const Impl* impl = active();
  return impl != nullptr && impl->state.run.wrote;
}

bool ScriptEngine::allows_oom() const {
  const Impl* impl = active();
  return impl != nullptr && impl->state.allow_oom;
}

int64_t ScriptEngine::elapsed_ms() const {
  const Impl* impl = active();
  return impl != nullptr ? script_detail::elapsed_ms(impl->state) : 0;
}

void ScriptEngine::note_write() {
  if (Impl* impl = active()) impl->state.run.wrote = true;
}

resp::Reply ScriptEngine::kill(bool force) {
  Impl* running = active();
  if (running == nullptr) return resp::Reply::error("NOTBUSY No scripts in execution right now.");
  Impl& impl = *running;
  if (impl.state.run.wrote && !force) {
    return resp::Reply::error(
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You "
        "can either wait the script termination or kill the server in a hard way using the "
        "SHUTDOWN NOSAVE command.");
  }
  impl.state.run.killed = true;
  return resp::Reply::ok();
}

size_t ScriptEngine::script_count() const { return impl_->scripts.size(); }

const std::deque<std::string>& ScriptEngine::log() const { return impl_->state.log; }

resp::Reply ScriptEngine::eval(CommandContext& ctx, bool by_sha, bool read_only) {
  const Argv& argv = ctx.argv;  // the dispatcher checked EVAL's arity (-3)
  Impl& impl = *impl_;
  std::string_view body = argv[1];
  char sha_buf[40];
  if (by_sha) {
    if (body.size() != sizeof sha_buf) return resp::Reply::error(std::string(kNoScript));
  }
  int64_t numkeys = 0;
  if (!parse_int64(argv[2], &numkeys)) {
    return resp::Reply::error("ERR value is not an integer or out of range");
  }
  if (numkeys > static_cast<int64_t>(argv.size()) - 3) {
    return resp::Reply::error("ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return resp::Reply::error("ERR Number of keys can't be negative");

  CachedScript* script = nullptr;
  std::string computed_sha;
  std::string_view sha;
  if (by_sha) {
    // The cache's keys are lower-case hex: a SHA1 given in lower case (as
    // clients send it) is found as it is; only a miss is lowered and
    // looked up again (a key found as given is its own lower-case form).
    sha = body;
    script = impl.find(sha);
    if (script == nullptr) {
      for (size_t i = 0; i < sizeof sha_buf; ++i) {
        sha_buf[i] = ascii_lower(body[i]);
      }
      sha = std::string_view(sha_buf, sizeof sha_buf);
      script = impl.find(sha);
    }
    if (script == nullptr) return resp::Reply::error(std::string(kNoScript));
  } else {
    computed_sha = lua::sha1_hex(body);
    sha = computed_sha;
    script = impl.find(sha);
    if (script == nullptr) {
      std::string error;
      script = impl.compile(body, computed_sha, error);
      if (script == nullptr) return resp::Reply::error(std::move(error));
    }
  }
  bool no_writes = (script->flags & lua::kScriptFlagNoWrites) != 0;
  bool allow_oom = (script->flags & lua::kScriptFlagAllowOom) != 0;
  if (read_only && script->shebang && !no_writes) {
    return resp::Reply::error("ERR Can not execute a script with write flag using *_ro command.");
  }
  // A shebang script that may write is a write command (evalGetCommandFlags).
  if (script->shebang && !no_writes && ctx.server.lacks_good_replicas()) {
    return resp::Reply::error(std::string(Server::kNoReplicasError));
  }
  // Redis makes such an EVAL a denyoom command (scriptFlagsToCmdFlags):
  // the dispatcher found memory over maxmemory as it started.
  if (script->shebang && !no_writes && !allow_oom && ctx.server.script_oom()) {
    return resp::Reply::error("OOM command not allowed when used memory > 'maxmemory'.");
  }
  impl.state.allow_oom = allow_oom;
  return impl.run(ctx, *script, sha, static_cast<size_t>(numkeys), read_only || no_writes);
}

namespace {

resp::Reply subcommand_arity_error(std::string_view sub) {
  return errors::arity("script|" + to_lower(sub));
}

}  // namespace

resp::Reply ScriptEngine::script_command(CommandContext& ctx) {
  const Argv& argv = ctx.argv;
  if (argv.size() < 2)
    return resp::Reply::error("ERR wrong number of arguments for 'script' command");
  const std::string& sub = argv[1];
  size_t argc = argv.size();
  Impl& impl = *impl_;

  if (equals_ci(sub, "load")) {
    if (argc != 3) return subcommand_arity_error(sub);
    std::string sha = lua::sha1_hex(argv[2]);
    if (impl.find(sha) == nullptr) {
      std::string error;
      if (impl.compile(argv[2], sha, error) == nullptr) return resp::Reply::error(std::move(error));
    }
    return resp::Reply::bulk(std::move(sha));
  }
  if (equals_ci(sub, "exists")) {
    if (argc < 3) return subcommand_arity_error(sub);
    std::vector<resp::Reply> found;
    found.reserve(argc - 2);
    for (size_t i = 2; i < argc; ++i) {
      found.push_back(resp::Reply::integer(impl.find(to_lower(argv[i])) != nullptr ? 1 : 0));
    }
    return resp::Reply::array(std::move(found));
  }
  if (equals_ci(sub, "flush")) {
    if (argc > 3 || (argc == 3 && !equals_ci(argv[2], "sync") && !equals_ci(argv[2], "async"))) {
      return resp::Reply::error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    // Redis 7.0 drops the whole Lua state with the cache; so do we.
    impl.close();
    impl.open();
    return resp::Reply::ok();
  }
  if (equals_ci(sub, "kill")) {
    if (argc != 2) return subcommand_arity_error(sub);
    // Redis's scriptKill: SCRIPT KILL does not end a function.
    if (function_running()) return resp::Reply::error(std::string(busy_error()));
    return kill();
  }
  if (equals_ci(sub, "debug")) {
    if (argc != 3) return subcommand_arity_error(sub);
    if (equals_ci(argv[2], "no")) return resp::Reply::ok();
    if (equals_ci(argv[2], "yes") || equals_ci(argv[2], "sync")) {
      return resp::Reply::error("ERR SCRIPT DEBUG is not supported by redsim");
    }
    return resp::Reply::error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
  }
  if (equals_ci(sub, "help")) {
    if (argc != 2) return subcommand_arity_error(sub);
    return help_reply(
        "SCRIPT",
        {"DEBUG (YES|SYNC|NO)", "    Set the debug mode for subsequent scripts executed.",
         "EXISTS <sha1> [<sha1> ...]",
         "    Return information about the existence of the scripts in the script cache.",
         "FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache. Very dangerous on replicas.",
         "    When called without the optional mode argument, the behavior is determined by the",
         "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
         "    * ASYNC: Asynchronously flush the scripts cache.",
         "    * SYNC: Synchronously flush the scripts cache.", "KILL",
         "    Kill the currently executing Lua script.", "LOAD <script>",
         "    Load a script into the scripts cache without executing it."});
  }
  // Redis prints at most 128 bytes of the name ("%.128s").
  return resp::Reply::error(
      one_line("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try SCRIPT HELP."));
}

}  // namespace redsim::sim
