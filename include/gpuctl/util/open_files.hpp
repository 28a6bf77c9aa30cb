#pragma once
// The process's open-file limit. A run over hundreds of nodes holds one socket per node
// session; the usual soft limit (1,024) is far below the usual hard limit, and nothing but the
// process itself may raise it.

namespace gpuctl::util {

// The soft RLIMIT_NOFILE; a very large number when unlimited or unknown.
long open_file_limit();

// Raises the soft limit to the hard one (as the Go runtime and most servers do at start) and
// returns the soft limit in force afterwards. Never lowers it; failure leaves it as it was.
long raise_open_file_limit();

}  // namespace gpuctl::util
