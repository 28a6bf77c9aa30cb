// The download before a drain (apply/prefetch.hpp): the packages a plan installs or upgrades,
// in plan order, each resolved like the install but only into apt's cache; nothing for a plan
// that installs no package.
#include <gpuctl/apply/prefetch.hpp>
#include <gpuctl/plan/plan.hpp>

#include "program_builder.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using testing::ProgramFixture;
using testing::StepSpec;
using testing::resolved_file;
using testing::resolved_package;

TEST(Prefetch, FetchesThePlannedInstallsAndUpgradesOnly) {
  NodeState state;
  state.packages["nvidia-driver-550"] = ObservedPackage{true, "550.54.15-1", true};  // to upgrade
  state.packages["munge"] = ObservedPackage{true, "0.5.15-2", false};               // in place
  const auto removed = resolved_package("nouveau-firmware", {}, false, PackageState::absent);
  state.packages["nouveau-firmware"] = ObservedPackage{true, "1.0", false};
  ProgramFixture fixture({StepSpec{"driver", {resolved_package("nvidia-driver-550", "550.127.08", true)}},
                          StepSpec{"tools", {resolved_file("/etc/x", "x\n"), resolved_package("munge"),
                                             resolved_package("cuda-toolkit-12-4"), removed}}});
  const auto plan = make_node_plan(fixture.program, state);
  const auto script = prefetch_script(fixture.program, plan);
  std::size_t fetches = 0;
  for (auto at = script.find("--download-only"); at != std::string::npos; at = script.find("--download-only", at + 1))
    ++fetches;
  EXPECT_EQ(fetches, 1u) << "one apt-get call, so apt resolves the packages together:\n" << script;
  const auto driver = script.find("pick nvidia-driver-550");
  const auto toolkit = script.find("show cuda-toolkit-12-4");
  ASSERT_NE(driver, std::string::npos) << script;
  ASSERT_NE(toolkit, std::string::npos) << script;
  EXPECT_LT(driver, toolkit) << "plan order";
  EXPECT_NE(script.find("--download-only --allow-downgrades --allow-change-held-packages -o Dpkg::Options::=--force-confdef "
                        "-o Dpkg::Options::=--force-confold nvidia-driver-550=\"$v0\" cuda-toolkit-12-4\n"),
            std::string::npos)
      << script;
  EXPECT_EQ(script.find("munge"), std::string::npos) << "a package in place is not fetched";
  EXPECT_EQ(script.find("nouveau-firmware"), std::string::npos) << "a removal fetches nothing";
  EXPECT_EQ(script.find("apt-mark hold"), std::string::npos) << "fetching holds nothing";
  EXPECT_NE(script.find("apt-get install -y -q --download-only"), std::string::npos) << script;
}

TEST(Prefetch, APlanWithoutPackagesFetchesNothing) {
  ProgramFixture fixture({StepSpec{"config", {resolved_file("/etc/x", "x\n")}}});
  EXPECT_TRUE(prefetch_script(fixture.program, make_node_plan(fixture.program, NodeState{})).empty());
}

}  // namespace
}  // namespace gpuctl
