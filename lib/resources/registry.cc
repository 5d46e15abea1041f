// Maps the names a user or a DiscoveryResponse uses for a resource type to
// the ResourceType that decodes it.
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace resources {

namespace {

struct Alias {
  absl::string_view alias;  // CLI short form, case-insensitive
  const ResourceType& (*type)();
};

const ResourceType& Lds() { return ListenerResourceType(); }
const ResourceType& Rds() { return RouteConfigResourceType(); }
const ResourceType& Cds() { return ClusterResourceType(); }
const ResourceType& Eds() { return EndpointResourceType(); }

constexpr Alias kAliases[] = {
    {"lds", Lds},
    {"rds", Rds},
    {"cds", Cds},
    {"eds", Eds},
};

}  // namespace

const ResourceType* FindResourceType(absl::string_view name) {
  for (const Alias& alias : kAliases) {
    const ResourceType& type = alias.type();
    if (name == type.type_url() || name == type.type_name() ||
        name == type.short_name() ||
        absl::EqualsIgnoreCase(name, alias.alias)) {
      return &type;
    }
  }
  return nullptr;
}

}  // namespace resources
}  // namespace xdsfed
