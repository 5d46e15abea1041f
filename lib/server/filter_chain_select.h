// Which filter chain of a server Listener a connection uses (A36
// §FilterChainMatch): walks the Listener's FilterChainMap in C-core's order
// — most specific destination prefix, then source type (SAME_IP_OR_LOOPBACK
// / EXTERNAL when any chain names one, else ANY), then most specific source
// prefix, then the exact source port before "any port".
//
// TODO(server): switch to the routing helper's library selector (issue 12,
// with a bench at 1,000 chains) once it lands; this one parses CIDR text per
// call.
#ifndef XDSFED_LIB_SERVER_FILTER_CHAIN_SELECT_H_
#define XDSFED_LIB_SERVER_FILTER_CHAIN_SELECT_H_

#include <cstddef>
#include <optional>

#include "lib/resources/filter_chain_match.h"
#include "lib/server/socket_address.h"

namespace xdsfed::server {

// Index into ServerListener::filter_chains, or nullopt: use the
// default_filter_chain, or close the connection if there is none.
std::optional<size_t> SelectFilterChain(const resources::FilterChainMap& map,
                                        const SocketAddress& destination,
                                        const SocketAddress& source);

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_FILTER_CHAIN_SELECT_H_
