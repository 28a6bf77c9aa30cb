// The parser of `dcgmi diag -j`: both layouts DCGM writes (tests/data/dcgm/README.md).
#include <gpuctl/verify/dcgm_diag.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace gpuctl {
namespace {

using json = nlohmann::json;

std::string last_lines(std::string_view text) { return std::string(util::trim(util::tail_lines(text, 3))); }

std::string text_of(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// dcgmi's words: Pass, Fail, Warn, Skip (3.x wrote Warn as Fail). Anything else is unknown,
// never read as a pass.
DcgmStatus status_of(std::string_view word) {
  const auto lower = util::to_lower(util::trim(word));
  if (lower == "pass") return DcgmStatus::pass;
  if (lower == "fail") return DcgmStatus::fail;
  if (lower == "warn" || lower == "warning") return DcgmStatus::warn;
  if (lower == "skip") return DcgmStatus::skip;
  return DcgmStatus::unknown;
}

// GPU of a result: 4.x's entity_id (GPU entities only), 3.x's gpu_id (a string per GPU; a number
// in 3.x's Deployment results).
std::optional<int> gpu_of(const json& result) {
  const auto group = text_of(result, "entity_group");
  for (const char* key : {"entity_id", "gpu_id"}) {
    const auto it = result.find(key);
    if (it == result.end() || (!group.empty() && group != "GPU")) continue;
    if (it->is_number_integer()) return it->get<int>();
    if (it->is_string()) {
      const auto text = it->get<std::string>();
      if (!text.empty() && text.size() < 6 && std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; }))
        return std::stoi(text);
    }
  }
  return std::nullopt;
}

// A warning is an object {warning, error_id, ...}; 3.x's Deployment results put the message under
// "warnings" instead; older writers a plain string.
std::vector<std::string> messages(const json& result, const char* key) {
  std::vector<std::string> out;
  const auto it = result.find(key);
  if (it == result.end()) return out;
  const auto add = [&](const json& item) {
    if (item.is_string()) out.push_back(item.get<std::string>());
    else if (item.is_object()) {
      auto text = text_of(item, "warning");
      if (text.empty()) text = text_of(item, "warnings");
      if (!text.empty()) out.push_back(std::move(text));
    }
  };
  if (it->is_array()) for (const auto& item : *it) add(item);
  else add(*it);
  return out;
}

DcgmGpuResult result_of(const json& result) {
  DcgmGpuResult out;
  out.gpu = gpu_of(result);
  out.status_text = text_of(result, "status");
  out.status = status_of(out.status_text);
  out.warnings = messages(result, "warnings");
  out.info = messages(result, "info");
  return out;
}

int severity(DcgmStatus status) {
  switch (status) {
    case DcgmStatus::pass: return 0;
    case DcgmStatus::skip: return 1;
    case DcgmStatus::unknown: return 2;
    case DcgmStatus::warn: return 3;
    case DcgmStatus::fail: return 4;
  }
  return 2;
}

}  // namespace

std::string_view to_string(DcgmStatus status) {
  switch (status) {
    case DcgmStatus::pass: return "pass";
    case DcgmStatus::fail: return "fail";
    case DcgmStatus::warn: return "warn";
    case DcgmStatus::skip: return "skip";
    case DcgmStatus::unknown: return "unknown";
  }
  return "unknown";
}

DcgmStatus DcgmTestResult::status() const {
  std::optional<DcgmStatus> worst;
  const auto take = [&](DcgmStatus s) { if (!worst || severity(s) > severity(*worst)) worst = s; };
  for (const auto& result : results) take(result.status);
  if (summary) take(summary->status);
  return worst.value_or(DcgmStatus::unknown);
}

Result<DcgmDiagReport> parse_dcgm_diag(std::string_view output) {
  const auto start = output.find('{');
  if (start == std::string_view::npos)
    return fail(ErrorCode::parse, fmt::format("dcgmi printed no JSON: {}", last_lines(output)));
  // Up to the last '}': stderr lines (merged by the script) may follow the document.
  const auto end = output.rfind('}');
  const auto document = json::parse(output.substr(start, end + 1 - start), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object())
    return fail(ErrorCode::parse, fmt::format("dcgmi's output is not valid JSON: {}", last_lines(output)));

  const json* root = nullptr;
  for (const char* key : {"DCGM Diagnostic", "DCGM GPU Diagnostic"})
    if (const auto it = document.find(key); it != document.end() && it->is_object()) root = &*it;
  if (!root) return fail(ErrorCode::parse, "dcgmi's JSON has no \"DCGM Diagnostic\" (4.x) or \"DCGM GPU Diagnostic\" (3.x) object");
  // The diagnostic itself could not run (Diag::HelperDisplayFailureMessage).
  if (const auto error = text_of(*root, "runtime_error"); !error.empty())
    return fail(ErrorCode::io, std::string(util::trim(error)));

  DcgmDiagReport report;
  if (const auto it = document.find("metadata"); it != document.end() && it->is_object()) {
    report.dcgm_version = text_of(*it, "version");
    report.driver_version = text_of(*it, "Driver Version Detected");
  }
  if (report.dcgm_version.empty()) report.dcgm_version = text_of(document, "version");
  if (report.dcgm_version.empty()) report.dcgm_version = text_of(*root, "version");
  if (report.driver_version.empty()) report.driver_version = text_of(document, "Driver Version Detected");

  const auto categories = root->find("test_categories");
  if (categories != root->end() && categories->is_array())
    for (const auto& category : *categories) {
      if (!category.is_object()) continue;
      const auto tests = category.find("tests");
      if (tests == category.end() || !tests->is_array()) continue;
      for (const auto& test : *tests) {
        if (!test.is_object()) continue;  // jsoncpp leaves null where a test index was skipped
        DcgmTestResult out;
        out.category = text_of(category, "category");
        out.name = text_of(test, "name");
        if (const auto results = test.find("results"); results != test.end() && results->is_array())
          for (const auto& result : *results)
            if (result.is_object()) out.results.push_back(result_of(result));
        if (const auto summary = test.find("test_summary"); summary != test.end() && summary->is_object())
          out.summary = result_of(*summary);
        report.tests.push_back(std::move(out));
      }
    }
  if (report.tests.empty()) return fail(ErrorCode::parse, "dcgmi's JSON lists no test result");
  return report;
}

}  // namespace gpuctl
