// The exceptions lock code throws, split by layer as redis-plus-plus does.
// A Redis error reply is not among them: it is a resp::Reply of kind kError,
// and lock code turns an unexpected one into UnexpectedReply.
//
//   try { lock.lock(); }
//   catch (const lock::ConnectionError&) { ... }   // transport failed
//
// Unlocking throws none of them: unlock() is BasicLockable's (throws
// nothing) and release() returns a lock::UnlockError (lock/lock.h).
#pragma once

#include <stdexcept>
#include <string>

namespace redsim::lock {

// Base of everything redsim's lock layer throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Transport failures. The connection that raised one is broken and is not
// reused; the reply to the command in flight is unknown (it may have run).
class ConnectionError : public Error {
 public:
  using Error::Error;
};
class IoError : public ConnectionError {  // the connection broke (reset, refused, lost)
 public:
  using ConnectionError::ConnectionError;
};
class TimeoutError : public ConnectionError {  // no reply within the command timeout
 public:
  using ConnectionError::ConnectionError;
};
class ClosedError : public ConnectionError {  // used after close, or the process is gone
 public:
  using ConnectionError::ConnectionError;
};
class ProtocolError : public ConnectionError {  // bytes that are not RESP
 public:
  using ConnectionError::ConnectionError;
};

// Redis answered with an error, or with a shape the lock script never returns.
class UnexpectedReply : public Error {
 public:
  using Error::Error;
};

// PermitExpirableSemaphore::release() of a permit not held (Redisson: "Permit
// with id ... has already been released or doesn't exist"). Locks report a
// release by a non-holder as UnlockError::Reason::kNotHeld instead.
class LockNotOwned : public Error {
 public:
  using Error::Error;
};

}  // namespace redsim::lock
