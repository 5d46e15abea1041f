// XdsClient tests against a fake transport, fake clock and fake resource
// types (tests/client/client_test_util.h). Sources: gRFC A47 (§XdsClient
// Changes, §Resource Cache, §Watcher Changes) and gRPC C-core 1.51
// src/core/ext/xds/xds_client.cc / xds_api.cc for ADS behaviour.
#include "lib/client/xds_client.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/client_test_util.h"

namespace xdsfed {
namespace client {
namespace testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr absl::string_view kBootstrap = R"json({
  "xds_servers": [{"server_uri": "xds1:443",
                   "channel_creds": [{"type": "insecure"}]}],
  "node": {"id": "node-1", "cluster": "cl",
           "locality": {"region": "r", "zone": "z", "sub_zone": "s"},
           "metadata": {"k": "v", "n": 1}},
  "authorities": {
    "a.com": {},
    "b.com": {"xds_servers": [{"server_uri": "xds1:443",
                               "channel_creds": [{"type": "insecure"}]}]},
    "c.com": {"xds_servers": [{"server_uri": "xds2:443",
                               "channel_creds": [{"type": "insecure"}],
                               "server_features": ["ignore_resource_deletion"]}]}
  }
})json";

constexpr absl::string_view kLdsA =
    "xdstp://a.com/envoy.config.listener.v3.Listener/";
constexpr absl::string_view kLdsB =
    "xdstp://b.com/envoy.config.listener.v3.Listener/";
constexpr absl::string_view kLdsC =
    "xdstp://c.com/envoy.config.listener.v3.Listener/";

struct Harness {
  explicit Harness(absl::string_view bootstrap_json = kBootstrap,
                   bool federation = true,
                   XdsClient::Options options = XdsClient::Options()) {
    auto bootstrap = Bootstrap::Parse(bootstrap_json, federation);
    EXPECT_TRUE(bootstrap.ok()) << bootstrap.status();
    options.timers = timers;
    options.backoff.jitter = 0;
    options.user_agent_version = "test";
    auto c = XdsClient::Create(*bootstrap, factory, options);
    EXPECT_TRUE(c.ok()) << c.status();
    client = *c;
  }
  std::shared_ptr<RecordingWatcher> Watch(const FakeType& type,
                                          absl::string_view name,
                                          WatchId* id = nullptr) {
    auto w = std::make_shared<RecordingWatcher>();
    WatchId got = client->Watch(type, name, w);
    if (id != nullptr) *id = got;
    return w;
  }
  std::shared_ptr<FakeTransportFactory> factory =
      std::make_shared<FakeTransportFactory>();
  std::shared_ptr<FakeTimers> timers = std::make_shared<FakeTimers>();
  std::shared_ptr<XdsClient> client;
};

std::vector<std::string> Names(const DiscoveryRequest& r) {
  return std::vector<std::string>(r.resource_names().begin(),
                                  r.resource_names().end());
}

// --- Channels and streams (A47 §Server Channel Map) ---

TEST(XdsClientTest, OneStreamCarriesSeveralTypesAndNodeOnlyFirst) {
  // C-core 1.51 xds_api.cc CreateAdsRequest / PopulateNode.
  Harness h;
  auto lw = h.Watch(FakeListenerType(), "l1");
  auto cw = h.Watch(FakeClusterType(), "c1");
  ASSERT_EQ(h.factory->call_count(), 1u);
  FakeCall* ads = h.factory->Call(0);
  EXPECT_EQ(ads->method(), kAdsMethod);
  std::vector<DiscoveryRequest> reqs = ads->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].type_url(), kLdsUrl);
  EXPECT_THAT(Names(reqs[0]), ElementsAre("l1"));
  EXPECT_EQ(reqs[1].type_url(), kCdsUrl);
  EXPECT_THAT(Names(reqs[1]), ElementsAre("c1"));
  ASSERT_TRUE(reqs[0].has_node());
  const auto& node = reqs[0].node();
  EXPECT_EQ(node.id(), "node-1");
  EXPECT_EQ(node.cluster(), "cl");
  EXPECT_EQ(node.locality().region(), "r");
  EXPECT_EQ(node.locality().zone(), "z");
  EXPECT_EQ(node.locality().sub_zone(), "s");
  EXPECT_EQ(node.metadata().fields().at("k").string_value(), "v");
  EXPECT_EQ(node.metadata().fields().at("n").number_value(), 1);
  EXPECT_EQ(node.user_agent_name(), "xdsfed");
  EXPECT_EQ(node.user_agent_version(), "test");
  EXPECT_THAT(node.client_features(),
              ElementsAre("envoy.lb.does_not_support_overprovisioning",
                          "xds.config.resource-in-sotw"));
  EXPECT_FALSE(reqs[1].has_node());
  EXPECT_EQ(reqs[0].version_info(), "");
  EXPECT_EQ(reqs[0].response_nonce(), "");
  EXPECT_THAT(h.client->ChannelServerUris(), ElementsAre("xds1:443"));
}

TEST(XdsClientTest, ChannelMap) {
  // A47 §Server Channel Map: keyed by server, shared across authorities,
  // created lazily.
  struct Case {
    const char* source;
    std::vector<std::string> names;  // Listener watches
    std::vector<std::string> want_uris;
    size_t want_calls;
  };
  const Case kCases[] = {
      {"A47: old-style names use the top-level server",
       {"l1"},
       {"xds1:443"},
       1},
      {"A47: authority without servers uses the top-level server and shares "
       "its channel with old-style names",
       {"l1", absl::StrCat(kLdsA, "x")},
       {"xds1:443"},
       1},
      {"A47: two authorities naming the same server share one channel",
       {absl::StrCat(kLdsA, "x"), absl::StrCat(kLdsB, "y")},
       {"xds1:443"},
       1},
      {"A47: two servers, two channels",
       {absl::StrCat(kLdsA, "x"), absl::StrCat(kLdsC, "y")},
       {"xds1:443", "xds2:443"},
       2},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    Harness h;
    EXPECT_EQ(h.client->channel_count(), 0u);  // lazy
    for (const std::string& n : c.names) h.Watch(FakeListenerType(), n);
    EXPECT_EQ(h.client->ChannelServerUris(), c.want_uris);
    EXPECT_EQ(h.factory->call_count(), c.want_calls);
  }
}

TEST(XdsClientTest, TwoAuthoritiesOneStreamOneRequest) {
  // A47 §Server Channel Map + C-core: one request lists every resource of
  // the type on that server, canonical names.
  Harness h;
  h.Watch(FakeListenerType(), absl::StrCat(kLdsA, "x?b=2&a=1"));
  h.Watch(FakeListenerType(), absl::StrCat(kLdsB, "y"));
  FakeCall* ads = h.factory->Call(0);
  EXPECT_THAT(Names(ads->LastRequest()),
              UnorderedElementsAre(absl::StrCat(kLdsA, "x?a=1&b=2"),
                                   absl::StrCat(kLdsB, "y")));
}

