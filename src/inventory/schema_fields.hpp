#pragma once
// Field-level decoding shared by the schema files: scalar values checked against a grammar,
// and flat maps whose keys and values each have one. Errors go to the Decoder at the
// position of the offending key or value, with the grammar as the fix.

#include "yaml/decoder.hpp"
#include "schema.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::inventory_detail {

using Check = std::optional<std::string> (*)(std::string_view);

// A grammar and how to write a value that it accepts (the hint of every refusal).
struct Grammar {
  Check check;
  std::string_view fix;
};

// The grammar of each kind of field (docs/inventory.md, "Grammar of values").
namespace grammar {
extern const Grammar name;            // cluster, group, partition, rack, gpu.model
extern const Grammar hca;
extern const Grammar label_key;
extern const Grammar label_value;
extern const Grammar host_name;
extern const Grammar address;
extern const Grammar user;
extern const Grammar local_file;      // key_file: absolute
extern const Grammar directory;       // containers.pyxis.runtime_path: absolute
extern const Grammar ssh_file;        // identity_file, known_hosts: absolute or ~/
extern const Grammar url;
extern const Grammar driver_branch;
extern const Grammar driver_version;
extern const Grammar cuda_version;
extern const Grammar slurm_key;
extern const Grammar slurm_value;
extern const Grammar nccl_key;
extern const Grammar nccl_value;
extern const Grammar email;           // alert e-mail from/to
extern const Grammar email_user;      // SMTP user: an address or a user name
extern const Grammar host_port;       // SMTP smarthost
extern const Grammar chat_channel;    // Slack-compatible channel
extern const Grammar toolkit_version; // containers.toolkit_version: "1.17.8"
extern const Grammar image_ref;       // containers.gpu_test_image: localhost/gpuctl-gpu-test:1
}  // namespace grammar

inline Pos pos_of(const YamlNode& node) { return {node.line, node.column}; }

template <typename T>
void set(Field<T>& field, std::optional<T> value, const YamlNode& node) {
  if (!value) return;
  field.value = std::move(value);
  field.pos = pos_of(node);
}

// A non-empty string that `g` accepts; `what` names it in messages ("cluster name").
std::optional<std::string> checked(Decoder& d, const YamlNode& node, std::string_view what, const Grammar& g);
// Reports text already read (e.g. a list item) that `g` refuses; true when it is valid.
bool accepted(Decoder& d, const YamlNode& at, const std::string& text, std::string_view what, const Grammar& g);

// One entry of a flat map of scalars, with where its key and value are.
struct MapEntry {
  std::string key;
  std::string value;
  Pos key_pos;
  Pos value_pos;
};
// A flat map of scalar values (labels, NCCL settings, Slurm options), values as text, in file
// order; entries whose value is not a non-empty scalar are reported and left out.
std::vector<MapEntry> scalar_map(Decoder& d, const YamlNode& node, std::string_view what);

// A positive decimal number in `unit` (GB/s thresholds, an IB rate in Gb/s), integers accepted.
std::optional<double> positive_number(Decoder& d, const YamlNode& node, std::string_view what,
                                      std::string_view unit = "GB/s, like 380 or 26.5");
// A size in bytes as nccl-tests' -b takes it: 1048576, 512K, 256M, 1G (binary multiples).
std::optional<std::int64_t> byte_size(Decoder& d, const YamlNode& node, std::string_view what);

// The `cluster` section (schema_cluster.cpp).
void decode_cluster(Decoder& d, const YamlNode& node, RawInventory& raw);

}  // namespace gpuctl::inventory_detail
