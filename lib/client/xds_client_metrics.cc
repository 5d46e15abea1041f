#include "lib/client/xds_client_metrics.h"

#include <map>
#include <string>
#include <tuple>

#include "absl/strings/strip.h"
#include "lib/cache/resource_cache.h"
#include "lib/client/xds_client.h"
#include "lib/metrics/instruments.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace client {

namespace {

absl::string_view TypeLabel(absl::string_view type_url) {
  return absl::StripPrefix(type_url, resources::kTypeUrlPrefix);
}

// A78's grpc.xds.cache_state values.
absl::string_view CacheStateLabel(const ResourceStatus& s) {
  switch (s.state) {
    case cache::State::kRequested:
      return "requested";
    case cache::State::kAcked:
      return "acked";
    case cache::State::kDoesNotExist:
      return "does_not_exist";
    case cache::State::kNacked:
      // A value was accepted before the rejected update: it is still held.
      return s.update_time != absl::InfinitePast() ? "nacked_but_cached"
                                                   : "nacked";
  }
  return "requested";
}

}  // namespace

void RecordResourceGauges(const XdsClient& client, absl::string_view target,
                          metrics::MetricsRecorder& recorder) {
  std::map<std::tuple<std::string, absl::string_view, std::string>, int64_t>
      counts;
  for (const ResourceStatus& s : client.ResourceStatuses()) {
    const std::string authority =
        s.authority.has_value() ? *s.authority
                                : std::string(metrics::kOldStyleAuthority);
    ++counts[{authority, CacheStateLabel(s),
              std::string(TypeLabel(s.type_url))}];
  }
  for (const auto& [key, n] : counts) {
    const absl::string_view labels[] = {target, std::get<0>(key),
                                        std::get<1>(key), std::get<2>(key)};
    recorder.SetGauge(metrics::kXdsClientResources, labels, n);
  }
}

namespace internal {

void XdsClientMetrics::SetConnected(absl::string_view server, bool connected) {
  const absl::string_view labels[] = {target_, server};
  recorder_->SetGauge(metrics::kXdsClientConnected, labels, connected ? 1 : 0);
}

void XdsClientMetrics::OnStreamCreated(absl::string_view server) {
  // A78: 1 when the stream is initially created; once 0, only a response
  // sets it back.
  if (connected_.emplace(std::string(server), true).second) {
    SetConnected(server, true);
  }
}

void XdsClientMetrics::OnServerFailed(absl::string_view server) {
  auto it = connected_.find(server);
  if (it != connected_.end() && !it->second) return;  // already unhealthy
  connected_[std::string(server)] = false;
  SetConnected(server, false);
  const absl::string_view labels[] = {target_, server};
  recorder_->AddCounter(metrics::kXdsClientServerFailure, labels, 1);
}

void XdsClientMetrics::OnResponse(absl::string_view server) {
  auto it = connected_.find(server);
  if (it != connected_.end() && it->second) return;
  connected_[std::string(server)] = true;
  SetConnected(server, true);
}

void XdsClientMetrics::OnUpdates(absl::string_view server,
                                 absl::string_view type_url, uint64_t valid,
                                 uint64_t invalid) {
  const absl::string_view labels[] = {target_, server, TypeLabel(type_url)};
  if (valid != 0) {
    recorder_->AddCounter(metrics::kXdsClientResourceUpdatesValid, labels,
                          valid);
  }
  if (invalid != 0) {
    recorder_->AddCounter(metrics::kXdsClientResourceUpdatesInvalid, labels,
                          invalid);
  }
}

}  // namespace internal
}  // namespace client
}  // namespace xdsfed
