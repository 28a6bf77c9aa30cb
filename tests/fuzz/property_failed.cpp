// The abort every fuzz target uses when a property it asserts does not hold.
#include "fuzz_input.hpp"

#include <cstdio>
#include <cstdlib>

namespace gpuctl::fuzz {

void property_failed(const char* what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

}  // namespace gpuctl::fuzz
