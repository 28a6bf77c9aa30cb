// The direction of dependency between modules, checked on the sources: a module's public
// headers (include/gpuctl/<module>) and its sources (src/<module>) include only modules of a
// lower layer, and the planner includes nothing that does I/O (no node, no state, no secret
// store: api/ hands it secrets through ProgramSources::secret_store). The layers, lowest first (an
// arrow means "may use"; modules of one layer do not use each other):
//   core -> util -> yaml -> {packages, health, monitoring} -> inventory -> {template, transport, state} ->
//   {playbook, exec} -> facts -> plan -> {apply, verify} -> report -> api -> cli
#include <gpuctl_build_paths.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::map<std::string, int>& layers() {
  static const std::map<std::string, int> k_layers{
      {"core", 0},      {"util", 1},      {"yaml", 2},  {"packages", 3}, {"health", 3}, {"monitoring", 3}, {"inventory", 4}, {"template", 5},
      {"transport", 5}, {"state", 5},     {"playbook", 6}, {"exec", 6}, {"facts", 7},     {"plan", 8},
      {"apply", 9},     {"verify", 9},    {"report", 10}, {"api", 11}, {"cli", 12},
  };
  return k_layers;
}

// Rules beyond the layers: what a module must not use although it sits above it.
struct Rule {
  std::string module;
  std::set<std::string> forbidden;
  std::string why;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> k_rules{
      {"plan", {"transport", "exec", "state"},
       "the planner is pure (facts + program -> plan): the state probe runs in facts/state_probe.hpp, and secrets "
       "come from state/secret_store.hpp through ProgramSources::secret_store, which api/ fills"},
  };
  return k_rules;
}

struct Include {
  std::string file;  // relative to the source tree
  int line = 0;
  std::string module;  // for includes_of: the module included; for headers_of: the header as written
};

// One Include per line of the module's headers and sources that one of `patterns` matches,
// with that pattern's first group.
std::vector<Include> matches_in(const std::string& module, const std::vector<std::regex>& patterns, int& files_read) {
  const fs::path root(GPUCTL_SOURCE_DIR);
  std::vector<Include> found;
  for (const auto& dir : {root / "include" / "gpuctl" / module, root / "src" / module}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".h")) continue;
      ++files_read;
      std::ifstream in(entry.path());
      std::string text;
      for (int line = 1; std::getline(in, text); ++line) {
        std::smatch match;
        for (const auto& pattern : patterns)
          if (std::regex_search(text, match, pattern)) {
            found.push_back({fs::relative(entry.path(), root).string(), line, match[1].str()});
            break;
          }
      }
    }
  }
  return found;
}

// Every `#include <gpuctl/<module>/...>` (or "gpuctl/<module>/..."), and every include of a
// module's private header by its path under src/ ("yaml/decoder.hpp"), in the module's headers
// and sources.
std::vector<Include> includes_of(const std::string& module, int& files_read) {
  static const std::vector<std::regex> k_includes{std::regex(R"(^\s*#\s*include\s*[<"]gpuctl/([A-Za-z0-9_]+)/)"),
                                                  std::regex(R"(^\s*#\s*include\s*"([A-Za-z0-9_]+)/)")};
  return matches_in(module, k_includes, files_read);
}

// Every header the module's headers and sources include, as written ("sys/stat.h", "gpuctl/util/strings.hpp").
std::vector<Include> headers_of(const std::string& module, int& files_read) {
  static const std::vector<std::regex> k_includes{std::regex(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])")};
  return matches_in(module, k_includes, files_read);
}

TEST(ModuleDependencies, EveryModuleIncludesOnlyLowerLayers) {
  for (const auto& [module, layer] : layers()) {
    int files_read = 0;
    const auto includes = includes_of(module, files_read);
    // A moved source tree must fail here, not pass with nothing checked.
    EXPECT_GT(files_read, 0) << "no sources found for module " << module << " under " << GPUCTL_SOURCE_DIR;
    for (const auto& include : includes) {
      if (include.module == module) continue;
      const auto used = layers().find(include.module);
      ASSERT_NE(used, layers().end()) << include.file << ":" << include.line << ": unknown module gpuctl/"
                                      << include.module << "/: give it a layer in this test";
      EXPECT_LT(used->second, layer) << include.file << ":" << include.line << ": " << module << "/ includes gpuctl/"
                                     << include.module << "/, which is not below it";
    }
  }
}

TEST(ModuleDependencies, ReportIncludesNothingFromApi) {
  int files_read = 0;
  for (const auto& include : includes_of("report", files_read))
    EXPECT_NE(include.module, "api") << include.file << ":" << include.line
                                     << ": views render the outcome values of apply/ and verify/, not the engine";
  EXPECT_GT(files_read, 0);
}

// The CLI translates: flags -> request -> use case -> view -> exit code (docs/design.md).
TEST(ModuleDependencies, CliIncludesOnlyTheUseCasesViewsAndCore) {
  const std::set<std::string> allowed{"api", "report", "core", "util"};
  int files_read = 0;
  for (const auto& include : includes_of("cli", files_read))
    EXPECT_TRUE(allowed.contains(include.module))
        << include.file << ":" << include.line << ": the CLI includes gpuctl/" << include.module
        << "/: go through a use case in api/ (or a view in report/)";
  EXPECT_GT(files_read, 0);
}

TEST(ModuleDependencies, PlanDoesNoIo) {
  for (const auto& rule : rules()) {
    int files_read = 0;
    for (const auto& include : includes_of(rule.module, files_read))
      EXPECT_FALSE(rule.forbidden.contains(include.module))
          << include.file << ":" << include.line << ": " << rule.module << "/ includes gpuctl/" << include.module
          << "/: " << rule.why;
    EXPECT_GT(files_read, 0);
  }
}

// The planner creates no file or directory: the secret store (state/secret_store.hpp) was its
// last writer. What the store writes with (the private-directory rules, POSIX file
// descriptors and modes) stays out of plan/; reading templates and source files goes through
// template/ and util/file_io.hpp.
TEST(ModuleDependencies, PlanWritesNoFiles) {
  const std::set<std::string> forbidden{"gpuctl/util/private_dir.hpp", "fcntl.h", "unistd.h", "sys/stat.h",
                                        "sys/types.h"};
  int files_read = 0;
  for (const auto& include : headers_of("plan", files_read))
    EXPECT_FALSE(forbidden.contains(include.module))
        << include.file << ":" << include.line << ": plan/ includes <" << include.module
        << ">: the planner does no file I/O of its own; secrets come through ProgramSources::secret_store "
           "(state/secret_store.hpp, bound by api/)";
  EXPECT_GT(files_read, 0);
}

}  // namespace
