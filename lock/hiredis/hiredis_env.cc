#include "lock/hiredis/hiredis_env.h"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lock/errors.h"
#include "lock/hiredis/reply_conversion.h"

namespace redsim::lock {
namespace hiredis_detail {

using std::chrono::milliseconds;

// What every Event and sleep of one Env waits on, so close() can wake them all.
struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool closed = false;
};

namespace {

// condition_variable::wait_for adds the timeout to now(): keep it far from
// overflowing (Micros::max() means "no limit" to some callers).
Micros bounded(Micros d) {
  constexpr Micros kYear = std::chrono::hours(24 * 365);
  return std::clamp(d, Micros(0), kYear);
}

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

timeval to_timeval(milliseconds ms) {
  if (ms.count() <= 0) return {0, 0};  // SO_RCVTIMEO 0: no limit
  return {static_cast<time_t>(ms.count() / 1000),
          static_cast<suseconds_t>(ms.count() % 1000) * 1000};
}

std::string where(const HiredisOptions& o) { return o.host + ":" + std::to_string(o.port); }

// Throws the typed error for a context in error (ctx->err != 0). `saved_errno`
// is errno right after the failing hiredis call.
[[noreturn]] void throw_context_error(const redisContext& ctx, int saved_errno,
                                      const std::string& what) {
  const std::string text = what + ": " + ctx.errstr;
  switch (ctx.err) {
    case REDIS_ERR_IO:
      if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == ETIMEDOUT ||
          std::strstr(ctx.errstr, "timed out") != nullptr ||
          std::strstr(ctx.errstr, "Resource temporarily unavailable") != nullptr) {
        throw TimeoutError(text);
      }
      throw IoError(text);
    case REDIS_ERR_EOF:
      throw IoError(text + " (connection closed by the server)");
    case REDIS_ERR_PROTOCOL:
      throw ProtocolError(text);
    default:
      throw IoError(text);
  }
}

std::vector<const char*> arg_pointers(const Argv& argv, std::vector<size_t>& lengths) {
  std::vector<const char*> ptrs;
  ptrs.reserve(argv.size());
  lengths.clear();
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lengths.push_back(a.size());
  }
  return ptrs;
}

// Connects, sets the command timeout, AUTHs and SELECTs. Throws by layer;
// returns an owned context.
redisContext* open_context(const HiredisOptions& o, milliseconds read_timeout) {
  errno = 0;
  redisContext* ctx =
      redisConnectWithTimeout(o.host.c_str(), o.port, to_timeval(o.connect_timeout));
  const int saved = errno;
  if (ctx == nullptr) throw IoError("connect to " + where(o) + ": out of memory");
  if (ctx->err != 0) {
    std::unique_ptr<redisContext, void (*)(redisContext*)> guard(ctx, redisFree);
    throw_context_error(*ctx, saved, "connect to " + where(o));
  }
  std::unique_ptr<redisContext, void (*)(redisContext*)> guard(ctx, redisFree);
  redisSetTimeout(ctx, to_timeval(read_timeout));

  auto setup = [&](const Argv& argv, const char* what) {
    std::vector<size_t> lengths;
    std::vector<const char*> ptrs = arg_pointers(argv, lengths);
    errno = 0;
    ReplyPtr reply(static_cast<redisReply*>(
        redisCommandArgv(ctx, static_cast<int>(argv.size()), ptrs.data(), lengths.data())));
    if (!reply) throw_context_error(*ctx, errno, std::string(what) + " on " + where(o));
    if (reply->type == REDIS_REPLY_ERROR) {
      throw ConnectionError(std::string(what) + " refused by " + where(o) + ": " +
                            std::string(reply->str, reply->len));
    }
  };
  if (!o.password.empty()) {
    if (o.user.empty()) {
      setup({"AUTH", o.password}, "AUTH");
    } else {
      setup({"AUTH", o.user, o.password}, "AUTH");
    }
  }
  if (o.database != 0) setup({"SELECT", std::to_string(o.database)}, "SELECT");
  return guard.release();
}

}  // namespace

