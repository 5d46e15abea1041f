// The XdsClient over REAL gRPC: lib/transport's GrpcXdsTransportFactory
// talks to embedded control planes (tools/control_plane) on loopback, so the
// ADS streams, ACKs / NACKs, deletions and reconnects below are the real
// protocol, not a mocked transport. Each TEST is its own ctest entry (and
// process); each names the A47 / gRPC C-core 1.51 behaviour it checks.
//
// Timing: the client runs with a 500 ms does-not-exist timeout and a 100 ms
// reconnect backoff. Correctness never depends on a sleep: every check waits
// for an event (watcher callback, request in the control plane's log) with a
// generous deadline.
#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/substitute.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "json/json.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "lib/resources/cluster.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/listener.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/transport/grpc_transport.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed {
namespace {

using client::XdsClient;
using control_plane::ControlPlane;

// Every wait for something that must happen.
constexpr absl::Duration kWait = absl::Seconds(5);
// Waits that span a server restart (gRPC's own reconnect backoff is 1 s+).
constexpr absl::Duration kRestartWait = absl::Seconds(15);
constexpr absl::Duration kDoesNotExistTimeout = absl::Milliseconds(500);
constexpr char kNodeId[] = "e2e-node";

constexpr char kLdsType[] = "envoy.config.listener.v3.Listener";
constexpr char kRdsType[] = "envoy.config.route.v3.RouteConfiguration";
constexpr char kCdsType[] = "envoy.config.cluster.v3.Cluster";
constexpr char kEdsType[] = "envoy.config.endpoint.v3.ClusterLoadAssignment";

std::string TypeUrl(absl::string_view type) {
  return absl::StrCat("type.googleapis.com/", type);
}

// --- snapshots ---

// One snapshot entry: `"name":{...proto3 JSON...}` under a type.
struct Res {
  absl::string_view type;
  std::string entry;
};

Res Listener(absl::string_view name, absl::string_view route) {
  return {kLdsType, absl::Substitute(R"("$0":{"api_listener":{"api_listener":{
  "@type":"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "rds":{"config_source":{"ads":{}},"route_config_name":"$1"},
  "http_filters":[{"name":"router","typed_config":{
    "@type":"type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}]}}})",
                                     name, route)};
}
Res Route(absl::string_view name, absl::string_view cluster) {
  return {kRdsType, absl::Substitute(R"("$0":{"virtual_hosts":[{"name":"vh",
  "domains":["*"],"routes":[{"match":{"prefix":""},
  "route":{"cluster":"$1"}}]}]})",
                                     name, cluster)};
}
// A valid EDS Cluster; service_name tells its versions apart.
Res Cluster(absl::string_view name, absl::string_view service_name) {
  return {kCdsType, absl::Substitute(R"("$0":{"type":"EDS",
  "eds_cluster_config":{"eds_config":{"ads":{}},"service_name":"$1"}})",
                                     name, service_name)};
}
// gRPC accepts only EDS, LOGICAL_DNS and aggregate clusters (A37
// §Validation): STATIC is NACKed.
Res StaticCluster(absl::string_view name) {
  return {kCdsType, absl::Substitute(R"("$0":{"type":"STATIC"})", name)};
}
Res Endpoint(absl::string_view name, int port) {
  return {kEdsType, absl::Substitute(R"("$0":{"endpoints":[{
  "locality":{"region":"r1","zone":"z1"},"load_balancing_weight":1,
  "lb_endpoints":[{"endpoint":{"address":{"socket_address":{
  "address":"127.0.0.1","port_value":$1}}}}]}]})",
                                     name, port)};
}

control_plane::Snapshot MakeSnapshot(absl::string_view version,
                                     const std::vector<Res>& resources) {
  std::map<std::string, std::vector<std::string>> by_type;
  for (const Res& r : resources)
    by_type[std::string(r.type)].push_back(r.entry);
  std::vector<std::string> types;
  for (const auto& [type, entries] : by_type) {
    types.push_back(
        absl::StrCat("\"", type, "\":{", absl::StrJoin(entries, ","), "}"));
  }
  const std::string text =
      absl::StrCat(R"({"version":")", version, R"(","resources":{)",
                   absl::StrJoin(types, ","), "}}");
  absl::StatusOr<control_plane::Snapshot> snapshot =
      control_plane::ParseSnapshot(text);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status() << "\n" << text;
  return snapshot.ok() ? *std::move(snapshot) : control_plane::Snapshot{};
}

// --- control planes ---

struct Cp {
  std::unique_ptr<ControlPlane> server;
  int port = 0;
};

Cp StartCp(control_plane::Snapshot snapshot, bool wrap_resources = false,
           int port = 0) {
  ControlPlane::Options options;
  options.listen = absl::StrCat("127.0.0.1:", port);
  options.wrap_resources = wrap_resources;
  Cp cp;
  cp.server = std::make_unique<ControlPlane>(options);
  cp.server->SetSnapshot(std::move(snapshot));
  absl::StatusOr<int> bound = cp.server->Start();
  EXPECT_TRUE(bound.ok()) << bound.status();
  if (!bound.ok()) return {};
  cp.port = *bound;
  return cp;
}

// The resource names of every request of `type` in `log`, or of one stream.
std::set<std::string> NamesIn(const std::vector<Json::Value>& log,
                              absl::string_view type = "",
                              int64_t stream_id = -1) {
  std::set<std::string> names;
  for (const Json::Value& request : log) {
    if (!type.empty() && request["type_url"].asString() != TypeUrl(type)) {
      continue;
    }
    if (stream_id >= 0 && request["stream_id"].asInt64() != stream_id) {
      continue;
    }
    for (const Json::Value& name : request["resource_names"]) {
      names.insert(name.asString());
    }
  }
  return names;
}

std::set<int64_t> StreamIds(const std::vector<Json::Value>& log) {
  std::set<int64_t> ids;
  for (const Json::Value& request : log) {
    ids.insert(request["stream_id"].asInt64());
  }
  return ids;
}

// Waits for a request of `type` matching `match`; returns it (null if none).
Json::Value WaitForRequest(const ControlPlane& cp, absl::string_view type,
                           const std::function<bool(const Json::Value&)>& match,
                           absl::Duration timeout = kWait) {
  Json::Value found;
  const std::string type_url = TypeUrl(type);
  cp.WaitForRequests(
      [&](const std::vector<Json::Value>& log) {
        for (const Json::Value& request : log) {
          if (request["type_url"].asString() == type_url && match(request)) {
            found = request;
            return true;
          }
        }
        return false;
      },
      timeout);
  return found;
}

bool IsAck(const Json::Value& request, absl::string_view version) {
  return request["version_info"].asString() == version &&
         !request["response_nonce"].asString().empty() &&
         request["error_detail"].isNull();
}

// --- bootstraps and clients ---

std::string ServerJson(int port, bool ignore_resource_deletion = false) {
  return absl::StrCat(
      R"({"server_uri":"127.0.0.1:)", port,
      R"(","channel_creds":[{"type":"insecure"}],"server_features":["xds_v3")",
      ignore_resource_deletion ? R"(,"ignore_resource_deletion")" : "", "]}");
}

