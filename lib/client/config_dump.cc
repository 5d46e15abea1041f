#include "lib/client/config_dump.h"

#include <string>

#include "absl/time/time.h"

namespace xdsfed {
namespace client {
namespace {

std::string Rfc3339(absl::Time time) {
  return absl::FormatTime(absl::RFC3339_full, time, absl::UTCTimeZone());
}

}  // namespace

Json::Value DumpCache(
    const cache::ResourceCache& cache,
    const std::vector<const resources::ResourceType*>& types) {
  Json::Value out(Json::arrayValue);
  cache.ForEach([&](const cache::Entry& e) {
    const resources::ResourceType* type =
        e.type() < types.size() ? types[e.type()] : nullptr;
    if (type == nullptr) return;
    Json::Value r(Json::objectValue);
    r["authority"] =
        e.old_style()
            ? Json::Value(Json::nullValue)
            : Json::Value(std::string(cache.AuthorityName(e.authority())));
    r["type"] = std::string(type->type_url());
    r["name"] = std::string(e.name());
    r["client_status"] = std::string(cache::StateName(e.state()));
    r["version"] = std::string(e.version());
    if (e.update_time() != absl::InfinitePast()) {
      r["update_time"] = Rfc3339(e.update_time());
    }
    if (e.state() == cache::State::kNacked) {
      Json::Value error(Json::objectValue);
      error["version"] = std::string(e.error_version());
      error["time"] = Rfc3339(e.error_time());
      error["message"] = e.error().ToString();
      r["error"] = std::move(error);
    }
    if ((e.client_data() & kIgnoredDeletion) != 0) {
      r["ignored_deletion"] = true;
    }
    if (e.value() != nullptr) r["resource"] = type->ToJson(e.value().get());
    out.append(std::move(r));
  });
  return out;
}

std::vector<ResourceStatus> CacheStatus(
    const cache::ResourceCache& cache,
    const std::vector<const resources::ResourceType*>& types) {
  std::vector<ResourceStatus> out;
  cache.ForEach([&](const cache::Entry& e) {
    const resources::ResourceType* type =
        e.type() < types.size() ? types[e.type()] : nullptr;
    if (type == nullptr) return;
    ResourceStatus& r = out.emplace_back();
    if (!e.old_style()) {
      r.authority = std::string(cache.AuthorityName(e.authority()));
    }
    r.type_url = std::string(type->type_url());
    r.name = std::string(e.name());
    r.state = e.state();
    r.version = std::string(e.version());
    r.update_time = e.update_time();
    if (e.state() == cache::State::kNacked) {
      r.error_version = std::string(e.error_version());
      r.error_time = e.error_time();
      r.error = e.error().ToString();
    }
  });
  return out;
}

}  // namespace client
}  // namespace xdsfed
