// The one-round-trip probe script and the splitter of its output.
//
// The script is built to make the node spawn as few processes as it can: files are read with
// the shell's own `read` (small ones) or one `cat`, the NCCL libraries are found by globbing
// the library directories, the CUDA version comes from the toolkit's version.json, and a
// probe's stderr goes straight to the channel's stderr between markers (no $(...) subshell
// per probe). What is left is one process per tool that must answer: dpkg-query, nvidia-smi
// (under timeout), and whatever the state probe asks (stat, cat, systemctl, guards).
#include <gpuctl/facts/collect.hpp>

#include "fact_catalog.hpp"

#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
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

// Skipped when the GPU query failed: a hung driver would otherwise cost a second timeout.
constexpr std::string_view k_after_gpus = "[ \"$gpus_rc\" = 0 ] || { echo 'skipped: the GPU query failed' >&2; return 125; }; ";

// The toolkit NVIDIA's packages and runfile install, and the one gpu-node.yaml installs.
constexpr std::string_view k_cuda_version_json = "/usr/local/cuda/version.json";

constexpr std::string_view k_dpkg_admin_dir = "/var/lib/dpkg";

std::vector<std::string> dpkg_pattern_list(const CollectOptions& options) {
  auto patterns = options.package_patterns;
  patterns.insert(patterns.end(), options.exact_packages.begin(), options.exact_packages.end());
  return patterns;
}

std::string dpkg_patterns(const CollectOptions& options) {
  std::string patterns;
  for (const auto& pattern : dpkg_pattern_list(options)) patterns += " " + util::shell_quote(pattern);
  return patterns;
}

std::string dpkg_query_command(const CollectOptions& options) {
  return "dpkg-query -W -f='${Package}\\t${Version}\\t${Status}\\n'" + dpkg_patterns(options);
}

// A name, or a name and one trailing '*': what the status-file reader matches. Anything else
// (?, [...], a '*' inside) goes to dpkg-query, whose fnmatch knows the whole glob language.
bool prefix_or_exact(std::string_view pattern) {
  if (pattern.ends_with('*')) pattern.remove_suffix(1);
  return !pattern.empty() && pattern.find_first_of("*?[]\\") == std::string_view::npos;
}

// The packages probe. dpkg-query parses every stanza of dpkg's database into its own
// structures (35 ms of CPU for 909 packages); one awk over the status file prints the same
// lines for about 4 ms. dpkg-query stays the authority where the file alone is not the truth:
// a journal in updates/ (dpkg interrupted, or running now), no status file, no awk.
std::string packages_probe(const CollectOptions& options) {
  const auto patterns = dpkg_pattern_list(options);
  std::string body;
  if (std::ranges::all_of(patterns, prefix_or_exact)) {
    body = fmt::format(
        "for j in {0}/updates/[0-9]*; do [ -e \"$j\" ] && break; j=; done; "
        "if [ -z \"$j\" ] && [ -r {0}/status ] && command -v awk >/dev/null 2>&1; then "
        "{1}; return; fi; ",
        k_dpkg_admin_dir, dpkg_status_awk_command(std::string(k_dpkg_admin_dir) + "/status", patterns));
  }
  // dpkg-query exits 1 when a pattern matches nothing; the parser ignores those lines.
  return body + require("dpkg-query") + dpkg_query_command(options);
}

// NVIDIA's runfile installs these (its default prefixes); a package never does.
constexpr std::string_view k_runfile_marks = "/usr/bin/nvidia-uninstall /var/log/nvidia-installer.log";

// Where packages put nvidia-smi: Ubuntu's and NVIDIA's Ubuntu packages in /usr/bin (/bin by its
// merged-/usr name), Debian's (and NVIDIA's Debian packages) in /usr/lib/nvidia/<flavour>/ with
// /usr/bin/nvidia-smi an update-alternatives link to it, which no package owns.
constexpr std::string_view k_packaged_nvidia_smi = "/usr/bin/nvidia-smi /bin/nvidia-smi /usr/lib/nvidia/*/nvidia-smi";

