// The StateStore over SQLite: opening (permissions, WAL, migrations), runs and the inventory
// lock. The lock is a row of `locks` written inside BEGIN IMMEDIATE, so checking for a holder
// and taking the lock is one atomic step across processes; a holder whose process is gone is
// detected by pid + process tag (state/process.cpp) and its run marked abandoned.
#include "sqlite_db.hpp"
#include "sqlite_store_impl.hpp"
#include "state_files.hpp"

#include <gpuctl/util/clock.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>

namespace gpuctl::state {

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::running: return "running";
    case RunStatus::ok: return "ok";
    case RunStatus::failed: return "failed";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::abandoned: return "abandoned";
  }
  return "running";
}

std::optional<RunStatus> run_status_from_string(std::string_view text) {
  for (auto status : {RunStatus::running, RunStatus::ok, RunStatus::failed, RunStatus::interrupted, RunStatus::abandoned})
    if (to_string(status) == text) return status;
  return std::nullopt;
}

std::string state_db_path(const std::string& explicit_path, const std::string& state_dir) {
  return explicit_path.empty() ? state_dir + "/state.db" : explicit_path;
}

StateStore::StateStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
StateStore::~StateStore() = default;

const std::string& StateStore::path() const { return m_impl->db->path(); }

Result<std::unique_ptr<StateStore>> StateStore::open(const std::string& path, StoreOptions options) {
  const auto dir = std::filesystem::path(path).parent_path().string();
  if (auto ok = prepare_state_directory(dir.empty() ? "." : dir); !ok) return std::unexpected(ok.error());
  if (auto ok = prepare_state_file(path); !ok) return std::unexpected(ok.error());
  auto db = sqlite::Database::open(path, options.busy_timeout_ms);
  if (!db) return std::unexpected(db.error());
  auto impl = std::make_unique<Impl>();
  impl->db = std::move(*db);
  auto& d = *impl->db;
  // WAL: readers (history) never block the writer (a running apply); NORMAL is durable
  // across a killed process, which is what a crash of gpuctl is.
  for (const char* pragma : {"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON"})
    if (auto ok = d.exec(pragma); !ok) return std::unexpected(ok.error());
  if (auto ok = impl->migrate(options.migrations); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<StateStore>(new StateStore(std::move(impl)));
}

Result<void> StateStore::Impl::migrate(const std::vector<std::string>& migrations) {
  auto tx = sqlite::Transaction::begin_immediate(*db);
  if (!tx) return std::unexpected(tx.error());
  if (auto ok = db->exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); !ok)
    return std::unexpected(ok.error());
  auto current = db->query_int("SELECT MAX(version) FROM schema_version");
  if (!current) return std::unexpected(current.error());
  const auto from = current->value_or(0);
  if (from > static_cast<std::int64_t>(migrations.size()))
    return fail(ErrorCode::io,
                fmt::format("{}: schema version {} is newer than this gpuctl knows ({})", db->path(), from,
                            migrations.size()),
                {}, "use the gpuctl that wrote it, or another database with --state");
  for (auto version = from; version < static_cast<std::int64_t>(migrations.size()); ++version) {
    if (auto ok = db->exec(migrations[static_cast<std::size_t>(version)]); !ok)
      return fail(ErrorCode::io, fmt::format("migrating {} to schema version {}: {}", db->path(), version + 1,
                                             ok.error().message));
    if (auto ok = db->run("DELETE FROM schema_version"); !ok) return std::unexpected(ok.error());
    if (auto ok = db->run("INSERT INTO schema_version (version) VALUES (?1)", {version + 1}); !ok)
      return std::unexpected(ok.error());
  }
  return tx->commit();
}

int StateStore::schema_version() {
  const std::lock_guard lock(m_impl->mutex);
  auto version = m_impl->db->query_int("SELECT MAX(version) FROM schema_version");
  return version && *version ? static_cast<int>(**version) : 0;
}

