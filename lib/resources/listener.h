// Listener (LDS) resources: decoding and validation into an immutable value.
// As in gRPC, a Listener with api_listener is a client Listener (validated
// by the client rules); one with only an address is an xDS-enabled server's
// Listener (validated by gRFC A36's rules).
//
//   const auto& lds = resources::ListenerResourceType();
//   resources::DecodeResult r = lds.Decode({}, bytes);
//   if (!r.value.ok()) return r.value.status();
//   std::shared_ptr<const resources::Listener> listener = lds.Cast(*r.value);
//   if (const auto* api = std::get_if<resources::ApiListener>(
//           &listener->listener)) {
//     Use(api->http_connection_manager);
//   }
//
// A server finds the chain for a connection by walking
// ServerListener::filter_chain_map (see filter_chain_match.h) down to an
// index into ServerListener::filter_chains; with no match it uses
// default_filter_chain, or closes the connection if there is none.
#ifndef XDSFED_LIB_RESOURCES_LISTENER_H_
#define XDSFED_LIB_RESOURCES_LISTENER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "json/json.h"
#include "lib/resources/downstream_tls_context.h"
#include "lib/resources/filter_chain_match.h"
#include "lib/resources/http_connection_manager.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {

// The client form: api_listener holding an HttpConnectionManager.
struct ApiListener {
  HttpConnectionManager http_connection_manager;
  bool operator==(const ApiListener& o) const {
    return http_connection_manager == o.http_connection_manager;
  }
};

// What a server needs from one FilterChain.
struct FilterChainData {
  HttpConnectionManager http_connection_manager;
  // The transport_socket's DownstreamTlsContext, serialized; "" if none.
  std::string downstream_tls_context;
  // The same, validated (A29): set exactly when downstream_tls_context is
  // not empty; the chain's connections are served with TLS.
  std::optional<DownstreamTlsContext> tls;
  bool operator==(const FilterChainData& o) const {
    return http_connection_manager == o.http_connection_manager &&
           downstream_tls_context == o.downstream_tls_context && tls == o.tls;
  }
  Json::Value ToJson() const;
};

// The server form (A36).
struct ServerListener {
  std::string address;  // "ip:port" ("[v6]:port"), from the SocketAddress
  FilterChainMap filter_chain_map;
  // The chains the map can select, in input order (chains that can never
  // match are left out); the map's leaves index into this list. Never null;
  // chains whose filters and transport socket have the same bytes share one
  // value (Listeners often repeat one HttpConnectionManager over 1,000
  // matches).
  std::vector<std::shared_ptr<const FilterChainData>> filter_chains;
  // filter_chains[i] is the Listener's filter_chains[input_index[i]] (what a
  // user or a log names); same size as filter_chains.
  std::vector<size_t> input_index;
  std::optional<FilterChainData> default_filter_chain;
  bool operator==(const ServerListener& o) const {
    return address == o.address && filter_chain_map == o.filter_chain_map &&
           SameChains(filter_chains, o.filter_chains) &&
           input_index == o.input_index &&
           default_filter_chain == o.default_filter_chain;
  }
  // Equal values, shared or not.
  static bool SameChains(
      const std::vector<std::shared_ptr<const FilterChainData>>& a,
      const std::vector<std::shared_ptr<const FilterChainData>>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i] && !(*a[i] == *b[i])) return false;
    }
    return true;
  }
};

struct Listener {
  std::string name;
  std::variant<ApiListener, ServerListener> listener;
  bool operator==(const Listener& o) const {
    return name == o.name && listener == o.listener;
  }
  bool operator!=(const Listener& o) const { return !(*this == o); }
  Json::Value ToJson() const;
};

// The client's resource type for Listener (the same object as
// XdsResourceType<Listener>::Get()).
template <>
const XdsResourceType<Listener>& XdsResourceType<Listener>::Get();
const XdsResourceType<Listener>& ListenerResourceType();

// Touches the kept blocks of the Listener decode (its protobuf arena's first
// block and its working memory), so that a later Listener decode does not
// fault their pages in on the way to SERVING (an xDS-enabled server calls
// it before it subscribes; lib/server). Keeps 2 MiB resident for the life
// of the process. Thread-safe.
void PrewarmListenerDecode();

}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_LISTENER_H_
