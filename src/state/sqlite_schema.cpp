// The state database's schema, as an ordered list of migrations: migrations[i] takes the
// schema from version i to i+1. Never edit a shipped migration; append the next one.
// docs/state.md describes the tables.
#include <gpuctl/state/state_store.hpp>

namespace gpuctl::state {

std::vector<std::string> builtin_migrations() {
  return {
      // Version 1.
      R"sql(
CREATE TABLE runs (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  command          TEXT NOT NULL,
  who              TEXT NOT NULL,
  host             TEXT NOT NULL,
  pid              INTEGER NOT NULL,
  process_tag      TEXT NOT NULL,
  started          TEXT NOT NULL,
  finished         TEXT,
  command_line     TEXT NOT NULL,
  inventory_path   TEXT NOT NULL,
  inventory_digest TEXT NOT NULL,
  plan_json        TEXT,
  status           TEXT NOT NULL
    CHECK (status IN ('running', 'ok', 'failed', 'interrupted', 'abandoned'))
);
CREATE INDEX runs_status ON runs (status, host);

CREATE TABLE node_steps (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  node        TEXT NOT NULL,
  step        TEXT NOT NULL,
  status      TEXT NOT NULL,
  started     TEXT NOT NULL,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX node_steps_run ON node_steps (run_id, id);
CREATE INDEX node_steps_node ON node_steps (node, run_id);

CREATE TABLE node_results (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  node        TEXT NOT NULL,
  status      TEXT NOT NULL,
  reason      TEXT NOT NULL DEFAULT '',
  duration_ms INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, node)
);
CREATE INDEX node_results_node ON node_results (node, run_id);

CREATE TABLE facts_snapshots (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  node       TEXT NOT NULL,
  taken      TEXT NOT NULL,
  facts_json TEXT NOT NULL
);
CREATE INDEX facts_snapshots_node ON facts_snapshots (node, run_id);

CREATE TABLE gpu_slots (
  id         INTEGER PRIMARY KEY,
  node       TEXT NOT NULL,
  slot_index INTEGER NOT NULL,
  serial     TEXT NOT NULL,
  uuid       TEXT NOT NULL,
  pci_bus_id TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen  TEXT NOT NULL
);
CREATE INDEX gpu_slots_node ON gpu_slots (node, slot_index, id);

CREATE TABLE locks (
  inventory_path TEXT PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES runs (id),
  since          TEXT NOT NULL
);
)sql",
      // Version 2: verify check results per run and node, for `gpuctl report`.
      R"sql(
CREATE TABLE check_results (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  node       TEXT NOT NULL,
  position   INTEGER NOT NULL,
  check_name TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'error', 'skipped')),
  observed   TEXT NOT NULL DEFAULT '',
  expected   TEXT NOT NULL DEFAULT '',
  detail     TEXT NOT NULL DEFAULT '',
  command    TEXT NOT NULL DEFAULT '',
  output     TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, node, position)
);
)sql",
  };
}

}  // namespace gpuctl::state
