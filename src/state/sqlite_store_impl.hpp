#pragma once
// The StateStore's private parts, shared by its source files (private to src/state).

#include "sqlite_db.hpp"

#include <gpuctl/state/state_store.hpp>

#include <mutex>

namespace gpuctl::state {

struct StateStore::Impl {
  std::mutex mutex;   // one connection, many threads: every public method holds it
  std::unique_ptr<sqlite::Database> db;

  Result<void> migrate(const std::vector<std::string>& migrations);
  // Marks a running run ended (its running steps too) and drops its lock. No transaction.
  Result<void> end_run(RunId run, RunStatus status);
  Result<std::optional<RunRecord>> lock_holder(const std::string& inventory_path);
  // SELECT of whole runs rows followed by `where` ("WHERE ... ORDER BY ...").
  Result<std::vector<RunRecord>> select_runs(const std::string& where, const std::vector<sqlite::Value>& values);
};

}  // namespace gpuctl::state