Result<StartedRun> StateStore::begin_run(const NewRun& run, LockMode lock_mode) {
  const std::lock_guard lock(m_impl->mutex);
  auto& db = *m_impl->db;
  auto tx = sqlite::Transaction::begin_immediate(db);
  if (!tx) return std::unexpected(tx.error());
  StartedRun started;
  auto running = m_impl->select_runs("WHERE status = 'running' ORDER BY id", {});
  if (!running) return std::unexpected(running.error());
  for (auto& record : *running) {
    if (process_alive(record.process)) continue;
    if (auto ok = m_impl->end_run(record.id, RunStatus::abandoned); !ok) return std::unexpected(ok.error());
    record.status = RunStatus::abandoned;
    started.abandoned.push_back(std::move(record));
  }
  if (lock_mode == LockMode::exclusive) {
    auto holder = m_impl->lock_holder(run.inventory_path);
    if (!holder) return std::unexpected(holder.error());
    // A lock whose run already ended (a database edited by hand) binds no one.
    if (*holder && (*holder)->status != RunStatus::running) {
      if (auto ok = db.run("DELETE FROM locks WHERE inventory_path = ?1", {run.inventory_path}); !ok)
        return std::unexpected(ok.error());
      holder->reset();
    }
    if (*holder) {
      const auto& h = **holder;
      return fail(ErrorCode::locked,
                  fmt::format("{} is locked by run {} ({} by {}, pid {} on {}, since {})", run.inventory_path, h.id,
                              h.command, h.process.who, h.process.pid, h.process.host, h.started),
                  {}, "wait for that run to end; `gpuctl show " + std::to_string(h.id) + "` tells what it does");
    }
  }
  const auto now = util::utc_timestamp();
  if (auto ok = db.run("INSERT INTO runs (command, who, host, pid, process_tag, started, command_line, inventory_path, "
                       "inventory_digest, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'running')",
                       {run.command, run.process.who, run.process.host, std::int64_t{run.process.pid},
                        run.process.process_tag, now, run.command_line, run.inventory_path, run.inventory_digest});
      !ok)
    return std::unexpected(ok.error());
  started.id = db.last_insert_id();
  if (lock_mode == LockMode::exclusive)
    if (auto ok = db.run("INSERT INTO locks (inventory_path, run_id, since) VALUES (?1, ?2, ?3)",
                         {run.inventory_path, started.id, now});
        !ok)
      return std::unexpected(ok.error());
  if (auto ok = tx->commit(); !ok) return std::unexpected(ok.error());
  return started;
}

Result<void> StateStore::Impl::end_run(RunId run, RunStatus status) {
  if (auto ok = db->run("UPDATE runs SET status = ?2, finished = ?3 WHERE id = ?1 AND status = 'running'",
                        {run, std::string(to_string(status)), util::utc_timestamp()});
      !ok)
    return ok;
  if (auto ok = db->run("UPDATE node_steps SET status = ?2 WHERE run_id = ?1 AND status = 'running'",
                        {run, std::string(to_string(status == RunStatus::ok ? RunStatus::interrupted : status))});
      !ok)
    return ok;
  return db->run("DELETE FROM locks WHERE run_id = ?1", {run});
}

Result<void> StateStore::finish_run(RunId run, RunStatus status) {
  const std::lock_guard lock(m_impl->mutex);
  auto tx = sqlite::Transaction::begin_immediate(*m_impl->db);
  if (!tx) return std::unexpected(tx.error());
  if (auto ok = m_impl->end_run(run, status); !ok) return ok;
  return tx->commit();
}

Result<std::optional<RunRecord>> StateStore::lock_holder(const std::string& inventory_path) {
  const std::lock_guard lock(m_impl->mutex);
  return m_impl->lock_holder(inventory_path);
}

Result<std::optional<RunRecord>> StateStore::Impl::lock_holder(const std::string& inventory_path) {
  auto runs = select_runs("WHERE id = (SELECT run_id FROM locks WHERE inventory_path = ?1)", {inventory_path});
  if (!runs) return std::unexpected(runs.error());
  if (runs->empty()) return std::optional<RunRecord>{};
  return std::optional<RunRecord>{std::move(runs->front())};
}

}  // namespace gpuctl::state