// `authorities`: name -> its xds_servers JSON list ("" for none: the
// authority then uses the top-level servers, A47 §Bootstrap File Changes).
std::shared_ptr<const Bootstrap> MakeBootstrap(
    const std::string& top_server,
    const std::map<std::string, std::string>& authorities = {}) {
  std::vector<std::string> auth;
  for (const auto& [name, servers] : authorities) {
    auth.push_back(absl::StrCat(
        "\"", name, "\":{",
        servers.empty() ? "" : absl::StrCat(R"("xds_servers":[)", servers, "]"),
        "}"));
  }
  const std::string text = absl::StrCat(
      R"({"xds_servers":[)", top_server, R"(],"node":{"id":")", kNodeId,
      R"("},"authorities":{)", absl::StrJoin(auth, ","), "}}");
  absl::StatusOr<std::shared_ptr<const Bootstrap>> bootstrap =
      Bootstrap::Parse(text, /*federation=*/true);
  EXPECT_TRUE(bootstrap.ok()) << bootstrap.status() << "\n" << text;
  return bootstrap.ok() ? *bootstrap : nullptr;
}

std::shared_ptr<XdsClient> MakeClient(
    std::shared_ptr<const Bootstrap> bootstrap) {
  XdsClient::Options options;
  options.does_not_exist_timeout = kDoesNotExistTimeout;
  options.backoff.initial = absl::Milliseconds(100);
  options.backoff.max = absl::Seconds(1);
  options.jitter_seed = 1;
  absl::StatusOr<std::shared_ptr<XdsClient>> client = XdsClient::Create(
      std::move(bootstrap),
      std::make_shared<transport::GrpcXdsTransportFactory>(), options);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *client : nullptr;
}

// DumpConfig's entry for `name` (null if none).
Json::Value DumpEntry(const XdsClient& client, absl::string_view name) {
  for (const Json::Value& entry : client.DumpConfig()) {
    if (entry["name"].asString() == name) return entry;
  }
  return Json::Value();
}

// --- watchers ---

struct Event {
  enum class Kind { kChanged, kError, kDoesNotExist };
  Kind kind;
  Json::Value value;  // kChanged: the value as ResourceType::ToJson shows it
  absl::Status status;
  absl::Time time;
};

// Records every callback; tests wait for the events they expect.
class RecordingWatcher : public client::AnyWatcher {
 public:
  using Events = std::vector<Event>;

  explicit RecordingWatcher(const resources::ResourceType& type)
      : type_(type) {}

  void OnChanged(
      std::shared_ptr<const resources::ResourceData> value) override {
    Add({Event::Kind::kChanged, type_.ToJson(value.get()), absl::OkStatus(),
         absl::Now()});
  }
  void OnError(absl::Status status) override {
    Add({Event::Kind::kError, Json::Value(), std::move(status), absl::Now()});
  }
  void OnDoesNotExist() override {
    Add({Event::Kind::kDoesNotExist, Json::Value(), absl::OkStatus(),
         absl::Now()});
  }

  bool WaitFor(const std::function<bool(const Events&)>& done,
               absl::Duration timeout = kWait) {
    const absl::Time deadline = absl::Now() + timeout;
    absl::MutexLock lock(&mu_);
    while (!done(events_)) {
      if (cv_.WaitWithDeadline(&mu_, deadline) && !done(events_)) return false;
    }
    return true;
  }
  // The last value delivered has json[field] == want.
  bool WaitForValue(absl::string_view field, absl::string_view want,
                    absl::Duration timeout = kWait) {
    return WaitFor(
        [&](const Events& events) {
          const Event* last = LastOf(events, Event::Kind::kChanged);
          return last != nullptr &&
                 last->value[std::string(field)].asString() == want;
        },
        timeout);
  }
  bool WaitForCount(Event::Kind kind, size_t n,
                    absl::Duration timeout = kWait) {
    return WaitFor(
        [&](const Events& events) { return Count(events, kind) >= n; },
        timeout);
  }

  Events events() const {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  size_t count(Event::Kind kind) const {
    absl::MutexLock lock(&mu_);
    return Count(events_, kind);
  }

  // A copy of the last event of `kind`, if any.
  std::optional<Event> Last(Event::Kind kind) const {
    absl::MutexLock lock(&mu_);
    const Event* last = LastOf(events_, kind);
    if (last == nullptr) return std::nullopt;
    return *last;
  }

  static size_t Count(const Events& events, Event::Kind kind) {
    return std::count_if(events.begin(), events.end(),
                         [kind](const Event& e) { return e.kind == kind; });
  }
  static const Event* LastOf(const Events& events, Event::Kind kind) {
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (it->kind == kind) return &*it;
    }
    return nullptr;
  }

 private:
  void Add(Event event) {
    absl::MutexLock lock(&mu_);
    events_.push_back(std::move(event));
    cv_.SignalAll();
  }

  const resources::ResourceType& type_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  Events events_ ABSL_GUARDED_BY(mu_);
};

// Counts callbacks only (for the stress test, where events pile up).
class CountingWatcher : public client::AnyWatcher {
 public:
  explicit CountingWatcher(std::atomic<int>* n) : n_(n) {}
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> /*value*/) override {
    ++*n_;
  }
  void OnError(absl::Status /*status*/) override { ++*n_; }
  void OnDoesNotExist() override { ++*n_; }

 private:
  std::atomic<int>* const n_;
};

struct Watch {
  std::shared_ptr<RecordingWatcher> watcher;
  client::WatchId id = 0;
};

Watch StartWatch(XdsClient& client, const resources::ResourceType& type,
                 absl::string_view name) {
  Watch w;
  w.watcher = std::make_shared<RecordingWatcher>(type);
  w.id = client.Watch(type, name, w.watcher);
  return w;
}

const resources::ResourceType& Lds() {
  return resources::ListenerResourceType();
}
const resources::ResourceType& Rds() {
  return resources::RouteConfigResourceType();
}
const resources::ResourceType& Cds() {
  return resources::ClusterResourceType();
}
const resources::ResourceType& Eds() {
  return resources::EndpointResourceType();
}

std::string XdstpName(absl::string_view authority, absl::string_view type,
                      absl::string_view id) {
  return absl::StrCat("xdstp://", authority, "/", type, "/", id);
}

using Kind = Event::Kind;

