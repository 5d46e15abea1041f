// gRFC A71 (xDS fallback) on the XdsClient, against the fake transport and
// clock of client_test_util.h. Each row names the A71 section it checks;
// the connectivity failures are A57's (channel TRANSIENT_FAILURE, or a
// stream closed before its first response).
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/client/xds_client.h"
#include "tests/client/client_test_util.h"

namespace xdsfed {
namespace client {
namespace testing {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

std::string Server(absl::string_view uri) {
  return absl::StrCat(R"({"server_uri":")", uri,
                      R"(","channel_creds":[{"type":"insecure"}]})");
}

// f.com: three servers in priority order; dup.com: one server listed twice.
std::string FallbackBootstrap() {
  return absl::StrCat(
      R"({"xds_servers":[)", Server("top1:443"), ",", Server("top2:443"),
      R"(],"node":{"id":"node-1"},"authorities":{"f.com":{"xds_servers":[)",
      Server("p:443"), ",", Server("f1:443"), ",", Server("f2:443"),
      R"(]},"dup.com":{"xds_servers":[)", Server("p:443"), ",", Server("p:443"),
      "]}}}");
}

constexpr absl::string_view kL =
    "xdstp://f.com/envoy.config.listener.v3.Listener/l";
constexpr absl::string_view kC =
    "xdstp://f.com/envoy.config.cluster.v3.Cluster/c";
constexpr absl::string_view kC2 =
    "xdstp://f.com/envoy.config.cluster.v3.Cluster/c2";

struct Env {
  explicit Env(bool fallback = true,
               const std::string& bootstrap_json = FallbackBootstrap()) {
    auto bootstrap = Bootstrap::Parse(bootstrap_json, /*federation=*/true);
    EXPECT_TRUE(bootstrap.ok()) << bootstrap.status();
    XdsClient::Options options;
    options.timers = timers;
    options.backoff.jitter = 0;
    options.fallback = fallback;
    auto c = XdsClient::Create(*bootstrap, factory, options);
    EXPECT_TRUE(c.ok()) << c.status();
    client = *c;
  }
  std::shared_ptr<RecordingWatcher> Watch(const FakeType& type,
                                          absl::string_view name) {
    auto w = std::make_shared<RecordingWatcher>();
    client->Watch(type, name, w);
    return w;
  }
  // The channel to `uri` reports TRANSIENT_FAILURE.
  void Unreachable(absl::string_view uri) {
    for (size_t i = 0; i < factory->transport_count(); ++i) {
      auto t = factory->transport(i);
      if (t->server_uri == uri && !t->destroyed) {
        t->on_failure(absl::UnavailableError(absl::StrCat(uri, " down")));
      }
    }
  }
  void Respond(absl::string_view uri, absl::string_view type_url,
               const std::vector<FakeResource>& resources) {
    FakeCall* call = factory->LatestCall(uri);
    ASSERT_NE(call, nullptr) << uri;
    ++version;
    call->Respond(MakeResponse(type_url, absl::StrCat("v", version),
                               absl::StrCat("n", version), resources));
  }
  // Every resource name the latest stream to `uri` has subscribed to.
  std::vector<std::string> Subscribed(absl::string_view uri) {
    std::vector<std::string> names;
    FakeCall* call = factory->LatestCall(uri);
    if (call == nullptr) return names;
    std::map<std::string, std::vector<std::string>> by_type;
    for (const DiscoveryRequest& r : call->Requests()) {
      by_type[r.type_url()].assign(r.resource_names().begin(),
                                   r.resource_names().end());
    }
    for (const auto& [type, list] : by_type) {
      names.insert(names.end(), list.begin(), list.end());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::shared_ptr<FakeTransportFactory> factory =
      std::make_shared<FakeTransportFactory>();
  std::shared_ptr<FakeTimers> timers = std::make_shared<FakeTimers>();
  std::shared_ptr<XdsClient> client;
  int version = 0;
};

// "changed:x", "does_not_exist", and "error" for any error.
std::vector<std::string> Kinds(const std::vector<std::string>& events) {
  std::vector<std::string> kinds;
  for (const std::string& e : events) {
    kinds.push_back(absl::StartsWith(e, "error:") ? "error" : e);
  }
  return kinds;
}

TEST(FallbackTest, Table) {
  struct Case {
    const char* rule;
    bool fallback = true;
    // Runs with watches on f.com's listener l and cluster c (l, c).
    std::function<void(Env&)> run;
    std::vector<std::string> want_l, want_c;
    std::vector<std::string> want_uris;  // open channels, sorted
  };
  const std::string l(kL), c(kC), c2(kC2);
  const Case kCases[] = {
      {"§Change XdsClient to support fallback: the primary's "
       "TRANSIENT_FAILURE while a watched resource is not cached connects "
       "the next server and subscribes there to every watched resource; "
       "watchers hear nothing",
       true,
       [&](Env& e) {
         e.Unreachable("p:443");
         EXPECT_THAT(e.Subscribed("f1:443"), ElementsAre(c, l));
       },
       {},
       {},
       {"f1:443", "p:443"}},
      {"§Change XdsClient to support fallback (A57): a stream closed "
       "before its first response is a connectivity failure too",
       true,
       [](Env& e) {
         e.factory->LatestCall("p:443")->Fail(absl::UnavailableError("x"));
       },
       {},
       {},
       {"f1:443", "p:443"}},
      {"§Change XdsClient to support fallback: everything cached, no "
       "fallback; watchers hear the error (A57) and keep their values",
       true,
       [](Env& e) {
         e.Respond("p:443", kLdsUrl, {{std::string(kL), "x"}});
         e.Respond("p:443", kCdsUrl, {{std::string(kC), "y"}});
         e.Unreachable("p:443");
       },
       {"changed:x", "error"},
       {"changed:y", "error"},
       {"p:443"}},
      {"§Change XdsClient to support fallback: a resource known not to "
       "exist is cached",
       true,
       [](Env& e) {
         e.Respond("p:443", kLdsUrl, {{std::string(kL), "x"}});
         e.timers->Advance(absl::Seconds(15));  // c: does not exist
         e.Unreachable("p:443");
       },
       {"changed:x", "error"},
       {"does_not_exist", "error"},
       {"p:443"}},
      {"§Change XdsClient to support fallback: the fallback server's "
       "responses update the cache and reach the watchers",
       true,
       [](Env& e) {
         e.Unreachable("p:443");
         e.Respond("f1:443", kLdsUrl, {{std::string(kL), "fx"}});
         e.Respond("f1:443", kCdsUrl, {{std::string(kC), "fy"}});
       },
       {"changed:fx"},
       {"changed:fy"},
       {"f1:443", "p:443"}},
      {"§Change XdsClient to support fallback: the higher-priority "
       "connection stays; its first resource switches the authority back "
       "and closes the lower one (a server with different data: its value "
       "replaces the fallback's)",
       true,
       [](Env& e) {
         e.Unreachable("p:443");
         e.Respond("f1:443", kLdsUrl, {{std::string(kL), "fx"}});
         e.Respond("f1:443", kCdsUrl, {{std::string(kC), "fy"}});
         FakeCall* f1 = e.factory->LatestCall("f1:443");
         e.Respond("p:443", kLdsUrl, {{std::string(kL), "x"}});
         EXPECT_TRUE(f1->orphaned());
         EXPECT_EQ(e.factory->live_transport_count(), 1u);
       },
       {"changed:fx", "changed:x"},
       {"changed:fy"},
       {"p:443"}},
      {"§Change XdsClient to support fallback: watchers hear of a "
       "connectivity failure only when every server is unreachable, once",
       true,
       [](Env& e) {
         e.Unreachable("p:443");
         e.Unreachable("f1:443");
         e.Unreachable("f2:443");
       },
       {"error"},
       {"error"},
       {"f1:443", "f2:443", "p:443"}},
      {"§Change XdsClient to support fallback: a flapping primary does not "
       "make watchers flap while the fallback serves",
       true,
       [](Env& e) {
         e.Unreachable("p:443");
         e.Respond("f1:443", kLdsUrl, {{std::string(kL), "fx"}});
         e.Respond("f1:443", kCdsUrl, {{std::string(kC), "fy"}});
         for (int i = 0; i < 5; ++i) {
           e.Unreachable("p:443");
           e.factory->LatestCall("p:443")->Fail(absl::UnavailableError("x"));
           e.timers->Advance(absl::Seconds(120));  // the retry
         }
       },
       {"changed:fx"},
       {"changed:fy"},
       {"f1:443", "p:443"}},
      {"§Change XdsClient to support fallback: a new watch of a resource "
       "not cached while the current server is failing falls back at once",
       true,
       [&](Env& e) {
         e.Respond("p:443", kLdsUrl, {{std::string(kL), "x"}});
         e.Respond("p:443", kCdsUrl, {{std::string(kC), "y"}});
         e.Unreachable("p:443");
         auto w2 = e.Watch(FakeClusterType(), kC2);
         EXPECT_THAT(w2->events(), ::testing::IsEmpty());
         EXPECT_THAT(e.Subscribed("f1:443"), ElementsAre(c, c2, l));
         e.Respond("f1:443", kCdsUrl,
                   {{std::string(kC), "y"}, {std::string(kC2), "z"}});
         EXPECT_THAT(w2->events(), ElementsAre("changed:z"));
       },
       {"changed:x", "error"},
       {"changed:y", "error"},
       {"f1:443", "p:443"}},
      {"Bad input: the fallback server sends an invalid resource: NACKed "
       "there, its watcher hears the error",
       true,
       [](Env& e) {
         e.Unreachable("p:443");
         e.Respond("f1:443", kLdsUrl, {{std::string(kL), "fx", true}});
         EXPECT_TRUE(
             e.factory->LatestCall("f1:443")->LastRequest().has_error_detail());
       },
       {"error"},
       {},
       {"f1:443", "p:443"}},
      {"§Temporary environment variable protection: fallback off, only the "
       "first server is used",
       false,
       [](Env& e) { e.Unreachable("p:443"); },
       {"error"},
       {"error"},
       {"p:443"}},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.rule);
    Env e(k.fallback);
    auto wl = e.Watch(FakeListenerType(), kL);
    auto wc = e.Watch(FakeClusterType(), kC);
    k.run(e);
    EXPECT_EQ(Kinds(wl->events()), k.want_l);
    EXPECT_EQ(Kinds(wc->events()), k.want_c);
    EXPECT_EQ(e.client->ChannelServerUris(), k.want_uris);
  }
}

// Bad input: one server listed twice is one server (A71's list with the
// duplicate dropped): its failure is the authority's last, so an error.
TEST(FallbackTest, SameServerTwiceIsOneServer) {
  Env e;
  auto w = e.Watch(FakeListenerType(),
                   "xdstp://dup.com/envoy.config.listener.v3.Listener/l");
  e.Unreachable("p:443");
  EXPECT_EQ(Kinds(w->events()), std::vector<std::string>{"error"});
  EXPECT_THAT(e.client->ChannelServerUris(), ElementsAre("p:443"));
  EXPECT_EQ(e.factory->transport_count(), 1u);
}

// Bad input: 100 servers for one authority. Each failure moves to the next;
// the watcher hears one error, after the 100th; channels stay bounded by
// the list, and the first resource from any higher server closes the rest.
TEST(FallbackTest, HundredServers) {
  std::vector<std::string> servers;
  for (int i = 0; i < 100; ++i) {
    servers.push_back(Server(absl::StrCat("s", i, ":443")));
  }
  const std::string json = absl::StrCat(
      R"({"xds_servers":[)", Server("top:443"),
      R"(],"node":{"id":"n"},"authorities":{"f.com":{"xds_servers":[)",
      absl::StrJoin(servers, ","), "]}}}");
  Env e(true, json);
  auto w = e.Watch(FakeListenerType(), kL);
  for (int i = 0; i < 100; ++i) {
    EXPECT_THAT(w->events(), ::testing::IsEmpty()) << i;
    EXPECT_EQ(e.client->channel_count(), static_cast<size_t>(i + 1));
    e.Unreachable(absl::StrCat("s", i, ":443"));
  }
  EXPECT_EQ(Kinds(w->events()), std::vector<std::string>{"error"});
  EXPECT_EQ(e.client->channel_count(), 100u);
  e.Respond("s3:443", kLdsUrl, {{std::string(kL), "x"}});
  EXPECT_EQ(Kinds(w->events()),
            (std::vector<std::string>{"error", "changed:x"}));
  EXPECT_EQ(e.client->channel_count(), 4u);
  EXPECT_EQ(e.factory->live_transport_count(), 4u);
}

// A fallback server another authority already uses: it gets the falling
// back authority's resources of the types that authority watches, and no
// empty request (which for LDS / CDS would be a wildcard subscription).
TEST(FallbackTest, SharedFallbackServerGetsNoEmptyRequest) {
  const std::string json = absl::StrCat(
      R"({"xds_servers":[)", Server("top:443"),
      R"(],"node":{"id":"n"},"authorities":{"f.com":{"xds_servers":[)",
      Server("p:443"), ",", Server("f1:443"), R"(]},"g.com":{"xds_servers":[)",
      Server("f1:443"), "]}}}");
  Env e(true, json);
  e.Watch(FakeClusterType(), "xdstp://g.com/envoy.config.cluster.v3.Cluster/g");
  e.Watch(FakeListenerType(), kL);
  FakeCall* shared = e.factory->LatestCall("f1:443");
  ASSERT_NE(shared, nullptr);
  const size_t before = shared->Requests().size();
  e.Unreachable("p:443");
  const std::vector<DiscoveryRequest> requests = shared->Requests();
  ASSERT_EQ(requests.size(), before + 1);
  EXPECT_EQ(requests.back().type_url(), kLdsUrl);
  EXPECT_THAT(std::vector<std::string>(requests.back().resource_names().begin(),
                                       requests.back().resource_names().end()),
              ElementsAre(std::string(kL)));
}

// The last watch of an authority gone, its next watch starts again from
// the primary (fallback channels released).
TEST(FallbackTest, LastWatchCancelledReleasesFallback) {
  Env e;
  auto w = std::make_shared<RecordingWatcher>();
  const WatchId id = e.client->Watch(FakeListenerType(), kL, w);
  e.Unreachable("p:443");
  EXPECT_EQ(e.client->channel_count(), 2u);
  e.client->CancelWatch(id);
  EXPECT_EQ(e.client->channel_count(), 0u);
  EXPECT_EQ(e.factory->live_transport_count(), 0u);
  e.Watch(FakeListenerType(), kL);
  EXPECT_THAT(e.client->ChannelServerUris(), ElementsAre("p:443"));
}

}  // namespace
}  // namespace testing
}  // namespace client
}  // namespace xdsfed
