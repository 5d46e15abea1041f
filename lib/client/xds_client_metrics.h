// The XdsClient's gRFC A78 instruments (issue 28 item 4), recorded through
// metrics::MetricsRecorder (XdsClient::Options::metrics; null: off, one
// pointer test per hook).
// - grpc.xds_client.connected {grpc.target, grpc.xds.server}: 1 when the
//   first ADS stream to a server is created; 0 on a connectivity failure
//   or a stream that ends without a response (A57); back to 1 at the next
//   response.
// - grpc.xds_client.server_failure: each 1 -> 0 transition above.
// - grpc.xds_client.resource_updates_valid / _invalid {.., resource_type}:
//   per response, the subscribed resources of this server's authorities it
//   carried that decoded and validated (unchanged ones too) / did not.
// - grpc.xds_client.resources {grpc.target, grpc.xds.authority,
//   grpc.xds.cache_state, grpc.xds.resource_type}: counted from the cache
//   when an exporter asks (RecordResourceGauges).
// grpc.xds.resource_type is the type URL without "type.googleapis.com/".
#ifndef XDSFED_LIB_CLIENT_XDS_CLIENT_METRICS_H_
#define XDSFED_LIB_CLIENT_XDS_CLIENT_METRICS_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "lib/metrics/recorder.h"

namespace xdsfed {
namespace client {

class XdsClient;

// Sets grpc.xds_client.resources for every (authority, cache state, type)
// the client's cache holds, with grpc.target = `target` (an exporter's
// collect callback; "#old" is the authority of old-style names).
void RecordResourceGauges(const XdsClient& client, absl::string_view target,
                          metrics::MetricsRecorder& recorder);

namespace internal {

// XdsClient's hooks; each is a no-op without a recorder. Not thread-safe:
// the client calls it under its lock.
class XdsClientMetrics {
 public:
  XdsClientMetrics(metrics::MetricsRecorder* recorder, std::string target)
      : recorder_(recorder), target_(std::move(target)) {}

  void StreamCreated(absl::string_view server) {
    if (recorder_ != nullptr) OnStreamCreated(server);
  }
  // A57 connectivity failure, or a stream ended without any response.
  void ServerFailed(absl::string_view server) {
    if (recorder_ != nullptr) OnServerFailed(server);
  }
  void ResponseReceived(absl::string_view server) {
    if (recorder_ != nullptr) OnResponse(server);
  }
  void ResourceUpdates(absl::string_view server, absl::string_view type_url,
                       uint64_t valid, uint64_t invalid) {
    if (recorder_ != nullptr) OnUpdates(server, type_url, valid, invalid);
  }

 private:
  void OnStreamCreated(absl::string_view server);
  void OnServerFailed(absl::string_view server);
  void OnResponse(absl::string_view server);
  void OnUpdates(absl::string_view server, absl::string_view type_url,
                 uint64_t valid, uint64_t invalid);
  void SetConnected(absl::string_view server, bool connected);

  metrics::MetricsRecorder* const recorder_;
  const std::string target_;
  absl::flat_hash_map<std::string, bool> connected_;  // by server URI
};

}  // namespace internal
}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_XDS_CLIENT_METRICS_H_