// A47 §XdsClient Changes (Server Channel Map, Watcher Changes): an xdstp://
// name is fetched from its authority's server, an old-style name from the
// top-level server; an authority without xds_servers uses the top-level
// ones. Each control plane is asked only for its own names.
TEST(XdsClientE2eTest, FederationAcrossTwoControlPlanes) {
  const std::string a_cluster = XdstpName("a.example", kCdsType, "ca");
  const std::string b_cluster = XdstpName("b.example", kCdsType, "cb");
  const std::string b_eds = XdstpName("b.example", kEdsType, "eb");
  // Each server also holds the other's names: it must not be asked for them.
  Cp cp1 = StartCp(MakeSnapshot(
      "1", {Cluster("old-cluster", "old-eds"), Cluster(a_cluster, "eds-a-1"),
            Cluster(b_cluster, "wrong-server")}));
  Cp cp2 = StartCp(
      MakeSnapshot("1", {Cluster(b_cluster, "eds-b-2"), Endpoint(b_eds, 8080),
                         Cluster(a_cluster, "wrong-server")}));
  ASSERT_NE(cp1.server, nullptr);
  ASSERT_NE(cp2.server, nullptr);
  auto client = MakeClient(
      MakeBootstrap(ServerJson(cp1.port),
                    {{"a.example", ""}, {"b.example", ServerJson(cp2.port)}}));
  ASSERT_NE(client, nullptr);

  Watch old = StartWatch(*client, Cds(), "old-cluster");
  Watch a = StartWatch(*client, Cds(), a_cluster);
  Watch b = StartWatch(*client, Cds(), b_cluster);
  Watch eds = StartWatch(*client, Eds(), b_eds);
  EXPECT_TRUE(old.watcher->WaitForValue("eds_service_name", "old-eds"));
  EXPECT_TRUE(a.watcher->WaitForValue("eds_service_name", "eds-a-1"));
  EXPECT_TRUE(b.watcher->WaitForValue("eds_service_name", "eds-b-2"));
  EXPECT_TRUE(eds.watcher->WaitForValue("cluster_name", b_eds));

  EXPECT_EQ(NamesIn(cp1.server->RequestLog()),
            (std::set<std::string>{"old-cluster", a_cluster}));
  EXPECT_EQ(NamesIn(cp2.server->RequestLog()),
            (std::set<std::string>{b_cluster, b_eds}));
  // a.example and the old-style names share the top-level server's channel.
  std::vector<std::string> uris = {absl::StrCat("127.0.0.1:", cp1.port),
                                   absl::StrCat("127.0.0.1:", cp2.port)};
  std::sort(uris.begin(), uris.end());
  EXPECT_EQ(client->ChannelServerUris(), uris);
  for (const Watch* w : {&old, &a, &b, &eds}) {
    EXPECT_EQ(w->watcher->count(Kind::kError), 0u);
    EXPECT_EQ(w->watcher->count(Kind::kDoesNotExist), 0u);
    client->CancelWatch(w->id);
  }
  EXPECT_EQ(client->channel_count(), 0u);
}

// A47 §Server Channel Map: servers are de-duplicated by (uri, creds,
// features), so two authorities naming the same server share one channel
// and one ADS stream; a server nobody uses gets no channel (lazy creation).
TEST(XdsClientE2eTest, TwoAuthoritiesOnOneServerShareOneStream) {
  const std::string a_cluster = XdstpName("a.example", kCdsType, "ca");
  const std::string b_cluster = XdstpName("b.example", kCdsType, "cb");
  Cp shared = StartCp(MakeSnapshot(
      "1", {Cluster(a_cluster, "eds-a"), Cluster(b_cluster, "eds-b")}));
  Cp unused = StartCp(MakeSnapshot("1", {}));
  ASSERT_NE(shared.server, nullptr);
  ASSERT_NE(unused.server, nullptr);
  auto client = MakeClient(MakeBootstrap(
      ServerJson(unused.port), {{"a.example", ServerJson(shared.port)},
                                {"b.example", ServerJson(shared.port)}}));
  ASSERT_NE(client, nullptr);

  Watch a = StartWatch(*client, Cds(), a_cluster);
  Watch b = StartWatch(*client, Cds(), b_cluster);
  EXPECT_TRUE(a.watcher->WaitForValue("eds_service_name", "eds-a"));
  EXPECT_TRUE(b.watcher->WaitForValue("eds_service_name", "eds-b"));
  EXPECT_EQ(client->channel_count(), 1u);
  EXPECT_EQ(client->ChannelServerUris(),
            std::vector<std::string>{absl::StrCat("127.0.0.1:", shared.port)});

  // Both names were subscribed on one stream.
  Json::Value both =
      WaitForRequest(*shared.server, kCdsType, [&](const Json::Value& request) {
        std::set<std::string> names;
        for (const Json::Value& n : request["resource_names"]) {
          names.insert(n.asString());
        }
        return names == std::set<std::string>{a_cluster, b_cluster};
      });
  EXPECT_FALSE(both.isNull()) << "no request named both authorities' names";
  const std::vector<Json::Value> log = shared.server->RequestLog();
  EXPECT_EQ(StreamIds(log).size(), 1u);
  EXPECT_EQ(shared.server->ActiveAdsStreams(), 1);
  EXPECT_TRUE(unused.server->RequestLog().empty());
  client->CancelWatch(a.id);
  client->CancelWatch(b.id);
}

// C-core 1.51 / xDS protocol: an invalid resource is NACKed (error_detail
// names it, version_info keeps the last accepted version) and its watchers
// get OnError; a fixed version is ACKed and delivered. A47 keeps the last
// good value of a resource whose update is NACKed (CSDS: NACKED with the
// good version and the rejected one in the error).
TEST(XdsClientE2eTest, NackThenFix) {
  const std::string name = XdstpName("a.example", kCdsType, "c");
  Cp cp = StartCp(MakeSnapshot("1", {StaticCluster(name)}));
  ASSERT_NE(cp.server, nullptr);
  auto client =
      MakeClient(MakeBootstrap(ServerJson(cp.port), {{"a.example", ""}}));
  ASSERT_NE(client, nullptr);
  Watch w = StartWatch(*client, Cds(), name);

  ASSERT_TRUE(w.watcher->WaitForCount(Kind::kError, 1));
  const std::optional<Event> error = w.watcher->Last(Kind::kError);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->status,
            absl::UnavailableError(absl::StrCat(
                "invalid resource: INVALID_ARGUMENT: errors validating "
                "Cluster resource: [field:type error:unknown discovery type] "
                "(node ID:",
                kNodeId, ")")));
  Json::Value nack = WaitForRequest(*cp.server, kCdsType, [](const auto& r) {
    return !r["error_detail"].isNull();
  });
  ASSERT_FALSE(nack.isNull());
  EXPECT_EQ(nack["version_info"].asString(), "");      // nothing accepted yet
  EXPECT_EQ(nack["error_detail"]["code"].asInt(), 3);  // INVALID_ARGUMENT
  EXPECT_EQ(
      nack["error_detail"]["message"].asString(),
      absl::StrCat("xDS response validation errors: [resource index 0: ", name,
                   ": INVALID_ARGUMENT: errors validating Cluster "
                   "resource: [field:type error:unknown discovery "
                   "type]]"));

  cp.server->SetSnapshot(MakeSnapshot("2", {Cluster(name, "eds-2")}));
  EXPECT_TRUE(w.watcher->WaitForValue("eds_service_name", "eds-2"));
  EXPECT_FALSE(WaitForRequest(*cp.server, kCdsType, [](const auto& r) {
                 return IsAck(r, "2");
               }).isNull());

  // A bad update after a good value: NACKed, the good value stays.
  cp.server->SetSnapshot(MakeSnapshot("3", {StaticCluster(name)}));
  ASSERT_TRUE(w.watcher->WaitForCount(Kind::kError, 2));
  Json::Value nack3 = WaitForRequest(*cp.server, kCdsType, [](const auto& r) {
    return !r["error_detail"].isNull() && r["version_info"].asString() == "2";
  });
  EXPECT_FALSE(nack3.isNull()) << "no NACK carrying the last good version 2";
  const Json::Value dump = DumpEntry(*client, name);
  EXPECT_EQ(dump["client_status"].asString(), "NACKED");
  EXPECT_EQ(dump["version"].asString(), "2");
  EXPECT_EQ(dump["error"]["version"].asString(), "3");
  EXPECT_EQ(dump["resource"]["eds_service_name"].asString(), "eds-2");
  const RecordingWatcher::Events events = w.watcher->events();
  EXPECT_EQ(RecordingWatcher::Count(events, Kind::kChanged), 1u);
  EXPECT_EQ(RecordingWatcher::Count(events, Kind::kDoesNotExist), 0u);
  client->CancelWatch(w.id);
}

