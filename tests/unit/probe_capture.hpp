#pragma once
// Test helpers for the captured command outputs under tests/data (GPUCTL_TEST_DATA_DIR).

#include <gtest/gtest.h>
#include <gpuctl_build_paths.hpp>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace gpuctl::testing {

// The whole content of tests/data/<relative>; fails the test when it cannot be read.
inline std::string read_test_data(const std::string& relative) {
  const std::string path = std::string(GPUCTL_TEST_DATA_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read test data " << path;
    return {};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CapturedProbe {
  std::string output;  // what the command printed (stdout and stderr, as captured)
  int exit_code = -1;
};

// One command's section of a probe.txt capture: the lines after `===== $ <command>` up to
// `===== rc=N`. nullopt when the command is not in the capture.
inline std::optional<CapturedProbe> captured_probe(std::string_view probe_text, std::string_view command) {
  const std::string begin = "===== $ " + std::string(command) + "\n";
  std::size_t at = probe_text.starts_with(begin) ? 0 : probe_text.find("\n" + begin);
  if (at == std::string_view::npos) return std::nullopt;
  at += (at == 0 && probe_text.starts_with(begin) ? 0 : 1) + begin.size();
  const auto rc_at = probe_text.find("===== rc=", at);
  if (rc_at == std::string_view::npos) return std::nullopt;
  CapturedProbe probe;
  probe.output = std::string(probe_text.substr(at, rc_at - at));
  probe.exit_code = std::stoi(std::string(probe_text.substr(rc_at + 9, probe_text.find('\n', rc_at) - rc_at - 9)));
  return probe;
}

// Shorthand: a section of tests/data/nvidia-smi/h200-1gpu/probe.txt; fails the test when absent.
inline CapturedProbe h200_probe(std::string_view command) {
  static const std::string text = read_test_data("nvidia-smi/h200-1gpu/probe.txt");
  auto probe = captured_probe(text, command);
  if (!probe) {
    ADD_FAILURE() << "no section '" << command << "' in h200-1gpu/probe.txt";
    return {};
  }
  return *probe;
}

}  // namespace gpuctl::testing
