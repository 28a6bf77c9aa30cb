// The replay driver: runs files through a fuzz target's LLVMFuzzerTestOneInput without
// libFuzzer, so the gcc build runs every seed and every kept crash reproducer as a test.
// Usage: fuzz_replay_<target> FILE|DIR...  (directories are read recursively, in name order).
#include "fuzz_input.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

void collect(const fs::path& path, std::vector<fs::path>& files) {
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::recursive_directory_iterator(path))
      if (entry.is_regular_file() && entry.path().filename().string().front() != '.') files.push_back(entry.path());
  } else if (fs::exists(path)) {
    files.push_back(path);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) collect(argv[i], files);
  std::ranges::sort(files);
  if (files.empty()) {
    std::fprintf(stderr, "no input files under the given paths\n");
    return 1;
  }
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 1;
    }
    // A crash or a failed property aborts here, naming the file last printed.
    std::fprintf(stderr, "replay %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