TEST(XdsClientTest, ReleasedWhenUnused) {
  // A47 §Server Channel Map: ref-counted channels shut down when unused;
  // C-core sends the shorter list on unsubscribe.
  Harness h;
  WatchId w1, w2, w3;
  h.Watch(FakeListenerType(), "l1", &w1);
  h.Watch(FakeListenerType(), "l2", &w2);
  h.Watch(FakeListenerType(), absl::StrCat(kLdsC, "z"), &w3);
  EXPECT_EQ(h.client->channel_count(), 2u);
  FakeCall* ads = h.factory->LatestCall("xds1:443");
  h.client->CancelWatch(w1);
  EXPECT_THAT(Names(ads->LastRequest()), ElementsAre("l2"));
  h.client->CancelWatch(w2);
  EXPECT_THAT(h.client->ChannelServerUris(), ElementsAre("xds2:443"));
  EXPECT_TRUE(ads->orphaned());
  EXPECT_TRUE(h.factory->transport(0)->destroyed);
  h.client->CancelWatch(w3);
  EXPECT_EQ(h.client->channel_count(), 0u);
  EXPECT_EQ(h.factory->live_transport_count(), 0u);
  // A new watch creates a new channel.
  h.Watch(FakeListenerType(), "l1");
  EXPECT_EQ(h.factory->transport_count(), 3u);
  EXPECT_EQ(h.client->channel_count(), 1u);
}

// --- Watches (A47 §Watcher Changes) ---

TEST(XdsClientTest, InvalidWatchErrorsThatWatcherOnly) {
  struct Case {
    const char* source;
    std::string name;
    std::string want;
  };
  const Case kCases[] = {
      {"A47 §Watcher Changes: unparseable xdstp name",
       "xdstp://a.com/envoy.config.listener.v3.Listener/x?",
       "error:INVALID_ARGUMENT: invalid xdstp name: empty query; expected "
       "context params after '?'"},
      {"A47 §Watcher Changes: wrong type segment",
       "xdstp://a.com/envoy.config.cluster.v3.Cluster/x",
       "error:INVALID_ARGUMENT: invalid xdstp name: resource type "
       "\"envoy.config.cluster.v3.Cluster\" does not match expected type "
       "\"envoy.config.listener.v3.Listener\""},
      {"A47 §Watcher Changes: authority not in the bootstrap",
       "xdstp://nope.com/envoy.config.listener.v3.Listener/x",
       "error:NOT_FOUND: authority \"nope.com\" of resource name "
       "\"xdstp://nope.com/envoy.config.listener.v3.Listener/x\" is not "
       "configured"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    Harness h;
    auto good = h.Watch(FakeListenerType(), "l1");
    auto bad = h.Watch(FakeListenerType(), c.name);
    EXPECT_THAT(bad->events(), ElementsAre(c.want));
    EXPECT_THAT(good->events(), IsEmpty());
    EXPECT_THAT(Names(h.factory->Call(0)->LastRequest()), ElementsAre("l1"));
  }
}

TEST(XdsClientTest, AuthorityNeedingPercentEncoding) {
  // A47 §Resource Cache: names are normalized; a bootstrap authority key is
  // matched in its canonical (percent-encoded) form.
  constexpr absl::string_view kSpaced = R"json({
    "xds_servers": [{"server_uri": "xds1:443",
                     "channel_creds": [{"type": "insecure"}]}],
    "authorities": {"a b": {}}
  })json";
  Harness h(kSpaced);
  auto w = h.Watch(FakeListenerType(),
                   "xdstp://a%20b/envoy.config.listener.v3.Listener/x");
  EXPECT_THAT(w->events(), IsEmpty());
  EXPECT_THAT(Names(h.factory->Call(0)->LastRequest()),
              ElementsAre("xdstp://a%20b/envoy.config.listener.v3.Listener/x"));
}

TEST(XdsClientTest, FederationOffTreatsXdstpAsOldStyle) {
  // A47 §Temporary environment variable protection.
  Harness h(kBootstrap, /*federation=*/false);
  auto w = h.Watch(FakeListenerType(), "xdstp://nope.com/x/y?");
  EXPECT_THAT(w->events(), IsEmpty());
  EXPECT_THAT(Names(h.factory->Call(0)->LastRequest()),
              ElementsAre("xdstp://nope.com/x/y?"));
}

TEST(XdsClientTest, ManyWatchersOneSubscriptionAndCachedState) {
  // C-core WatchResource: a new watcher gets the cached state at once.
  Harness h;
  auto w1 = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  EXPECT_THAT(w1->TakeEvents(), ElementsAre("changed:x"));
  const size_t before = ads->request_count();
  auto w2 = h.Watch(FakeListenerType(), "l1");
  EXPECT_THAT(w2->events(), ElementsAre("changed:x"));
  EXPECT_EQ(ads->request_count(), before);  // no new subscription
  // Does-not-exist is cached too.
  ads->Respond(MakeResponse(kLdsUrl, "v2", "n2", {}));
  EXPECT_THAT(w1->TakeEvents(), ElementsAre("does_not_exist"));
  auto w3 = h.Watch(FakeListenerType(), "l1");
  EXPECT_THAT(w3->events(), ElementsAre("does_not_exist"));
}

TEST(XdsClientTest, HugeNamesAndManyResourcesStayBounded) {
  // Issue 4 §Bad input: names of 1 MB work like any other (one subscription,
  // delivered, ACKed); 10,000 unsubscribed names in one response are ignored
  // without growing the cache.
  Harness h;
  const std::string huge_old_style(1 << 20, 'n');
  const std::string huge_xdstp =
      "xdstp://a.example/envoy.config.listener.v3.Listener/" +
      std::string(1 << 20, 'i');
  auto w1 = h.Watch(FakeListenerType(), huge_old_style);
  FakeCall* ads = h.factory->Call(0);
  std::vector<FakeResource> resources = {{huge_old_style, "x"}};
  for (int i = 0; i < 10000; ++i) {
    resources.push_back({"unwatched-" + std::to_string(i), "y"});
  }
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", resources));
  EXPECT_THAT(w1->TakeEvents(), ElementsAre("changed:x"));
  EXPECT_FALSE(ads->LastRequest().has_error_detail());
  EXPECT_EQ(h.client->DumpConfig().size(), 1u);
  // An xdstp:// name of 1 MB under an authority the bootstrap lacks: an
  // error to that watcher only, nothing subscribed.
  const size_t before = ads->request_count();
  auto w2 = h.Watch(FakeListenerType(), huge_xdstp);
  ASSERT_EQ(w2->events().size(), 1u);
  EXPECT_TRUE(absl::StartsWith(w2->events()[0], "error:"));
  EXPECT_EQ(ads->request_count(), before);
}