// Who installed the driver's user space (parse_driver_origin): nvidia-smi looked up on PATH by
// the shell itself (what `command -v` finds, without a $(...) subshell); the names packages
// give nvidia-smi that are the same file (`-ef`: the merged-/usr name, the target of Debian's
// alternatives link), since dpkg knows a file only by the name its package shipped; the
// runfile's marks; then one `dpkg-query -S` for all those names. No nvidia-smi: no dpkg-query.
std::string driver_origin_probe() {
  return fmt::format(
      "o_p=\"$PATH:\"; o_s=; "
      "while [ -n \"$o_p\" ]; do o_d=${{o_p%%:*}}; o_p=${{o_p#*:}}; case $o_d in /*) "
      "if [ -f \"$o_d/nvidia-smi\" ] && [ -x \"$o_d/nvidia-smi\" ]; then o_s=$o_d/nvidia-smi; break; fi;; esac; done; "
      "printf 'nvidia_smi_path=%s\\n' \"$o_s\"; "
      "for o_m in {0}; do [ ! -e \"$o_m\" ] || printf 'runfile_mark=%s\\n' \"$o_m\"; done; "
      "[ -n \"$o_s\" ] || return 0; "
      "[ ! -L \"$o_s\" ] || echo 'symlink=yes'; "
      "set -- \"$o_s\"; "
      "for o_c in {1}; do if [ \"$o_c\" != \"$o_s\" ] && [ \"$o_s\" -ef \"$o_c\" ]; then "
      "printf 'same_file=%s\\n' \"$o_c\"; set -- \"$@\" \"$o_c\"; fi; done; "
      "command -v dpkg-query >/dev/null 2>&1 || "
      "{{ echo \"dpkg-query: command not found (no dpkg to ask which package owns $o_s)\" >&2; return 127; }}; "
      "dpkg-query -S \"$@\" 2>&1; printf 'dpkg_query_rc=%s\\n' \"$?\"",
      k_runfile_marks, k_packaged_nvidia_smi);
}




std::vector<Probe> probes(const CollectOptions& options) {
  std::vector<Probe> list{
      {"os_release", "show /etc/os-release 2>/dev/null || show /usr/lib/os-release"},
      // The same text as `uname -r`, without a process.
      {"kernel", "show /proc/sys/kernel/osrelease"},
      {"boot_id", "show /proc/sys/kernel/random/boot_id"},
      {"uptime", "show /proc/uptime"},
      // /proc/modules, not lsmod: Ubuntu 24.04 cloud images ship without kmod's lsmod. One cat:
      // the shell's read takes a system call per byte, too many for a few kilobytes.
      // Kernels without module support (and the sandbox) have no /proc/modules: fall back to lsmod.
      {"modules", "if [ -r /proc/modules ]; then cat /proc/modules; else lsmod; fi"},
      {"driver", "show /proc/driver/nvidia/version"},
      {"driver_origin", driver_origin_probe()},
      // version.json where the toolkit has one (CUDA 11.1 and later); nvcc only without it.
      {"cuda", fmt::format("if [ -r {0} ]; then show {0}; else {1}nvcc --version; fi", k_cuda_version_json,
                           require("nvcc"))},
      {"packages", packages_probe(options)},
      // Versioned libnccl files in the linker's directories (ld.so.conf and its includes),
      // found by the shell's globbing: the file name gives NCCL's version.
      {"nccl_libraries",
       "d='/lib /usr/lib /lib64 /usr/lib64 /usr/local/lib /usr/local/cuda/lib64 /lib/*-linux-gnu /usr/lib/*-linux-gnu'; "
       "for c in /etc/ld.so.conf /etc/ld.so.conf.d/*.conf; do [ -r \"$c\" ] || continue; "
       "while read -r l r; do case $l in /*) d=\"$d $l\";; esac; done < \"$c\"; done; "
       "for x in $d; do for f in \"$x\"/libnccl.so.*.*.*; do "
       "[ -f \"$f\" ] && [ ! -L \"$f\" ] && printf '%s\\n' \"$f\"; done; done; return 0"},
      {"gpus", require("nvidia-smi") + "$T " + gpu_query_command()},
  };
  for (const auto* fact : fact_catalog()) {
    if (options.optional_probes && !options.optional_probes->contains(std::string(fact->probe))) continue;
    list.push_back({fact->probe, fact->after_gpus ? std::string(k_after_gpus) + fact->shell() : fact->shell()});
  }
  if (!options.state_script.empty()) list.push_back({k_state_probe, options.state_script});
  return list;
}

}  // namespace

// The packages matching `patterns` (names, or names with one trailing '*'; none: every
// package) in dpkg's status file, as "package<TAB>version<TAB>status" lines like the
// dpkg-query line. A stanza ends at a blank line or the end of the file; continuation lines
// (descriptions, conffiles) start with a space and match no field. The patterns travel as
// awk's operands, blanked before any file is read: no awk or shell syntax ever sees them.
std::string dpkg_status_awk_command(std::string_view status_file, const std::vector<std::string>& patterns) {
  std::string command =
      "awk 'BEGIN { for (i = 2; i < ARGC; i++) { w[i] = ARGV[i]; ARGV[i] = \"\" } } "
      "function emit(  i, x, m) { if (p != \"\") { m = (ARGC == 2); "
      "for (i in w) { x = w[i]; if ((x ~ /[*]$/) ? (index(p, substr(x, 1, length(x) - 1)) == 1) : (p == x)) m = 1 } "
      "if (m) print p \"\\t\" v \"\\t\" s } p = v = s = \"\" } "
      "/^Package: / { p = $2 } /^Version: / { v = $2 } /^Status: / { s = substr($0, 9) } /^$/ { emit() } "
      "END { emit() }' " +
      util::shell_quote(status_file);
  for (const auto& pattern : patterns) command += " " + util::shell_quote(pattern);
  return command;
}

