#pragma once
// Fans every RunHooks event out to two listeners, in order: the CLI's progress display (owned)
// and another one such as the run recorder (borrowed; must outlive this). No I/O of its own;
// thread-safety is that of the listeners.

#include <gpuctl/apply/hooks.hpp>

#include <memory>

namespace gpuctl {

class CompositeHooks : public RunHooks {
 public:
  CompositeHooks(std::unique_ptr<RunHooks> first, RunHooks& second)
      : m_first(std::move(first)), m_second(second) {}

  void on_node_start(const std::string& node, std::string_view phase) override {
    m_first->on_node_start(node, phase);
    m_second.on_node_start(node, phase);
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    m_first->on_step_start(node, step);
    m_second.on_step_start(node, step);
  }
  void on_change_done(const std::string& node, const Change& change, bool ok,
                      std::chrono::milliseconds duration) override {
    m_first->on_change_done(node, change, ok, duration);
    m_second.on_change_done(node, change, ok, duration);
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds duration) override {
    m_first->on_step_done(node, step, status, duration);
    m_second.on_step_done(node, step, status, duration);
  }
  void on_command(const std::string& node, const std::string& command, int exit_code,
                  std::chrono::milliseconds duration, const std::string& output) override {
    m_first->on_command(node, command, exit_code, duration, output);
    m_second.on_command(node, command, exit_code, duration, output);
  }
  void on_message(const std::string& node, const std::string& text) override {
    m_first->on_message(node, text);
    m_second.on_message(node, text);
  }

 private:
  std::unique_ptr<RunHooks> m_first;
  RunHooks& m_second;
};

}  // namespace gpuctl
