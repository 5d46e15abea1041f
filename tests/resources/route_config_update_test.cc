// An RDS update decoded against the value the client holds
// (RouteConfigResourceType().DecodeUpdate,
// internal::FastDecodeRouteConfigUpdate in lib/resources/route_config_fast.h):
// whatever it skips, the result is Decode's. Sources: the contract in
// route_config_fast.h and resource_type.h (DecodeUpdate), the harness's RDS
// push (../shared/peers/tools/ eds_snapshot.js rdsScenario: one route's timeout
// toggled among 10,000 hosts), and route_config_test.cc's validation rules.
#include <memory>
#include <string>

#include "envoy/config/route/v3/route.pb.h"
#include "gtest/gtest.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"
#include "lib/resources/route_config_fast.h"

namespace xdsfed {
namespace resources {
namespace {

namespace route_pb = envoy::config::route::v3;
using Outcome = internal::RouteConfigUpdate;

route_pb::VirtualHost* AddHost(route_pb::RouteConfiguration* rc,
                               const std::string& domain,
                               const std::string& cluster) {
  auto* vh = rc->add_virtual_hosts();
  vh->set_name("vh-" + domain);
  vh->add_domains(domain);
  auto* route = vh->add_routes();
  route->mutable_match()->set_prefix("");
  route->mutable_route()->set_cluster(cluster);
  return vh;
}

// Three hosts, the last one the harness's "real" host with a route timeout.
route_pb::RouteConfiguration Base() {
  route_pb::RouteConfiguration rc;
  rc.set_name("rc");
  AddHost(&rc, "a.example.com", "ca");
  AddHost(&rc, "b.example.com", "cb");
  AddHost(&rc, "*", "real")
      ->mutable_routes(0)
      ->mutable_route()
      ->mutable_timeout()
      ->set_seconds(1);
  return rc;
}

// A host the fast path refuses (a route with query_parameters, which it
// leaves to libprotobuf) but that is valid: gRPC ignores that route.
void AddHostOnlyLibprotobufTakes(route_pb::RouteConfiguration* rc) {
  auto* vh = AddHost(rc, "q.example.com", "cq");
  auto* ignored = vh->add_routes();
  ignored->mutable_match()->set_prefix("/q/");
  ignored->mutable_match()->add_query_parameters()->set_name("debug");
  ignored->mutable_route()->set_cluster("cq2");
}

const RouteConfig& ValueOf(const DecodeResult& r) {
  return *XdsResourceType<RouteConfig>::Cast(r.value->get());
}

struct UpdateCase {
  const char* name;
  void (*change)(route_pb::RouteConfiguration* rc);  // the update, from Base
  Outcome want;
  // Base gets the host only the libprotobuf path reads, before `change`.
  bool with_libprotobuf_host = false;
};

const UpdateCase kUpdateCases[] = {
    {"same bytes", [](route_pb::RouteConfiguration*) {}, Outcome::kUnchanged},
    {"harness push: a route timeout (not kept in the value) toggles",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(2)
           ->mutable_routes(0)
           ->mutable_route()
           ->mutable_timeout()
           ->set_seconds(2);
     },
     Outcome::kUnchanged},
    {"an unknown top-level field is added",
     [](route_pb::RouteConfiguration* rc) {
       rc->GetReflection()->MutableUnknownFields(rc)->AddVarint(99, 7);
     },
     Outcome::kUnchanged},
    {"a host's cluster changes",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(1)
           ->mutable_routes(0)
           ->mutable_route()
           ->set_cluster("cb2");
     },
     Outcome::kDecoded},
    {"a host's domain changes",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(0)->set_domains(0, "a2.example.com");
     },
     Outcome::kDecoded},
    {"the configuration's name changes",
     [](route_pb::RouteConfiguration* rc) { rc->set_name("rc2"); },
     Outcome::kDecoded},
    {"a host is appended",
     [](route_pb::RouteConfiguration* rc) {
       AddHost(rc, "c.example.com", "cc");
     },
     Outcome::kDecoded},
    {"the last host is removed",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts()->RemoveLast();
     },
     Outcome::kDecoded},
    {"two hosts swap places",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts()->SwapElements(0, 1);
     },
     Outcome::kDecoded},
    {"a changed host is invalid (no domains): the full decode NACKs",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(1)->clear_domains();
     },
     Outcome::kGaveUp},
    {"cluster_specifier_plugins appear: left to libprotobuf",
     [](route_pb::RouteConfiguration* rc) {
       rc->add_cluster_specifier_plugins();
     },
     Outcome::kGaveUp},
    {"a host only libprotobuf reads is kept from the value",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(2)
           ->mutable_routes(0)
           ->mutable_route()
           ->mutable_timeout()
           ->set_seconds(2);
     },
     Outcome::kUnchanged, /*with_libprotobuf_host=*/true},
    {"a host only libprotobuf reads, kept while another changes",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(0)
           ->mutable_routes(0)
           ->mutable_route()
           ->set_cluster("ca2");
     },
     Outcome::kDecoded, /*with_libprotobuf_host=*/true},
    {"the host only libprotobuf reads changes: the full decode runs",
     [](route_pb::RouteConfiguration* rc) {
       rc->mutable_virtual_hosts(3)->set_name("q2");
     },
     Outcome::kGaveUp, /*with_libprotobuf_host=*/true},
};

