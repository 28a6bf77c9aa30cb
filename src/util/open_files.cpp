#include <gpuctl/util/open_files.hpp>

#include <limits>

#include <sys/resource.h>

namespace gpuctl::util {
namespace {

long as_limit(rlim_t value) {
  if (value == RLIM_INFINITY || value > static_cast<rlim_t>(std::numeric_limits<long>::max()))
    return std::numeric_limits<long>::max();
  return static_cast<long>(value);
}

}  // namespace

long open_file_limit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return std::numeric_limits<long>::max();
  return as_limit(files.rlim_cur);
}

long raise_open_file_limit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return open_file_limit();
  if (files.rlim_cur != files.rlim_max) {
    rlimit raised = files;
    raised.rlim_cur = files.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &raised);
  }
  return open_file_limit();
}

}  // namespace gpuctl::util
