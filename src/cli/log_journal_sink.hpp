#pragma once
// Records for the systemd journal when gpuctl runs as a service (gpuctl-verify.service): its
// stderr is then a stream to journald, and a line that starts with an sd-daemon priority prefix
// ("<3>" err, "<4>" warning, "<6>" info, "<7>" debug; `man sd-daemon`) is stored with that
// priority, so `journalctl -p err` finds failures. No libsystemd: the prefix is the protocol.

#include <spdlog/common.h>
#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

namespace gpuctl::cli {

// Whether `journal_stream` (the JOURNAL_STREAM environment variable: "<device>:<inode>" in
// decimal, set by systemd when stdout or stderr is connected to the journal) names the file
// open on `fd`. False when it is null, empty or malformed, or `fd` is another file: a process
// that inherited the variable but writes elsewhere (a shell started from a service, a
// redirect) is not writing to the journal.
bool journal_stream_matches(const char* journal_stream, int fd);

// journal_stream_matches(getenv("JOURNAL_STREAM"), stderr), decided once per process.
bool stderr_is_journal();

// The sd-daemon prefix for an spdlog level: critical "<2>", err "<3>", warn "<4>", info "<6>",
// debug and trace "<7>"; off has none.
std::string_view journal_priority_prefix(spdlog::level::level_enum level);

// `text` as journal lines: every line (journald splits a stream at newlines) gets the prefix and
// ends with a newline; trailing newlines of `text` are dropped.
std::string journal_lines(spdlog::level::level_enum level, std::string_view text);

// Writes each record (its message alone, "%v": journald adds time, host and process) as
// journal_lines to `file` (stderr unless given) and flushes it.
class JournalSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit JournalSink(std::FILE* file = stderr);

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  std::FILE* m_file;
};

}  // namespace gpuctl::cli
