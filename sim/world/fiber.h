// Fiber: one stackful coroutine, the body of a simulated task. A thin shell
// over boost::context::fiber that keeps Boost out of every other header (the
// sanitizer build compiles Boost.Context in its ucontext flavour, and that
// choice must not leak into other translation units).
//
//   world::Fiber f([&] { step = 1; f.suspend(); step = 2; });
//   f.resume();   // runs until suspend(): step == 1
//   f.resume();   // runs to the end:      step == 2, f.done()
//
// Only the scheduler calls resume(), from outside any fiber; only the body
// calls suspend(). Destroying a suspended fiber unwinds its stack: Boost
// throws its forced_unwind exception out of the pending suspend(), so every
// destructor on the fiber's stack runs. Code on a fiber must therefore never
// swallow that exception: `catch (...)` must rethrow. A body that returns (or
// suspends) while being unwound is a program error and aborts with a message.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace redsim::world {

class Fiber {
 public:
  static constexpr size_t kDefaultStackBytes = 256 * 1024;

  // The body does not run until the first resume(); a fiber destroyed before
  // that never runs it at all.
  explicit Fiber(std::function<void()> body, size_t stack_bytes = kDefaultStackBytes);
  // Unwinds the body's stack if it started and has not finished.
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the body until it calls suspend() or returns. An exception that
  // escapes the body is rethrown here, in the caller's context (the fiber is
  // then done). Precondition: !done(), not called from inside this fiber.
  void resume();
  // Called by the body only: returns control to resume()'s caller.
  void suspend();

  bool started() const;
  bool done() const;
  // Called by the body only: about how many bytes of its stack are left
  // below the caller's frame (the guard page not counted); 0 when not
  // known (the sanitizer build's stacks).
  size_t stack_left() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redsim::world
