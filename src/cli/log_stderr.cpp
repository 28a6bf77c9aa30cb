// The stderr logger: journal priorities under systemd, plain lines otherwise (log_stderr.hpp).
#include "log_stderr.hpp"

#include "log_journal_sink.hpp"

#include <spdlog/sinks/stdout_sinks.h>

namespace gpuctl::cli {

std::shared_ptr<spdlog::sinks::sink> stderr_sink() {
  static const std::shared_ptr<spdlog::sinks::sink> sink = [] {
    std::shared_ptr<spdlog::sinks::sink> made;
    if (stderr_is_journal()) {
      made = std::make_shared<JournalSink>(stderr);
    } else {
      made = std::make_shared<spdlog::sinks::stderr_sink_mt>();
      made->set_pattern("%v");
    }
    return made;
  }();
  return sink;
}

spdlog::logger& stderr_logger() {
  static spdlog::logger logger = [] {
    spdlog::logger made("gpuctl", stderr_sink());
    made.set_level(spdlog::level::trace);
    return made;
  }();
  return logger;
}

spdlog::level::level_enum journal_level(int verbosity) {
  if (verbosity < 0) return spdlog::level::warn;
  if (verbosity == 0) return spdlog::level::info;
  if (verbosity == 1) return spdlog::level::debug;
  return spdlog::level::trace;
}

}  // namespace gpuctl::cli
