#pragma once
// Folding nodes that produced the same output, as `clush -b` / `dshbak -c` do: one block per
// distinct (stdout, stderr, exit code), headed by a compressed hostlist. Pure, no I/O.

#include <string>
#include <vector>

namespace gpuctl::exec {

struct NodeOutput {
  std::string node;
  std::string out;
  std::string err;
  int exit_code = 0;
};

struct OutputGroup {
  std::vector<std::string> nodes;  // in input order
  std::string hostlist;            // hostlist::compress(nodes), e.g. "gpu[01-04,07]"
  std::string out;
  std::string err;
  int exit_code = 0;
};

// Groups in order of first appearance of each distinct output.
std::vector<OutputGroup> group_outputs(const std::vector<NodeOutput>& outputs);

}  // namespace gpuctl::exec