// One thread's connection to one server.
class HiredisConnection final : public Connection {
 public:
  HiredisConnection(const HiredisOptions& options, std::shared_ptr<Shared> shared)
      : options_(options), shared_(std::move(shared)) {}
  ~HiredisConnection() override { drop(); }

 private:
  Reply do_call(const Argv& argv, std::optional<Micros> timeout) override {
    if (timeout) {
      return call_with(argv, std::max(milliseconds(1), std::chrono::ceil<milliseconds>(*timeout)));
    }
    // call_with's 0 ms (hiredis: no timeout) stands for "no limit" inside this file only.
    return call_with(argv, options_.command_timeout
                               ? std::max(milliseconds(1), *options_.command_timeout)
                               : milliseconds(0));
  }

  void drop() {
    if (ctx_ != nullptr) redisFree(ctx_);
    ctx_ = nullptr;
  }

  Reply call_with(const Argv& argv, milliseconds timeout) {
    {
      std::lock_guard<std::mutex> guard(shared_->mu);
      if (shared_->closed) throw ClosedError("HiredisEnv is closed");
    }
    if (argv.empty()) throw std::invalid_argument("Connection::call: empty argv");
    if (ctx_ == nullptr) {
      ctx_ = open_context(options_, timeout);
      timeout_ = timeout;
    } else if (timeout != timeout_) {
      redisSetTimeout(ctx_, to_timeval(timeout));
      timeout_ = timeout;
    }
    std::vector<size_t> lengths;
    std::vector<const char*> ptrs = arg_pointers(argv, lengths);
    errno = 0;
    ReplyPtr reply(static_cast<redisReply*>(
        redisCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lengths.data())));
    const int saved = errno;
    if (!reply) {
      // Replace, never reuse: free first, then throw from a copy.
      redisContext copy = *ctx_;
      std::string what = argv.front() + " on " + where(options_);
      if (timeout.count() > 0) what += " (timeout " + std::to_string(timeout.count()) + " ms)";
      std::unique_ptr<redisContext, void (*)(redisContext*)> broken(ctx_, redisFree);
      ctx_ = nullptr;
      throw_context_error(copy, saved, what);
    }
    try {
      return to_reply(*reply);
    } catch (const Error&) {
      drop();
      throw;
    }
  }

  HiredisOptions options_;
  std::shared_ptr<Shared> shared_;
  redisContext* ctx_ = nullptr;
  milliseconds timeout_{0};
};

// The per-server pub/sub connection and its reader thread.
class Subscriber {
 public:
  using Callback = std::function<void(const std::string&)>;

