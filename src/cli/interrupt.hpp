#pragma once
// Ctrl-C for commands that touch many nodes: the first SIGINT (or SIGTERM) sets the token so
// no new node starts and every node is still reported; a second one exits 130 at once.

#include <gpuctl/util/cancellation.hpp>

namespace gpuctl::cli {

// Installs the handlers for the life of the process; `token` must outlive it.
void install_interrupt_handler(util::CancellationToken& token);

}  // namespace gpuctl::cli
