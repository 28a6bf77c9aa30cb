// The StateStore's records: plans, step outcomes, node results, facts snapshots, GPU slot
// history, and reading them back for `history` and `show`.
#include "sqlite_store_impl.hpp"

#include <gpuctl/util/clock.hpp>

namespace gpuctl::state {
namespace {

constexpr const char* k_run_columns =
    "SELECT id, command, who, host, pid, process_tag, started, finished, command_line, inventory_path, "
    "inventory_digest, plan_json, status FROM runs ";

RunRecord run_from_row(const sqlite::Statement& row) {
  RunRecord run;
  run.id = row.column_int(0);
  run.command = row.column_text(1);
  run.process.who = row.column_text(2);
  run.process.host = row.column_text(3);
  run.process.pid = static_cast<int>(row.column_int(4));
  run.process.process_tag = row.column_text(5);
  run.started = row.column_text(6);
  run.finished = row.column_text(7);
  run.command_line = row.column_text(8);
  run.inventory_path = row.column_text(9);
  run.inventory_digest = row.column_text(10);
  run.plan_json = row.column_text(11);
  run.status = run_status_from_string(row.column_text(12)).value_or(RunStatus::failed);
  return run;
}

// Runs `sql` and maps every row; the statement is reset afterwards so the connection holds
// no read snapshot between calls.
template <typename T, typename Map>
Result<std::vector<T>> select_all(sqlite::Database& db, const std::string& sql, const std::vector<sqlite::Value>& values,
                                  Map map) {
  auto stmt = db.prepare(sql, values);
  if (!stmt) return std::unexpected(stmt.error());
  std::vector<T> rows;
  for (;;) {
    auto row = (*stmt)->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    rows.push_back(map(**stmt));
  }
  (*stmt)->reset();
  return rows;
}

}  // namespace

Result<std::vector<RunRecord>> StateStore::Impl::select_runs(const std::string& where,
                                                             const std::vector<sqlite::Value>& values) {
  return select_all<RunRecord>(*db, k_run_columns + where, values, run_from_row);
}

Result<void> StateStore::set_plan(RunId run, const std::string& plan_json) {
  const std::lock_guard lock(m_impl->mutex);
  return m_impl->db->run("UPDATE runs SET plan_json = ?2 WHERE id = ?1", {run, plan_json});
}

Result<std::int64_t> StateStore::start_step(RunId run, const std::string& node, const std::string& step) {
  const std::lock_guard lock(m_impl->mutex);
  auto& db = *m_impl->db;
  if (auto ok = db.run("INSERT INTO node_steps (run_id, node, step, status, started) VALUES (?1, ?2, ?3, 'running', ?4)",
                       {run, node, step, util::utc_timestamp()});
      !ok)
    return std::unexpected(ok.error());
  return db.last_insert_id();
}

Result<void> StateStore::finish_step(std::int64_t step_id, const std::string& status, std::int64_t duration_ms,
                                     const std::string& error) {
  const std::lock_guard lock(m_impl->mutex);
  return m_impl->db->run("UPDATE node_steps SET status = ?2, duration_ms = ?3, error = ?4 WHERE id = ?1",
                         {step_id, status, duration_ms, error});
}

Result<void> StateStore::set_step_error(RunId run, const std::string& node, const std::string& step,
                                        const std::string& error) {
  const std::lock_guard lock(m_impl->mutex);
  return m_impl->db->run(
      "UPDATE node_steps SET error = ?4 WHERE id = "
      "(SELECT MAX(id) FROM node_steps WHERE run_id = ?1 AND node = ?2 AND step = ?3)",
      {run, node, step, error});
}

Result<void> StateStore::record_node_result(const NodeResultRecord& result) {
  const std::lock_guard lock(m_impl->mutex);
  return m_impl->db->run(
      "INSERT OR REPLACE INTO node_results (run_id, node, status, reason, duration_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
      {result.run, result.node, result.status, result.reason, result.duration_ms});
}

Result<void> StateStore::record_facts(RunId run, const std::string& node, const std::string& facts_json,
                                      const std::vector<GpuObservation>& gpus) {
  const std::lock_guard lock(m_impl->mutex);
  auto& db = *m_impl->db;
  auto tx = sqlite::Transaction::begin_immediate(db);
  if (!tx) return std::unexpected(tx.error());
  const auto now = util::utc_timestamp();
  if (auto ok = db.run("INSERT INTO facts_snapshots (run_id, node, taken, facts_json) VALUES (?1, ?2, ?3, ?4)",
                       {run, node, now, facts_json});
      !ok)
    return ok;
  for (const auto& gpu : gpus) {
    // The slot's current card: the newest row. Same card: extend its tenure; else a new row.
    struct Current { std::int64_t id; std::string serial, uuid; };
    auto current = select_all<Current>(
        db, "SELECT id, serial, uuid FROM gpu_slots WHERE node = ?1 AND slot_index = ?2 ORDER BY id DESC LIMIT 1",
        {node, std::int64_t{gpu.slot}},
        [](const sqlite::Statement& row) { return Current{row.column_int(0), row.column_text(1), row.column_text(2)}; });
    if (!current) return std::unexpected(current.error());
    const bool same = !current->empty() && current->front().serial == gpu.serial && current->front().uuid == gpu.uuid;
    auto ok = same ? db.run("UPDATE gpu_slots SET last_seen = ?2, pci_bus_id = ?3 WHERE id = ?1",
                            {current->front().id, now, gpu.pci_bus_id})
                   : db.run("INSERT INTO gpu_slots (node, slot_index, serial, uuid, pci_bus_id, first_seen, last_seen) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                            {node, std::int64_t{gpu.slot}, gpu.serial, gpu.uuid, gpu.pci_bus_id, now});
    if (!ok) return ok;
  }
  return tx->commit();
}

Result<std::vector<RunRecord>> StateStore::list_runs(const RunQuery& query) {
  const std::lock_guard lock(m_impl->mutex);
  const std::int64_t limit = query.limit > 0 ? query.limit : -1;   // -1: SQLite's "no limit"
  if (query.node.empty()) return m_impl->select_runs("ORDER BY id DESC LIMIT ?1", {limit});
  return m_impl->select_runs(
      "WHERE id IN (SELECT run_id FROM node_steps WHERE node = ?1 UNION SELECT run_id FROM node_results WHERE node = ?1 "
      "UNION SELECT run_id FROM facts_snapshots WHERE node = ?1) ORDER BY id DESC LIMIT ?2",
      {query.node, limit});
}

Result<RunRecord> StateStore::get_run(RunId run) {
  const std::lock_guard lock(m_impl->mutex);
  auto runs = m_impl->select_runs("WHERE id = ?1", {run});
  if (!runs) return std::unexpected(runs.error());
  if (runs->empty())
    return fail(ErrorCode::not_found, "no run " + std::to_string(run) + " in " + m_impl->db->path(), {},
                "gpuctl history lists the recorded runs");
  return std::move(runs->front());
}

Result<std::vector<NodeStepRecord>> StateStore::steps(RunId run, const std::string& node) {
  const std::lock_guard lock(m_impl->mutex);
  return select_all<NodeStepRecord>(
      *m_impl->db,
      "SELECT run_id, id, node, step, status, started, duration_ms, error FROM node_steps "
      "WHERE run_id = ?1 AND (?2 = '' OR node = ?2) ORDER BY node, id",
      {run, node}, [](const sqlite::Statement& row) {
        return NodeStepRecord{row.column_int(0),  row.column_int(1),  row.column_text(2), row.column_text(3),
                          row.column_text(4), row.column_text(5), row.column_int(6),  row.column_text(7)};
      });
}

Result<std::vector<NodeResultRecord>> StateStore::node_results(RunId run) {
  const std::lock_guard lock(m_impl->mutex);
  return select_all<NodeResultRecord>(
      *m_impl->db, "SELECT run_id, node, status, reason, duration_ms FROM node_results WHERE run_id = ?1 ORDER BY node",
      {run}, [](const sqlite::Statement& row) {
        return NodeResultRecord{row.column_int(0), row.column_text(1), row.column_text(2), row.column_text(3),
                                row.column_int(4)};
      });
}

namespace {
FactsSnapshot snapshot_from_row(const sqlite::Statement& row) {
  return FactsSnapshot{row.column_int(0), row.column_text(1), row.column_text(2), row.column_text(3)};
}
}  // namespace

Result<std::vector<FactsSnapshot>> StateStore::facts_snapshots(RunId run) {
  const std::lock_guard lock(m_impl->mutex);
  return select_all<FactsSnapshot>(
      *m_impl->db, "SELECT run_id, node, taken, facts_json FROM facts_snapshots WHERE run_id = ?1 ORDER BY node, id",
      {run}, snapshot_from_row);
}

Result<FactsSnapshot> StateStore::latest_facts(const std::string& node, RunId before_run) {
  const std::lock_guard lock(m_impl->mutex);
  auto rows = select_all<FactsSnapshot>(
      *m_impl->db,
      "SELECT run_id, node, taken, facts_json FROM facts_snapshots WHERE node = ?1 AND (?2 = 0 OR run_id <= ?2) "
      "ORDER BY id DESC LIMIT 1",
      {node, before_run}, snapshot_from_row);
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return fail(ErrorCode::not_found, "no facts recorded for " + node);
  return std::move(rows->front());
}

Result<std::vector<GpuSlotRecord>> StateStore::gpu_slot_history(const std::string& node) {
  const std::lock_guard lock(m_impl->mutex);
  return select_all<GpuSlotRecord>(
      *m_impl->db,
      "SELECT node, slot_index, serial, uuid, pci_bus_id, first_seen, last_seen FROM gpu_slots WHERE node = ?1 "
      "ORDER BY slot_index, id",
      {node}, [](const sqlite::Statement& row) {
        return GpuSlotRecord{row.column_text(0), static_cast<int>(row.column_int(1)), row.column_text(2),
                             row.column_text(3), row.column_text(4), row.column_text(5), row.column_text(6)};
      });
}

}  // namespace gpuctl::state