// C-core 1.51 ResourceTimer: a subscribed resource the server never sends
// is reported as not existing once the does-not-exist timeout has passed.
// This holds for LDS too: C-core leaves a never-received LDS / CDS resource
// to the timer ("this ADS response may be in reaction to an earlier request
// that did not yet request the new resource"); only a resource that had a
// value is deleted at once (see DeletedResourceDoesNotExist). A resource
// that appears later is delivered.
TEST(XdsClientE2eTest, NeverSentResourceDoesNotExistAfterTimeout) {
  Cp cp = StartCp(
      MakeSnapshot("1", {Listener("listener-present", "route-missing")}));
  ASSERT_NE(cp.server, nullptr);
  auto client = MakeClient(MakeBootstrap(ServerJson(cp.port)));
  ASSERT_NE(client, nullptr);

  const absl::Time start = absl::Now();
  Watch present = StartWatch(*client, Lds(), "listener-present");
  Watch lds = StartWatch(*client, Lds(), "listener-missing");
  Watch rds = StartWatch(*client, Rds(), "route-missing");
  Watch eds = StartWatch(*client, Eds(), "eds-missing");
  EXPECT_TRUE(present.watcher->WaitForValue("name", "listener-present"));
  for (const Watch* w : {&lds, &rds, &eds}) {
    ASSERT_TRUE(w->watcher->WaitForCount(Kind::kDoesNotExist, 1));
    const std::optional<Event> dne = w->watcher->Last(Kind::kDoesNotExist);
    ASSERT_TRUE(dne.has_value());
    // Not before the timeout (its timer starts when the request is sent).
    EXPECT_GE(dne->time - start, kDoesNotExistTimeout);
  }
  EXPECT_EQ(DumpEntry(*client, "route-missing")["client_status"].asString(),
            "DOES_NOT_EXIST");
  EXPECT_EQ(present.watcher->count(Kind::kDoesNotExist), 0u);

  // Created later: delivered on the same watch.
  cp.server->SetSnapshot(
      MakeSnapshot("2", {Listener("listener-present", "route-missing"),
                         Listener("listener-missing", "route-missing"),
                         Route("route-missing", "cluster-x")}));
  EXPECT_TRUE(lds.watcher->WaitForValue("name", "listener-missing"));
  EXPECT_TRUE(rds.watcher->WaitForValue("name", "route-missing"));
  for (const Watch* w : {&present, &lds, &rds, &eds}) {
    client->CancelWatch(w->id);
  }
}

// xDS state of the world (C-core 1.51 all_resources_required_in_sotw): an
// LDS or CDS resource the client had, missing from a response, was deleted:
// OnDoesNotExist right away (no timeout).
TEST(XdsClientE2eTest, DeletedResourceDoesNotExist) {
  Cp cp = StartCp(MakeSnapshot(
      "1", {Listener("l1", "r1"), Cluster("c1", "e1"), Cluster("c2", "e2")}));
  ASSERT_NE(cp.server, nullptr);
  auto client = MakeClient(MakeBootstrap(ServerJson(cp.port)));
  ASSERT_NE(client, nullptr);
  Watch l1 = StartWatch(*client, Lds(), "l1");
  Watch c1 = StartWatch(*client, Cds(), "c1");
  Watch c2 = StartWatch(*client, Cds(), "c2");
  ASSERT_TRUE(l1.watcher->WaitForValue("name", "l1"));
  ASSERT_TRUE(c1.watcher->WaitForValue("eds_service_name", "e1"));
  ASSERT_TRUE(c2.watcher->WaitForValue("eds_service_name", "e2"));

  cp.server->SetSnapshot(MakeSnapshot("2", {Cluster("c2", "e2")}));
  EXPECT_TRUE(l1.watcher->WaitForCount(Kind::kDoesNotExist, 1));
  EXPECT_TRUE(c1.watcher->WaitForCount(Kind::kDoesNotExist, 1));
  EXPECT_EQ(DumpEntry(*client, "c1")["client_status"].asString(),
            "DOES_NOT_EXIST");
  EXPECT_FALSE(DumpEntry(*client, "c1").isMember("resource"));
  // The ACK of version 2 follows the deletion; c2 was untouched.
  EXPECT_FALSE(WaitForRequest(*cp.server, kCdsType, [](const auto& r) {
                 return IsAck(r, "2");
               }).isNull());
  EXPECT_EQ(c2.watcher->count(Kind::kDoesNotExist), 0u);
  EXPECT_EQ(c2.watcher->count(Kind::kChanged), 1u);
  for (const Watch* w : {&l1, &c1, &c2}) client->CancelWatch(w->id);
}

