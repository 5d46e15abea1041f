// One watcher event as lib/xds_config received it, for observers that show
// what happens underneath the snapshots (`xdsfed watch` prints one line per
// event). The value is typed: no casts.
#ifndef XDSFED_LIB_XDS_CONFIG_RESOURCE_EVENT_H_
#define XDSFED_LIB_XDS_CONFIG_RESOURCE_EVENT_H_

#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "json/json.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace xds_config {

struct ResourceEvent {
  enum class Kind { kChanged, kError, kDoesNotExist };
  absl::string_view type_url;  // resources::k*TypeUrl
  std::string name;
  Kind kind = Kind::kChanged;
  absl::Status error;  // kError
  // kChanged: the new value.
  std::variant<std::monostate, std::shared_ptr<const resources::Listener>,
               std::shared_ptr<const resources::RouteConfig>,
               std::shared_ptr<const resources::ClusterResource>,
               std::shared_ptr<const resources::EndpointResource>>
      value;

  // The value as `xdsfed validate` shows it; null JSON when there is none.
  Json::Value ValueJson() const;
};

// Called on the watch source's callback thread, one event at a time per
// watch; must not block.
using ResourceObserver = std::function<void(const ResourceEvent& event)>;

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_RESOURCE_EVENT_H_