  Subscriber(const HiredisOptions& options, std::function<void(std::string_view)> trace)
      : options_(options), trace_(std::move(trace)) {
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) throw IoError(std::string("eventfd: ") + std::strerror(errno));
  }

  ~Subscriber() {
    stop();
    ::close(wake_fd_);
  }

  void subscribe(SubscriptionId id, const std::string& channel, Callback cb) {
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) throw ClosedError("HiredisEnv is closed");
    Channel& ch = channels_[channel];
    const bool first = ch.callbacks.empty();
    ch.callbacks.emplace(id, std::move(cb));
    channel_of_[id] = channel;
    try {
      if (!running_) {
        start_locked();  // subscribes to every channel in use, this one included
      } else if (first) {
        send_locked({"SUBSCRIBE", channel});
      }
    } catch (...) {
      remove_locked(id);
      throw;
    }
    const auto limit =
        options_.connect_timeout + options_.command_timeout.value_or(milliseconds(60000));
    const bool settled = cv_.wait_for(lock, limit, [&] {
      auto it = channels_.find(channel);
      return stopping_ || !running_ || (it != channels_.end() && it->second.confirmed);
    });
    if (settled && running_ && !stopping_) return;
    remove_locked(id);
    if (stopping_) throw ClosedError("HiredisEnv is closed");
    if (!running_) throw IoError("SUBSCRIBE " + channel + " on " + where(options_) + ": " + error_);
    throw TimeoutError("SUBSCRIBE " + channel + " on " + where(options_) +
                       ": not confirmed within " + std::to_string(limit.count()) + " ms");
  }

  void unsubscribe(SubscriptionId id) {
    std::lock_guard<std::mutex> lock(mu_);
    remove_locked(id);
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      cv_.notify_all();
    }
    wake();
    if (reader_.joinable()) reader_.join();
    if (ctx_ != nullptr) redisFree(ctx_);
    ctx_ = nullptr;
  }

 private:
  struct Channel {
    std::map<SubscriptionId, Callback> callbacks;  // in subscription order
    bool confirmed = false;
  };

  void wake() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }

  void send_locked(Argv argv) {
    if (argv[0] == "SUBSCRIBE") ++in_flight_[argv[1]];
    outbox_.push_back(std::move(argv));
    wake();
  }

  void remove_locked(SubscriptionId id) {
    auto it = channel_of_.find(id);
    if (it == channel_of_.end()) return;
    const std::string channel = it->second;
    channel_of_.erase(it);
    auto ch = channels_.find(channel);
    if (ch == channels_.end()) return;
    ch->second.callbacks.erase(id);
    if (!ch->second.callbacks.empty()) return;
    channels_.erase(ch);
    if (running_) send_locked({"UNSUBSCRIBE", channel});
  }

  // Connects (synchronously, so a refused connection throws here) and starts
  // the reader thread with a SUBSCRIBE for every channel in use.
  void start_locked() {
    if (reader_.joinable()) reader_.join();  // a reader that ended on an error
    if (ctx_ != nullptr) redisFree(ctx_);
    ctx_ = nullptr;
    ctx_ = open_context(options_, milliseconds(0));
    in_flight_.clear();
    outbox_.clear();
    for (auto& [name, ch] : channels_) {
      ch.confirmed = false;
      send_locked({"SUBSCRIBE", name});
    }
    running_ = true;
    error_.clear();
    reader_ = std::thread([this] { read_loop(); });
  }

  void read_loop() {
    std::string failure;
    try {
      failure = pump();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (!failure.empty())
      trace_("subscriber connection to " + where(options_) + " lost: " + failure);
    std::lock_guard<std::mutex> lock(mu_);
    // Nothing may touch ctx_ but this thread until running_ is false.
    redisFree(ctx_);
    ctx_ = nullptr;
    for (auto& [_, ch] : channels_) ch.confirmed = false;
    in_flight_.clear();
    outbox_.clear();
    error_ = failure.empty() ? "closed" : failure;
    running_ = false;
    cv_.notify_all();
  }

  // Runs until stop (returns "") or a transport failure (returns its text).
  std::string pump() {
    for (;;) {
      pollfd fds[2] = {{ctx_->fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return std::string("poll: ") + std::strerror(errno);
      }
      if (fds[1].revents != 0) {
        uint64_t count = 0;
        [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof count);
      }
      std::vector<Argv> out;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return "";
        out.swap(outbox_);
      }
      if (!out.empty()) {
        for (const Argv& argv : out) {
          std::vector<size_t> lengths;
          std::vector<const char*> ptrs = arg_pointers(argv, lengths);
          if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(),
                                     lengths.data()) != REDIS_OK) {
            return ctx_->errstr;
          }
        }
        int done = 0;
        while (!done) {
          if (redisBufferWrite(ctx_, &done) != REDIS_OK) return ctx_->errstr;
        }
      }
      if ((fds[0].revents & (POLLIN | POLLERR | POLLHUP)) != 0) {
        if (redisBufferRead(ctx_) != REDIS_OK) return ctx_->errstr;
        for (;;) {
          void* raw = nullptr;
          if (redisGetReplyFromReader(ctx_, &raw) != REDIS_OK) return ctx_->errstr;
          if (raw == nullptr) break;
          ReplyPtr reply(static_cast<redisReply*>(raw));
          dispatch(to_reply(*reply));
        }
      }
    }
  }

  void dispatch(const Reply& push) {
    const auto& parts = push.elements();
    if (!push.is_array() || parts.size() != 3 || !parts[1].is_bulk()) return;
    const std::string& kind = parts[0].str();
    const std::string& channel = parts[1].str();
    std::lock_guard<std::mutex> lock(mu_);
    if (kind == "message") {
      auto it = channels_.find(channel);
      if (it == channels_.end()) return;
      // Under mu_: once unsubscribe() returns, its callback never runs again.
      for (auto& [_, cb] : it->second.callbacks) cb(parts[2].str());
    } else if (kind == "subscribe") {
      auto pending = in_flight_.find(channel);
      if (pending != in_flight_.end() && --pending->second > 0) return;
      if (pending != in_flight_.end()) in_flight_.erase(pending);
      auto it = channels_.find(channel);
      if (it != channels_.end()) it->second.confirmed = true;
      cv_.notify_all();
    }
  }

  const HiredisOptions options_;
  std::function<void(std::string_view)> trace_;
  int wake_fd_ = -1;
  redisContext* ctx_ = nullptr;  // the reader thread's while running_
  std::thread reader_;

  std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::map<std::string, Channel> channels_;
  std::map<SubscriptionId, std::string> channel_of_;
  std::map<std::string, int> in_flight_;  // SUBSCRIBEs sent, not yet confirmed
  std::vector<Argv> outbox_;
  bool running_ = false;
  bool stopping_ = false;
  std::string error_;
};

