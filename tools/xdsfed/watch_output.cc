#include "tools/xdsfed/watch_output.h"

#include <string>

namespace xdsfed::cli {

Json::Value WatchEventToJson(const ChainWatch::Event& event, bool quiet) {
  using Kind = ChainWatch::Event::Kind;
  Json::Value out(Json::objectValue);
  out["valid"] = event.kind != Kind::kError;
  switch (event.kind) {
    case Kind::kChanged:
      out["event"] = "changed";
      break;
    case Kind::kError:
      out["event"] = "error";
      out["error"] = std::string(event.error.message());
      break;
    case Kind::kDoesNotExist:
      out["event"] = "does_not_exist";
      break;
  }
  out["type"] = std::string(event.type->type_url());
  out["name"] = event.name;
  if (event.kind == Kind::kChanged && !quiet && event.value != nullptr) {
    out["resource"] = event.type->ToJson(event.value.get());
  }
  return out;
}

}  // namespace xdsfed::cli
