// Executes one node's plan. Every change goes through the node's one reused Transport.
#include <gpuctl/apply/apply.hpp>

#include "change_commands.hpp"

#include <gpuctl/apply/reboot.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <set>

namespace gpuctl {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

// The outcome of one change: an error (with output and hint) or success.
struct ChangeFailure {
  std::string error;
  std::string output;
};

class NodeApplier {
 public:
  NodeApplier(exec::TransportPool& pool, const Node& node, const NodeProgram& program, const ApplyOptions& options,
              RunHooks& hooks)
      : m_pool(pool), m_node(node), m_program(program), m_options(options), m_hooks(hooks) {}

  NodeApplyResult run(const NodePlan& plan) {
    NodeApplyResult result;
    result.node = m_node.name;
    for (std::size_t s = 0; s < m_program.steps.size(); ++s) {
      const auto& step_name = m_program.steps[s].step->name;
      std::vector<const Change*> changes;
      for (const auto& change : plan.changes)
        if (change.step_index == s) changes.push_back(&change);
      if (changes.empty()) {
        result.steps.push_back({step_name, StepStatus::ok, milliseconds(0)});
        continue;
      }
      const auto started = Clock::now();
      m_hooks.on_step_start(m_node.name, step_name);
      std::optional<ChangeFailure> failure;
      for (const auto* change : changes) {
        const auto change_started = Clock::now();
        failure = execute(*change);
        m_hooks.on_change_done(m_node.name, *change, !failure,
                               duration_cast<milliseconds>(Clock::now() - change_started));
        if (failure) break;
      }
      const auto took = duration_cast<milliseconds>(Clock::now() - started);
      if (failure) {
        result.failed = true;
        result.failed_step = step_name;
        result.error = failure->error;
        result.output_tail = util::tail_lines(failure->output, 15);
        result.hint = failure_hint(failure->output + failure->error);
        result.steps.push_back({step_name, StepStatus::failed, took});
        m_hooks.on_step_done(m_node.name, step_name, StepStatus::failed, took);
        // The remaining steps never ran: say so rather than leave them out.
        for (std::size_t rest = s + 1; rest < m_program.steps.size(); ++rest)
          result.steps.push_back({m_program.steps[rest].step->name, StepStatus::skipped, milliseconds(0)});
        return result;
      }
      result.changed = true;
      result.steps.push_back({step_name, StepStatus::changed, took});
      m_hooks.on_step_done(m_node.name, step_name, StepStatus::changed, took);
    }
    return result;
  }

 private:
  Result<Transport*> transport() { return m_pool.get(m_node); }

  std::optional<ChangeFailure> run_command(const std::string& command, const std::string& shown) {
    auto t = transport();
    if (!t) return ChangeFailure{t.error().to_string(), {}};
    CommandOptions options;
    options.timeout = std::chrono::seconds(m_node.connection.command_timeout_s);
    options.become = m_node.connection.become;
    auto result = (*t)->run(command, options);
    if (!result) return ChangeFailure{result.error().to_string(), {}};
    const auto output = result->out + result->err;
    m_hooks.on_command(m_node.name, shown, result->exit_code, result->duration, output);
    if (!result->ok()) return ChangeFailure{fmt::format("`{}` exited {}", shown, result->exit_code), output};
    return std::nullopt;
  }

  std::optional<ChangeFailure> execute(const Change& change) {
    const auto& step = m_program.steps[change.step_index];
    if (change.action == Action::reboot) return reboot_and_wait();
    if (change.resource.starts_with("handler:")) {
      const auto* handler = step.playbook->find_handler(change.resource.substr(8));
      if (!handler) return ChangeFailure{fmt::format("unknown handler {}", change.resource), {}};
      const auto command = handler->service.empty() ? handler->run : apply_detail::restart_service_command(handler->service);
      return run_command(command, command);
    }
    if (change.resource_index >= step.resources.size())
      return ChangeFailure{fmt::format("the plan names resource {} of step '{}', which has {}", change.resource_index,
                                       step.step->name, step.resources.size()),
                           {}};
    const auto& resolved = step.resources[change.resource_index];
    const auto& r = resolved.resource;
    switch (r.kind) {
      case ResourceKind::file: {
        auto t = transport();
        if (!t) return ChangeFailure{t.error().to_string(), {}};
        WriteOptions options{r.file.mode, r.file.owner, r.file.group, m_node.connection.become};
        const auto started = Clock::now();
        auto written = (*t)->write_file(r.file.path, resolved.content, options);
        m_hooks.on_command(m_node.name, fmt::format("write {} ({:04o} {}:{}{})", r.file.path, r.file.mode, r.file.owner,
                                                    r.file.group, resolved.secret ? ", secret" : ""),
                           written ? 0 : 1, duration_cast<milliseconds>(Clock::now() - started),
                           written ? "" : written.error().to_string());
        if (!written) return ChangeFailure{written.error().to_string(), {}};
        return std::nullopt;
      }
      case ResourceKind::package: {
        const auto command = r.package.state == PackageState::absent ? apply_detail::package_remove_command(r.package)
                                                                     : apply_detail::package_install_command(r.package);
        return run_command(command, change.summary);
      }
      case ResourceKind::service: return run_command(apply_detail::service_command(r.service), change.summary);
      case ResourceKind::command: return run_command(r.command.run, r.command.run);
    }
    return ChangeFailure{"unknown resource kind", {}};
  }

  std::optional<ChangeFailure> reboot_and_wait() {
    auto t = transport();
    if (!t) return ChangeFailure{"cannot read boot_id before the reboot: " + t.error().to_string(), {}};
    auto before = read_boot_id(**t);
    if (!before) return ChangeFailure{"cannot read boot_id before the reboot: " + before.error().to_string(), {}};
    if (auto failed = run_command(reboot_command(), "systemctl reboot")) return failed;
    m_hooks.on_message(m_node.name, "rebooting; waiting for a new boot_id");
    const NodeConnection connection{[this] { return transport(); }, [this] { m_pool.close(m_node.name); }};
    if (auto back = wait_for_new_boot(connection, *before, m_options.reboot_timeout, m_options.reboot_poll); !back)
      return ChangeFailure{back.error().message, {}};
    return std::nullopt;
  }

  exec::TransportPool& m_pool;
  const Node& m_node;
  const NodeProgram& m_program;
  const ApplyOptions& m_options;
  RunHooks& m_hooks;
};

}  // namespace

std::string_view to_string(StepStatus status) {
  switch (status) {
    case StepStatus::ok: return "ok";
    case StepStatus::changed: return "changed";
    case StepStatus::failed: return "failed";
    case StepStatus::skipped: return "skipped";
  }
  return "unknown";
}

NodeApplyResult apply_node(exec::TransportPool& pool, const Node& node, const NodeProgram& program,
                           const NodePlan& plan, const ApplyOptions& options, RunHooks& hooks) {
  return NodeApplier(pool, node, program, options, hooks).run(plan);
}

}  // namespace gpuctl
