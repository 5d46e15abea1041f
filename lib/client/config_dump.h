// CSDS-like dump of the XdsClient's cache (what `xdsfed watch` and tests
// inspect): one JSON object per cached resource.
//
//   [{"authority":"a.com","type":"type.googleapis.com/envoy...Listener",
//     "name":"xdstp://a.com/...","client_status":"NACKED","version":"1",
//     "update_time":"2026-01-01T00:00:00Z",
//     "error":{"version":"2","time":"...","message":"..."},
//     "ignored_deletion":true,   // only when set
//     "resource":{...}}]
#ifndef XDSFED_LIB_CLIENT_CONFIG_DUMP_H_
#define XDSFED_LIB_CLIENT_CONFIG_DUMP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "json/json.h"
#include "lib/cache/resource_cache.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace client {

// Entry::client_data() bit set by the XdsClient while a deletion of the
// resource is being ignored (server feature ignore_resource_deletion); the
// dump shows it as "ignored_deletion": true.
inline constexpr uint32_t kIgnoredDeletion = 1;

// types[t]: the ResourceType of cache TypeId t (null: skipped).
Json::Value DumpCache(const cache::ResourceCache& cache,
                      const std::vector<const resources::ResourceType*>& types);

// One cached resource's status, as CSDS reports it (lib/admin): typed, and
// without the resource's value.
struct ResourceStatus {
  std::optional<std::string> authority;  // nullopt: an old-style name
  std::string type_url;
  std::string name;
  cache::State state = cache::State::kRequested;
  std::string version;                            // of the value held
  absl::Time update_time = absl::InfinitePast();  // InfinitePast: never
  // kNacked only: the rejected response's version, when, and why.
  std::string error_version;
  absl::Time error_time = absl::InfinitePast();
  std::string error;

  bool operator==(const ResourceStatus& o) const {
    return authority == o.authority && type_url == o.type_url &&
           name == o.name && state == o.state && version == o.version &&
           update_time == o.update_time && error_version == o.error_version &&
           error_time == o.error_time && error == o.error;
  }
};

std::vector<ResourceStatus> CacheStatus(
    const cache::ResourceCache& cache,
    const std::vector<const resources::ResourceType*>& types);

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_CONFIG_DUMP_H_
