#include <gpuctl/exec/executor.hpp>

#include <gpuctl/util/open_files.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <exception>
#include <mutex>
#include <pthread.h>
#include <thread>

namespace gpuctl::exec {

std::string_view to_string(NodeStatus status) {
  switch (status) {
    case NodeStatus::ok: return "ok";
    case NodeStatus::changed: return "changed";
    case NodeStatus::failed: return "failed";
    case NodeStatus::unreachable: return "unreachable";
    case NodeStatus::skipped: return "skipped";
  }
  return "unknown";
}

int effective_forks(int requested, std::size_t node_count) {
  long limit = std::max(requested, 1);
  limit = std::min<long>(limit, std::max<long>(1, util::open_file_limit() / 4));
  limit = std::min<long>(limit, static_cast<long>(std::max<std::size_t>(node_count, 1)));
  return static_cast<int>(limit);
}

namespace {

void block_interrupts_in_this_thread() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace

std::vector<NodeOutcome> run_on_nodes(std::span<const Node* const> nodes, const NodeTask& task,
                                      const ExecutorOptions& options) {
  std::vector<NodeOutcome> outcomes(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) outcomes[i].node = nodes[i]->name;

  std::mutex report_mutex;
  const auto report = [&](std::size_t index) {
    if (!options.on_node_done) return;
    std::lock_guard lock(report_mutex);
    options.on_node_done(index, outcomes[index]);
  };
  const auto cancelled = [&] { return options.cancel != nullptr && options.cancel->cancelled(); };

  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    block_interrupts_in_this_thread();
    while (true) {
      if (cancelled()) return;
      const std::size_t index = next.fetch_add(1);
      if (index >= nodes.size()) return;
      NodeOutcome& outcome = outcomes[index];
      const auto start = std::chrono::steady_clock::now();
      try {
        TaskResult result = task(index, *nodes[index]);
        outcome.status = result.status;
        outcome.reason = std::move(result.reason);
      } catch (const std::exception& e) {
        outcome.status = NodeStatus::failed;
        outcome.reason = std::string("internal error: ") + e.what();
      } catch (...) {
        outcome.status = NodeStatus::failed;
        outcome.reason = "internal error: unknown exception";
      }
      outcome.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - start);
      report(index);
    }
  };

  const int workers = effective_forks(options.forks, nodes.size());
  {
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers && !nodes.empty(); ++i) threads.emplace_back(worker);
  }  // joined here

  // Nodes no worker claimed: only possible after cancellation. `next` may have run past the
  // end; every index at or beyond min(next, size) was never started.
  const std::size_t started = std::min(next.load(), nodes.size());
  for (std::size_t i = started; i < nodes.size(); ++i) {
    outcomes[i].status = NodeStatus::skipped;
    outcomes[i].reason = "interrupted before it started";
    report(i);
  }
  return outcomes;
}

}  // namespace gpuctl::exec
