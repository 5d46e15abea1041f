// The embedded xDS management server: ADS state of the world and LRS over
// real grpc++, serving a snapshot of resources. Tests run it in-process on
// loopback, `xdsfed demo` runs several, and `xdsfed control-plane` serves a
// snapshot file (../shared/CLI.md). It is a test tool, not a production
// server: every stream gets every subscribed resource on each change.
//
//   ControlPlane::Options options;
//   options.snapshot_file = "examples/snapshots/basic.json";
//   ControlPlane cp(options);
//   absl::StatusOr<int> port = cp.Start();  // "127.0.0.1:<*port>"
//   ...
//   cp.SetSnapshot(*ParseSnapshot(text));    // pushed to every ADS stream
//   cp.WaitForRequests(
//       [](const std::vector<Json::Value>& log) { return log.size() >= 2; },
//       absl::Seconds(5));
//   cp.Shutdown();
#ifndef XDSFED_TOOLS_CONTROL_PLANE_CONTROL_PLANE_H_
#define XDSFED_TOOLS_CONTROL_PLANE_CONTROL_PLANE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "envoy/service/status/v3/csds.pb.h"
#include "json/json.h"
#include "tools/control_plane/server_tls.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace xdsfed::control_plane {

inline constexpr absl::string_view kTypeUrlPrefix = "type.googleapis.com/";

// One resource as it goes on the wire: the type URL of its Any (normally
// kTypeUrlPrefix + the snapshot type; another type lets tests send a
// wrong-type Any) and the serialized message.
struct SnapshotResource {
  std::string type_url;
  std::string bytes;

  bool operator==(const SnapshotResource& other) const {
    return type_url == other.type_url && bytes == other.bytes;
  }
  bool operator!=(const SnapshotResource& other) const {
    return !(*this == other);
  }
};

// What the server serves: a version (sent as version_info) and, per resource
// type name ("envoy.config.listener.v3.Listener", no URL prefix), resources
// by name. xdstp:// names are matched after normalization, so a key may be
// spelled in any equivalent way.
struct Snapshot {
  std::string version;
  std::map<std::string, std::map<std::string, SnapshotResource>> resources;

  // Adds `resource` under its own type name (for in-process snapshots).
  Snapshot& Add(absl::string_view name,
                const google::protobuf::Message& resource);

  bool operator==(const Snapshot& other) const {
    return version == other.version && resources == other.resources;
  }
  bool operator!=(const Snapshot& other) const { return !(*this == other); }
};

// Parses the snapshot file format of CLI.md:
//   {"version":"1","resources":{"<type>":{"<name>":{...proto3 JSON...}}}}
// <type> is a type name or a type URL. A resource whose name field ("name",
// or "cluster_name" for ClusterLoadAssignment) is empty gets the map key. A
// resource with an "@type" naming another type is parsed and sent as that
// type. Every bad resource is reported, e.g.
//   invalid snapshot: [field:resources["envoy.config.listener.v3.Listener"]
//   ["x"] error:...]
absl::StatusOr<Snapshot> ParseSnapshot(absl::string_view json_text);

class ControlPlane {
 public:
  struct Options {
    // Where to listen; port 0 picks a free port (Start() returns it).
    std::string listen = "127.0.0.1:0";
    // Share the port with other servers that ask for it too (SO_REUSEPORT:
    // the kernel splits clients among them). Off: a port in use fails
    // Start() with "address A is in use".
    bool allow_reuse_port = false;
    // Optional snapshot file: loaded by Start() (an error fails Start) and
    // polled every ~200 ms; a changed file is reloaded and pushed, a bad one
    // is reported on stderr and the old snapshot kept.
    std::string snapshot_file;
    // Optional: one JSON line per request received is appended here (every
    // request, whatever history_limit says).
    std::string log_file;
    // Bounds the in-memory histories, so memory stays flat however many
    // streams and requests come and go: RequestLog() and LoadReports() keep
    // at least the last history_limit entries (at most twice that), and
    // AdsResponseTimings() the last history_limit responses. 0 keeps none.
    // Per-stream state lives only as long as its stream.
    size_t history_limit = 100000;
    // Send each resource inside an envoy.service.discovery.v3.Resource.
    bool wrap_resources = false;
    // TLS serving (server_tls.h); the default, no files, is plaintext.
    ServerTlsFiles tls;
    // What the LRS response asks of the client.
    absl::Duration lrs_interval = absl::Seconds(1);
    bool lrs_send_all_clusters = true;
    // LoadStatsResponse.clusters: the clusters to report when
    // lrs_send_all_clusters is false.
    std::vector<std::string> lrs_clusters;
    // false: a new snapshot goes to a stream only for the types whose
    // answer to its subscription changed (as the shared peer harness's
    // control plane does); true: every subscribed type, every time.
    bool push_unchanged = true;
    // Type names ("envoy.config.cluster.v3.Cluster") answered as if every
    // subscription to them were a wildcard: every resource of the type goes
    // to every subscriber. Benchmarks use it to make a client decode N
    // resources it did not ask for (gRPC and xdsfed both decode a resource
    // before looking at its name).
    std::vector<std::string> answer_all_of_types;
  };

