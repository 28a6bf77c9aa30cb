#pragma once
// What the config formats the inventory is rendered into can hold, key by key and value by
// value, so that a value never adds a line, a word or a comment to the file it lands in.
// Pure functions; each returns nullopt when `text` is valid, else why it is not.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpuctl::inventory_detail {

// slurm.conf: lines of Key=Value words separated by spaces; '#' starts a comment anywhere.
// A key is [A-Za-z][A-Za-z0-9_]*; a value is one word of printable ASCII without '#', quotes,
// '\', "..", "{{" or the shell metacharacters ` $ ; & | < > ( ) { } ('=' and ',' are fine:
// Slurm splits at the first '='), at most 1024 characters.
std::optional<std::string> check_slurm_key(std::string_view text);
std::optional<std::string> check_slurm_value(std::string_view text);

// Keys gpuctl writes itself on the line (or in the file) an option lands in; an option of the
// same name would declare a second node or partition, or contradict the inventory.
inline constexpr std::string_view k_slurm_file_keys[] = {
    "ClusterName", "SlurmctldHost", "ControlMachine", "ControlAddr", "BackupController", "BackupAddr",
    "NodeName",    "NodeSet",       "PartitionName",  "DownNodes",   "FrontendName",     "Include"};
inline constexpr std::string_view k_slurm_partition_keys[] = {"PartitionName", "Nodes", "Default"};
inline constexpr std::string_view k_slurm_node_keys[] = {"NodeName", "NodeAddr", "NodeHostname", "Gres"};

// The entry of `reserved` that `key` names (Slurm keys ignore case), or nullopt.
std::optional<std::string_view> reserved_slurm_key(std::string_view key, std::span<const std::string_view> reserved);

// nccl.conf: KEY=VALUE lines; NCCL splits at the first '=' and keeps the rest of the line.
// A key is NCCL_[A-Z0-9_]+; a value is one word like a slurm.conf value ('=' is fine: "=bond0"
// selects exactly bond0), at most 1023 characters (NCCL truncates longer ones).
std::optional<std::string> check_nccl_key(std::string_view text);
std::optional<std::string> check_nccl_value(std::string_view text);

}  // namespace gpuctl::inventory_detail
