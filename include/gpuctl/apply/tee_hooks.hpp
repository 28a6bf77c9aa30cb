#pragma once
// Hands every RunHooks event to several listeners, in the order they were added: e.g. the
// CLI's progress display, the run log and the run recorder. No I/O of its own; thread-safety
// is that of the listeners.

#include <gpuctl/apply/hooks.hpp>
#include <gpuctl/exec/executor.hpp>

#include <memory>
#include <vector>

namespace gpuctl {

class TeeHooks : public RunHooks {
 public:
  // A listener this tee owns.
  void add(std::unique_ptr<RunHooks> part) {
    m_parts.push_back(part.get());
    m_owned.push_back(std::move(part));
  }
  // A listener owned elsewhere; it must outlive this tee.
  void add_borrowed(RunHooks& part) { m_parts.push_back(&part); }
  bool empty() const { return m_parts.empty(); }

  void on_phase_start(std::string_view phase, std::size_t node_count) override {
    for (auto* p : m_parts) p->on_phase_start(phase, node_count);
  }
  void on_node_start(const std::string& node, std::string_view phase) override {
    for (auto* p : m_parts) p->on_node_start(node, phase);
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    for (auto* p : m_parts) p->on_step_start(node, step);
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds took) override {
    for (auto* p : m_parts) p->on_change_done(node, change, ok, took);
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds took) override {
    for (auto* p : m_parts) p->on_step_done(node, step, status, took);
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds took,
                  const std::string& output) override {
    for (auto* p : m_parts) p->on_command(node, command, exit_code, took, output);
  }
  void on_message(const std::string& node, const std::string& text) override {
    for (auto* p : m_parts) p->on_message(node, text);
  }
  void on_probe_done(const std::string& node, std::string_view phase, std::chrono::milliseconds took) override {
    for (auto* p : m_parts) p->on_probe_done(node, phase, took);
  }
  void on_checks_done(const std::string& node, const std::vector<CheckResult>& checks) override {
    for (auto* p : m_parts) p->on_checks_done(node, checks);
  }
  void on_node_done(const exec::NodeOutcome& outcome) override {
    for (auto* p : m_parts) p->on_node_done(outcome);
  }

 private:
  std::vector<RunHooks*> m_parts;
  std::vector<std::unique_ptr<RunHooks>> m_owned;
};

}  // namespace gpuctl