// gRFC A53 server feature ignore_resource_deletion (C-core 1.51): a deleted
// LDS / CDS resource is not reported; the value is kept, and a later update
// of it is delivered as usual.
TEST(XdsClientE2eTest, IgnoreResourceDeletionKeepsValue) {
  Cp cp = StartCp(MakeSnapshot(
      "1", {Listener("l1", "r1"), Cluster("c1", "e1"), Cluster("c2", "e2")}));
  ASSERT_NE(cp.server, nullptr);
  auto client = MakeClient(
      MakeBootstrap(ServerJson(cp.port, /*ignore_resource_deletion=*/true)));
  ASSERT_NE(client, nullptr);
  Watch l1 = StartWatch(*client, Lds(), "l1");
  Watch c1 = StartWatch(*client, Cds(), "c1");
  ASSERT_TRUE(l1.watcher->WaitForValue("name", "l1"));
  ASSERT_TRUE(c1.watcher->WaitForValue("eds_service_name", "e1"));

  cp.server->SetSnapshot(MakeSnapshot("2", {Cluster("c2", "e2")}));
  ASSERT_FALSE(WaitForRequest(*cp.server, kCdsType, [](const auto& r) {
                 return IsAck(r, "2");
               }).isNull());
  ASSERT_FALSE(WaitForRequest(*cp.server, kLdsType, [](const auto& r) {
                 return IsAck(r, "2");
               }).isNull());
  const Json::Value dump = DumpEntry(*client, "c1");
  EXPECT_EQ(dump["client_status"].asString(), "ACKED");
  EXPECT_EQ(dump["resource"]["eds_service_name"].asString(), "e1");
  EXPECT_EQ(DumpEntry(*client, "l1")["client_status"].asString(), "ACKED");

  // Callbacks are ordered: had a deletion been reported, it would come
  // before these updates.
  cp.server->SetSnapshot(MakeSnapshot(
      "3", {Listener("l1", "r3"), Cluster("c1", "e3"), Cluster("c2", "e2")}));
  EXPECT_TRUE(c1.watcher->WaitForValue("eds_service_name", "e3"));
  EXPECT_TRUE(l1.watcher->WaitFor([](const RecordingWatcher::Events& events) {
    return RecordingWatcher::Count(events, Kind::kChanged) == 2;
  }));
  EXPECT_EQ(l1.watcher->count(Kind::kDoesNotExist), 0u);
  EXPECT_EQ(c1.watcher->count(Kind::kDoesNotExist), 0u);
  client->CancelWatch(l1.id);
  client->CancelWatch(c1.id);
}

// xDS protocol / C-core 1.51: in one response, valid resources are applied
// and invalid ones NACKed; the NACK carries the response's version (it had a
// valid resource) and names only the bad resource.
TEST(XdsClientE2eTest, PartialResponseAppliesGoodNacksBad) {
  Cp cp = StartCp(
      MakeSnapshot("1", {Cluster("good", "e-good"), StaticCluster("bad")}));
  ASSERT_NE(cp.server, nullptr);
  auto client = MakeClient(MakeBootstrap(ServerJson(cp.port)));
  ASSERT_NE(client, nullptr);
  Watch good = StartWatch(*client, Cds(), "good");
  ASSERT_TRUE(good.watcher->WaitForValue("eds_service_name", "e-good"));
  Watch bad = StartWatch(*client, Cds(), "bad");
  ASSERT_TRUE(bad.watcher->WaitForCount(Kind::kError, 1));

  Json::Value nack = WaitForRequest(*cp.server, kCdsType, [](const auto& r) {
    return !r["error_detail"].isNull() && r["resource_names"].size() == 2;
  });
  ASSERT_FALSE(nack.isNull());
  EXPECT_EQ(nack["version_info"].asString(), "1");
  const std::string message = nack["error_detail"]["message"].asString();
  EXPECT_NE(message.find("bad: INVALID_ARGUMENT"), std::string::npos)
      << message;
  EXPECT_EQ(message.find("good"), std::string::npos) << message;
  EXPECT_EQ(DumpEntry(*client, "good")["client_status"].asString(), "ACKED");
  EXPECT_EQ(DumpEntry(*client, "bad")["client_status"].asString(), "NACKED");
  EXPECT_EQ(good.watcher->count(Kind::kError), 0u);
  EXPECT_EQ(bad.watcher->count(Kind::kChanged), 0u);
  client->CancelWatch(good.id);
  client->CancelWatch(bad.id);
}

// C-core 1.51 (and A47: cached resources survive stream failures): when the
// server goes away, watchers get OnError but keep their values (CSDS still
// shows every resource ACKED); once a server is back on the same address the
// client opens a new stream that re-subscribes every resource with the
// versions it had, and nothing is lost or reported deleted.
TEST(XdsClientE2eTest, ControlPlaneRestartResubscribes) {
  const std::string a_listener = XdstpName("a.example", kLdsType, "svc");
  const std::vector<Res> resources = {Listener(a_listener, "r1"),
                                      Cluster("c1", "e1"), Endpoint("e1", 80)};
  Cp cp = StartCp(MakeSnapshot("1", resources));
  ASSERT_NE(cp.server, nullptr);
  const int port = cp.port;
  auto client =
      MakeClient(MakeBootstrap(ServerJson(port), {{"a.example", ""}}));
  ASSERT_NE(client, nullptr);
  Watch lds = StartWatch(*client, Lds(), a_listener);
  Watch cds = StartWatch(*client, Cds(), "c1");
  Watch eds = StartWatch(*client, Eds(), "e1");
  ASSERT_TRUE(lds.watcher->WaitForValue("name", a_listener));
  ASSERT_TRUE(cds.watcher->WaitForValue("eds_service_name", "e1"));
  ASSERT_TRUE(eds.watcher->WaitForValue("cluster_name", "e1"));
  for (absl::string_view type : {kLdsType, kCdsType, kEdsType}) {
    ASSERT_FALSE(WaitForRequest(*cp.server, type, [](const auto& r) {
                   return IsAck(r, "1");
                 }).isNull());
  }

  cp.server->Shutdown();
  cp.server.reset();
  for (const Watch* w : {&lds, &cds, &eds}) {
    ASSERT_TRUE(w->watcher->WaitForCount(Kind::kError, 1));
    const std::optional<Event> error = w->watcher->Last(Kind::kError);
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->status.code(), absl::StatusCode::kUnavailable)
        << error->status;
  }
  for (absl::string_view name :
       {absl::string_view(a_listener), absl::string_view("c1"),
        absl::string_view("e1")}) {
    const Json::Value entry = DumpEntry(*client, name);
    EXPECT_EQ(entry["client_status"].asString(), "ACKED") << name;
    EXPECT_EQ(entry["version"].asString(), "1") << name;
    EXPECT_TRUE(entry.isMember("resource")) << name;
  }

  Cp restarted = StartCp(MakeSnapshot("1", resources), false, port);
  ASSERT_NE(restarted.server, nullptr);
  ASSERT_EQ(restarted.port, port);
  // The new stream's first request per type names every resource and
  // carries the version the client already has (C-core keeps it).
  const std::map<absl::string_view, std::string> names = {
      {kLdsType, a_listener}, {kCdsType, "c1"}, {kEdsType, "e1"}};
  for (const auto& [type, name] : names) {
    Json::Value first = WaitForRequest(
        *restarted.server, type,
        [](const auto& r) { return r["response_nonce"].asString().empty(); },
        kRestartWait);
    ASSERT_FALSE(first.isNull()) << "no re-subscription for " << type;
    EXPECT_EQ(first["version_info"].asString(), "1") << type;
    ASSERT_EQ(first["resource_names"].size(), 1u) << type;
    EXPECT_EQ(first["resource_names"][0].asString(), name) << type;
    EXPECT_FALSE(WaitForRequest(*restarted.server, type,
                                [](const auto& r) { return IsAck(r, "1"); })
                     .isNull())
        << type;
  }
  EXPECT_EQ(StreamIds(restarted.server->RequestLog()).size(), 1u);
  for (const Watch* w : {&lds, &cds, &eds}) {
    EXPECT_EQ(w->watcher->count(Kind::kDoesNotExist), 0u);
    // The same values again are no change (ResourceType::Equal).
    EXPECT_EQ(w->watcher->count(Kind::kChanged), 1u);
  }
  EXPECT_EQ(client->DumpConfig().size(), 3u);
  for (const Json::Value& entry : client->DumpConfig()) {
    EXPECT_EQ(entry["client_status"].asString(), "ACKED") << entry;
  }
  // Still live: a change on the new server is delivered.
  restarted.server->SetSnapshot(MakeSnapshot(
      "2",
      {Listener(a_listener, "r1"), Cluster("c1", "e2"), Endpoint("e1", 80)}));
  EXPECT_TRUE(cds.watcher->WaitForValue("eds_service_name", "e2"));
  for (const Watch* w : {&lds, &cds, &eds}) client->CancelWatch(w->id);
}

