#include <gpuctl/transport/file_ops.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <charconv>

namespace gpuctl::transport {
namespace {

using util::shell_quote;

// Exit codes our scripts use to say "missing" apart from other failures.
constexpr int k_exit_missing = 3;

Error node_error(const Transport& transport, ErrorCode code, std::string message) {
  Error error{code, std::move(message), {}, {}};
  error.where.node = transport.node();
  return error;
}

std::string first_line(const std::string& text) {
  const auto lines = util::split_lines(util::trim(text));
  return lines.empty() ? std::string() : lines.front();
}

}  // namespace

std::string wrap_become(const std::string& command) {
  return "sudo -n sh -c " + shell_quote(command);
}

std::string atomic_write_script(const std::string& path, std::size_t size, const WriteOptions& options) {
  std::string owner;
  if (!options.owner.empty()) owner = options.owner;
  if (!options.group.empty()) owner += ":" + options.group;
  // `tmp` is empty until mktemp succeeds so the trap never removes anything it did not create.
  // Refusing a directory at `dest` keeps mv from moving the file *into* it.
  std::string script = fmt::format(
      "set -e; umask 077; export LC_ALL=C\n"
      "dest={0}; dir=$(dirname -- \"$dest\"); tmp=\n"
      "trap 'rm -f -- \"$tmp\"' EXIT; trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM\n"
      "if [ -d \"$dest\" ]; then echo \"$dest: is a directory\" >&2; exit 1; fi\n"
      // A drop-in or an exporter's config may be the first file of its directory: created
      // 0755 (the owner is the writer, root), as a package would; existing ones are left as they are.
      "if [ ! -d \"$dir\" ]; then (umask 022; mkdir -p -- \"$dir\"); fi\n"
      "tmp=$(mktemp -- \"$dir/.$(basename -- \"$dest\").gpuctl.XXXXXX\")\n"
      "cat > \"$tmp\"\n"
      "n=$(wc -c < \"$tmp\"); if [ \"$n\" -ne {1} ]; then echo \"$dest: received $n of {1} bytes\" >&2; exit 1; fi\n",
      shell_quote(path), size);
  if (!owner.empty()) script += fmt::format("chown -- {} \"$tmp\"\n", shell_quote(owner));
  script += fmt::format("chmod -- {:o} \"$tmp\"\nsync -- \"$tmp\"\nmv -f -- \"$tmp\" \"$dest\"\ntmp=\n", options.mode & 07777);
  return script;
}

Result<void> write_file_via(Transport& transport, const std::string& path, const std::string& content,
                            const WriteOptions& options) {
  if (path.empty() || path.back() == '/')
    return std::unexpected(node_error(transport, ErrorCode::invalid_argument, "not a file path: '" + path + "'"));
  CommandOptions run_options;
  run_options.stdin_data = content;
  run_options.become = options.become;
  auto result = transport.run(atomic_write_script(path, content.size(), options), run_options);
  if (!result) return std::unexpected(result.error());
  if (!result->ok())
    return std::unexpected(node_error(transport, ErrorCode::io,
                                      fmt::format("cannot write {}: {}", path, util::trim(util::tail_lines(result->err, 3)))));
  return {};
}

Result<std::string> read_file_via(Transport& transport, const std::string& path, bool become) {
  // cat's own message is kept for permission errors; a missing file gets its own exit code.
  const std::string command = fmt::format(
      "export LC_ALL=C; if [ ! -e {0} ] && [ ! -L {0} ]; then d=$(dirname -- {0}); "
      "if [ -d \"$d\" ] && [ -x \"$d\" ] || [ ! -e \"$d\" ]; then exit {1}; fi; fi; exec cat -- {0}",
      shell_quote(path), k_exit_missing);
  CommandOptions options;
  options.become = become;
  auto result = transport.run(command, options);
  if (!result) return std::unexpected(result.error());
  if (result->exit_code == k_exit_missing)
    return std::unexpected(node_error(transport, ErrorCode::not_found, path + ": No such file or directory"));
  if (!result->ok())
    return std::unexpected(node_error(transport, ErrorCode::io,
                                      fmt::format("cannot read {}: {}", path, first_line(result->err))));
  return std::move(result->out);
}

Result<FileAttributes> stat_file_via(Transport& transport, const std::string& path, bool become) {
  const std::string command = fmt::format(
      "export LC_ALL=C; if [ ! -e {0} ] && [ ! -L {0} ]; then exit {1}; fi; exec stat -c '%a %U %G %s' -- {0}",
      shell_quote(path), k_exit_missing);
  CommandOptions options;
  options.become = become;
  auto result = transport.run(command, options);
  if (!result) return std::unexpected(result.error());
  if (result->exit_code == k_exit_missing) return FileAttributes{};
  if (!result->ok())
    return std::unexpected(node_error(transport, ErrorCode::io,
                                      fmt::format("cannot stat {}: {}", path, first_line(result->err))));
  const auto fields = util::split(util::trim(result->out), ' ');
  FileAttributes attributes;
  attributes.exists = true;
  bool parsed = fields.size() == 4;
  if (parsed) {
    const auto& mode = fields[0];
    const auto& size = fields[3];
    parsed = std::from_chars(mode.data(), mode.data() + mode.size(), attributes.mode, 8).ec == std::errc{} &&
             std::from_chars(size.data(), size.data() + size.size(), attributes.size).ec == std::errc{};
    attributes.owner = fields[1];
    attributes.group = fields[2];
  }
  if (!parsed)
    return std::unexpected(node_error(transport, ErrorCode::parse,
                                      fmt::format("unexpected stat output for {}: '{}'", path, util::trim(result->out))));
  return attributes;
}

}  // namespace gpuctl::transport
