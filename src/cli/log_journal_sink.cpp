// The journal's sink and the test of whether stderr is the journal (log_journal_sink.hpp).
#include "log_journal_sink.hpp"

#include <spdlog/pattern_formatter.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

// A decimal number, digits only, that fits: anything else makes the variable malformed.
bool parse_decimal(std::string_view text, std::uintmax_t& value) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size();
}

}  // namespace

bool journal_stream_matches(const char* journal_stream, int fd) {
  if (!journal_stream) return false;
  const std::string_view value(journal_stream);
  const auto colon = value.find(':');
  if (colon == std::string_view::npos) return false;
  std::uintmax_t device = 0, inode = 0;
  if (!parse_decimal(value.substr(0, colon), device) || !parse_decimal(value.substr(colon + 1), inode)) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  return static_cast<std::uintmax_t>(st.st_dev) == device && static_cast<std::uintmax_t>(st.st_ino) == inode;
}

bool stderr_is_journal() {
  static const bool journal = journal_stream_matches(std::getenv("JOURNAL_STREAM"), STDERR_FILENO);
  return journal;
}

std::string_view journal_priority_prefix(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical: return "<2>";
    case spdlog::level::err: return "<3>";
    case spdlog::level::warn: return "<4>";
    case spdlog::level::info: return "<6>";
    case spdlog::level::debug:
    case spdlog::level::trace: return "<7>";
    default: return "";
  }
}

std::string journal_lines(spdlog::level::level_enum level, std::string_view text) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  const auto prefix = journal_priority_prefix(level);
  std::string out;
  out.reserve(text.size() + prefix.size() + 1);
  for (std::size_t start = 0;;) {
    const auto end = text.find('\n', start);
    out += prefix;
    out += text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += '\n';
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

JournalSink::JournalSink(std::FILE* file) : m_file(file) {
  formatter_ = std::make_unique<spdlog::pattern_formatter>("%v", spdlog::pattern_time_type::local, "");
}

void JournalSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t text;
  formatter_->format(msg, text);
  const auto lines = journal_lines(msg.level, std::string_view(text.data(), text.size()));
  std::fwrite(lines.data(), 1, lines.size(), m_file);
  std::fflush(m_file);
}

void JournalSink::flush_() { std::fflush(m_file); }

}  // namespace gpuctl::cli