// Every public XdsClient method is thread-safe (xds_client.h): 8 threads
// watch and cancel random resources (valid, missing, invalid names, unknown
// authority; two servers) while the snapshot keeps changing. Afterwards the
// client still works, and with every watch cancelled no channel is left
// (A47 §Server Channel Map: channels are ref-counted).
TEST(XdsClientE2eTest, ConcurrentWatchAndCancel) {
  const std::string b_cluster = XdstpName("b.example", kCdsType, "cb");
  std::vector<Res> cp1_resources;
  for (int i = 0; i < 6; ++i) {
    cp1_resources.push_back(Cluster(absl::StrCat("c", i), "e"));
  }
  Cp cp1 = StartCp(MakeSnapshot("1", cp1_resources));
  Cp cp2 = StartCp(MakeSnapshot("1", {Cluster(b_cluster, "e")}));
  ASSERT_NE(cp1.server, nullptr);
  ASSERT_NE(cp2.server, nullptr);
  auto client = MakeClient(
      MakeBootstrap(ServerJson(cp1.port),
                    {{"b.example", ServerJson(cp2.port)}, {"a.example", ""}}));
  ASSERT_NE(client, nullptr);

  struct Target {
    const resources::ResourceType* type;
    std::string name;
  };
  std::vector<Target> targets;
  for (int i = 0; i < 8; ++i) {  // c6, c7 are never sent
    targets.push_back({&Cds(), absl::StrCat("c", i)});
  }
  targets.push_back({&Cds(), b_cluster});
  targets.push_back({&Cds(), XdstpName("a.example", kCdsType, "c0")});
  targets.push_back({&Eds(), "e"});
  targets.push_back({&Lds(), "l"});
  targets.push_back({&Cds(), XdstpName("unknown.example", kCdsType, "x")});
  targets.push_back({&Cds(), "xdstp://a.example/wrong.Type/x"});

  std::atomic<bool> stop{false};
  std::atomic<int> callbacks{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<client::WatchId> mine;
      while (!stop.load()) {
        if (mine.empty() || rng() % 2 == 0) {
          const Target& target = targets[rng() % targets.size()];
          mine.push_back(
              client->Watch(*target.type, target.name,
                            std::make_shared<CountingWatcher>(&callbacks)));
        } else {
          const size_t i = rng() % mine.size();
          client->CancelWatch(mine[i]);
          mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(i));
        }
        if (rng() % 64 == 0) (void)client->DumpConfig();
      }
      for (client::WatchId id : mine) client->CancelWatch(id);
    });
  }
  std::thread churn([&] {
    for (int v = 2; !stop.load(); ++v) {
      std::vector<Res> resources = cp1_resources;
      resources.push_back(Cluster("c6", absl::StrCat("e", v)));
      cp1.server->SetSnapshot(MakeSnapshot(absl::StrCat(v), resources));
      absl::SleepFor(absl::Milliseconds(20));  // pacing only
    }
  });
  absl::SleepFor(absl::Seconds(1));  // the length of the run, not a sync
  stop = true;
  for (std::thread& t : threads) t.join();
  churn.join();

  EXPECT_EQ(client->channel_count(), 0u);
  EXPECT_GT(callbacks.load(), 0);
  EXPECT_GT(cp1.server->RequestLog().size(), 0u);
  // Still working after the storm.
  Watch w = StartWatch(*client, Cds(), b_cluster);
  EXPECT_TRUE(w.watcher->WaitForValue("eds_service_name", "e"));
  EXPECT_EQ(client->channel_count(), 1u);
  client->CancelWatch(w.id);
  EXPECT_EQ(client->channel_count(), 0u);
}

// xDS protocol / C-core 1.51: a resource may arrive inside an
// envoy.service.discovery.v3.Resource wrapper; the client unwraps it (and
// takes its name from the wrapper) and ACKs.
TEST(XdsClientE2eTest, WrappedResourcesAreUnwrapped) {
  const std::string a_cluster = XdstpName("a.example", kCdsType, "ca");
  Cp cp = StartCp(
      MakeSnapshot("1", {Listener("l1", "r1"), Cluster(a_cluster, "eds-a"),
                         Endpoint("e1", 80)}),
      /*wrap_resources=*/true);
  ASSERT_NE(cp.server, nullptr);
  auto client =
      MakeClient(MakeBootstrap(ServerJson(cp.port), {{"a.example", ""}}));
  ASSERT_NE(client, nullptr);
  Watch lds = StartWatch(*client, Lds(), "l1");
  Watch cds = StartWatch(*client, Cds(), a_cluster);
  Watch eds = StartWatch(*client, Eds(), "e1");
  EXPECT_TRUE(lds.watcher->WaitForValue("name", "l1"));
  EXPECT_TRUE(cds.watcher->WaitForValue("eds_service_name", "eds-a"));
  EXPECT_TRUE(eds.watcher->WaitForValue("cluster_name", "e1"));
  for (absl::string_view type : {kLdsType, kCdsType, kEdsType}) {
    EXPECT_FALSE(WaitForRequest(*cp.server, type,
                                [](const auto& r) { return IsAck(r, "1"); })
                     .isNull())
        << type;
  }
  for (const Watch* w : {&lds, &cds, &eds}) {
    EXPECT_EQ(w->watcher->count(Kind::kError), 0u);
    client->CancelWatch(w->id);
  }
}

