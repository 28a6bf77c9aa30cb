// The one-round-trip probe script and the splitter of its output.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>

namespace gpuctl::facts {
namespace {

struct Probe {
  std::string_view name;
  std::string body;  // body of a shell function; `return 127` when its tool is missing
};

std::string require(std::string_view tool) {
  return fmt::format("command -v {0} >/dev/null 2>&1 || {{ echo '{0}: command not found' >&2; return 127; }}; ", tool);
}

std::vector<Probe> probes(const CollectOptions& options) {
  std::string patterns;
  for (const auto& pattern : options.package_patterns) patterns += " " + util::shell_quote(pattern);
  return {
      {"os_release", "cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release"},
      {"kernel", "uname -r"},
      {"boot_id", "cat /proc/sys/kernel/random/boot_id"},
      {"uptime", "cat /proc/uptime"},
      // /proc/modules, not lsmod: Ubuntu 24.04 cloud images ship without kmod's lsmod.
      // Kernels without module support (and the sandbox) have no /proc/modules: fall back to lsmod.
      {"modules", "cat /proc/modules 2>/dev/null || lsmod"},
      {"driver", "cat /proc/driver/nvidia/version"},
      {"nvcc", require("nvcc") + "nvcc --version"},
      // dpkg-query exits 1 when a pattern matches nothing; the parser ignores those lines.
      {"packages", require("dpkg-query") + "dpkg-query -W -f='${Package}\\t${Version}\\t${Status}\\n'" + patterns},
      // ldconfig gives the library's path; the versioned file name behind it gives NCCL's version.
      {"nccl_libraries",
       "{ ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | sed -n 's/.*libnccl\\.so[.0-9]* .*=> //p' |"
       " while read -r f; do readlink -f \"$f\"; done | sort -u"},
      {"gpus", require("nvidia-smi") + "$T " + gpu_query_command()},
      // Skipped when the GPU query failed: a hung driver would otherwise cost a second timeout.
      {"remapped_rows", "[ \"$gpus_rc\" = 0 ] || { echo 'skipped: the GPU query failed' >&2; return 125; }; "
                        "$T nvidia-smi -q -d ROW_REMAPPER"},
      // How the GPUs are linked (verify's nvlink_topology); also skipped when the GPU query failed.
      {"topology", "[ \"$gpus_rc\" = 0 ] || { echo 'skipped: the GPU query failed' >&2; return 125; }; "
                   "$T nvidia-smi topo -m"},
      {"nvlink", "[ \"$gpus_rc\" = 0 ] || { echo 'skipped: the GPU query failed' >&2; return 125; }; "
                 "$T nvidia-smi nvlink -s"},
  };
}

}  // namespace

std::vector<std::string> probe_names() {
  std::vector<std::string> names;
  for (const auto& probe : probes(CollectOptions{})) names.emplace_back(probe.name);
  return names;
}

// Readable forms of the probes whose shell text carries plumbing (tool checks, timeouts, guards).
std::string probe_command(std::string_view name, const CollectOptions& options) {
  if (name == "modules") return "cat /proc/modules";
  if (name == "nvcc") return "nvcc --version";
  if (name == "gpus") return gpu_query_command();
  if (name == "remapped_rows") return "nvidia-smi -q -d ROW_REMAPPER";
  if (name == "nccl_libraries") return "ldconfig -p | grep libnccl";
  if (name == "topology") return "nvidia-smi topo -m";
  if (name == "nvlink") return "nvidia-smi nvlink -s";
  if (name == "packages") {
    std::string patterns;
    for (const auto& pattern : options.package_patterns) patterns += " " + util::shell_quote(pattern);
    return "dpkg-query -W -f='${Package}\\t${Version}\\t${Status}\\n'" + patterns;
  }
  for (const auto& probe : probes(options))
    if (probe.name == name) return probe.body;
  return {};
}

std::string trim_output(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  auto cut = text.rfind('\n', limit);
  if (cut == std::string_view::npos || cut < limit / 2) cut = limit;
  return fmt::format("{}\n... ({} more bytes)", text.substr(0, cut), text.size() - cut);
}

std::string build_probe_script(std::string_view nonce, const CollectOptions& options) {
  std::string script = fmt::format(
      "export LC_ALL=C\n"
      "PATH=\"$PATH:/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/sbin:/sbin\"\n"
      "M='@@gpuctl-{}'\n"
      "T=''\n"
      "if command -v timeout >/dev/null 2>&1; then T='timeout -k 5 {}'; fi\n"
      // stdout streams through fd 3 while stderr is captured, so the two stay apart.
      "probe() {{\n"
      "  printf '%s begin %s\\n' \"$M\" \"$1\"\n"
      "  {{ e=$( {{ \"$2\"; }} 2>&1 1>&3 3>&- ); r=$?; }} 3>&1\n"
      "  printf '\\n%s end %s rc=%s\\n%s\\n%s stderr-end %s\\n' \"$M\" \"$1\" \"$r\" \"$e\" \"$M\" \"$1\"\n"
      "  eval \"$1_rc=$r\"\n"
      "}}\n",
      nonce, options.nvidia_smi_timeout.count());
  for (const auto& probe : probes(options)) {
    script += fmt::format("p_{}() {{ {}; }}\n", probe.name, probe.body);
    script += fmt::format("probe {0} p_{0}\n", probe.name);
  }
  return script;
}

Result<std::map<std::string, ProbeOutput>> split_probe_output(std::string_view text, std::string_view nonce) {
  const std::string marker = fmt::format("@@gpuctl-{} ", nonce);
  const std::string begin = marker + "begin ";
  std::map<std::string, ProbeOutput> result;
  for (auto at = text.find(begin); at != std::string_view::npos; at = text.find(begin, at)) {
    const auto name_end = text.find('\n', at);
    if (name_end == std::string_view::npos) return fail(ErrorCode::parse, "probe output ends inside a begin marker");
    const auto name = std::string(text.substr(at + begin.size(), name_end - at - begin.size()));
    const auto body = name_end + 1;

    const std::string end_tag = "\n" + marker + "end " + name + " rc=";
    const auto end_at = text.find(end_tag, body);
    if (end_at == std::string_view::npos)
      return fail(ErrorCode::parse, "the output of probe '" + name + "' is cut off (no end marker)");
    ProbeOutput probe;
    probe.out = std::string(text.substr(body, end_at - body));

    const auto rc_at = end_at + end_tag.size();
    const auto rc_end = text.find('\n', rc_at);
    const auto rc_text = text.substr(rc_at, rc_end == std::string_view::npos ? std::string_view::npos : rc_end - rc_at);
    const auto [ptr, ec] = std::from_chars(rc_text.data(), rc_text.data() + rc_text.size(), probe.exit_code);
    if (ec != std::errc{} || ptr != rc_text.data() + rc_text.size())
      return fail(ErrorCode::parse, "probe '" + name + "' has exit code '" + std::string(rc_text) + "'");

    at = rc_end == std::string_view::npos ? text.size() : rc_end + 1;
    const std::string stderr_tag = "\n" + marker + "stderr-end " + name;
    if (const auto err_end = text.find(stderr_tag, at); err_end != std::string_view::npos) {
      probe.err = std::string(text.substr(at, err_end - at));
      at = err_end + stderr_tag.size();
    }
    result[name] = std::move(probe);
  }
  return result;
}

}  // namespace gpuctl::facts
