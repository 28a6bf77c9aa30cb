#pragma once
// A fixture for tests of single verify checks: node 1 of the in-code example inventory, an
// empty program, and the NodeState the test fills in; run(name) runs that one check.

#include <gpuctl/verify/checks.hpp>

#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

namespace gpuctl::testing {

class SingleCheckTest : public ::testing::Test {
 protected:
  SingleCheckTest() : inventory(example_inventory()), node(inventory.nodes[1]) {}

  CheckResult run(const std::string& name) {
    const auto results = run_checks({name}, CheckInput{inventory, node, fixture.program, state});
    EXPECT_EQ(results.size(), 1u);
    return results.at(0);
  }

  Inventory inventory;
  Node& node;
  NodeState state;
  ProgramFixture fixture{std::vector<StepSpec>{}};
};

}  // namespace gpuctl::testing
