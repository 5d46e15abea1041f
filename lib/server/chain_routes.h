// The per-RPC half of A36 §Connection and Request Handling for one server
// generation: for each filter chain (and the default chain) its compiled
// RouteConfiguration (inline, or the RDS resource the ServerConfig holds)
// or why it has none, and its RBAC HTTP filters (A41) compiled with
// lib/authz; Check() routes an RPC by :authority, path and headers with
// lib/routing, allows it only on a route whose action is
// non_forwarding_action, then runs the chain's RBAC filters in their HCM
// order, each with the route's, else the virtual host's, RBACPerRoute
// override if it has one (A39 §Filter Config Overrides). Immutable: an RDS
// update builds a new one.
#ifndef XDSFED_LIB_SERVER_CHAIN_ROUTES_H_
#define XDSFED_LIB_SERVER_CHAIN_ROUTES_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "lib/authz/rbac_engine.h"
#include "lib/resources/listener.h"
#include "lib/routing/route_table.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed::server {

class ChainRoutes {
 public:
  // `config_errors` gets A36's "configuration errors" (§Configuration Error
  // Logging): RDS resources that failed or do not exist, and routes whose
  // action is not non_forwarding_action.
  static std::shared_ptr<const ChainRoutes> Build(
      const resources::ServerListener& listener,
      const xds_config::ServerConfig& config,
      std::vector<std::string>* config_errors);

  // Chain `chain` indexes ServerListener::filter_chains; filter_chains.size()
  // means the default chain. OK, UNAVAILABLE saying why (A36), or
  // PERMISSION_DENIED "RBAC: access denied ..." (A41). `rbac` is the RPC as
  // RBAC sees it (connection addresses, TLS peer, headers with "-bin"
  // values base64-encoded); Check sets its path and authority, and its
  // headers to `headers` if unset. Without it the chain's RBAC filters see
  // an empty connection (0.0.0.0, no TLS) and `headers`.
  //
  // `trace` (may be null; `xdsfed authz` uses it) gets one entry per RBAC
  // filter evaluated, in order, until one denies.
  struct RbacVerdict {
    std::string filter;     // the HTTP filter's name
    std::string config;     // "filter", "virtual_host" or "route": whose
    bool enforcing = true;  // false: no rules (every RPC passes)
    bool allowed = true;
    std::string policy;  // the first matching policy, "" if none
  };
  absl::Status Check(size_t chain, absl::string_view authority,
                     absl::string_view path, routing::HeaderLookup headers,
                     std::string* scratch, authz::RequestView* rbac = nullptr,
                     std::vector<RbacVerdict>* trace = nullptr) const;

  // Some selectable chain has an RBAC filter: every RPC is checked, and the
  // connection's chain is looked up (uniform() is false).
  bool has_rbac() const { return has_rbac_; }

  // Every chain routes the same way: the connection's chain does not matter.
  bool uniform() const { return uniform_; }

  // Check() passes every RPC on every chain a connection can select: each
  // chain's configuration has a "*" virtual host and every virtual host's
  // first route matches any path (prefix "" or "/") with no header matcher
  // and no runtime fraction below 100%, with non_forwarding_action. The
  // server then leaves the per-RPC check out (generation.cc).
  bool allows_every_rpc() const { return allows_every_rpc_; }

 private:
  struct Entry {
    std::shared_ptr<const routing::RouteConfigTable> table;
    absl::Status error;  // when table is null
    // The table passes every RPC; worked out once per compiled table.
    bool allows_every_rpc = false;
  };
  std::vector<Entry> entries_;
  // Per entry (chain), its RBAC filters in HCM order.
  struct RbacFilter {
    std::string name;
    std::shared_ptr<const authz::RbacEngine> engine;
  };
  std::vector<std::vector<RbacFilter>> rbac_;
  // RBACPerRoute overrides compiled, keyed by the resources::VirtualHost or
  // resources::Route they belong to (in the tables' configs).
  absl::flat_hash_map<const void*, std::vector<RbacFilter>> overrides_;
  bool has_rbac_ = false;
  bool uniform_ = true;
  bool allows_every_rpc_ = false;
};

}  // namespace xdsfed::server

#endif  // XDSFED_LIB_SERVER_CHAIN_ROUTES_H_
