#pragma once
// The fact catalog (private to src/facts): every probe of the facts batch beyond the base ones
// (os, kernel, modules, driver, packages, CUDA, NCCL, GPUs) is declared once, in its fact's
// file, by a FactSpec: the probe's name, its shell (a file under src/facts/probes/ that
// shellcheck reads, or built from the query fields its parser shares), the command a failure
// shows, and the parser that fills NodeFacts. The batch (probe_script.cpp), the facts view
// (collect.cpp, json.cpp, render_text.cpp) and `probe_command` read it; a check names the
// probes it reads (verify/catalog.hpp), so verify asks for exactly those.

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/facts.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

using Probes = std::map<std::string, ProbeOutput>;

// Built-in probes keep the batch's historical order; declared ones follow by name.
enum class FactGroup { builtin, declared };

struct FactSpec {
  std::string_view probe{};     // its name in the batch and in NodeFacts::sources
  std::string_view command{};   // what an operator types to see the same; empty: the shell, less `$T `
  FactGroup group = FactGroup::declared;
  bool after_gpus = false;      // skipped (exit 125) when the GPU query failed: a hung driver costs one timeout
  std::string (*shell)() = nullptr;              // the probe's shell function body
  void (*fill)(NodeFacts&, const Probes&) = nullptr;  // always called: absent with why when not probed
  // Views of a fact held in NodeFacts::declared; built-in facts are NodeFacts members with
  // their views in json.cpp and render_text.cpp.
  void (*to_json)(const NodeFacts&, nlohmann::ordered_json& node) = nullptr;
  std::string (*to_text)(const NodeFacts&) = nullptr;  // lines of `gpuctl facts`, each "  name: ...\n"
};

// One static FactRegistration in the fact's file declares it; a probe name twice aborts.
struct FactRegistration {
  explicit FactRegistration(FactSpec spec);
};

// Every declared probe, built-in ones first in their order, then by name.
std::vector<const FactSpec*> fact_catalog();
const FactSpec* find_fact(std::string_view probe);

// The text of src/facts/probes/NAME.sh, embedded at build time; aborts for a name with no file
// (a fact file and its shell go together, and the catalog test runs every one).
std::string probe_shell(std::string_view name);

// Why a probe produced nothing usable, quoting what it said; nullopt when it succeeded.
std::optional<std::string> probe_failure(const Probes& probes, const std::string& name, std::string_view what);

// A fact parsed from one probe's stdout; absent with the probe's failure or the parse error.
template <typename T, typename Parse>
Fact<T> parse_fact(const Probes& probes, const std::string& name, std::string_view what, Parse parse) {
  if (auto failure = probe_failure(probes, name, what)) return Fact<T>::absent(std::move(*failure));
  auto value = parse(probes.at(name).out);
  if (!value) return Fact<T>::absent(fmt::format("{}: unexpected output: {}", what, value.error().message));
  return Fact<T>::of(std::move(*value));
}

}  // namespace gpuctl::facts
