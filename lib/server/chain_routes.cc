#include "lib/server/chain_routes.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"

namespace xdsfed::server {
namespace {

void CollectActionErrors(const resources::RouteConfig& rc,
                         absl::string_view where,
                         std::vector<std::string>* errors) {
  for (const resources::VirtualHost& vh : rc.virtual_hosts) {
    for (size_t i = 0; i < vh.routes.size(); ++i) {
      if (!std::holds_alternative<resources::NonForwardingAction>(
              vh.routes[i].action)) {
        errors->push_back(absl::StrCat(
            where, " virtual host \"", vh.name, "\" route ", i,
            ": action is not non_forwarding_action (RPCs matching it fail "
            "with UNAVAILABLE)"));
      }
    }
  }
}

// Whether every RPC, whatever its :authority, path (gRPC paths start with
// "/") and headers, ends on a non_forwarding_action route of `rc`.
bool AllowsEveryRpc(const resources::RouteConfig& rc) {
  bool any_authority = false;
  for (const resources::VirtualHost& vh : rc.virtual_hosts) {
    for (const std::string& domain : vh.domains) {
      if (domain == "*") any_authority = true;
    }
    if (vh.routes.empty()) return false;
    const resources::Route& first = vh.routes.front();
    const resources::RouteMatch& m = first.match;
    if (m.path.type != resources::StringMatch::Type::kPrefix ||
        (!m.path.value.empty() && m.path.value != "/") || !m.headers.empty() ||
        (m.fraction_per_million.has_value() &&
         *m.fraction_per_million < 1000000) ||
        !std::holds_alternative<resources::NonForwardingAction>(first.action)) {
      return false;
    }
  }
  return any_authority;
}

// Engines compiled once per distinct config value (chains and overrides
// share configs by pointer). A config that does not compile (only a
// hand-built one can: the validator compiles every regex) gets no engine,
// and RPCs meeting it are denied (fail closed).
class EngineCache {
 public:
  std::shared_ptr<const authz::RbacEngine> For(
      const resources::RbacConfig* config) {
    auto it = engines_.find(config);
    if (it != engines_.end()) return it->second;
    auto engine = authz::RbacEngine::Compile(*config);
    std::shared_ptr<const authz::RbacEngine> out =
        engine.ok() ? *std::move(engine) : nullptr;
    engines_.emplace(config, out);
    return out;
  }

