// LrsClient: the load-reporting side of the XdsClient (gRFC A47 §XdsClient
// Load Reporting APIs, §LRS Server Representation). LB policies ask it for
// stats objects of an LRS server; it keeps one LoadReportStore per server
// and, while any stats object of a server is held, one LRS stream
// (envoy.service.load_stats.v3.LoadReportingService/StreamLoadStats) to it,
// reporting what the server asks for at the interval it asks.
//
//   // Shares the XdsClient's channels: the LRS stream to a server runs on
//   // the same channel as its ADS stream, as in gRPC.
//   auto lrs = lrs::LrsClient::Create(xds_client, {});
//   absl::StatusOr<std::shared_ptr<lrs::ClusterLocalityStats>> stats =
//       (*lrs)->AddClusterLocalityStats(*bootstrap->servers()[0], "c1",
//                                       "eds1", {"region", "zone", ""});
//   if (!stats.ok()) ...;  // not a bootstrap server: nothing is sent
//   (*stats)->AddCallStarted();
//   (*stats)->AddCallFinished(/*fail=*/false);
//
// The security rule of A47: a control plane must not be able to make the
// client send load reports (with the bootstrap's credentials) to a server of
// its choosing, so only an LRS server equal (XdsServerConfig ==: uri,
// selected channel creds, server features) to one of the bootstrap's servers
// (top-level or any authority's) is accepted; any other gets
// kInvalidArgument and opens nothing.
//
// Stream life, as C-core 1.51 (xds_client.cc LrsCallState) except where
// noted:
//   - started when the first stats object of a server is created; the first
//     message carries the node (lrs_wire.h);
//   - the server's LoadStatsResponse (any number, each replacing the last)
//     sets send_all_clusters / clusters and the interval (clamped to
//     [1 s, 1 day]); reports start then, one per interval, the next timer
//     armed once the previous report has been sent; a report is skipped when
//     it and the previous one were all zero;
//   - a failed stream is restarted with backoff (reset after a response);
//   - when no stats object of the server is held any more, the stream sends
//     the last counts with its next report and stops; if it was not
//     reporting yet (no response, backing off) it stops at once and the
//     counts wait in the store for a later stream.
//   C-core also waits for the ADS stream's first response before
//   reporting; this client reports without it (it may have no ADS stream).
//
// Threading: every method is thread-safe; stats objects may be used and
// released on any thread, and may outlive the LrsClient (they then record
// into a store nobody reports).
#ifndef XDSFED_LIB_LRS_LRS_CLIENT_H_
#define XDSFED_LIB_LRS_LRS_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/backoff.h"
#include "lib/client/timer.h"
#include "lib/client/xds_client.h"
#include "lib/client/xds_transport.h"
#include "lib/lrs/load_stats.h"

namespace xdsfed {
namespace lrs {

class LrsClient {
 public:
  struct Options {
    // Stream restart backoff (C-core 1.51 values by default).
    client::BackoffOptions backoff;
    // Seeds the backoff jitter; unset: a random seed, as for the XdsClient
    // (client::RandomJitterSeed()). Tests set a fixed one.
    std::optional<uint64_t> jitter_seed;
    // Clock and timers; null: client::DefaultTimers().
    std::shared_ptr<client::Timers> timers;
    // Node.user_agent_name / version (Create(XdsClient) takes the
    // XdsClient's, so both streams send the same node).
    std::string user_agent_name = "xdsfed";
    std::string user_agent_version = "0.1";
  };

  // The channel an LRS stream to `server` runs on. Called with a bootstrap
  // server only, each time a stream starts.
  using TransportSource =
      std::function<absl::StatusOr<std::shared_ptr<client::XdsTransport>>(
          const XdsServerConfig& server)>;

  // Reports over the XdsClient's channels (XdsClient::SharedTransport), with
  // its bootstrap and node. Keeps the XdsClient alive.
  static absl::StatusOr<std::shared_ptr<LrsClient>> Create(
      std::shared_ptr<client::XdsClient> xds_client, Options options);
  // Reports over channels of its own made by `factory`.
  static absl::StatusOr<std::shared_ptr<LrsClient>> Create(
      std::shared_ptr<const Bootstrap> bootstrap,
      std::shared_ptr<client::XdsTransportFactory> factory, Options options);
  // Any channel source (tests).
  static absl::StatusOr<std::shared_ptr<LrsClient>> Create(
      std::shared_ptr<const Bootstrap> bootstrap, TransportSource source,
      Options options);

  ~LrsClient();
  LrsClient(const LrsClient&) = delete;
  LrsClient& operator=(const LrsClient&) = delete;

  // The drop counters of {cluster, eds_service_name} reported to
  // lrs_server, shared with every other caller of the same key. Errors:
  // kInvalidArgument "LRS server <uri> is not a server of the bootstrap
  // (A47: ...)", or the transport's error for the server's channel.
  absl::StatusOr<std::shared_ptr<ClusterDropStats>> AddClusterDropStats(
      const XdsServerConfig& lrs_server, absl::string_view cluster,
      absl::string_view eds_service_name);
  // The call counters of one locality of {cluster, eds_service_name}.
  absl::StatusOr<std::shared_ptr<ClusterLocalityStats>> AddClusterLocalityStats(
      const XdsServerConfig& lrs_server, absl::string_view cluster,
      absl::string_view eds_service_name, const Locality& locality);

  // For tests: LRS streams open or being restarted.
  size_t active_stream_count() const;

  class Impl;

 private:
  explicit LrsClient(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace lrs
}  // namespace xdsfed

#endif  // XDSFED_LIB_LRS_LRS_CLIENT_H_
