// verify's slurm_pyxis (docs/containers.md#slurm-enroot-and-pyxis): containers in Slurm jobs.
// enroot and pyxis (nvslurm-plugin-pyxis) from the site's repository are installed, and Slurm's
// own srun loads the plugin stack with pyxis in it: `srun --help` offers --container-image. A
// pyxis built against another Slurm is the failure this catches: Slurm refuses to load it
// ("Dlopen of plugin file failed", "Failed to load plugin ... Aborting.") and, with a `required`
// line, slurmd refuses to start.
#include "check_result.hpp"

#include <gpuctl/facts/containers.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace gpuctl::verify_detail {
namespace {

// The packages of NVIDIA's own Debian packaging (NVIDIA/enroot pkg/deb/control,
// NVIDIA/pyxis debian/control), as the slurm-containers step installs them.
constexpr std::array<std::string_view, 2> k_packages{"enroot", "nvslurm-plugin-pyxis"};
constexpr std::string_view k_expected = "enroot and nvslurm-plugin-pyxis installed; srun --help offers pyxis's --container-image";

CheckResult slurm_pyxis(const CheckInput& in) {
  if (!in.node.containers) return skipped("the node declares no containers");
  if (!in.inventory.cluster.slurm.enabled) return skipped("Slurm is not enabled");
  if (in.inventory.cluster.containers.slurm_repository_url.empty())
    return skipped("no containers.slurm_repository: enroot and pyxis are not installed (the plan says so)");
  const std::string expected(k_expected);
  std::vector<std::string> versions;
  for (const auto name : k_packages) {
    const auto it = in.state.packages.find(std::string(name));
    if (it == in.state.packages.end()) return cannot_run(fmt::format("the state probe did not ask dpkg for {}", name));
    if (!it->second.installed)
      return failed(fmt::format("{} not installed", name), expected,
                    "gpuctl apply installs it from containers.slurm_repository (the slurm-containers step)");
    versions.push_back(fmt::format("{} {}", name, it->second.version));
  }
  const auto stack = in.state.facts.declared.get(facts::k_container_stack);
  if (!stack.present()) return cannot_run(absent_reason(stack, "the container stack"));
  const auto& pyxis = stack.value->pyxis;
  const auto installed = util::join(versions, ", ");
  if (!pyxis.package_conf)
    return failed(installed + "; no /usr/share/pyxis/pyxis.conf", expected,
                  "this nvslurm-plugin-pyxis is not pyxis's own packaging (make deb): it must ship /usr/share/pyxis/pyxis.conf");
  if (!pyxis.enroot_found)
    return failed(installed + "; enroot is not on the PATH", expected, "reinstall enroot: pyxis runs every container through it");
  if (!pyxis.srun_section_seen) return cannot_run("the probe did not reach srun --help");
  if (!pyxis.srun_no_answer.empty()) return cannot_run(fmt::format("{}: cannot see whether Slurm loads pyxis", pyxis.srun_no_answer));
  const auto seen = fmt::format("{}; enroot {}", installed, pyxis.enroot_version);
  // pyxis's own words ("pyxis: unknown configuration option: ...", "pyxis: container_scope:
  // invalid value: ...") are the cause when its init refused its plugstack arguments.
  const auto pyxis_error = std::ranges::find_if(pyxis.srun_errors, [](const std::string& line) {
    return line.find("error: pyxis: ") != std::string::npos;
  });
  // Those and Slurm's errors about its plugin stack ("plugin_load_from_file: dlopen(...)",
  // "spank: ...", "Plug-in initialization failed") are pyxis's; any other (an unreadable
  // slurm.conf) leaves pyxis unjudged.
  const auto plugin_error = std::ranges::find_if(pyxis.srun_errors, [](const std::string& line) {
    return line.find("plugin") != std::string::npos || line.find("Plug-in") != std::string::npos ||
           line.find("spank") != std::string::npos || line.find("error: pyxis: ") != std::string::npos;
  });
  if (plugin_error == pyxis.srun_errors.end() && !pyxis.srun_errors.empty())
    return cannot_run(fmt::format("srun --help failed before its plugins: {}", pyxis.srun_errors.back()));
  if (pyxis_error != pyxis.srun_errors.end() ||
      (plugin_error != pyxis.srun_errors.end() && plugin_error->find("init() failed") != std::string::npos))
    return failed(fmt::format("{}; {}", seen, pyxis_error != pyxis.srun_errors.end() ? *pyxis_error : *plugin_error), expected,
                  "pyxis loaded but its init failed, most often on an argument of its plugstack line it does not know "
                  "(/etc/slurm/plugstack.conf.d/pyxis.conf), and slurmd with it refuses to start: correct containers.pyxis, "
                  "or publish a pyxis that knows the argument "
                  "(pyxis's wiki, Setup, lists them) in containers.slurm_repository; gpuctl apply rewrites the line");
  if (plugin_error != pyxis.srun_errors.end())
    // The first such line is the cause (dlopen's reason: "undefined symbol: ...", "invalid ELF
    // header"); the rest say that the stack failed.
    return failed(fmt::format("{}; {}", seen, *plugin_error), expected,
                  fmt::format("Slurm cannot load its plugin stack ({}): a pyxis built against another Slurm's spank.h does not "
                              "load, and slurmd with it refuses to start. Rebuild nvslurm-plugin-pyxis against this cluster's "
                              "libslurm-dev and publish it in containers.slurm_repository",
                              pyxis.plugin_line.empty() ? "pyxis.conf is empty" : pyxis.plugin_line));
  if (!pyxis.srun_offers_container_image)
    return failed(seen + "; srun --help offers no --container-image", expected,
                  "pyxis is not in Slurm's plugin stack: /etc/slurm/plugstack.conf must include /etc/slurm/plugstack.conf.d/*.conf "
                  "(Debian's and Ubuntu's does) and gpuctl apply writes plugstack.conf.d/pyxis.conf");
  return pass(seen + "; srun --help offers --container-image", expected);
}

const CheckRegistration k_pyxis{{
    .name = "slurm_pyxis",
    .description = "enroot and pyxis installed, and srun loads pyxis (srun --help offers --container-image)",
    .section = CheckSection::slurm,
    .facts = {facts::k_container_stack.name},
    .judge = slurm_pyxis,
    .source = "dpkg-query enroot nvslurm-plugin-pyxis; enroot version; cat /usr/share/pyxis/pyxis.conf; srun --help",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