  explicit ControlPlane(Options options);
  ~ControlPlane();  // Shutdown()
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  // Starts serving; returns the port bound. Errors: a bad snapshot file, a
  // port that cannot be bound (kUnavailable, "address A is in use" when
  // another socket holds it), a second Start().
  absl::StatusOr<int> Start();

  // Replaces the snapshot and pushes it to every ADS stream.
  void SetSnapshot(Snapshot snapshot);
  Snapshot GetSnapshot() const;

  // Cancels every stream and stops the server. Idempotent.
  void Shutdown();

  // The ADS requests received (the last ones: Options::history_limit),
  // oldest first:
  //   {"stream_id":1,"peer":"ipv4:127.0.0.1:4242","node_id":"n1",
  //    "type_url":"...","resource_names":[...],"version_info":"...",
  //    "response_nonce":"...","error_detail":{"code":3,"message":"..."}|null,
  //    "received_unix_nanos":1700000000123456789}
  // node_id is the one the stream's first request carried;
  // received_unix_nanos is when the server read the request. A request that
  // does not parse ends its stream with INVALID_ARGUMENT and is logged with
  // empty fields and "invalid_request": the error.
  std::vector<Json::Value> RequestLog() const;
  // The LRS LoadStatsRequests received (the last ones):
  //   {"stream_id":2,"peer":"...","request":{...proto3 JSON...}}
  std::vector<Json::Value> LoadReports() const;
  // ADS responses sent so far (all types, all streams), counted when queued:
  // a client holding a response knows it is counted.
  int AdsResponsesSent() const;
  int ActiveAdsStreams() const;

  // When each ADS response went out and when its ACK / NACK came back, for
  // ACK-latency measurements (bench/ack_latency_bench.cc). Server-side
  // times: write_started is taken just before the response is handed to
  // grpc++ (which serializes it and writes it), answered when the first
  // request carrying its nonce has been read.
  struct AdsResponseTiming {
    int64_t stream_id = 0;
    std::string type_url;
    std::string version;
    std::string nonce;
    std::optional<absl::Time> write_started;  // unset while still queued
    std::optional<absl::Time> answered;       // unset until ACKed / NACKed
    bool nacked = false;                      // the answer had error_detail
  };
  // The last Options::history_limit ADS responses built, oldest first.
  std::vector<AdsResponseTiming> AdsResponseTimings() const;

  // The management server's CSDS view (also served as
  // envoy.service.status.v3.ClientStatusDiscoveryService on the same port):
  // one ClientConfig per open ADS stream, oldest first, per resource what
  // was sent and whether the client ACKed or NACKed it (client_status.h).
  std::vector<envoy::service::status::v3::ClientConfig> ClientConfigs() const;

  // Block until `done` holds for the log, or the timeout; returns whether it
  // held. `done` runs under the server's lock: keep it quick.
  using LogPredicate = std::function<bool(const std::vector<Json::Value>&)>;
  bool WaitForRequests(const LogPredicate& done, absl::Duration timeout) const;
  bool WaitForLoadReports(const LogPredicate& done,
                          absl::Duration timeout) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xdsfed::control_plane

#endif  // XDSFED_TOOLS_CONTROL_PLANE_CONTROL_PLANE_H_
