// The live view: a block of lines at the bottom of the terminal, redrawn in place. Events
// only update state under a mutex; a drawing thread repaints at most every 100 ms, so a
// thousand nodes finishing at once cost one repaint, not a thousand.
#include "progress.hpp"

#include <gpuctl/api/run_request.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <sys/ioctl.h>
#include <thread>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto k_frame = std::chrono::milliseconds(100);

std::string format_elapsed(Clock::duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 60) return fmt::format("{:.1f}s", std::chrono::duration<double>(d).count());
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

class LiveHooks : public RunHooks {
 public:
  LiveHooks(int verbosity, bool color, int fd)
      : m_verbosity(verbosity), m_color(color), m_fd(fd), m_thread([this] { draw_loop(); }) {}

  ~LiveHooks() override {
    {
      const std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    const std::lock_guard lock(m_mutex);
    erase();
    flush();
  }

  void on_phase_start(std::string_view phase, std::size_t node_count) override {
    const std::lock_guard lock(m_mutex);
    m_phase = phase;
    m_total = node_count;
    m_done = m_failed = m_unreachable = m_changed = 0;
    m_active.clear();
    m_phase_start = Clock::now();
    m_running = node_count > 0;
  }
  void on_node_start(const std::string& node, std::string_view /*phase*/) override {
    const std::lock_guard lock(m_mutex);
    m_active[node] = Active{"connecting, gathering state", Clock::now(), Clock::now(), {}};
  }
  void on_step_start(const std::string& node, const std::string& step) override {
    const std::lock_guard lock(m_mutex);
    auto& a = m_active[node];
    a.step = step;
    a.step_start = Clock::now();
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds took) override {
    if (m_verbosity >= 1 || !ok)
      above(node, fmt::format("  {} {} {} ({:.1f}s)", action_symbol(change.action), change.summary, ok ? "done" : "FAILED",
                              took.count() / 1000.0), !ok);
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds took) override {
    if (m_verbosity >= 1 || status == StepStatus::failed)
      above(node, fmt::format("{} {} ({:.1f}s)", step, to_string(status), took.count() / 1000.0),
            status == StepStatus::failed);
  }
  void on_probe_done(const std::string& node, std::string_view phase, std::chrono::milliseconds took) override {
    if (m_verbosity >= 1) above(node, fmt::format("probed for {} in {} ms (one round trip)", phase, took.count()), false);
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds took,
                  const std::string& /*output*/) override {
    if (m_verbosity >= 2)
      above(node, fmt::format("    $ {} -> {} ({} ms)", command.substr(0, command.find('\n')), exit_code, took.count()));
  }
  void on_message(const std::string& node, const std::string& text) override {
    {
      const std::lock_guard lock(m_mutex);
      if (auto it = m_active.find(node); it != m_active.end()) it->second.note = text;
    }
    above(node, text);
  }
  void on_node_done(const exec::NodeOutcome& outcome) override {
    const bool bad = outcome.status == exec::NodeStatus::failed || outcome.status == exec::NodeStatus::unreachable;
    {
      const std::lock_guard lock(m_mutex);
      m_active.erase(outcome.node);
      ++m_done;
      m_failed += outcome.status == exec::NodeStatus::failed;
      m_unreachable += outcome.status == exec::NodeStatus::unreachable;
      m_changed += outcome.status == exec::NodeStatus::changed;
    }
    if (bad)
      above(outcome.node, fmt::format("{}{}", exec::to_string(outcome.status),
                                      outcome.reason.empty() ? "" : ": " + outcome.reason), true);
    const std::lock_guard lock(m_mutex);
    if (m_done >= m_total && m_running) {
      // The phase is over: leave one summary line and give the terminal back (apply's
      // confirmation prompt and the reports follow on the same terminal).
      m_running = false;
      erase();
      m_out += fmt::format("{}: {} nodes in {}: {} failed, {} unreachable{}\n", m_phase, m_total,
                           format_elapsed(Clock::now() - m_phase_start), m_failed, m_unreachable,
                           m_phase == "apply" ? fmt::format(", {} changed", m_changed) : "");
      flush();
    }
  }

 private:
  struct Active {
    std::string step;
    Clock::time_point node_start;
    Clock::time_point step_start;
    std::string note;
  };

  // Prints a line above the live block: erase the block, print, let the next frame redraw it.
  void above(const std::string& node, const std::string& text, bool bad = false) {
    const auto line = progress_line(node, text);
    const std::lock_guard lock(m_mutex);
    erase();
    m_out += bad && m_color ? fmt::format("\x1b[31m{}\x1b[0m\n", line) : line + "\n";
    if (m_running) draw();
    flush();
  }

  void draw_loop() {
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
      m_wake.wait_for(lock, k_frame);
      if (m_stop || !m_running) continue;
      erase();
      draw();
      flush();
    }
  }

