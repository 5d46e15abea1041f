// Maps the names a user or a DiscoveryResponse uses for a resource type to
// the ResourceType that decodes it.
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {

namespace {

struct Alias {
  absl::string_view alias;  // CLI short form, case-insensitive
  const ResourceType& (*type)();
};

constexpr Alias kAliases[] = {
    {"lds", ListenerResourceType},
    {"rds", RouteConfigResourceType},
    {"cds", ClusterResourceType},
    {"eds", EndpointResourceType},
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