TEST(RouteConfigUpdateTest, UpdatesTable) {
  ASSERT_TRUE(internal::RouteConfigFastPathAvailable());
  const auto& type = RouteConfigResourceType();
  for (const UpdateCase& c : kUpdateCases) {
    SCOPED_TRACE(c.name);
    route_pb::RouteConfiguration before = Base();
    if (c.with_libprotobuf_host) AddHostOnlyLibprotobufTakes(&before);
    route_pb::RouteConfiguration after = before;
    c.change(&after);
    const auto before_bytes =
        std::make_shared<const std::string>(before.SerializeAsString());
    const std::string after_bytes = after.SerializeAsString();
    const DecodeResult held = type.Decode({}, *before_bytes);
    ASSERT_TRUE(held.value.ok()) << held.value.status();

    RouteConfig out;
    EXPECT_EQ(internal::FastDecodeRouteConfigUpdate(after_bytes, ValueOf(held),
                                                    *before_bytes, &out),
              c.want);

    // Through the type, as the XdsClient calls it: Decode's answer.
    std::string looked_up;
    const PreviousLookup previous = [&](absl::string_view name) {
      looked_up = std::string(name);
      return PreviousResource{*held.value, before_bytes};
    };
    const DecodeResult update = type.DecodeUpdate({}, after_bytes, previous);
    const DecodeResult full = type.Decode({}, after_bytes);
    EXPECT_EQ(looked_up, after.name());
    EXPECT_EQ(update.name, full.name);
    ASSERT_EQ(update.value.ok(), full.value.ok());
    if (!full.value.ok()) {
      EXPECT_EQ(update.value.status(), full.value.status());
      continue;
    }
    EXPECT_TRUE(ValueOf(update) == ValueOf(full))
        << "update: " << ValueOf(update).ToJson().toStyledString()
        << "\nfull: " << ValueOf(full).ToJson().toStyledString();
    // An unchanged value comes back as the held pointer, so the client's
    // equality check is free and no watcher is told.
    EXPECT_EQ(update.value->get() == held.value->get(),
              c.want == Outcome::kUnchanged);
    if (c.want == Outcome::kDecoded) {
      EXPECT_TRUE(out == ValueOf(full));
      EXPECT_FALSE(ValueOf(full) == ValueOf(held));
    }
  }
}

