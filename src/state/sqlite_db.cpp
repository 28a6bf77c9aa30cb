#include "sqlite_db.hpp"

#include <fmt/format.h>

namespace gpuctl::state::sqlite {
namespace {

Error make_error(sqlite3* db, const std::string& path, std::string_view what) {
  const int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  const char* message = db ? sqlite3_errmsg(db) : "out of memory";
  std::string hint;
  if ((code & 0xff) == SQLITE_BUSY)
    hint = "another gpuctl holds the state database busy; try again";
  else if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
    hint = "the file is not a gpuctl state database; choose another with --state or GPUCTL_STATE_DIR";
  return Error{ErrorCode::io, fmt::format("{}: {}: {}", path, what, message), {path, 0, 0, {}, {}}, hint};
}

}  // namespace

Result<void> Statement::bind(const std::vector<Value>& values) {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    int rc = SQLITE_OK;
    if (const auto* number = std::get_if<std::int64_t>(&values[i])) rc = sqlite3_bind_int64(m_stmt, index, *number);
    else if (const auto* text = std::get_if<std::string>(&values[i]))
      rc = sqlite3_bind_text(m_stmt, index, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
    else rc = sqlite3_bind_null(m_stmt, index);
    if (rc != SQLITE_OK)
      return fail(ErrorCode::internal, fmt::format("binding parameter {}: {}", index, sqlite3_errmsg(m_db)));
  }
  return {};
}

Result<bool> Statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* file = sqlite3_db_filename(m_db, "main");
  auto error = make_error(m_db, file && *file ? file : "state database", "query failed");
  sqlite3_reset(m_stmt);
  return std::unexpected(std::move(error));
}

Result<void> Statement::run() {
  for (;;) {
    auto row = step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
  }
  sqlite3_reset(m_stmt);
  return {};
}

std::int64_t Statement::column_int(int index) const { return sqlite3_column_int64(m_stmt, index); }

std::string Statement::column_text(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, index));
  if (!text) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, index)));
}

bool Statement::column_null(int index) const { return sqlite3_column_type(m_stmt, index) == SQLITE_NULL; }

Result<std::unique_ptr<Database>> Database::open(const std::string& path, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  // NOFOLLOW: a symlink put at the path after the caller's checks is refused, not followed.
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                                 nullptr);
  if (rc != SQLITE_OK) {
    auto error = make_error(db, path, "cannot open the state database");
    sqlite3_close(db);
    return std::unexpected(std::move(error));
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db, path));
}

Database::~Database() {
  m_statements.clear();  // statements are finalized before the connection closes
  sqlite3_close(m_db);
}

Result<void> Database::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    sqlite3_free(message);
    return std::unexpected(error("statement failed"));
  }
  return {};
}

Result<Statement*> Database::prepare(const std::string& sql, const std::vector<Value>& values) {
  auto it = m_statements.find(sql);
  if (it == m_statements.end()) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(m_db, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) !=
        SQLITE_OK)
      return std::unexpected(error("cannot prepare a statement"));
    it = m_statements.emplace(sql, std::make_unique<Statement>(m_db, stmt)).first;
  }
  if (auto bound = it->second->bind(values); !bound) return std::unexpected(bound.error());
  return it->second.get();
}

Result<void> Database::run(const std::string& sql, const std::vector<Value>& values) {
  auto stmt = prepare(sql, values);
  if (!stmt) return std::unexpected(stmt.error());
  return (*stmt)->run();
}

Result<std::optional<std::int64_t>> Database::query_int(const std::string& sql, const std::vector<Value>& values) {
  auto stmt = prepare(sql, values);
  if (!stmt) return std::unexpected(stmt.error());
  auto row = (*stmt)->step();
  if (!row) return std::unexpected(row.error());
  std::optional<std::int64_t> value;
  if (*row && !(*stmt)->column_null(0)) value = (*stmt)->column_int(0);
  if (auto done = (*stmt)->bind({}); !done) return std::unexpected(done.error());
  return value;
}

std::int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(m_db); }

int Database::changes() const { return sqlite3_changes(m_db); }

Error Database::error(std::string_view what) const { return make_error(m_db, m_path, what); }

Result<Transaction> Transaction::begin_immediate(Database& db) {
  if (auto begun = db.exec("BEGIN IMMEDIATE"); !begun) return std::unexpected(begun.error());
  return Transaction(db);
}

Transaction::~Transaction() {
  if (m_db) (void)m_db->exec("ROLLBACK");
}

Result<void> Transaction::commit() {
  auto done = m_db->exec("COMMIT");
  if (done) m_db = nullptr;
  return done;
}

}  // namespace gpuctl::state::sqlite