std::vector<std::string> probe_names(const CollectOptions& options) {
  std::vector<std::string> names;
  for (const auto& probe : probes(options)) names.emplace_back(probe.name);
  return names;
}

// Readable forms of the probes whose shell text carries plumbing (tool checks, timeouts, guards).
std::string probe_command(std::string_view name, const CollectOptions& options) {
  if (name == "os_release") return "cat /etc/os-release";
  if (name == "kernel") return "cat /proc/sys/kernel/osrelease";
  if (name == "boot_id") return "cat /proc/sys/kernel/random/boot_id";
  if (name == "uptime") return "cat /proc/uptime";
  if (name == "driver") return "cat /proc/driver/nvidia/version";
  if (name == "modules") return "cat /proc/modules";
  if (name == "cuda") return fmt::format("cat {} || nvcc --version", k_cuda_version_json);
  if (name == "gpus") return gpu_query_command();
  if (name == "nccl_libraries") return "ls /usr/lib/*-linux-gnu/libnccl.so.* (and the other ld.so.conf directories)";
  if (const auto* fact = find_fact(name)) {
    if (!fact->command.empty()) return std::string(fact->command);
    auto shell = fact->shell();
    return shell.starts_with("$T ") ? shell.substr(3) : shell;
  }
  if (name == "packages") return dpkg_query_command(options);
  if (name == "driver_origin")
    return fmt::format("dpkg-query -S \"$(command -v nvidia-smi)\"; ls -d {}", k_runfile_marks);
  for (const auto& probe : probes(options))
    if (probe.name == name) return probe.body;
  return {};
}

std::string cuda_probe_command(std::string_view output) {
  return util::trim(output).starts_with("{") ? fmt::format("cat {}", k_cuda_version_json) : "nvcc --version";
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
      // A file's lines through the shell's own read: no process (small files only: a system
      // call per byte). The last line is printed even without its newline.
      "show() {{\n"
      "  [ -r \"$1\" ] || {{ printf '%s: No such file or directory\\n' \"$1\" >&2; return 1; }}\n"
      "  while IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done < \"$1\"\n"
      "}}\n"
      // Each probe's stdout and stderr go to their own streams between the same markers, so
      // the two stay apart without a subshell to capture either.
      "probe() {{\n"
      "  printf '%s begin %s\\n' \"$M\" \"$1\"; printf '%s begin %s\\n' \"$M\" \"$1\" >&2\n"
      "  \"$2\"; r=$?\n"
      "  printf '\\n%s end %s rc=%s\\n' \"$M\" \"$1\" \"$r\"; printf '\\n%s end %s\\n' \"$M\" \"$1\" >&2\n"
      "  eval \"$1_rc=$r\"\n"
      "}}\n",
      nonce, options.nvidia_smi_timeout.count());
  for (const auto& probe : probes(options)) {
    script += fmt::format("p_{}() {{\n{}\n}}\n", probe.name, probe.body);
    script += fmt::format("probe {0} p_{0}\n", probe.name);
  }
  return script;
}

namespace {

// The stderr blocks of the batch: "M begin NAME\n<stderr>\nM end NAME\n". Text outside them
// (the login shell's warnings) is ignored; a block cut off keeps what arrived.
void attach_stderr(std::map<std::string, ProbeOutput>& probes, std::string_view err, std::string_view nonce) {
  const std::string begin = fmt::format("@@gpuctl-{} begin ", nonce);
  for (auto at = err.find(begin); at != std::string_view::npos; at = err.find(begin, at)) {
    const auto name_end = err.find('\n', at);
    if (name_end == std::string_view::npos) return;
    const auto name = std::string(err.substr(at + begin.size(), name_end - at - begin.size()));
    const std::string end_tag = fmt::format("\n@@gpuctl-{} end {}\n", nonce, name);
    auto end_at = err.find(end_tag, name_end);
    std::string_view text = err.substr(name_end + 1, end_at == std::string_view::npos ? std::string_view::npos
                                                                                      : end_at - name_end - 1);
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    if (const auto it = probes.find(name); it != probes.end() && it->second.err.empty()) it->second.err = std::string(text);
    at = end_at == std::string_view::npos ? err.size() : end_at + end_tag.size();
  }
}

}  // namespace

Result<std::map<std::string, ProbeOutput>> split_probe_output(std::string_view text, std::string_view nonce,
                                                              std::string_view err) {
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
    // The stderr block inline on stdout, as scripts before the split streams printed it.
    const std::string stderr_tag = "\n" + marker + "stderr-end " + name;
    if (const auto next = text.find(begin, at), err_end = text.find(stderr_tag, at);
        err_end != std::string_view::npos && (next == std::string_view::npos || err_end < next)) {
      probe.err = std::string(text.substr(at, err_end - at));
      at = err_end + stderr_tag.size();
    }
    result[name] = std::move(probe);
  }
  attach_stderr(result, err, nonce);
  return result;
}

}  // namespace gpuctl::facts
