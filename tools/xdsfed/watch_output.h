// The JSON lines `xdsfed watch` and `xdsfed demo` print (CLI.md):
//   {"valid":true,"event":"changed","type":"<type URL>","name":"...",
//    "resource":{...}}
// for one watcher event: an "error" event carries "error" instead of
// "resource" and is "valid":false; "does_not_exist" has neither; quiet
// leaves "resource" out. Plus (added kinds) one line per published snapshot:
//   {"valid":true,"event":"xds_config","listener":"...","route_config":"...",
//    "virtual_host":"...","clusters":{"A":"ok","B":"<error>"}}
//   {"valid":true,"event":"server_config","listener":"...",
//    "route_configs":{"R1":"ok","R2":"<error>"}}
// ("valid":false with "error" when the snapshot's status is not OK).
#ifndef XDSFED_TOOLS_XDSFED_WATCH_OUTPUT_H_
#define XDSFED_TOOLS_XDSFED_WATCH_OUTPUT_H_

#include <string>

#include "json/json.h"
#include "lib/xds_config/resource_event.h"
#include "lib/xds_config/xds_config.h"

namespace xdsfed::cli {

Json::Value WatchEventToJson(const xds_config::ResourceEvent& event,
                             bool quiet);
Json::Value XdsConfigToJson(const xds_config::XdsConfig& config,
                            const std::string& listener_name);
Json::Value ServerConfigToJson(const xds_config::ServerConfig& config,
                               const std::string& listener_name);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_WATCH_OUTPUT_H_
