#pragma once
// One open Transport per node for a whole run: plan, apply and verify ask the pool instead of
// connecting again. Thread-safe; a node is normally used by one executor worker at a time.

#include <gpuctl/transport/transport_factory.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace gpuctl::exec {

// Descriptors a run keeps for everything but node sessions: stdio, the state database and its
// journal, the run log, a template being read, libssh's own.
inline constexpr long k_reserved_descriptors = 64;

// Whether a run over `nodes` may keep every node's session open from start to end (one socket
// each) within `open_file_limit` descriptors. When it may not, a node's session is closed as
// soon as its task in a phase ends (and opened again in the next phase): a handshake more per
// phase instead of nodes failing with "Too many open files".
bool can_keep_sessions_open(std::size_t nodes, long open_file_limit);

class TransportPool {
 public:
  explicit TransportPool(TransportFactory factory) : m_factory(std::move(factory)) {}

  // The node's transport, opened through the factory on first use. A failed open is not
  // cached: a later call tries again. The pointer stays valid until close() or destruction.
  Result<Transport*> get(const Node& node);

  // Closes the node's transport (e.g. after a reboot broke the session).
  void close(const std::string& node);

  std::size_t size() const;

 private:
  TransportFactory m_factory;
  mutable std::mutex m_mutex;
  std::map<std::string, std::unique_ptr<Transport>> m_open;
};

}  // namespace gpuctl::exec
