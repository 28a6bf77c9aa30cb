#pragma once
// `gpuctl verify --list`: the check catalog (verify/catalog.hpp) as text or JSON. Pure.

#include <string>

namespace gpuctl {

// Every check by section: one line each, its name and description; a footer names the checks a
// playbook cannot list (verify adds them) and where the details are; then the health policy
// (health/policy.hpp): each Xid's bucket and remedy, SXids, the checks' remedies, the sources.
std::string render_check_list();

// {"format_version": 1, "checks": [{"name", "description", "section", "facts", "runner",
// "source", "in_playbooks"}], "health_policy": {"version", "xid": [{"code", "bucket", "remedy",
// "meaning"}], "recovery_action", "sxid", "checks", "after_remedy_dcgm_diag_level", "sources"}},
// in the text's order.
std::string check_list_to_json();

}  // namespace gpuctl
