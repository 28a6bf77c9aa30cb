#include <gpuctl/transport/local_transport.hpp>
#include <gpuctl/transport/ssh_transport.hpp>
#include <gpuctl/transport/transport_factory.hpp>

namespace gpuctl {

TransportFactory default_transport_factory(std::optional<ConnectionKind> override_kind) {
  return [override_kind](const Node& node) -> Result<std::unique_ptr<Transport>> {
    if (override_kind.value_or(node.connection.kind) == ConnectionKind::local)
      return std::make_unique<LocalTransport>(node.name);
    return connect_ssh(node.name, node.connection);
  };
}

}  // namespace gpuctl
