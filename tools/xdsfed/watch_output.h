// The JSON line `xdsfed watch` prints for one watcher event (CLI.md):
//   {"valid":true,"event":"changed","type":"<type URL>","name":"...",
//    "resource":{...}}
// An "error" event carries "error" instead of "resource" and is
// "valid":false (the resource or the server failed); "does_not_exist" has
// neither. quiet leaves "resource" out.
#ifndef XDSFED_TOOLS_XDSFED_WATCH_OUTPUT_H_
#define XDSFED_TOOLS_XDSFED_WATCH_OUTPUT_H_

#include "json/json.h"
#include "tools/xdsfed/chain_watch.h"

namespace xdsfed::cli {

Json::Value WatchEventToJson(const ChainWatch::Event& event, bool quiet);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_WATCH_OUTPUT_H_
