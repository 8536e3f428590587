#include "sim/world/fiber.h"

#include <boost/context/fiber.hpp>
#include <boost/context/fixedsize_stack.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

namespace ctx = boost::context;

#if defined(BOOST_USE_UCONTEXT)
// Debian's libboost_context is built for fcontext and does not contain the
// ucontext flavour's one out-of-line function: the per-thread pointer to the
// running activation record, which starts as a record for the thread's own
// (main) context. Defined here for the sanitizer build.
namespace boost::context::detail {
namespace {
thread_local std::unique_ptr<fiber_activation_record> main_record;
thread_local fiber_activation_record* current_record = nullptr;
}  // namespace

fiber_activation_record*& fiber_activation_record::current() noexcept {
  if (current_record == nullptr) {
    main_record = std::make_unique<fiber_activation_record>();
    current_record = main_record.get();
  }
  return current_record;
}
}  // namespace boost::context::detail
#endif

namespace redsim::world {

namespace {
// A finished fiber's last frames never return, so their ASan redzones stay
// poisoned in the shadow of its stack. Heap stacks get that shadow reset by
// ASan's allocator when the block is freed and reused; an mmap'd stack with a
// guard page gives no such guarantee. So: guard pages normally (a stack
// overflow faults at once), heap stacks under ASan (which watches them).
//
// Outside ASan the stacks are also reused: a world starts a task for every
// detached call (the unlock latch's DEL: 160 tasks in an 8-client
// SimSpeed world), and each fresh stack cost an mmap, an mprotect, a munmap
// and a page fault on its first touch, a fifth of that world's CPU time
// in the kernel. A finished fiber's stack waits in its thread's pool
// (PooledStack) for the next fiber of the same size; at most kKeptStacks
// wait, the rest are unmapped as before. A stack's old contents are
// never read: a fiber's frames are written before they are used.
#if !defined(BOOST_USE_ASAN)
constexpr size_t kKeptStacks = 64;
struct KeptStack {
  size_t bytes;  // the size asked for (protected_fixedsize_stack's argument)
  ctx::stack_context stack;
};
// Trivially destructible, so they stay readable while the thread's other
// thread_locals are destroyed (a World in one of them frees its fibers late).
thread_local KeptStack kept_stacks[kKeptStacks];
thread_local size_t kept_count = 0;
thread_local bool kept_closed = false;
// Unmaps the kept stacks when the thread ends; a stack freed after that is
// unmapped at once.
struct KeptStacksRelease {
  ~KeptStacksRelease() {
    for (size_t i = 0; i < kept_count; ++i) {
      ctx::protected_fixedsize_stack(kept_stacks[i].bytes).deallocate(kept_stacks[i].stack);
    }
    kept_count = 0;
    kept_closed = true;
  }
};
class PooledStack {
 public:
  // `low`: set to the lowest usable byte of the stack allocate() gives.
  PooledStack(size_t bytes, char** low) : bytes_(bytes), low_(low) {}
  ctx::stack_context allocate() {
    const ctx::stack_context stack = take();
    // protected_fixedsize_stack's guard page is the block's lowest page.
    *low_ = static_cast<char*>(stack.sp) - stack.size + ctx::stack_traits::page_size();
    return stack;
  }
  ctx::stack_context take() {
    for (size_t i = kept_count; i-- > 0;) {
      if (kept_stacks[i].bytes != bytes_) continue;
      const ctx::stack_context stack = kept_stacks[i].stack;
      kept_stacks[i] = kept_stacks[--kept_count];
      return stack;
    }
    return ctx::protected_fixedsize_stack(bytes_).allocate();
  }
  void deallocate(ctx::stack_context& stack) noexcept {
    if (kept_closed || kept_count == kKeptStacks) {
      ctx::protected_fixedsize_stack(bytes_).deallocate(stack);
      return;
    }
    thread_local KeptStacksRelease release;  // constructed (and registered) on first use
    kept_stacks[kept_count++] = KeptStack{bytes_, stack};
  }

 private:
  size_t bytes_;
  char** low_;
};
PooledStack make_stack(size_t bytes, char** low) { return PooledStack(bytes, low); }
#else
ctx::fixedsize_stack make_stack(size_t bytes, char** /*low: not known*/) {
  return ctx::fixedsize_stack(bytes);
}
#endif

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "redsim fiber: %s\n", what);
  std::abort();
}
}  // namespace

struct Fiber::Impl {
  std::function<void()> body;
  size_t stack_bytes;
  ctx::fiber self;    // the suspended body; held by the resumer
  ctx::fiber caller;  // resume()'s caller; held by the body while it runs
  bool started = false;
  bool done = false;
  bool unwinding = false;
  std::exception_ptr error;
  char* stack_low = nullptr;  // the stack's lowest usable byte (null: not known)
};

Fiber::Fiber(std::function<void()> body, size_t stack_bytes) : impl_(std::make_unique<Impl>()) {
  impl_->body = std::move(body);
  impl_->stack_bytes = stack_bytes;
}

Fiber::~Fiber() {
  if (impl_->started && !impl_->done) {
    impl_->unwinding = true;
    // Destroying the suspended boost fiber resumes it with forced_unwind
    // thrown from its pending suspend(); it returns here once unwound.
    ctx::fiber doomed = std::move(impl_->self);
  }
}

void Fiber::resume() {
  Impl* impl = impl_.get();
  if (impl->done) die("resume() of a finished fiber");
  if (!impl->started) {
    impl->started = true;
    impl->self = ctx::fiber(std::allocator_arg, make_stack(impl->stack_bytes, &impl->stack_low),
                            [impl](ctx::fiber&& caller) -> ctx::fiber {
                              impl->caller = std::move(caller);
                              try {
                                impl->body();
                              } catch (const ctx::detail::forced_unwind&) {
                                throw;  // Boost finishes the unwind
                              } catch (...) {
                                impl->error = std::current_exception();
                              }
                              if (impl->unwinding) {
                                die("a fiber body swallowed boost::context forced_unwind "
                                    "(catch (...) without rethrow)");
                              }
                              impl->done = true;
                              return std::move(impl->caller);
                            });
  }
  impl->self = std::move(impl->self).resume();
  if (impl->error) {
    std::exception_ptr error = std::exchange(impl->error, nullptr);
    std::rethrow_exception(error);
  }
}

void Fiber::suspend() {
  if (impl_->unwinding) {
    die("a fiber tried to suspend while being unwound (forced_unwind swallowed?)");
  }
  impl_->caller = std::move(impl_->caller).resume();
}

bool Fiber::started() const { return impl_->started; }
bool Fiber::done() const { return impl_->done; }

size_t Fiber::stack_left() const {
  const char* frame = static_cast<const char*>(__builtin_frame_address(0));
  const char* low = impl_->stack_low;
  return low != nullptr && frame > low ? static_cast<size_t>(frame - low) : 0;
}

}  // namespace redsim::world
