#pragma once
// Choosing and opening the transport for a node: SSH or local, by the node's `connection`.

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace gpuctl {

// Opens a transport to a node. Plan, apply and exec take one of these so tests can hand in
// FakeTransports; errors are the transport's own (see connect_ssh).
using TransportFactory = std::function<Result<std::unique_ptr<Transport>>(const Node& node)>;

// LocalTransport for `connection: local`, connect_ssh otherwise. `override_kind` (the CLI's
// --connection) replaces every node's kind. Connecting does network I/O.
TransportFactory default_transport_factory(std::optional<ConnectionKind> override_kind = std::nullopt);

}  // namespace gpuctl
