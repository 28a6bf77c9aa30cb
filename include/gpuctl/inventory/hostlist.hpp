#pragma once
// Hostlists in the Slurm/ClusterShell syntax: "node[01-08,10]", "rack[1-2]-gpu[001-004]",
// comma-separated lists. Pure functions, no I/O.

#include <gpuctl/core/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::hostlist {

// Refuse expressions that expand to more names than this (a typo like node[1-99999999]).
inline constexpr std::size_t k_max_expansion = 100000;
// ... or more characters in all than this (100000 names of 167 characters; a hostname has 253 at most).
inline constexpr std::size_t k_max_expansion_chars = std::size_t{16} << 20;

// Expands an expression into names, in order, duplicates removed (first occurrence kept).
// Errors (ErrorCode::parse, column set in Error::where.column): missing or unbalanced bracket,
// empty range, reversed range, zero-padding mismatch between range ends, a non-number in a
// range, an expansion larger than `limit` names or `k_max_expansion_chars` characters.
Result<std::vector<std::string>> expand(std::string_view expression, std::size_t limit = k_max_expansion);

// Folds names into the shortest expression that expands back to the same set, sorted like
// `nodeset -f` (names grouped by their non-numeric pattern, numbers ascending, padding kept).
std::string compress(const std::vector<std::string>& names);

// compress() for hostlists that Slurm reads (slurm.conf NodeName=, NodeAddr=, Nodes=;
// gres.conf NodeName=). Slurm's parser refuses part of ClusterShell's syntax: a name holding a
// bracket must end with one ("r[01-02]n[01]", never "r[01-02]n01"), so names ending in a letter
// are listed one by one ("gpu01-ib,gpu02-ib"); and a name holds at most two brackets
// ("c1r[1-2]n[1-2],c2r[1-2]n[1-2]", "c1r[1-2]n[1],c2r[1-2]n[1]"), so Slurm expands every result
// in the order expand() does (it orders three brackets differently).
std::string compress_for_slurm(const std::vector<std::string>& names);

}  // namespace gpuctl::hostlist
