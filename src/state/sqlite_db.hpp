#pragma once
// A thin RAII layer over the SQLite C API for the state store (private to src/state). Every
// statement is prepared once, cached by its SQL text and run with bound parameters; errors
// come back as gpuctl Errors naming the database file. Not thread-safe by itself: the
// StateStore serialises calls.

#include <gpuctl/core/error.hpp>

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpuctl::state::sqlite {

// A parameter: NULL, an integer or a text.
using Value = std::variant<std::monostate, std::int64_t, std::string>;

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt) {}
  ~Statement() { sqlite3_finalize(m_stmt); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Resets the statement and binds `values` to ?1, ?2, ...
  Result<void> bind(const std::vector<Value>& values);
  // Steps once: true when a row is available, false when done.
  Result<bool> step();
  // Runs to completion, ignoring rows.
  Result<void> run();
  // Ends the statement's read so the connection sees other writers' commits again.
  void reset() { sqlite3_reset(m_stmt); }

  std::int64_t column_int(int index) const;
  std::string column_text(int index) const;   // "" for NULL
  bool column_null(int index) const;

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt;
};

class Database {
 public:
  // Opens or creates the file; sets the busy timeout. Errors: io.
  static Result<std::unique_ptr<Database>> open(const std::string& path, int busy_timeout_ms);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs SQL without parameters (schema, pragmas, BEGIN/COMMIT).
  Result<void> exec(const std::string& sql);
  // The cached prepared statement for `sql`, with `values` bound.
  Result<Statement*> prepare(const std::string& sql, const std::vector<Value>& values = {});
  // Runs `sql` with `values` to completion.
  Result<void> run(const std::string& sql, const std::vector<Value>& values = {});
  // The first column of the first row, if any.
  Result<std::optional<std::int64_t>> query_int(const std::string& sql, const std::vector<Value>& values = {});

  std::int64_t last_insert_id() const;
  int changes() const;
  const std::string& path() const { return m_path; }

  // An Error for the connection's last failure: "<path>: <what>: <sqlite message>".
  Error error(std::string_view what) const;

 private:
  Database(sqlite3* db, std::string path) : m_db(db), m_path(std::move(path)) {}
  sqlite3* m_db;
  std::string m_path;
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> m_statements;
};

// A transaction that rolls back unless committed. BEGIN IMMEDIATE takes SQLite's write lock
// at once (waiting up to the busy timeout), so a read-then-write decision (the run lock)
// cannot race with another process.
class Transaction {
 public:
  static Result<Transaction> begin_immediate(Database& db);
  Transaction(Transaction&& other) noexcept : m_db(other.m_db) { other.m_db = nullptr; }
  ~Transaction();
  Result<void> commit();

 private:
  explicit Transaction(Database& db) : m_db(&db) {}
  Database* m_db;
};

}  // namespace gpuctl::state::sqlite
