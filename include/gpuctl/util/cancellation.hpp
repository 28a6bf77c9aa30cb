#pragma once
// A process-wide "please stop" flag. The CLI's SIGINT handler sets it; long-running library
// loops (the executor) read it and stop starting new work. Lock-free, so setting it from a
// signal handler is safe. No I/O.

#include <atomic>

namespace gpuctl::util {

class CancellationToken {
 public:
  // Async-signal-safe.
  void cancel() noexcept { m_cancelled.store(true, std::memory_order_relaxed); }
  bool cancelled() const noexcept { return m_cancelled.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> m_cancelled{false};
  static_assert(std::atomic<bool>::is_always_lock_free);
};

}  // namespace gpuctl::util