 private:
  std::map<const resources::RbacConfig*,
           std::shared_ptr<const authz::RbacEngine>>
      engines_;
};

}  // namespace

std::shared_ptr<const ChainRoutes> ChainRoutes::Build(
    const resources::ServerListener& listener,
    const xds_config::ServerConfig& config,
    std::vector<std::string>* config_errors) {
  auto out = std::make_shared<ChainRoutes>();
  // One compiled table per RDS name, however many chains use it.
  std::map<std::string, Entry> by_rds;
  std::vector<std::string> keys;
  // Distinct inline configs so far, with the entry index compiled for each
  // and the chain value's config it was copied from (chains that share one
  // value, resources::ServerListener::filter_chains, are found by address).
  struct InlineSeen {
    std::shared_ptr<const resources::RouteConfig> config;
    size_t entry;
    const resources::RouteConfig* source;
  };
  std::vector<InlineSeen> inline_seen;
  EngineCache engines;
  auto add_rbac = [&](const resources::FilterChainData& chain) {
    std::vector<RbacFilter> filters;
    for (const auto& f : chain.http_connection_manager.http_filters) {
      if (f.rbac == nullptr) continue;
      filters.push_back({f.name, engines.For(f.rbac.get())});
      out->has_rbac_ = true;
    }
    out->rbac_.push_back(std::move(filters));
  };
  auto add = [&](const resources::FilterChainData& chain, size_t index) {
    add_rbac(chain);
    const auto& rc = chain.http_connection_manager.route_config;
    if (const auto* rds =
            std::get_if<resources::HttpConnectionManager::Rds>(&rc)) {
      keys.push_back("rds:" + rds->route_config_name);
      auto cached = by_rds.find(rds->route_config_name);
      if (cached != by_rds.end()) {
        out->entries_.push_back(cached->second);
        return;
      }
      Entry entry;
      const std::string where =
          absl::StrCat("RouteConfiguration \"", rds->route_config_name, "\"");
      auto it = config.route_configs.find(rds->route_config_name);
      if (it == config.route_configs.end() ||
          it->second.route_config == nullptr) {
        absl::Status why = it == config.route_configs.end()
                               ? absl::NotFoundError("not requested")
                               : it->second.status;
        entry.error = absl::UnavailableError(
            absl::StrCat(where, " unavailable: ", why.ToString()));
        config_errors->push_back(std::string(entry.error.message()));
      } else {
        auto table = routing::RouteConfigTable::Build(it->second.route_config);
        if (table.ok()) {
          entry.table = *table;
          entry.allows_every_rpc = AllowsEveryRpc(*it->second.route_config);
          CollectActionErrors(*it->second.route_config, where, config_errors);
        } else {
          entry.error = absl::UnavailableError(
              absl::StrCat(where, ": ", table.status().message()));
          config_errors->push_back(std::string(entry.error.message()));
        }
      }
      by_rds[rds->route_config_name] = entry;
      out->entries_.push_back(std::move(entry));
      return;
    }
    const auto& inline_rc = std::get<resources::RouteConfig>(rc);
    // Chains often repeat one inline config: compile each distinct value
    // once (bounded look-back keeps this linear for all-distinct configs).
    for (size_t i = inline_seen.size();
         i-- > 0 && i + 16 >= inline_seen.size();) {
      if (inline_seen[i].source == &inline_rc ||
          *inline_seen[i].config == inline_rc) {
        keys.push_back(absl::StrCat("inline:", inline_seen[i].entry));
        out->entries_.push_back(out->entries_[inline_seen[i].entry]);
        return;
      }
    }
    keys.push_back(absl::StrCat("inline:", index));
    auto shared = std::make_shared<const resources::RouteConfig>(inline_rc);
    inline_seen.push_back({shared, out->entries_.size(), &inline_rc});
    Entry entry;
    auto table = routing::RouteConfigTable::Build(shared);
    const std::string where = absl::StrCat(
        "inline route_config of chain ", index == listener.filter_chains.size()
                                             ? std::string("default")
                                             : absl::StrCat(index));
    if (table.ok()) {
      entry.table = *table;
      entry.allows_every_rpc = AllowsEveryRpc(inline_rc);
      CollectActionErrors(inline_rc, where, config_errors);
    } else {
      entry.error = absl::UnavailableError(
          absl::StrCat(where, ": ", table.status().message()));
      config_errors->push_back(std::string(entry.error.message()));
    }
    out->entries_.push_back(std::move(entry));
  };
  for (size_t i = 0; i < listener.filter_chains.size(); ++i) {
    add(*listener.filter_chains[i], i);
  }
  if (listener.default_filter_chain.has_value()) {
    add(*listener.default_filter_chain, listener.filter_chains.size());
  } else {
    // Never selected (no default chain closes the connection); keeps the
    // index valid.
    out->entries_.push_back(
        {nullptr, absl::UnavailableError("no default filter chain")});
    out->rbac_.emplace_back();
    keys.push_back(keys.empty() ? "none" : keys.front());
  }
  if (out->has_rbac_) {
    // The overrides of every virtual host and route the chains can reach.
    std::set<const routing::RouteConfigTable*> seen;
    auto compile = [&](const void* key,
                       const resources::RbacOverrides& overrides) {
      if (overrides.empty()) return;
      std::vector<RbacFilter>& list = out->overrides_[key];
      for (const auto& [name, config] : overrides.by_filter) {
        list.push_back({name, engines.For(config.get())});
      }
    };
    for (const Entry& e : out->entries_) {
      if (e.table == nullptr || !seen.insert(e.table.get()).second) continue;
      for (const resources::VirtualHost& vh : e.table->config().virtual_hosts) {
        compile(&vh, vh.rbac_overrides);
        for (const resources::Route& r : vh.routes) {
          compile(&r, r.rbac_overrides);
        }
      }
    }
    // Chains may differ in their filters even with one route config.
    out->uniform_ = false;
  }
  for (const std::string& k : keys) {
    if (k != keys.front()) out->uniform_ = false;
  }
  // The entries a connection can select: the chains, then the default
  // chain if there is one (without one, the last entry is a placeholder).
  const size_t selectable = listener.filter_chains.size() +
                            (listener.default_filter_chain.has_value() ? 1 : 0);
  out->allows_every_rpc_ =
      !out->has_rbac_ &&
      std::all_of(out->entries_.begin(), out->entries_.begin() + selectable,
                  [](const Entry& e) { return e.allows_every_rpc; });
  return out;
}

absl::Status ChainRoutes::Check(size_t chain, absl::string_view authority,
                                absl::string_view path,
                                routing::HeaderLookup headers,
                                std::string* scratch, authz::RequestView* rbac,
                                std::vector<RbacVerdict>* trace) const {
  if (chain >= entries_.size()) chain = entries_.size() - 1;
  const Entry& e = entries_[chain];
  if (e.table == nullptr) return e.error;
  const routing::RouteTable* vhost = e.table->FindVirtualHost(authority);
  if (vhost == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no virtual host for authority \"", authority, "\""));
  }
  const resources::Route* route =
      vhost->Match(path, headers, routing::ThreadLocalRandom, scratch);
  if (route == nullptr) {
    return absl::UnavailableError(absl::StrCat("no route for ", path));
  }
  if (!std::holds_alternative<resources::NonForwardingAction>(route->action)) {
    return absl::UnavailableError(
        "the matched route's action is not non_forwarding_action");
  }
  const std::vector<RbacFilter>& filters = rbac_[chain];
  if (filters.empty()) return absl::OkStatus();
  authz::RequestView empty;
  authz::RequestView& view = rbac != nullptr ? *rbac : empty;
  view.path = path;
  view.authority = authority;
  if (!view.headers.has_value()) view.headers.emplace(headers);
  const std::vector<RbacFilter>* route_overrides = nullptr;
  const std::vector<RbacFilter>* vhost_overrides = nullptr;
  if (!overrides_.empty()) {
    auto it = overrides_.find(static_cast<const void*>(route));
    if (it != overrides_.end()) route_overrides = &it->second;
    it = overrides_.find(static_cast<const void*>(&vhost->virtual_host()));
    if (it != overrides_.end()) vhost_overrides = &it->second;
  }
  auto find = [](const std::vector<RbacFilter>* list,
                 absl::string_view name) -> const RbacFilter* {
    if (list == nullptr) return nullptr;
    for (const RbacFilter& f : *list) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  for (const RbacFilter& filter : filters) {
    // A39: the most specific override wins: route, then virtual host.
    const char* whose = "route";
    const RbacFilter* chosen = find(route_overrides, filter.name);
    if (chosen == nullptr) {
      whose = "virtual_host";
      chosen = find(vhost_overrides, filter.name);
    }
    if (chosen == nullptr) {
      whose = "filter";
      chosen = &filter;
    }
    if (chosen->engine == nullptr) {
      return absl::PermissionDeniedError(
          "RBAC: access denied: the policy could not be compiled");
    }
    const authz::Decision d = chosen->engine->Evaluate(view, scratch);
    if (trace != nullptr) {
      trace->push_back({filter.name, whose, chosen->engine->enforcing(),
                        d.allowed, std::string(d.policy)});
    }
    if (!d.allowed) {
      return absl::PermissionDeniedError(
          d.policy.empty()
              ? std::string("RBAC: access denied: no policy matched")
              : absl::StrCat("RBAC: access denied by policy \"", d.policy,
                             "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace xdsfed::server
