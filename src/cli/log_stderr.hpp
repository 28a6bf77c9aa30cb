#pragma once
// What gpuctl says on stderr besides a run's progress (warnings, errors, notices), through one
// spdlog logger: under systemd (stderr is the journal, log_journal_sink.hpp) each line carries
// its priority, else it is printed as is. The logger passes every level: callers decide what to
// say at which verbosity.

#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>

#include <memory>

namespace gpuctl::cli {

// The sink on stderr: a JournalSink when stderr is the journal, else plain lines ("%v").
// One per process, shared by stderr_logger() and a run's journal records.
std::shared_ptr<spdlog::sinks::sink> stderr_sink();

spdlog::logger& stderr_logger();

// The level below which a run's records are left out of the journal: -q warnings, default
// info, -v debug, -vv trace (every remote command and its output, masked).
spdlog::level::level_enum journal_level(int verbosity);

}  // namespace gpuctl::cli
