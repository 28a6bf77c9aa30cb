#pragma once
// Whole `dcgmi diag -j` documents around the real fragments in tests/data/dcgm (README.md
// there): each fragment wrapped in the structure DCGM's writer puts around it (dcgmi/Diag.cpp:
// root object, test_categories, a category's tests).

#include "probe_capture.hpp"

#include <string>

namespace gpuctl::testing {

// NVIDIA/DCGM #215's "diagnostic" test (8 GPUs, all Pass) as the one test of `category`.
inline std::string dcgm4_document_around_test(const std::string& category) {
  auto test = read_test_data("dcgm/dcgm4-r3-8gpu-diagnostic.fragment.json");
  test = test.substr(0, test.find_last_of('}') + 1);  // the excerpt ends with "},"
  return R"({"DCGM Diagnostic": {"test_categories": [{"category": ")" + category + R"(", "tests": [)" + test +
         R"(]}]}, "metadata": {"version": "4.1.1"}})";
}

// NVIDIA/DCGM #139's Integration and Hardware categories (3.x, a T400, every test Skip).
inline std::string dcgm3_document_around_categories() {
  auto categories = read_test_data("dcgm/dcgm3-r3-t400-skip.fragment.json");
  categories = categories.substr(0, categories.find_last_of('}') + 1);
  return "Successfully ran diagnostic for group.\n{\n\t\"DCGM GPU Diagnostic\" : \n\t{\n\t\t\"test_categories\" : \n\t\t[\n" +
         categories + "\n\t\t]\n\t}\n}\n";
}

}  // namespace gpuctl::testing
