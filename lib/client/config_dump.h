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
#include <vector>

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

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_CONFIG_DUMP_H_