TEST(XdsClientTest, NewWatcherOfNackedResourceGetsError) {
  // C-core WatchResource: NACKED without a value reports the cached error.
  Harness h;
  auto w1 = h.Watch(FakeRouteType(), "r1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(
      MakeResponse(kRdsUrl, "v1", "n1", {{"r1", "x", /*invalid=*/true}}));
  const std::string want =
      "error:UNAVAILABLE: invalid resource: INVALID_ARGUMENT: "
      "[field:user_agent_name error:fake resource marked invalid] "
      "(node ID:node-1)";
  EXPECT_THAT(w1->events(), ElementsAre(want));
  auto w2 = h.Watch(FakeRouteType(), "r1");
  EXPECT_THAT(w2->events(), ElementsAre(want));
}

// --- ACK / NACK (C-core 1.51 xds_client.cc AdsResponseParser) ---

TEST(XdsClientTest, AckEchoesVersionAndNonce) {
  Harness h;
  auto w = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  DiscoveryRequest ack = ads->LastRequest();
  EXPECT_EQ(ack.type_url(), kLdsUrl);
  EXPECT_EQ(ack.version_info(), "v1");
  EXPECT_EQ(ack.response_nonce(), "n1");
  EXPECT_FALSE(ack.has_error_detail());
  EXPECT_FALSE(ack.has_node());
  EXPECT_THAT(Names(ack), ElementsAre("l1"));
  EXPECT_THAT(w->TakeEvents(), ElementsAre("changed:x"));
  // Unchanged resource (ResourceType::Equal): nobody is notified.
  ads->Respond(MakeResponse(kLdsUrl, "v2", "n2", {{"l1", "x"}}));
  EXPECT_THAT(w->events(), IsEmpty());
  EXPECT_EQ(ads->LastRequest().version_info(), "v2");
}

