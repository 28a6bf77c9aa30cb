#include <gpuctl/report/html.hpp>

#include <gpuctl/verify/checks.hpp>

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <set>

namespace gpuctl {
namespace {

// Kept here rather than in a file beside the binary: the page must work when mailed or
// attached to a ticket, so nothing is fetched.
constexpr std::string_view k_style = R"css(
:root{--pass:#1a7f37;--fail:#cf222e;--error:#bc4c00;--skip:#8c959f;--none:#eaeef2;--bg:#fff;--fg:#1f2328;--muted:#656d76}
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:24px;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 8px}
.meta{color:var(--muted);margin-bottom:16px}
.summary{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:16px}
.badge{border-radius:6px;padding:8px 14px;background:#f6f8fa;border:1px solid #d0d7de}
.badge b{font-size:20px;display:block}
.badge.fail b{color:var(--fail)}.badge.pass b{color:var(--pass)}.badge.error b{color:var(--error)}
.filters{display:flex;gap:16px;align-items:center;margin-bottom:12px}
.filters select{font:inherit;padding:3px 6px}
table{border-collapse:collapse}
#grid th,#grid td{border:1px solid #d0d7de;padding:4px 8px;text-align:center;white-space:nowrap}
#grid th.check{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;font-weight:600;padding:8px 4px}
#grid td.node{text-align:left;font-weight:600}
#grid td.groups{text-align:left;color:var(--muted)}
td.cell a{color:inherit;text-decoration:none;display:block}
td.cell[data-status=pass]{background:var(--pass);color:#fff}
td.cell[data-status=fail]{background:var(--fail);color:#fff;font-weight:700}
td.cell[data-status=error]{background:var(--error);color:#fff;font-weight:700}
td.cell[data-status=skipped]{background:var(--skip);color:#fff}
td.cell[data-status=none]{background:var(--none);color:var(--muted)}
td.unreachable{background:#fff8c5;text-align:left!important}
.st{border-radius:10px;padding:1px 8px;font-size:12px;font-weight:600;color:#fff}
.st-ok{background:var(--pass)}.st-changed{background:var(--pass)}.st-failed{background:var(--fail)}
.st-unreachable{background:#9a6700}.st-skipped{background:var(--skip)}
#problems td,#problems th{border-bottom:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top}
#problems code{background:#f6f8fa;padding:1px 4px;border-radius:4px;white-space:pre-wrap}
#problems details{margin-top:4px}
#problems summary{cursor:pointer}
#problems summary code{font-weight:600}
#problems pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:6px 8px;margin:4px 0 0;
  max-width:70em;max-height:24em;overflow:auto;white-space:pre-wrap;font-size:12px}
tr.hidden{display:none}
:target{outline:3px solid #0969da}
footer{margin-top:28px;color:var(--muted);font-size:12px}
)css";

// Filters rows of the grid and of the problem list by node status and group; marks the body
// data-ready once it ran (the headless-browser test looks for it).
constexpr std::string_view k_script = R"js(
(function(){
  var status=document.getElementById('status-filter'), group=document.getElementById('group-filter');
  function apply(){
    var s=status.value, g=group.value, shown=0;
    document.querySelectorAll('tr[data-node]').forEach(function(row){
      var okStatus = s==='all' || (s==='problems' ? row.dataset.status!=='ok' : row.dataset.status===s);
      var okGroup = g==='all' || (' '+row.dataset.groups+' ').indexOf(' '+g+' ')>=0;
      var show = okStatus && okGroup;
      row.classList.toggle('hidden', !show);
      if (show && row.parentNode.parentNode.id==='grid') shown++;
    });
    document.getElementById('shown').textContent = shown;
  }
  // A link can carry the filters: report.html#status=failed&group=gpu
  location.hash.replace(/^#/,'').split('&').forEach(function(kv){
    var p=kv.split('='), v=decodeURIComponent(p[1]||'');
    var sel = p[0]==='status' ? status : p[0]==='group' ? group : null;
    if (sel && Array.prototype.some.call(sel.options, function(o){return o.value===v;})) sel.value=v;
  });
  status.addEventListener('change', apply); group.addEventListener('change', apply); apply();
  document.body.setAttribute('data-ready','1');
})();
)js";

std::string anchor(const std::string& node, const std::string& check) {
  std::string id = "p-" + node + "-" + check;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return id;
}

// Observed and expected values are machine text; an empty one shows as an empty cell.
std::string code(std::string_view text) { return text.empty() ? std::string{} : "<code>" + html_escape(text) + "</code>"; }

// The command the check read, always shown; its output folded away (it can be kilobytes).
std::string evidence(const CheckResult& check) {
  if (check.command.empty()) return {};
  return fmt::format("<details class=\"evidence\"><summary><code class=\"command\">$ {}</code></summary>"
                     "<pre class=\"output\">{}</pre></details>",
                     html_escape(check.command), check.output.empty() ? "(no output)" : html_escape(check.output));
}


}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void HtmlReportInfo::describe_inventory(const Inventory& inventory) {
  cluster = inventory.cluster.name;
  for (const auto& node : inventory.nodes) node_groups[node.name] = node.groups;
}

std::string render_verify_html(const std::vector<NodeVerifyOutcome>& outcomes, const HtmlReportInfo& info) {
  const auto e = [](std::string_view text) { return html_escape(text); };
  std::vector<std::string> columns;
  for (const auto& o : outcomes)
    for (const auto& check : o.checks)
      if (std::ranges::find(columns, check.name) == columns.end()) columns.push_back(check.name);
  std::set<std::string> all_groups;
  for (const auto& [node, groups] : info.node_groups) all_groups.insert(groups.begin(), groups.end());
  const auto groups_of = [&](const std::string& node) {
    const auto it = info.node_groups.find(node);
    return it == info.node_groups.end() ? std::vector<std::string>{} : it->second;
  };

  int nodes_ok = 0, nodes_failed = 0, nodes_unreachable = 0, nodes_other = 0;
  int checks_pass = 0, checks_fail = 0, checks_error = 0, checks_skipped = 0;
  for (const auto& o : outcomes) {
    switch (o.outcome.status) {
      case exec::NodeStatus::ok: case exec::NodeStatus::changed: ++nodes_ok; break;
      case exec::NodeStatus::failed: ++nodes_failed; break;
      case exec::NodeStatus::unreachable: ++nodes_unreachable; break;
      case exec::NodeStatus::skipped: ++nodes_other; break;
    }
    for (const auto& c : o.checks) {
      checks_pass += c.status == CheckStatus::pass;
      checks_fail += c.status == CheckStatus::fail;
      checks_error += c.status == CheckStatus::error;
      checks_skipped += c.status == CheckStatus::skipped;
    }
  }

  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}{}</title>\n<style>{}</style>\n</head>\n<body>\n", e(info.title),
                     info.cluster.empty() ? "" : " - " + e(info.cluster), k_style);
  out += fmt::format("<h1>{}</h1>\n<div class=\"meta\">{}{}</div>\n", e(info.title),
                     info.cluster.empty() ? "" : "cluster <b>" + e(info.cluster) + "</b>",
                     info.generated_at.empty() ? "" : " &middot; generated " + e(info.generated_at));
  out += "<div class=\"summary\" id=\"summary\">\n";
  out += fmt::format("<div class=\"badge\" data-count=\"nodes\"><b>{}</b>nodes</div>\n", outcomes.size());
  out += fmt::format("<div class=\"badge pass\" data-count=\"nodes-ok\"><b>{}</b>pass every check</div>\n", nodes_ok);
  out += fmt::format("<div class=\"badge fail\" data-count=\"nodes-failed\"><b>{}</b>failed</div>\n", nodes_failed);
  out += fmt::format("<div class=\"badge error\" data-count=\"nodes-unreachable\"><b>{}</b>unreachable</div>\n",
                     nodes_unreachable);
  if (nodes_other) out += fmt::format("<div class=\"badge\" data-count=\"nodes-skipped\"><b>{}</b>skipped</div>\n", nodes_other);
  out += fmt::format(
      "<div class=\"badge\" data-count=\"checks\"><b>{}</b>checks: {} pass, {} fail, {} error, {} skipped</div>\n",
      checks_pass + checks_fail + checks_error + checks_skipped, checks_pass, checks_fail, checks_error, checks_skipped);
  out += "</div>\n";

  out += "<div class=\"filters\">\n<label>Status <select id=\"status-filter\">"
         "<option value=\"all\">all</option><option value=\"problems\">not ok</option>"
         "<option value=\"ok\">ok</option><option value=\"failed\">failed</option>"
         "<option value=\"unreachable\">unreachable</option><option value=\"skipped\">skipped</option></select></label>\n";
  out += "<label>Group <select id=\"group-filter\"><option value=\"all\">all</option>";
  for (const auto& g : all_groups) out += fmt::format("<option value=\"{0}\">{0}</option>", e(g));
  out += "</select></label>\n<span><span id=\"shown\">" + std::to_string(outcomes.size()) + "</span> nodes shown</span>\n</div>\n";

  out += "<table id=\"grid\">\n<thead><tr><th>node</th><th>groups</th><th>status</th>";
  for (const auto& column : columns)
    out += fmt::format("<th class=\"check\" title=\"{}\">{}</th>", e(check_description(column)), e(column));
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& o : outcomes) {
    const auto& node = o.outcome.node;
    const auto status = std::string(exec::to_string(o.outcome.status));
    std::vector<std::string> groups = groups_of(node);
    std::string joined;
    for (const auto& g : groups) joined += (joined.empty() ? "" : " ") + g;
    out += fmt::format("<tr data-node=\"{}\" data-status=\"{}\" data-groups=\"{}\"><td class=\"node\">{}</td>"
                       "<td class=\"groups\">{}</td><td><span class=\"st st-{}\">{}</span></td>",
                       e(node), status, e(joined), e(node), e(joined), status, status);
    if (o.checks.empty()) {
      out += fmt::format("<td class=\"unreachable\" colspan=\"{}\">{}</td>", std::max<std::size_t>(columns.size(), 1),
                         e(o.outcome.reason.empty() ? status : o.outcome.reason));
    } else {
      for (const auto& column : columns) {
        const auto it = std::ranges::find(o.checks, column, &CheckResult::name);
        if (it == o.checks.end()) {
          out += "<td class=\"cell\" data-check=\"" + e(column) + "\" data-status=\"none\">&ndash;</td>";
          continue;
        }
        const auto check_status = std::string(to_string(it->status));
        const auto tip = fmt::format("{}: observed {}, expected {}", column, it->observed.empty() ? "-" : it->observed,
                                     it->expected.empty() ? "-" : it->expected);
        if (it->status == CheckStatus::pass)
          out += fmt::format("<td class=\"cell\" data-check=\"{}\" data-status=\"pass\" title=\"{}\">PASS</td>", e(column), e(tip));
        else
          out += fmt::format("<td class=\"cell\" data-check=\"{}\" data-status=\"{}\" title=\"{}\"><a href=\"#{}\">{}</a></td>",
                             e(column), check_status, e(tip), anchor(node, column), grid_label(it->status));
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";

  out += "<h2>Problems</h2>\n<table id=\"problems\">\n<thead><tr><th>node</th><th>check</th><th>result</th>"
         "<th>observed</th><th>expected</th><th>detail</th></tr></thead>\n<tbody>\n";
  int problems = 0;
  for (const auto& o : outcomes) {
    const auto& node = o.outcome.node;
    const auto status = std::string(exec::to_string(o.outcome.status));
    std::string joined;
    for (const auto& g : groups_of(node)) joined += (joined.empty() ? "" : " ") + g;
    const auto row_start = fmt::format("<tr data-node=\"{}\" data-status=\"{}\" data-groups=\"{}\"", e(node), status, e(joined));
    if (o.checks.empty() && o.outcome.status != exec::NodeStatus::ok) {
      ++problems;
      out += fmt::format("{}><td>{}</td><td>&ndash;</td><td>{}</td><td></td><td></td><td><code>{}</code></td></tr>\n",
                         row_start, e(node), status, e(o.outcome.reason));
    }
    for (const auto& c : o.checks) {
      if (c.status == CheckStatus::pass) continue;
      ++problems;
      out += fmt::format("{} id=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                         "<td>{}</td></tr>\n",
                         row_start, anchor(node, c.name), e(node), e(c.name), to_string(c.status), code(c.observed),
                         code(c.expected), e(c.detail) + evidence(c));
    }
  }
  if (problems == 0) out += "<tr><td colspan=\"6\">Every check passed on every node.</td></tr>\n";
  out += "</tbody>\n</table>\n";
  out += fmt::format("<footer>gpuctl {} &middot; {} problems</footer>\n", GPUCTL_VERSION, problems);
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", k_script);
  return out;
}

}  // namespace gpuctl