namespace {

class HiredisEvent final : public Event {
 public:
  explicit HiredisEvent(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}
  void signal() override {
    std::lock_guard<std::mutex> lock(shared_->mu);
    signaled_ = true;
    shared_->cv.notify_all();
  }
  bool wait_for(Micros timeout) override {
    std::unique_lock<std::mutex> lock(shared_->mu);
    shared_->cv.wait_for(lock, bounded(timeout), [&] { return signaled_ || shared_->closed; });
    return std::exchange(signaled_, false);
  }

 private:
  std::shared_ptr<Shared> shared_;
  bool signaled_ = false;  // guarded by shared_->mu
};

std::string random_uuid(std::mt19937_64& rng) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  uint64_t bits = rng();
  int left = 16;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    if (left == 0) {
      bits = rng();
      left = 16;
    }
    out += kHex[bits & 0xf];
    bits >>= 4;
    --left;
  }
  return out;
}

}  // namespace
}  // namespace hiredis_detail

using hiredis_detail::HiredisConnection;
using hiredis_detail::Shared;
using hiredis_detail::Subscriber;

struct HiredisEnv::Impl {
  struct Spawned {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  std::vector<HiredisOptions> servers;
  std::string client_id;
  std::shared_ptr<Shared> shared;  // closing flag + wake-ups, shared with Events
  std::mutex mu;                   // guards everything below
  std::map<std::pair<std::thread::id, size_t>, std::unique_ptr<HiredisConnection>> connections;
  std::vector<std::unique_ptr<Subscriber>> subscribers;  // by server, lazily
  std::map<SubscriptionId, size_t> subscription_server;
  SubscriptionId next_subscription = 1;
  std::vector<Spawned> spawned;
  std::mt19937_64 rng;
};

HiredisEnv::HiredisEnv(HiredisOptions server) : HiredisEnv(std::vector{std::move(server)}) {}

HiredisEnv::HiredisEnv(std::vector<HiredisOptions> servers) : impl_(std::make_unique<Impl>()) {
  if (servers.empty()) throw std::invalid_argument("HiredisEnv needs at least one server");
  impl_->servers = std::move(servers);
  impl_->shared = std::make_shared<Shared>();
  impl_->rng.seed(std::random_device{}());
  impl_->client_id = hiredis_detail::random_uuid(impl_->rng);
  impl_->subscribers.resize(impl_->servers.size());
}

HiredisEnv::~HiredisEnv() {
  close();
  impl_->connections.clear();
}

void HiredisEnv::close() {
  {
    std::lock_guard<std::mutex> lock(impl_->shared->mu);
    impl_->shared->closed = true;
    impl_->shared->cv.notify_all();
  }
  std::vector<Impl::Spawned> spawned;
  std::vector<Subscriber*> subscribers;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    spawned.swap(impl_->spawned);
    for (auto& sub : impl_->subscribers) {
      if (sub) subscribers.push_back(sub.get());
    }
  }
  // Subscribers first: a task blocked in subscribe() returns with ClosedError.
  for (Subscriber* sub : subscribers) sub->stop();
  for (auto& s : spawned) s.thread.join();
}