// The previous bytes and value must belong together; if they do not (a
// caller's mistake), the update is decoded in full rather than trusted.
TEST(RouteConfigUpdateTest, PreviousBytesNotOfTheValueGiveUp) {
  const auto& type = RouteConfigResourceType();
  route_pb::RouteConfiguration two = Base();
  two.mutable_virtual_hosts()->RemoveLast();
  const std::string three_bytes = Base().SerializeAsString();
  const std::string two_bytes = two.SerializeAsString();
  const DecodeResult three_value = type.Decode({}, three_bytes);
  const DecodeResult two_value = type.Decode({}, two_bytes);
  ASSERT_TRUE(three_value.value.ok());
  ASSERT_TRUE(two_value.value.ok());
  RouteConfig out;
  // Bytes with a host more than the value.
  EXPECT_EQ(internal::FastDecodeRouteConfigUpdate(
                three_bytes, ValueOf(two_value), three_bytes, &out),
            Outcome::kGaveUp);
  // Bytes with a host fewer.
  EXPECT_EQ(internal::FastDecodeRouteConfigUpdate(
                three_bytes, ValueOf(three_value), two_bytes, &out),
            Outcome::kGaveUp);
  // Bytes that do not read.
  EXPECT_EQ(internal::FastDecodeRouteConfigUpdate(
                three_bytes, ValueOf(three_value), "\xff", &out),
            Outcome::kGaveUp);
}

// When most hosts changed, one pass of the plain fast path is cheaper than
// decoding them here and copying the rest: the update gives up (and Decode,
// which DecodeUpdate then runs, gives the value).
TEST(RouteConfigUpdateTest, MostHostsChangedGivesUp) {
  const auto& type = RouteConfigResourceType();
  route_pb::RouteConfiguration before;
  before.set_name("rc");
  for (int i = 0; i < 40; ++i) {
    AddHost(&before, "h" + std::to_string(i) + ".example.com", "c");
  }
  const std::string before_bytes = before.SerializeAsString();
  const DecodeResult held = type.Decode({}, before_bytes);
  ASSERT_TRUE(held.value.ok());
  struct Case {
    int step;  // hosts 0, step, 2 * step, ... get another cluster
    Outcome want;
  };
  // One host; every other one (half, spread out); all of them.
  for (const Case& c : {Case{40, Outcome::kDecoded}, Case{2, Outcome::kDecoded},
                        Case{1, Outcome::kGaveUp}}) {
    SCOPED_TRACE(c.step);
    route_pb::RouteConfiguration after = before;
    for (int i = 0; i < 40; i += c.step) {
      after.mutable_virtual_hosts(i)
          ->mutable_routes(0)
          ->mutable_route()
          ->set_cluster("c2");
    }
    RouteConfig out;
    EXPECT_EQ(internal::FastDecodeRouteConfigUpdate(
                  after.SerializeAsString(), ValueOf(held), before_bytes, &out),
              c.want);
  }
}

// No previous value, or one of another type: Decode.
TEST(RouteConfigUpdateTest, NothingHeldDecodesInFull) {
  const auto& type = RouteConfigResourceType();
  const std::string bytes = Base().SerializeAsString();
  const DecodeResult full = type.Decode({}, bytes);
  ASSERT_TRUE(full.value.ok());
  int lookups = 0;
  const PreviousLookup none = [&](absl::string_view) {
    ++lookups;
    return PreviousResource{};
  };
  const DecodeResult update = type.DecodeUpdate({}, bytes, none);
  EXPECT_EQ(lookups, 1);
  ASSERT_TRUE(update.value.ok());
  EXPECT_TRUE(ValueOf(update) == ValueOf(full));
  EXPECT_NE(update.value->get(), full.value->get());
  // Bytes that carry no name look nothing up.
  const DecodeResult bad = type.DecodeUpdate({}, "\xff", none);
  EXPECT_EQ(lookups, 1);
  EXPECT_EQ(bad.value.status(), type.Decode({}, "\xff").value.status());
}

TEST(RouteConfigUpdateTest, PeekNameReadsTheFirstNameField) {
  route_pb::RouteConfiguration rc = Base();
  absl::string_view name;
  const std::string bytes = rc.SerializeAsString();
  ASSERT_TRUE(internal::PeekRouteConfigName(bytes, &name));
  EXPECT_EQ(name, "rc");
  rc.clear_name();
  EXPECT_FALSE(internal::PeekRouteConfigName(rc.SerializeAsString(), &name));
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