TEST(XdsClientTest, ResponseErrorsTable) {
  // C-core 1.51 xds_client.cc ParseResource / xds_api.cc ParseAdsResponse:
  // each bad resource is named by index (and name when known) in one NACK;
  // valid resources of the same response are applied.
  const std::string kPrefix = "xDS response validation errors: [";
  struct Case {
    const char* source;
    std::vector<FakeResource> resources;
    std::string want_version;  // of the request answering the response
    std::string want_error;    // "" = ACK
    std::vector<std::string> want_l1, want_l2;
  };
  const Case kCases[] = {
      {"C-core: partial response applied, NACK names the bad one; version "
       "moves on because a resource was valid",
       {{"l1", "x"}, {"l2", "y", /*invalid=*/true}},
       "v1",
       kPrefix + "resource index 1: l2: INVALID_ARGUMENT: "
                 "[field:user_agent_name error:fake resource marked invalid]]",
       {"changed:x"},
       {"error:UNAVAILABLE: invalid resource: INVALID_ARGUMENT: "
        "[field:user_agent_name error:fake resource marked invalid] "
        "(node ID:node-1)"}},
      {"C-core: all bad: version stays the last accepted (none)",
       {{"l1", "x", true}},
       "",
       kPrefix + "resource index 0: l1: INVALID_ARGUMENT: "
                 "[field:user_agent_name error:fake resource marked invalid]]",
       {"error:UNAVAILABLE: invalid resource: INVALID_ARGUMENT: "
        "[field:user_agent_name error:fake resource marked invalid] "
        "(node ID:node-1)"},
       {}},
      {"C-core: Resource wrapper unwrapped, its name used",
       {{"l1", "x", false, "", /*wrap=*/true}, {"l2", "y"}},
       "v1",
       "",
       {"changed:x"},
       {"changed:y"}},
      {"C-core: Any type differs from the response's",
       {{"l1", "x", false, std::string(kCdsUrl)}, {"l2", "y"}},
       "v1",
       kPrefix + "resource index 0: incorrect resource type "
                 "\"envoy.config.cluster.v3.Cluster\" (should be "
                 "\"envoy.config.listener.v3.Listener\")]",
       {},
       {"changed:y"}},
      {"C-core: wrapped Any with the wrong type names the resource",
       {{"l1", "x", false, std::string(kCdsUrl), true}},
       "",
       kPrefix + "resource index 0: l1: incorrect resource type "
                 "\"envoy.config.cluster.v3.Cluster\" (should be "
                 "\"envoy.config.listener.v3.Listener\")]",
       {},
       {}},
      {"C-core: unparseable name is an error for that resource",
       {{"xdstp://a.com/envoy.config.listener.v3.Listener/x?", "z"},
        {"l1", "x"}},
       "v1",
       kPrefix + "resource index 0: "
                 "xdstp://a.com/envoy.config.listener.v3.Listener/x?: "
                 "Cannot parse xDS resource name]",
       {"changed:x"},
       {}},
      {"duplicate name: the first one applies, the second is an error",
       {{"l1", "x"}, {"l1", "y"}},
       "v1",
       kPrefix + "resource index 1: l1: duplicate resource name]",
       {"changed:x"},
       {}},
      {"duplicate name of a resource not subscribed: an error as well",
       {{"other", "q"}, {"other", "r"}, {"l1", "x"}},
       "v1",
       kPrefix + "resource index 1: other: duplicate resource name]",
       {"changed:x"},
       {}},
      {"two spellings of one xdstp name not subscribed (params reordered)",
       {{std::string(kLdsA) + "x?a=1&b=2", "q"},
        {std::string(kLdsA) + "x?b=2&a=1", "r"},
        {"l1", "x"}},
       "v1",
       kPrefix + "resource index 1: " + std::string(kLdsA) +
           "x?b=2&a=1: duplicate resource name]",
       {"changed:x"},
       {}},
      {"C-core: resources not subscribed are ignored",
       {{"other", "q"}, {"l1", "x"}, {"l2", "y"}},
       "v1",
       "",
       {"changed:x"},
       {"changed:y"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    Harness h;
    auto w1 = h.Watch(FakeListenerType(), "l1");
    auto w2 = h.Watch(FakeListenerType(), "l2");
    FakeCall* ads = h.factory->Call(0);
    const size_t before = ads->request_count();
    ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", c.resources));
    ASSERT_EQ(ads->request_count(), before + 1);  // exactly one ACK or NACK
    DiscoveryRequest r = ads->LastRequest();
    EXPECT_EQ(r.response_nonce(), "n1");
    EXPECT_EQ(r.version_info(), c.want_version);
    if (c.want_error.empty()) {
      EXPECT_FALSE(r.has_error_detail());
    } else {
      EXPECT_EQ(r.error_detail().code(), 3);  // INVALID_ARGUMENT
      EXPECT_EQ(r.error_detail().message(), c.want_error);
    }
    EXPECT_EQ(w1->events(), c.want_l1);
    EXPECT_EQ(w2->events(), c.want_l2);
  }
}

// A subscribed xdstp name is found in the cache however its params are
// ordered (ResourceCache::Find's guessed probe); a second spelling of it in
// the same response is a duplicate, and the first one applies.
TEST(XdsClientTest, SubscribedNameSpelledTwiceIsADuplicate) {
  Harness h;
  auto w = h.Watch(FakeListenerType(), std::string(kLdsA) + "x?b=2&a=1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1",
                            {{std::string(kLdsA) + "x?b=2&a=1", "p"},
                             {std::string(kLdsA) + "x?a=1&b=2", "q"}}));
  DiscoveryRequest r = ads->LastRequest();
  EXPECT_EQ(r.version_info(), "v1");
  EXPECT_EQ(r.error_detail().message(),
            "xDS response validation errors: [resource index 1: " +
                std::string(kLdsA) + "x?a=1&b=2: duplicate resource name]");
  EXPECT_THAT(w->TakeEvents(), ElementsAre("changed:p"));
}

TEST(XdsClientTest, NackKeepsLastGoodValue) {
  // C-core: a NACK keeps the last accepted value and version.
  Harness h;
  auto w = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  ads->Respond(MakeResponse(kLdsUrl, "v2", "n2", {{"l1", "y", true}}));
  DiscoveryRequest nack = ads->LastRequest();
  EXPECT_EQ(nack.version_info(), "v1");
  EXPECT_EQ(nack.response_nonce(), "n2");
  EXPECT_TRUE(nack.has_error_detail());
  EXPECT_EQ(w->TakeEvents().size(), 2u);  // changed:x, error
  Json::Value dump = h.client->DumpConfig();
  ASSERT_EQ(dump.size(), 1u);
  EXPECT_EQ(dump[0]["client_status"].asString(), "NACKED");
  EXPECT_EQ(dump[0]["version"].asString(), "v1");
  EXPECT_EQ(dump[0]["resource"]["value"].asString(), "x");
  EXPECT_EQ(dump[0]["error"]["version"].asString(), "v2");
  // A later watcher still gets the good value.
  auto w2 = h.Watch(FakeListenerType(), "l1");
  EXPECT_THAT(w2->events(), ElementsAre("changed:x"));
}

// A type that decodes updates against what the client holds
// (resources::ResourceType::DecodeUpdate, as RouteConfiguration does): it
// records what the client handed it ("none", or "<value>@own-bytes" when the
// held bytes are that value's), and returns the held value for the same
// bytes.
class PreviousRecordingType : public FakeType {
 public:
  PreviousRecordingType() : FakeType(kRdsUrl, "RouteConfiguration", false) {}
  resources::DecodeResult DecodeUpdate(
      const resources::DecodeContext& context, absl::string_view bytes,
      const resources::PreviousLookup& previous) const override {
    envoy::config::core::v3::Node node;
    if (!node.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Decode(context, bytes);
    }
    resources::PreviousResource held = previous(node.id());
    const FakeValue* value = Cast(held.value.get());
    std::string seen = "none";
    if (value != nullptr) {
      const bool own =
          held.serialized != nullptr &&
          *held.serialized == SerializeFake({node.id(), value->value});
      seen = absl::StrCat(value->value, own ? "@own-bytes" : "@other-bytes");
    }
    {
      MutexLock lock(&mu_);
      seen_.push_back(seen);
    }
    if (held.serialized != nullptr && *held.serialized == bytes) {
      resources::DecodeResult same;
      same.name = node.id();
      same.value = std::move(held.value);
      return same;
    }
    return Decode(context, bytes);
  }
  std::vector<std::string> TakeSeen() const {
    MutexLock lock(&mu_);
    std::vector<std::string> out;
    out.swap(seen_);
    return out;
  }

 private:
  mutable Mutex mu_;
  mutable std::vector<std::string> seen_ ABSL_GUARDED_BY(mu_);
};

TEST(XdsClientTest, DecodeUpdateGetsTheHeldValueAndItsBytes) {
  // The cache's last accepted value and the bytes it came from, also across
  // a NACK (which keeps both); an update returned as the held value is
  // ACKed with its version and tells no watcher.
  PreviousRecordingType type;
  Harness h;
  auto w = h.Watch(type, "r1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kRdsUrl, "v1", "n1", {{"r1", "x"}}));
  EXPECT_THAT(type.TakeSeen(), ElementsAre("none"));
  EXPECT_THAT(w->TakeEvents(), ElementsAre("changed:x"));
  ads->Respond(MakeResponse(kRdsUrl, "v2", "n2", {{"r1", "x"}}));
  EXPECT_THAT(type.TakeSeen(), ElementsAre("x@own-bytes"));
  EXPECT_THAT(w->TakeEvents(), IsEmpty());
  EXPECT_EQ(ads->LastRequest().version_info(), "v2");
  ads->Respond(MakeResponse(kRdsUrl, "v3", "n3", {{"r1", "y"}}));
  EXPECT_THAT(type.TakeSeen(), ElementsAre("x@own-bytes"));
  EXPECT_THAT(w->TakeEvents(), ElementsAre("changed:y"));
  ads->Respond(MakeResponse(kRdsUrl, "v4", "n4", {{"r1", "z", true}}));
  EXPECT_THAT(type.TakeSeen(), ElementsAre("y@own-bytes"));
  EXPECT_EQ(ads->LastRequest().version_info(), "v3");  // NACK
  ads->Respond(MakeResponse(kRdsUrl, "v5", "n5", {{"r1", "y"}}));
  EXPECT_THAT(type.TakeSeen(), ElementsAre("y@own-bytes"));
  EXPECT_EQ(ads->LastRequest().version_info(), "v5");
  EXPECT_FALSE(ads->LastRequest().has_error_detail());
  // A name the client does not hold: nothing.
  ads->Respond(MakeResponse(kRdsUrl, "v6", "n6", {{"r1", "y"}, {"r2", "q"}}));
  EXPECT_THAT(type.TakeSeen(), ElementsAre("y@own-bytes", "none"));
}

// The cache keeps the response's own bytes of each resource (moved out of
// the parsed response, not copied): the inner resource's bytes when it came
// in a Resource wrapper, and bytes of 4 KB and more (kept shared) as well as
// small ones; the next update is decoded against exactly those.
TEST(XdsClientTest, CacheKeepsEachResourcesOwnBytes) {
  const std::string kLarge(5000, 'v');
  struct Case {
    const char* source;
    FakeResource resource;
  };
  const Case kCases[] = {
      {"small, in an Any", {"r1", "x"}},
      {"small, in a Resource wrapper", {"r1", "x", false, "", /*wrap=*/true}},
      {"4 KB and more (shared), in an Any", {"r1", kLarge}},
      {"4 KB and more, in a Resource wrapper",
       {"r1", kLarge, false, "", /*wrap=*/true}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    PreviousRecordingType type;
    Harness h;
    auto w = h.Watch(type, "r1");
    FakeCall* ads = h.factory->Call(0);
    ads->Respond(MakeResponse(kRdsUrl, "v1", "n1", {c.resource}));
    EXPECT_THAT(type.TakeSeen(), ElementsAre("none"));
    // Twice: an update equal to the held value stores its bytes too.
    for (const char* version : {"v2", "v3"}) {
      ads->Respond(MakeResponse(kRdsUrl, version, "n", {c.resource}));
      EXPECT_THAT(type.TakeSeen(),
                  ElementsAre(c.resource.value + "@own-bytes"));
      EXPECT_EQ(ads->LastRequest().version_info(), version);
    }
  }
}

TEST(XdsClientTest, ResponseTypeUrlWithoutPrefix) {
  // C-core xds_api.cc strips "type.googleapis.com/" before matching.
  Harness h;
  auto w = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse("envoy.config.listener.v3.Listener", "v1", "n1",
                            {{"l1", "x", false, std::string(kLdsUrl)}}));
  EXPECT_THAT(w->events(), ElementsAre("changed:x"));
  EXPECT_EQ(ads->LastRequest().type_url(), kLdsUrl);
  EXPECT_EQ(ads->LastRequest().response_nonce(), "n1");
}

TEST(XdsClientTest, IgnoredResponses) {
  // C-core 1.51: an undecodable response and an unknown type URL are
  // ignored: no ACK, no NACK.
  Harness h;
  h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  const size_t before = ads->request_count();
  ads->RespondBytes("\xff\xff\xff");
  ads->Respond(MakeResponse("type.googleapis.com/unknown.Type", "v1", "n1",
                            {{"l1", "x"}}));
  EXPECT_EQ(ads->request_count(), before);
}

// --- State-of-the-world deletion (C-core OnRecvMessage) ---

TEST(XdsClientTest, SotwDeletion) {
  struct Case {
    const char* source;
    const FakeType* type;
    std::string name2;  // the resource left out of the second response
    std::vector<std::string> want;
  };
  const Case kCases[] = {
      {"C-core: LDS resource missing from a response is deleted",
       &FakeListenerType(),
       "l2",
       {"changed:y", "does_not_exist"}},
      {"C-core: CDS too",
       &FakeClusterType(),
       "l2",
       {"changed:y", "does_not_exist"}},
      {"C-core: RDS is not all-required: kept",
       &FakeRouteType(),
       "l2",
       {"changed:y"}},
      {"A47 ignore_resource_deletion (c.com's server): kept",
       &FakeListenerType(),
       absl::StrCat(kLdsC, "l2"),
       {"changed:y"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    Harness h;
    const bool on_c = c.name2 != "l2";
    const std::string name1 = on_c ? absl::StrCat(kLdsC, "l1") : "l1";
    h.Watch(*c.type, name1);
    auto w2 = h.Watch(*c.type, c.name2);
    FakeCall* ads = h.factory->Call(0);
    const std::string url(c.type->type_url());
    ads->Respond(MakeResponse(url, "v1", "n1", {{name1, "x"}, {c.name2, "y"}}));
    ads->Respond(MakeResponse(url, "v2", "n2", {{name1, "x"}}));
    EXPECT_EQ(w2->events(), c.want);
    EXPECT_FALSE(ads->LastRequest().has_error_detail());
    if (on_c) {
      Json::Value dump = h.client->DumpConfig();
      ASSERT_EQ(dump.size(), 2u);
      EXPECT_TRUE(dump[1]["ignored_deletion"].asBool());
      EXPECT_EQ(dump[1]["client_status"].asString(), "ACKED");
    }
  }
}

TEST(XdsClientTest, SotwDeletionSkipsResourcesWithoutValue) {
  // C-core: a requested resource not yet received is left to its timer.
  Harness h;
  h.Watch(FakeListenerType(), "l1");
  auto w2 = h.Watch(FakeListenerType(), "l2");
  h.factory->Call(0)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  EXPECT_THAT(w2->events(), IsEmpty());
}

// --- Does-not-exist timer (C-core ResourceTimer) ---

TEST(XdsClientTest, DoesNotExistTimerStartsWhenSent) {
  Harness h;
  h.factory->set_hold_sends(true);
  auto w = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  h.timers->Advance(absl::Seconds(60));  // not sent yet: no timer
  EXPECT_THAT(w->events(), IsEmpty());
  ads->CompleteSends();
  h.timers->Advance(absl::Seconds(14));
  EXPECT_THAT(w->events(), IsEmpty());
  h.timers->Advance(absl::Seconds(1));
  EXPECT_THAT(w->events(), ElementsAre("does_not_exist"));
  EXPECT_EQ(h.client->DumpConfig()[0]["client_status"].asString(),
            "DOES_NOT_EXIST");
  // Arriving later is a normal update.
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  EXPECT_THAT(w->events(), ElementsAre("does_not_exist", "changed:x"));
}

TEST(XdsClientTest, DoesNotExistTimerCancelledByResponse) {
  Harness h;
  auto w = h.Watch(FakeListenerType(), "l1");
  h.factory->Call(0)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  h.timers->Advance(absl::Seconds(60));
  EXPECT_THAT(w->events(), ElementsAre("changed:x"));
}

TEST(XdsClientTest, NoDoesNotExistTimerWhenCached) {
  // C-core MaybeStartTimer: a cached value (reconnect) starts no timer.
  Harness h;
  auto w = h.Watch(FakeListenerType(), "l1");
  h.factory->Call(0)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  h.factory->Call(0)->Fail(absl::UnavailableError("gone"));
  h.timers->Advance(absl::Seconds(1));  // reconnect
  ASSERT_EQ(h.factory->call_count(), 2u);
  h.timers->Advance(absl::Seconds(100));
  EXPECT_THAT(w->events(), ElementsAre("changed:x"));
}

// --- A57: XdsClient failure modes, one row per rule ---

// The events' kinds only ("error", "does_not_exist", "changed:<value>").
std::vector<std::string> EventKinds(const std::vector<std::string>& events) {
  std::vector<std::string> kinds;
  for (const std::string& e : events) {
    kinds.push_back(absl::StartsWith(e, "error:") ? "error" : e);
  }
  return kinds;
}

TEST(XdsClientTest, A57FailureModesTable) {
  struct Case {
    const char* rule;  // the A57 section the row checks
    // Drives one client whose ADS sends complete only when the row says
    // so (hold_sends); one watch of listener "l1" is open.
    std::function<void(Harness&)> run;
    std::vector<std::string> want;
    // The delay of the last timer armed (a retry, in the rows that check
    // it).
    std::optional<absl::Duration> want_last_retry;
  };
  auto ads = [](Harness& h) {
    return h.factory->Call(h.factory->call_count() - 1);
  };
  const Case kCases[] = {
      {"§Handling Resources That Do Not Exist: a request queued on a stream "
       "that is not connected starts no timer",
       [](Harness& h) { h.timers->Advance(absl::Seconds(60)); },
       {}},
      {"§Handling Resources That Do Not Exist: 15 s after the send "
       "completed",
       [&](Harness& h) {
         ads(h)->CompleteSends();
         h.timers->Advance(absl::Seconds(14.9));
         h.timers->Advance(absl::Seconds(0.1));
       },
       {"does_not_exist"}},
      {"§Handling Connectivity Failure: TRANSIENT_FAILURE is an error to "
       "the watchers, and an unreachable server never makes a resource "
       "not exist",
       [](Harness& h) {
         h.factory->transport(0)->on_failure(absl::UnavailableError("down"));
         h.timers->Advance(absl::Seconds(60));
         h.factory->transport(0)->on_failure(absl::UnavailableError("down"));
         h.timers->Advance(absl::Seconds(60));
       },
       {"error", "error"}},
      {"§Handling ADS Stream Termination: closed before any response is a "
       "connectivity error; the timer of the failed stream is cancelled and "
       "runs again from the send on the next stream",
       [&](Harness& h) {
         ads(h)->CompleteSends();
         h.timers->Advance(absl::Seconds(10));
         ads(h)->Fail(absl::UnavailableError("reset"));
         h.timers->Advance(absl::Seconds(1));   // backoff: the next stream
         h.timers->Advance(absl::Seconds(30));  // its send is not complete
         ads(h)->CompleteSends();
         h.timers->Advance(absl::Seconds(14.9));
         h.timers->Advance(absl::Seconds(0.1));
       },
       {"error", "does_not_exist"}},
      {"§Handling ADS Stream Termination: backoff grows while streams end "
       "without a response",
       [&](Harness& h) {
         ads(h)->Fail(absl::UnavailableError("a"));
         h.timers->Advance(absl::Seconds(1));
         ads(h)->Fail(absl::UnavailableError("b"));
       },
       {"error", "error"},
       absl::Seconds(1.6)},
      {"§Handling ADS Stream Termination: closed after a response is not an "
       "error, and the backoff is reset",
       [&](Harness& h) {
         ads(h)->Fail(absl::UnavailableError("a"));
         h.timers->Advance(absl::Seconds(1));
         ads(h)->Fail(absl::UnavailableError("b"));
         h.timers->Advance(absl::Seconds(1.6));
         ads(h)->CompleteSends();
         ads(h)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
         ads(h)->Fail(absl::UnavailableError("max connection age"));
       },
       {"error", "error", "changed:x"},
       absl::Seconds(1)},
      {"§Handling Resources That Do Not Exist: after a restart, a cached "
       "resource gets no timer",
       [&](Harness& h) {
         ads(h)->CompleteSends();
         ads(h)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
         ads(h)->Fail(absl::UnavailableError("gone"));
         h.timers->Advance(absl::Seconds(1));
         ads(h)->CompleteSends();
         h.timers->Advance(absl::Seconds(100));
       },
       {"changed:x"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.rule);
    Harness h;
    h.factory->set_hold_sends(true);
    auto w = h.Watch(FakeListenerType(), "l1");
    c.run(h);
    EXPECT_EQ(EventKinds(w->events()), c.want);
    if (c.want_last_retry.has_value()) {
      ASSERT_FALSE(h.timers->delays().empty());
      EXPECT_EQ(h.timers->delays().back(), *c.want_last_retry);
    }
  }
}

// --- Stream failure, reconnect, backoff ---

TEST(XdsClientTest, StreamFailureAfterResponseResubscribes) {
  // C-core: versions kept per channel, nonce per stream, node resent; no
  // watcher error when the stream had responses (C-core 1.51 OnStatusReceived).
  Harness h;
  auto lw = h.Watch(FakeListenerType(), "l1");
  auto cw = h.Watch(FakeClusterType(), "c1");
  FakeCall* first = h.factory->Call(0);
  first->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  first->Fail(absl::UnavailableError("boom"));
  EXPECT_EQ(h.factory->call_count(), 1u);
  h.timers->Advance(absl::Seconds(1));
  ASSERT_EQ(h.factory->call_count(), 2u);
  std::vector<DiscoveryRequest> reqs = h.factory->Call(1)->Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_TRUE(reqs[0].has_node());
  EXPECT_FALSE(reqs[1].has_node());
  for (const DiscoveryRequest& r : reqs) {
    EXPECT_EQ(r.response_nonce(), "");
    EXPECT_EQ(r.version_info(), r.type_url() == kLdsUrl ? "v1" : "");
  }
  EXPECT_THAT(lw->events(), ElementsAre("changed:x"));
  EXPECT_THAT(cw->events(), IsEmpty());
  // Cache kept: a new watcher gets the value.
  auto w2 = h.Watch(FakeListenerType(), "l1");
  EXPECT_THAT(w2->events(), ElementsAre("changed:x"));
}

TEST(XdsClientTest, StreamFailureWithoutResponseErrorsEachWatcherOnce) {
  // C-core 1.51: "xDS call failed with no responses received", reported
  // once per watcher through the channel status (with the server URI).
  Harness h;
  auto shared = std::make_shared<RecordingWatcher>();
  h.client->Watch(FakeListenerType(), "l1", shared);
  h.client->Watch(FakeClusterType(), "c1", shared);
  auto other = h.Watch(FakeListenerType(), absl::StrCat(kLdsA, "x"));
  auto elsewhere = h.Watch(FakeListenerType(), absl::StrCat(kLdsC, "x"));
  h.factory->LatestCall("xds1:443")->Fail(absl::UnavailableError("boom"));
  const std::string want =
      "error:UNAVAILABLE: xDS channel for server xds1:443: xDS call failed "
      "with no responses received; status: UNAVAILABLE: boom "
      "(node ID:node-1)";
  EXPECT_THAT(shared->events(), ElementsAre(want));
  EXPECT_THAT(other->events(), ElementsAre(want));
  EXPECT_THAT(elsewhere->events(), IsEmpty());
  // A new watcher of that channel gets the pending error at once...
  auto late = h.Watch(FakeListenerType(), "l9");
  EXPECT_THAT(late->events(), ElementsAre(want));
  // ...until a response arrives on the next stream.
  h.timers->Advance(absl::Seconds(1));
  h.factory->LatestCall("xds1:443")
      ->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  auto later = h.Watch(FakeListenerType(), "l1");
  EXPECT_THAT(later->events(), ElementsAre("changed:x"));
}

TEST(XdsClientTest, ConnectivityFailureErrorsWatchers) {
  // C-core ChannelState::OnConnectivityFailure -> SetChannelStatusLocked.
  Harness h;
  auto w = std::make_shared<RecordingWatcher>();
  h.client->Watch(FakeListenerType(), "l1", w);
  h.client->Watch(FakeListenerType(), "l2", w);
  h.factory->transport(0)->on_failure(absl::UnavailableError("no route"));
  EXPECT_THAT(w->events(),
              ElementsAre("error:UNAVAILABLE: xDS channel for server "
                          "xds1:443: no route (node ID:node-1)"));
}

TEST(XdsClientTest, TransportCreationFailure) {
  Harness h;
  h.factory->set_fail_uri("xds2:443");
  auto w = h.Watch(FakeListenerType(), absl::StrCat(kLdsC, "x"));
  EXPECT_THAT(w->events(),
              ElementsAre("error:UNAVAILABLE: xDS channel for server "
                          "xds2:443: fake transport refused (node ID:node-1)"));
}

TEST(XdsClientTest, BackoffSequence) {
  // C-core 1.51 backoff: 1 s, x1.6, max 120 s (jitter 0 here); reset after
  // a stream that got a response.
  Harness h;
  h.Watch(FakeListenerType(), "l1");
  std::vector<absl::Duration> want = {absl::Seconds(1), absl::Seconds(1.6),
                                      absl::Seconds(2.56),
                                      absl::Seconds(4.096)};
  std::vector<absl::Duration> got;
  for (size_t i = 0; i < want.size(); ++i) {
    const size_t n = h.factory->call_count();
    h.factory->Call(n - 1)->Fail(absl::UnavailableError("x"));
    got.push_back(h.timers->delays().back());
    h.timers->Advance(got.back());
    ASSERT_EQ(h.factory->call_count(), n + 1);
  }
  EXPECT_EQ(got, want);
  FakeCall* ads = h.factory->Call(h.factory->call_count() - 1);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  ads->Fail(absl::UnavailableError("x"));
  EXPECT_EQ(h.timers->delays().back(), absl::Seconds(1));
}

// The retry delays of one client whose ADS stream fails five times in a row
// (jitter on, C-core's default 20%), and the seed it used.
std::vector<absl::Duration> RetryDelays(std::optional<uint64_t> seed,
                                        uint64_t* used_seed) {
  auto bootstrap = Bootstrap::Parse(kBootstrap, /*federation=*/true);
  EXPECT_TRUE(bootstrap.ok()) << bootstrap.status();
  auto factory = std::make_shared<FakeTransportFactory>();
  auto timers = std::make_shared<FakeTimers>();
  XdsClient::Options options;
  options.timers = timers;
  options.jitter_seed = seed;
  auto client = XdsClient::Create(*bootstrap, factory, options);
  EXPECT_TRUE(client.ok()) << client.status();
  (*client)->Watch(FakeListenerType(), "l1",
                   std::make_shared<RecordingWatcher>());
  std::vector<absl::Duration> delays;
  for (int i = 0; i < 5; ++i) {
    factory->Call(factory->call_count() - 1)->Fail(absl::UnavailableError("x"));
    delays.push_back(timers->delays().back());
    timers->Advance(delays.back());
  }
  *used_seed = (*client)->options().jitter_seed.value_or(0);
  return delays;
}

// Issue 16 item 3: with no seed given, every client draws its own jitter, so
// a fleet that lost its server does not retry in lockstep; a fixed seed
// (what tests use) repeats the same delays.
TEST(XdsClientTest, JitterSeedIsRandomUnlessGiven) {
  uint64_t seed_a = 0, seed_b = 0, seed_c = 0, seed_d = 0;
  const std::vector<absl::Duration> a = RetryDelays(std::nullopt, &seed_a);
  const std::vector<absl::Duration> b = RetryDelays(std::nullopt, &seed_b);
  EXPECT_NE(seed_a, seed_b);
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(a[0], absl::Seconds(1));  // the first retry has no jitter
  EXPECT_EQ(b[0], absl::Seconds(1));
  EXPECT_NE(std::vector<absl::Duration>(a.begin() + 1, a.end()),
            std::vector<absl::Duration>(b.begin() + 1, b.end()));
  EXPECT_EQ(RetryDelays(7, &seed_c), RetryDelays(7, &seed_d));
  EXPECT_EQ(seed_c, 7u);
}

TEST(BackoffTest, CapAndJitter) {
  // C-core BackOff: jitter is +-20% of the current delay; max 120 s.
  Backoff b(BackoffOptions{}, /*seed=*/7);
  EXPECT_EQ(b.NextDelay(), absl::Seconds(1));
  absl::Duration nominal = absl::Seconds(1);
  for (int i = 0; i < 20; ++i) {
    nominal = std::min(nominal * 1.6, absl::Seconds(120));
    absl::Duration d = b.NextDelay();
    EXPECT_GE(d, nominal * 0.8 - absl::Milliseconds(1));
    EXPECT_LE(d, nominal * 1.2 + absl::Milliseconds(1));
  }
  b.Reset();
  EXPECT_EQ(b.NextDelay(), absl::Seconds(1));
}

// --- Callbacks ---

class CancellingWatcher : public RecordingWatcher {
 public:
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> value) override {
    RecordingWatcher::OnChanged(std::move(value));
    client->CancelWatch(id);
  }
  XdsClient* client = nullptr;
  WatchId id = 0;
};

TEST(XdsClientTest, CancelInsideCallback) {
  // The client's contract: cancelling (even its own watch) from inside a
  // callback is safe and stops further callbacks.
  Harness h;
  auto cancelling = std::make_shared<CancellingWatcher>();
  cancelling->client = h.client.get();
  cancelling->id = h.client->Watch(FakeListenerType(), "l1", cancelling);
  auto other = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  ads->Respond(MakeResponse(kLdsUrl, "v2", "n2", {{"l1", "y"}}));
  EXPECT_THAT(cancelling->events(), ElementsAre("changed:x"));
  EXPECT_THAT(other->events(), ElementsAre("changed:x", "changed:y"));
}

TEST(XdsClientTest, CancelOtherWatchDropsItsQueuedCallback) {
  // The client's contract: after CancelWatch returns, no callback of that
  // watch starts, even one already queued by the same response.
  Harness h;
  auto first = std::make_shared<CancellingWatcher>();
  first->client = h.client.get();
  h.client->Watch(FakeListenerType(), "l1", first);
  auto second = h.Watch(FakeListenerType(), "l1", &first->id);
  h.factory->Call(0)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  EXPECT_THAT(first->events(), ElementsAre("changed:x"));
  EXPECT_THAT(second->events(), IsEmpty());
}

TEST(XdsClientTest, CancelLastWatchInsideCallbackReleasesChannel) {
  Harness h;
  auto cancelling = std::make_shared<CancellingWatcher>();
  cancelling->client = h.client.get();
  cancelling->id = h.client->Watch(FakeListenerType(), "l1", cancelling);
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  EXPECT_EQ(h.client->channel_count(), 0u);
  EXPECT_TRUE(ads->ended());
}

class ValueWatcher : public resources::ResourceWatcher<FakeValue> {
 public:
  void OnChanged(std::shared_ptr<const FakeValue> value) override {
    values.push_back(value->name + "=" + value->value);
  }
  void OnError(absl::Status) override {}
  void OnDoesNotExist() override {}
  std::vector<std::string> values;
};

TEST(XdsClientTest, TypedWatcher) {
  Harness h;
  auto w = std::make_shared<ValueWatcher>();
  h.client->Watch<FakeValue>("l1", w);
  h.factory->Call(0)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  EXPECT_THAT(w->values, ElementsAre("l1=x"));
}

class ChainingWatcher : public RecordingWatcher {
 public:
  void OnChanged(
      std::shared_ptr<const resources::ResourceData> value) override {
    RecordingWatcher::OnChanged(value);
    // Like a resolver following LDS -> RDS from inside the callback.
    if (child == nullptr) {
      child = std::make_shared<RecordingWatcher>();
      client->Watch(FakeRouteType(), "r1", child);
    }
  }
  XdsClient* client = nullptr;
  std::shared_ptr<RecordingWatcher> child;
};

TEST(XdsClientTest, WatchInsideCallback) {
  // Watch from a callback subscribes at once; callbacks never nest.
  Harness h;
  auto w = std::make_shared<ChainingWatcher>();
  w->client = h.client.get();
  h.client->Watch(FakeListenerType(), "l1", w);
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  ASSERT_NE(w->child, nullptr);
  EXPECT_EQ(ads->LastRequest().type_url(), kRdsUrl);
  EXPECT_THAT(Names(ads->LastRequest()), ElementsAre("r1"));
  ads->Respond(MakeResponse(kRdsUrl, "v1", "n2", {{"r1", "y"}}));
  EXPECT_THAT(w->child->events(), ElementsAre("changed:y"));
  // The cached value reaches a second watcher of the same route at once.
  auto w2 = std::make_shared<ChainingWatcher>();
  w2->client = h.client.get();
  h.client->Watch(FakeListenerType(), "l1", w2);
  ASSERT_NE(w2->child, nullptr);
  EXPECT_THAT(w2->child->events(), ElementsAre("changed:y"));
}

TEST(XdsClientTest, ConfigDump) {
  // CSDS-like dump: authority (null for old-style), type, name, status...
  Harness h;
  h.Watch(FakeListenerType(), "l1");
  h.Watch(FakeListenerType(), absl::StrCat(kLdsA, "x"));
  h.factory->Call(0)->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  Json::Value dump = h.client->DumpConfig();
  ASSERT_EQ(dump.size(), 2u);
  EXPECT_TRUE(dump[0]["authority"].isNull());
  EXPECT_EQ(dump[0]["type"].asString(), kLdsUrl);
  EXPECT_EQ(dump[0]["name"].asString(), "l1");
  EXPECT_EQ(dump[0]["client_status"].asString(), "ACKED");
  EXPECT_EQ(dump[0]["version"].asString(), "v1");
  EXPECT_EQ(dump[0]["update_time"].asString(), "2023-11-14T22:13:20+00:00");
  EXPECT_EQ(dump[0]["resource"]["value"].asString(), "x");
  EXPECT_EQ(dump[1]["authority"].asString(), "a.com");
  EXPECT_EQ(dump[1]["client_status"].asString(), "REQUESTED");
  EXPECT_FALSE(dump[1].isMember("resource"));
}

// What CSDS reports (lib/admin): per resource its authority, type, name,
// state, version, last update and, once NACKed, the NACKed version, when and
// why (issue 14 §3).
TEST(XdsClientTest, ResourceStatusesForCsds) {
  Harness h;
  h.Watch(FakeListenerType(), "l1");
  h.Watch(FakeListenerType(), absl::StrCat(kLdsA, "x"));
  FakeCall* ads = h.factory->Call(0);
  ads->Respond(MakeResponse(kLdsUrl, "v1", "n1", {{"l1", "x"}}));
  std::vector<client::ResourceStatus> statuses = h.client->ResourceStatuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0].authority, std::nullopt);
  EXPECT_EQ(statuses[0].type_url, kLdsUrl);
  EXPECT_EQ(statuses[0].name, "l1");
  EXPECT_EQ(statuses[0].state, cache::State::kAcked);
  EXPECT_EQ(statuses[0].version, "v1");
  EXPECT_NE(statuses[0].update_time, absl::InfinitePast());
  EXPECT_EQ(statuses[0].error, "");
  EXPECT_EQ(statuses[1].authority, "a.com");
  EXPECT_EQ(statuses[1].state, cache::State::kRequested);
  EXPECT_EQ(statuses[1].update_time, absl::InfinitePast());

  ads->Respond(MakeResponse(kLdsUrl, "v2", "n2", {{"l1", "y", true}}));
  statuses = h.client->ResourceStatuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0].state, cache::State::kNacked);
  EXPECT_EQ(statuses[0].version, "v1");  // the value held is still v1's
  EXPECT_EQ(statuses[0].error_version, "v2");
  EXPECT_NE(statuses[0].error_time, absl::InfinitePast());
  EXPECT_FALSE(statuses[0].error.empty());
  // The same facts as the JSON dump.
  Json::Value dump = h.client->DumpConfig();
  EXPECT_EQ(dump[0]["error"]["message"].asString(), statuses[0].error);
}