Connection& HiredisEnv::connection(size_t server) {
  if (server >= impl_->servers.size()) {
    throw std::out_of_range("HiredisEnv::connection: server " + std::to_string(server) + " of " +
                            std::to_string(impl_->servers.size()));
  }
  {
    std::lock_guard<std::mutex> lock(impl_->shared->mu);
    if (impl_->shared->closed) throw ClosedError("HiredisEnv is closed");
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto& slot = impl_->connections[{std::this_thread::get_id(), server}];
  if (!slot) slot = std::make_unique<HiredisConnection>(impl_->servers[server], impl_->shared);
  return *slot;
}

SubscriptionId HiredisEnv::subscribe(const std::string& channel,
                                     std::function<void(const std::string&)> on_message,
                                     size_t server) {
  if (server >= impl_->servers.size()) {
    throw std::out_of_range("HiredisEnv::subscribe: server " + std::to_string(server) + " of " +
                            std::to_string(impl_->servers.size()));
  }
  Subscriber* sub = nullptr;
  SubscriptionId id = 0;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    {
      std::lock_guard<std::mutex> closed_lock(impl_->shared->mu);
      if (impl_->shared->closed) throw ClosedError("HiredisEnv is closed");
    }
    if (!impl_->subscribers[server]) {
      impl_->subscribers[server] = std::make_unique<Subscriber>(
          impl_->servers[server], [this](std::string_view what) { trace(what); });
    }
    sub = impl_->subscribers[server].get();
    id = impl_->next_subscription++;
    impl_->subscription_server[id] = server;
  }
  try {
    sub->subscribe(id, channel, std::move(on_message));
  } catch (...) {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->subscription_server.erase(id);
    throw;
  }
  return id;
}

void HiredisEnv::unsubscribe(SubscriptionId id) {
  Subscriber* sub = nullptr;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->subscription_server.find(id);
    if (it == impl_->subscription_server.end()) return;
    sub = impl_->subscribers[it->second].get();
    impl_->subscription_server.erase(it);
  }
  sub->unsubscribe(id);
}

EnvTime HiredisEnv::now() {
  // The steady clock, converted: EnvClock's epoch is the steady clock's.
  return EnvTime(
      std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now().time_since_epoch()));
}

void HiredisEnv::sleep_for(Micros d) {
  std::unique_lock<std::mutex> lock(impl_->shared->mu);
  impl_->shared->cv.wait_for(lock, hiredis_detail::bounded(d),
                             [&] { return impl_->shared->closed; });
}

std::unique_ptr<Event> HiredisEnv::make_event() {
  return std::make_unique<hiredis_detail::HiredisEvent>(impl_->shared);
}

void HiredisEnv::spawn(std::string name, std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(impl_->shared->mu);
    if (impl_->shared->closed) throw ClosedError("HiredisEnv is closed: cannot spawn " + name);
  }
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([this, name, fn = std::move(fn), done] {
    try {
      fn();
    } catch (const std::exception& e) {
      trace("task '" + name + "' ended by an exception: " + e.what());
    }
    done->store(true);
  });
  std::vector<Impl::Spawned> finished;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    // Reap the tasks that have ended, so a long-lived Env does not grow.
    for (auto it = impl_->spawned.begin(); it != impl_->spawned.end();) {
      if (it->done->load()) {
        finished.push_back(std::move(*it));
        it = impl_->spawned.erase(it);
      } else {
        ++it;
      }
    }
    impl_->spawned.push_back({std::move(thread), std::move(done)});
  }
  for (auto& f : finished) f.thread.join();
}

uint64_t HiredisEnv::task_id() {
  static std::atomic<uint64_t> next{1};
  thread_local const uint64_t id = next.fetch_add(1);
  return id;
}

uint64_t HiredisEnv::random_u64() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->rng();
}

size_t HiredisEnv::server_count() const { return impl_->servers.size(); }

std::string HiredisEnv::client_id() { return impl_->client_id; }

const HiredisOptions& HiredisEnv::options(size_t server) const { return impl_->servers.at(server); }

void HiredisEnv::trace(std::string_view what) {
  if (tracer) tracer(what);
}

}  // namespace redsim::lock