// A47 §Resource Cache / §Watcher Changes: xdstp:// names are normalized
// (context params sorted), so the same resource spelled with its params in
// another order — by the watcher or by the server — is one cache entry and
// is delivered to every watcher.
TEST(XdsClientE2eTest, XdstpParamOrderIsNormalized) {
  const std::string prefix = XdstpName("a.example", kCdsType, "");
  struct Case {
    absl::string_view served;   // the server's spelling (the resource name)
    absl::string_view watched;  // the watcher's spelling
    absl::string_view canonical;
  };
  const Case kCases[] = {
      {"c1?z=1&a=2", "c1?a=2&z=1", "c1?a=2&z=1"},
      {"c2?a=2&z=1", "c2?z=1&a=2", "c2?a=2&z=1"},
      {"c3?m=x&b=y&k=z", "c3?k=z&m=x&b=y", "c3?b=y&k=z&m=x"},
  };
  std::vector<Res> resources;
  for (const Case& c : kCases) {
    resources.push_back(Cluster(absl::StrCat(prefix, c.served),
                                absl::StrCat("eds-", c.served)));
  }
  Cp cp = StartCp(MakeSnapshot("1", resources));
  ASSERT_NE(cp.server, nullptr);
  auto client =
      MakeClient(MakeBootstrap(ServerJson(cp.port), {{"a.example", ""}}));
  ASSERT_NE(client, nullptr);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.watched);
    Watch w1 = StartWatch(*client, Cds(), absl::StrCat(prefix, c.watched));
    Watch w2 = StartWatch(*client, Cds(), absl::StrCat(prefix, c.canonical));
    EXPECT_TRUE(w1.watcher->WaitForValue("eds_service_name",
                                         absl::StrCat("eds-", c.served)));
    EXPECT_TRUE(w2.watcher->WaitForValue("eds_service_name",
                                         absl::StrCat("eds-", c.served)));
    const Json::Value entry =
        DumpEntry(*client, absl::StrCat(prefix, c.canonical));
    EXPECT_EQ(entry["client_status"].asString(), "ACKED");
    EXPECT_EQ(client->DumpConfig().size(), 1u);
    EXPECT_EQ(w1.watcher->count(Kind::kError), 0u);
    client->CancelWatch(w1.id);
    client->CancelWatch(w2.id);
  }
  // One name per resource on the wire, in canonical form.
  std::set<std::string> want;
  for (const Case& c : kCases) want.insert(absl::StrCat(prefix, c.canonical));
  EXPECT_EQ(NamesIn(cp.server->RequestLog(), kCdsType), want);
}

// A57 §Handling Resources That Do Not Exist: the does-not-exist timer
// starts only once the request naming the resource went out on a connected
// stream. Our ADS calls are wait-for-ready (A57 §Connectivity Status
// Information via Connectivity State Notification), so while the server is
// unreachable the request waits in gRPC and its send never completes: over
// 12 does-not-exist timeouts the watchers hear connectivity errors
// (§Handling Connectivity Failure) and nothing ever "does not exist". Once
// the server is up, the resource it lacks times out and the others arrive.
TEST(XdsClientE2eTest, UnreachableServerNeverMakesResourcesNotExist) {
  // A port nobody listens on: a control plane bound it, then went away.
  int port = 0;
  {
    Cp probe = StartCp(MakeSnapshot("0", {}));
    ASSERT_NE(probe.server, nullptr);
    port = probe.port;
    probe.server->Shutdown();
  }
  auto client = MakeClient(MakeBootstrap(ServerJson(port)));
  ASSERT_NE(client, nullptr);
  Watch present = StartWatch(*client, Lds(), "listener-present");
  Watch missing = StartWatch(*client, Cds(), "cluster-missing");
  for (const Watch* w : {&present, &missing}) {
    ASSERT_TRUE(w->watcher->WaitForCount(Kind::kError, 1, kRestartWait));
    const std::optional<Event> error = w->watcher->Last(Kind::kError);
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->status.code(), absl::StatusCode::kUnavailable)
        << error->status;
    EXPECT_NE(error->status.message().find(absl::StrCat("127.0.0.1:", port)),
              absl::string_view::npos)
        << error->status;
  }
  absl::SleepFor(12 * kDoesNotExistTimeout);
  for (const Watch* w : {&present, &missing}) {
    EXPECT_EQ(w->watcher->count(Kind::kDoesNotExist), 0u);
    EXPECT_EQ(w->watcher->count(Kind::kChanged), 0u);
  }
  EXPECT_EQ(DumpEntry(*client, "cluster-missing")["client_status"].asString(),
            "REQUESTED");

  Cp cp = StartCp(MakeSnapshot("1", {Listener("listener-present", "r1")}),
                  false, port);
  ASSERT_NE(cp.server, nullptr);
  ASSERT_EQ(cp.port, port);
  EXPECT_TRUE(
      present.watcher->WaitForValue("name", "listener-present", kRestartWait));
  EXPECT_TRUE(missing.watcher->WaitForCount(Kind::kDoesNotExist, 1, kWait));
  EXPECT_EQ(present.watcher->count(Kind::kDoesNotExist), 0u);
  client->CancelWatch(present.id);
  client->CancelWatch(missing.id);
}

// --- A71: fallback over real gRPC, two and three control planes ---

// A loopback port nobody listens on (a control plane bound it and left).
int FreePort() {
  Cp probe = StartCp(MakeSnapshot("0", {}));
  if (probe.server == nullptr) return 0;
  const int port = probe.port;
  probe.server->Shutdown();
  return port;
}

// a.example's xds_servers: the ports' servers in this order.
std::shared_ptr<const Bootstrap> FallbackBootstrap(
    const std::vector<int>& ports) {
  std::vector<std::string> servers;
  for (int port : ports) servers.push_back(ServerJson(port));
  return MakeBootstrap(ServerJson(ports[0]),
                       {{"a.example", absl::StrJoin(servers, ",")}});
}

// A71 §Change XdsClient to support fallback: servers unreachable from the
// start (nothing cached) -> the first reachable server's resources reach
// the watchers, which hear no error; servers below it are never asked.
TEST(XdsClientE2eTest, FallbackPrimaryDownAtStart) {
  struct Case {
    const char* rule;
    std::vector<bool> up;  // per server, in priority order
    size_t want_from;      // the server whose value arrives
  };
  const Case kCases[] = {
      {"two control planes, the primary down", {false, true}, 1},
      {"three, the first two down", {false, false, true}, 2},
      {"three, the primary down: the second serves, the third is never "
       "connected",
       {false, true, true},
       1},
  };
  const std::string l = XdstpName("a.example", kLdsType, "svc");
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.rule);
    std::vector<Cp> cps(c.up.size());
    std::vector<int> ports;
    for (size_t i = 0; i < c.up.size(); ++i) {
      if (c.up[i]) {
        cps[i] = StartCp(
            MakeSnapshot("1", {Listener(l, absl::StrCat("route-", i))}));
        ASSERT_NE(cps[i].server, nullptr);
        ports.push_back(cps[i].port);
      } else {
        ports.push_back(FreePort());
      }
    }
    auto client = MakeClient(FallbackBootstrap(ports));
    ASSERT_NE(client, nullptr);
    Watch w = StartWatch(*client, Lds(), l);
    ASSERT_TRUE(w.watcher->WaitFor(
        [](const RecordingWatcher::Events& events) {
          return RecordingWatcher::Count(events, Kind::kChanged) >= 1;
        },
        kRestartWait));
    const std::optional<Event> got = w.watcher->Last(Kind::kChanged);
    ASSERT_TRUE(got.has_value());
    EXPECT_NE(
        got->value.toStyledString().find(absl::StrCat("route-", c.want_from)),
        std::string::npos)
        << got->value;
    EXPECT_EQ(w.watcher->count(Kind::kError), 0u);
    // The higher-priority servers stay connecting (A71).
    EXPECT_EQ(client->channel_count(), c.want_from + 1);
    for (size_t i = c.want_from + 1; i < cps.size(); ++i) {
      if (cps[i].server != nullptr) {
        EXPECT_TRUE(cps[i].server->RequestLog().empty()) << i;
      }
    }
    client->CancelWatch(w.id);
  }
}

