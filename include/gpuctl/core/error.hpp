#pragma once
// The error type every library function returns through Result<T>.
// Expected failures (bad input, unreachable node, stale plan) are values, not exceptions.

#include <expected>
#include <string>

namespace gpuctl {

enum class ErrorCode {
  invalid_argument,  // the caller passed something unusable (usage error)
  parse,             // malformed input text (YAML, JSON, command output)
  validation,        // well-formed input that breaks a rule of the schema
  io,                // a local file or process operation failed
  not_found,         // a named thing (file, node, run) does not exist
  template_error,    // a template failed to render (e.g. a missing variable)
  transport,         // could not talk to a node (connect, channel, protocol)
  auth,              // the node refused our credentials
  host_key,          // the node's host key is unknown or changed
  timeout,           // a deadline passed
  stale_plan,        // a saved plan no longer matches the inventory or the nodes
  locked,            // another run holds the lock
  interrupted,       // the user asked us to stop
  internal,          // a bug in gpuctl
};

// Where an error happened, as much as is known: a file position and/or a node and step.
struct Location {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
  std::string node;
  std::string step;
};

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  Location where;
  std::string hint;  // how to fix it, when we know

  // "file:line:col: message (hint)" or "node: message"; never empty.
  std::string to_string() const;
};

// True for errors that mean the node could not be talked to (as opposed to a command or
// input that failed): the node is then reported unreachable, not failed.
inline bool is_connection_error(const Error& error) {
  return error.code == ErrorCode::transport || error.code == ErrorCode::auth || error.code == ErrorCode::host_key ||
         error.code == ErrorCode::timeout;
}

template <typename T>
using Result = std::expected<T, Error>;

// Shorthand for returning an error: `return fail(ErrorCode::io, "cannot read {}", path);`
inline std::unexpected<Error> fail(ErrorCode code, std::string message, Location where = {},
                                   std::string hint = {}) {
  return std::unexpected(Error{code, std::move(message), std::move(where), std::move(hint)});
}

std::string_view to_string(ErrorCode code);

}  // namespace gpuctl
