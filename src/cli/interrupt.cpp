#include "interrupt.hpp"

#include <atomic>
#include <csignal>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

util::CancellationToken* g_token = nullptr;
std::atomic<int> g_interrupts{0};

void on_interrupt(int) {
  // Only async-signal-safe calls here: write(2), _exit(2), lock-free atomics.
  if (g_interrupts.fetch_add(1) > 0) {
    constexpr char k_message[] = "\ngpuctl: interrupted again, exiting now\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, k_message, sizeof k_message - 1);
    ::_exit(130);
  }
  if (g_token != nullptr) g_token->cancel();
  constexpr char k_message[] =
      "\ngpuctl: interrupted: no new nodes will start; waiting for in-flight nodes (Ctrl-C again to abort)\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, k_message, sizeof k_message - 1);
}

}  // namespace

void install_interrupt_handler(util::CancellationToken& token) {
  g_token = &token;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

}  // namespace gpuctl::cli