  std::pair<int, int> terminal_size() const {
    winsize ws{};
    if (::ioctl(m_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) return {ws.ws_row, ws.ws_col};
    return {24, 80};
  }

  // Appends the block to m_out; the cursor ends at the start of the line below it.
  void draw() {
    const auto [rows, cols] = terminal_size();
    const auto now = Clock::now();
    std::vector<std::string> lines;
    lines.push_back(fmt::format("{} {}/{} nodes done, {} failed, {} unreachable, {} running  {}", m_phase, m_done, m_total,
                                m_failed, m_unreachable, m_active.size(), format_elapsed(now - m_phase_start)));
    // The nodes that have been busy longest first: they are the ones an operator looks for.
    std::vector<std::pair<std::string, const Active*>> active;
    for (const auto& [node, a] : m_active) active.emplace_back(node, &a);
    std::ranges::sort(active, [](const auto& l, const auto& r) { return l.second->node_start < r.second->node_start; });
    std::size_t width = 4;
    for (const auto& [node, a] : active) width = std::max(width, node.size());
    const std::size_t room = static_cast<std::size_t>(std::max(1, std::min(rows - 2, 30) - 1));
    for (std::size_t i = 0; i < active.size() && i < room; ++i) {
      const auto& [node, a] = active[i];
      if (i + 1 == room && active.size() > room) {
        lines.push_back(fmt::format("  ... and {} more nodes", active.size() - i));
        break;
      }
      lines.push_back(fmt::format("  {:<{}}  {}  {}{}", node, width, a->step, format_elapsed(now - a->step_start),
                                  a->note.empty() ? "" : "  (" + a->note + ")"));
    }
    for (auto& line : lines) {
      if (line.size() >= static_cast<std::size_t>(cols)) line.resize(static_cast<std::size_t>(cols - 1));
    }
    m_out += m_color ? fmt::format("\x1b[1m{}\x1b[0m\n", lines.front()) : lines.front() + "\n";
    for (std::size_t i = 1; i < lines.size(); ++i) m_out += lines[i] + "\n";
    m_drawn = static_cast<int>(lines.size());
  }

  void erase() {
    if (m_drawn > 0) m_out += fmt::format("\x1b[{}F\x1b[J", m_drawn);
    m_drawn = 0;
  }

  void flush() {
    std::size_t at = 0;
    while (at < m_out.size()) {
      const auto n = ::write(m_fd, m_out.data() + at, m_out.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    m_out.clear();
  }

  int m_verbosity;
  bool m_color;
  int m_fd;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_running = false;
  std::string m_phase;
  std::size_t m_total = 0, m_done = 0, m_failed = 0, m_unreachable = 0, m_changed = 0;
  Clock::time_point m_phase_start = Clock::now();
  std::map<std::string, Active> m_active;
  int m_drawn = 0;
  std::string m_out;
  std::thread m_thread;  // last: starts after every member it reads is constructed
};

}  // namespace

std::unique_ptr<RunHooks> make_live_hooks(int verbosity, bool color, int fd) {
  return std::make_unique<LiveHooks>(verbosity, color, fd);
}

}  // namespace gpuctl::cli