TEST(XdsClientTest, ConcurrentWatchAndCancel) {
  // Thread safety (runs under TSan too): watchers come and go on several
  // threads while responses arrive; every callback happens outside the lock
  // (a watcher that calls back into the client would deadlock otherwise).
  Harness h;
  auto anchor = h.Watch(FakeListenerType(), "l0");  // keeps the channel
  FakeCall* ads = h.factory->Call(0);
  class ReentrantWatcher : public RecordingWatcher {
   public:
    explicit ReentrantWatcher(XdsClient* c) : client(c) {}
    void OnChanged(
        std::shared_ptr<const resources::ResourceData> value) override {
      client->DumpConfig();  // takes the client's lock
      RecordingWatcher::OnChanged(std::move(value));
    }
    XdsClient* client;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 200; ++i) {
        auto w = std::make_shared<ReentrantWatcher>(h.client.get());
        const std::string name = absl::StrCat("l", (t * 7 + i) % 5);
        WatchId id = h.client->Watch(FakeListenerType(), name, w);
        if (i % 3 == 0) {
          h.client->Watch(FakeClusterType(), name, w);  // never cancelled
        }
        h.client->CancelWatch(id);
      }
    });
  }
  // A bounded number of responses: the fake stream delivers them on
  // whichever thread is draining it, possibly a watching thread.
  threads.emplace_back([&] {
    for (int v = 1; v <= 300; ++v) {
      ads->Respond(MakeResponse(
          kLdsUrl, absl::StrCat("v", v), absl::StrCat("n", v),
          {{"l0", absl::StrCat(v)}, {"l1", absl::StrCat(v)}, {"l2", "z"}}));
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(anchor->events().empty());
  EXPECT_EQ(h.client->channel_count(), 1u);
}

TEST(XdsClientTest, DestroyClientWithOpenStreams) {
  Harness h;
  auto w = h.Watch(FakeListenerType(), "l1");
  FakeCall* ads = h.factory->Call(0);
  h.client.reset();
  EXPECT_TRUE(ads->ended());
  EXPECT_EQ(h.factory->live_transport_count(), 0u);
  EXPECT_EQ(h.timers->pending(), 0u);
}

}  // namespace
}  // namespace testing
}  // namespace client
}  // namespace xdsfed
