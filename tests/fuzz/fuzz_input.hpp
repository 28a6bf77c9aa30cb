#pragma once
// Shared by the fuzz targets: the entry point libFuzzer (or the replay driver) calls, and the
// input bytes as text. The parsers take std::string_view, so no copy is made; each target
// decides what "must hold" for every input (no crash, no leak, and the properties it asserts).

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace gpuctl::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A property the target asserts was violated: abort, so libFuzzer saves the input as a crash
// and the replay test fails. (assert() would vanish in release builds.)
[[noreturn]] void property_failed(const char* what);

}  // namespace gpuctl::fuzz
