#pragma once
// The state database's place on disk (private to src/state): its directory and the file itself
// are checked before SQLite opens anything, and nothing that exists is chmodded.

#include <gpuctl/core/error.hpp>

#include <string>

namespace gpuctl::state {

// Creates the missing directories of `dir` 0700; an existing `dir` must belong to the current
// user and be writable by no one else (util::DirectoryRule::no_other_writers). Never chmods.
Result<void> prepare_state_directory(const std::string& dir);

// Creates the database file 0600 when missing (SQLite gives its -wal and -shm files the
// database file's mode, so they are private as well). An existing one must be a regular file
// (not a symlink) of the current user that group and others cannot access. Never chmods.
Result<void> prepare_state_file(const std::string& path);

}  // namespace gpuctl::state