// A71: the primary dies after everything was cached -> no fallback (the
// watchers keep their values and hear the error, A57); a new cluster that is
// not cached -> fallback, and it arrives from the fallback server. The
// primary back: its first resource switches back and the fallback stream is
// closed (A71: "close connections to the lower-priority server(s)").
TEST(XdsClientE2eTest, FallbackOnlyForUncachedThenSwitchBack) {
  const std::string l = XdstpName("a.example", kLdsType, "svc");
  const std::string c1 = XdstpName("a.example", kCdsType, "c1");
  const std::string c2 = XdstpName("a.example", kCdsType, "c2");
  const auto primary_snapshot = [&] {
    return MakeSnapshot(
        "p1", {Listener(l, "r"), Cluster(c1, "p-e1"), Cluster(c2, "p-e2")});
  };
  Cp primary = StartCp(primary_snapshot());
  Cp fallback = StartCp(MakeSnapshot(
      "f1", {Listener(l, "r"), Cluster(c1, "f-e1"), Cluster(c2, "f-e2")}));
  ASSERT_NE(primary.server, nullptr);
  ASSERT_NE(fallback.server, nullptr);
  const int primary_port = primary.port;
  auto client = MakeClient(FallbackBootstrap({primary.port, fallback.port}));
  ASSERT_NE(client, nullptr);
  Watch lw = StartWatch(*client, Lds(), l);
  Watch cw1 = StartWatch(*client, Cds(), c1);
  ASSERT_TRUE(cw1.watcher->WaitForValue("eds_service_name", "p-e1"));
  ASSERT_TRUE(lw.watcher->WaitForCount(Kind::kChanged, 1));

  primary.server->Shutdown();
  primary.server.reset();
  // Everything cached: the error, no fallback.
  ASSERT_TRUE(cw1.watcher->WaitForCount(Kind::kError, 1, kRestartWait));
  EXPECT_TRUE(fallback.server->RequestLog().empty());
  EXPECT_EQ(client->channel_count(), 1u);
  EXPECT_EQ(DumpEntry(*client, c1)["client_status"].asString(), "ACKED");

  // Mid-update: a cluster not cached -> fallback.
  Watch cw2 = StartWatch(*client, Cds(), c2);
  EXPECT_TRUE(cw2.watcher->WaitForValue("eds_service_name", "f-e2"));
  EXPECT_TRUE(cw1.watcher->WaitForValue("eds_service_name", "f-e1"));
  EXPECT_EQ(cw2.watcher->count(Kind::kError), 0u);
  EXPECT_EQ(NamesIn(fallback.server->RequestLog(), kCdsType),
            (std::set<std::string>{c1, c2}));
  EXPECT_EQ(fallback.server->ActiveAdsStreams(), 1);

  // The primary back: switch back, the fallback stream closed.
  Cp restarted = StartCp(primary_snapshot(), false, primary_port);
  ASSERT_NE(restarted.server, nullptr);
  EXPECT_TRUE(
      cw1.watcher->WaitForValue("eds_service_name", "p-e1", kRestartWait));
  EXPECT_TRUE(cw2.watcher->WaitForValue("eds_service_name", "p-e2"));
  const absl::Time deadline = absl::Now() + kWait;
  while (fallback.server->ActiveAdsStreams() != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(fallback.server->ActiveAdsStreams(), 0);
  EXPECT_EQ(client->channel_count(), 1u);
  for (const Watch* w : {&lw, &cw1, &cw2}) {
    EXPECT_EQ(w->watcher->count(Kind::kDoesNotExist), 0u);
    client->CancelWatch(w->id);
  }
}

// A71: "Resource watchers will only be notified of connectivity failures
// after all xDS control planes listed in the bootstrap JSON have become
// unreachable": three servers, none up -> the errors name the last server
// only (each of its failures is one error, A57); nothing "does not exist".
TEST(XdsClientE2eTest, FallbackAllThreeDown) {
  const std::string l = XdstpName("a.example", kLdsType, "svc");
  const std::vector<int> ports = {FreePort(), FreePort(), FreePort()};
  auto client = MakeClient(FallbackBootstrap(ports));
  ASSERT_NE(client, nullptr);
  Watch w = StartWatch(*client, Lds(), l);
  ASSERT_TRUE(w.watcher->WaitForCount(Kind::kError, 1, kRestartWait));
  EXPECT_EQ(client->channel_count(), 3u);
  absl::SleepFor(4 * kDoesNotExistTimeout);
  for (const Event& e : w.watcher->events()) {
    ASSERT_EQ(e.kind, Kind::kError);
    EXPECT_NE(e.status.message().find(absl::StrCat("127.0.0.1:", ports[2])),
              absl::string_view::npos)
        << e.status;
  }
  client->CancelWatch(w.id);
}

// A71 §Flapping, with the same data on both servers: the primary goes down
// and up three times; the watchers' value never changes and never goes
// away (errors while the primary is down with everything cached are A57's
// ambient errors).
TEST(XdsClientE2eTest, FallbackFlappingPrimaryValueStaysPut) {
  const std::string l = XdstpName("a.example", kLdsType, "svc");
  const std::string c = XdstpName("a.example", kCdsType, "c");
  const auto snapshot = [&] {
    return MakeSnapshot("1", {Listener(l, "r"), Cluster(c, "e")});
  };
  const int primary_port = FreePort();
  Cp fallback = StartCp(snapshot());
  ASSERT_NE(fallback.server, nullptr);
  auto client = MakeClient(FallbackBootstrap({primary_port, fallback.port}));
  ASSERT_NE(client, nullptr);
  Watch lw = StartWatch(*client, Lds(), l);
  Watch cw = StartWatch(*client, Cds(), c);
  ASSERT_TRUE(cw.watcher->WaitForValue("eds_service_name", "e", kRestartWait));
  for (int i = 0; i < 3; ++i) {
    Cp primary = StartCp(snapshot(), false, primary_port);
    ASSERT_NE(primary.server, nullptr);
    ASSERT_FALSE(WaitForRequest(
                     *primary.server, kCdsType,
                     [](const auto& r) { return IsAck(r, "1"); }, kRestartWait)
                     .isNull());
    primary.server->Shutdown();
  }
  for (const Watch* w : {&lw, &cw}) {
    EXPECT_EQ(w->watcher->count(Kind::kChanged), 1u);
    EXPECT_EQ(w->watcher->count(Kind::kDoesNotExist), 0u);
    client->CancelWatch(w->id);
  }
}

}  // namespace
}  // namespace xdsfed
