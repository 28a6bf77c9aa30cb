#pragma once
// An spdlog sink over a FILE* that gpuctl opened itself: the run log is created O_EXCL, 0600, in
// a private directory (progress_run_log.cpp), and spdlog's own file sinks would open it again by
// name. Each record is written and flushed at once, so `tail -f` follows a run and a crash loses
// nothing. Prints nothing on its own and never chmods or reopens the file.

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <mutex>

namespace gpuctl::cli {

class FileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Takes `file` over: closed when the sink is destroyed.
  explicit FileSink(std::FILE* file);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  std::FILE* m_file;
};

// The run log's record format, "HH:MM:SS.mmm <message>" with the time of day in UTC (the
// message is "<node> <text>", "-" for the node of run-wide records; more lines of the text
// follow as they are, already indented).
std::unique_ptr<spdlog::formatter> make_run_log_formatter();

}  // namespace gpuctl::cli
