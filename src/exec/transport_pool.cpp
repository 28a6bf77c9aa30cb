#include <gpuctl/exec/transport_pool.hpp>

namespace gpuctl::exec {

bool can_keep_sessions_open(std::size_t nodes, long open_file_limit) {
  return open_file_limit >= k_reserved_descriptors && nodes <= static_cast<std::size_t>(open_file_limit - k_reserved_descriptors);
}

Result<Transport*> TransportPool::get(const Node& node) {
  {
    std::lock_guard lock(m_mutex);
    if (const auto it = m_open.find(node.name); it != m_open.end()) return it->second.get();
  }
  // Connect without holding the lock: connections to different nodes proceed in parallel.
  auto opened = m_factory(node);
  if (!opened) return std::unexpected(opened.error());
  std::lock_guard lock(m_mutex);
  auto& slot = m_open[node.name];
  if (!slot) slot = std::move(*opened);
  return slot.get();
}

void TransportPool::close(const std::string& node) {
  std::lock_guard lock(m_mutex);
  m_open.erase(node);
}

std::size_t TransportPool::size() const {
  std::lock_guard lock(m_mutex);
  return m_open.size();
}

}  // namespace gpuctl::exec
