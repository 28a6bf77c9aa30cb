// The StateStore's verify check results (table check_results, schema version 2): written per
// node as verify runs, read back by `gpuctl report`.
#include "sqlite_store_impl.hpp"

namespace gpuctl::state {

Result<void> StateStore::record_checks(RunId run, const std::string& node, const std::vector<CheckRecord>& checks) {
  const std::lock_guard lock(m_impl->mutex);
  auto& db = *m_impl->db;
  auto tx = sqlite::Transaction::begin_immediate(db);
  if (!tx) return std::unexpected(tx.error());
  if (auto ok = db.run("DELETE FROM check_results WHERE run_id = ?1 AND node = ?2", {run, node}); !ok) return ok;
  std::int64_t position = 0;
  for (const auto& c : checks)
    if (auto ok = db.run(
            "INSERT INTO check_results (run_id, node, position, check_name, status, observed, expected, detail, "
            "command, output) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            {run, node, position++, c.check, c.status, c.observed, c.expected, c.detail, c.command, c.output});
        !ok)
      return ok;
  return tx->commit();
}

Result<std::vector<std::pair<std::string, std::vector<CheckRecord>>>> StateStore::check_results(RunId run) {
  const std::lock_guard lock(m_impl->mutex);
  auto stmt = m_impl->db->prepare(
      "SELECT node, check_name, status, observed, expected, detail, command, output FROM check_results "
      "WHERE run_id = ?1 ORDER BY node, position",
      {run});
  if (!stmt) return std::unexpected(stmt.error());
  std::vector<std::pair<std::string, std::vector<CheckRecord>>> nodes;
  for (;;) {
    auto row = (*stmt)->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    const auto& r = **stmt;
    auto node = r.column_text(0);
    if (nodes.empty() || nodes.back().first != node) nodes.emplace_back(node, std::vector<CheckRecord>{});
    nodes.back().second.push_back({r.column_text(1), r.column_text(2), r.column_text(3), r.column_text(4),
                                   r.column_text(5), r.column_text(6), r.column_text(7)});
  }
  (*stmt)->reset();
  return nodes;
}

Result<RunId> StateStore::latest_run_with_checks() {
  const std::lock_guard lock(m_impl->mutex);
  auto id = m_impl->db->query_int("SELECT MAX(run_id) FROM check_results");
  if (!id) return std::unexpected(id.error());
  if (!*id || **id == 0)
    return fail(ErrorCode::not_found, "no run in " + m_impl->db->path() + " recorded verify check results", {},
                "run gpuctl verify INVENTORY first");
  return **id;
}

}  // namespace gpuctl::state
