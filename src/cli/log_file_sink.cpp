// The run log's sink: spdlog records written to a FILE* gpuctl created (log_file_sink.hpp).
#include "log_file_sink.hpp"

#include <spdlog/pattern_formatter.h>

namespace gpuctl::cli {

FileSink::FileSink(std::FILE* file) : m_file(file) {}

FileSink::~FileSink() {
  if (m_file) std::fclose(m_file);
}

void FileSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t line;
  formatter_->format(msg, line);
  std::fwrite(line.data(), 1, line.size(), m_file);
  std::fflush(m_file);
}

void FileSink::flush_() { std::fflush(m_file); }

std::unique_ptr<spdlog::formatter> make_run_log_formatter() {
  // Milliseconds: commands of one node are often milliseconds apart.
  return std::make_unique<spdlog::pattern_formatter>("%H:%M:%S.%e %v", spdlog::pattern_time_type::utc, "\n");
}

}  // namespace gpuctl::cli
