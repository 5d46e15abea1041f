// The Cluster wire-reader fast path (lib/resources/cluster_fast.h) against
// the libprotobuf path it stands in for: on every input and both federation
// settings either the fast path gives up, or both give equal values; and
// Decode answers exactly as the libprotobuf path alone. Sources: the
// protobuf encoding spec (protobuf.dev/programming-guides/encoding) and
// libprotobuf 3.21's parser; the validation rules are cluster_test.cc's
// (gRPC C-core 1.51 xds_cluster.cc, A37, A47).
#include "lib/resources/cluster_fast.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "lib/resources/cluster.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {
namespace {

using envoy::config::cluster::v3::Cluster;

class QuietProtobufLogs : public ::testing::Environment {
 public:
  void SetUp() override { google::protobuf::SetLogHandler(nullptr); }
};
const auto* const kQuiet =
    ::testing::AddGlobalTestEnvironment(new QuietProtobufLogs);

Cluster BaseCluster() {
  Cluster cluster;
  cluster.set_name("c");
  cluster.set_type(Cluster::EDS);
  cluster.mutable_eds_cluster_config()->mutable_eds_config()->mutable_ads();
  return cluster;
}

void MakeAggregate(Cluster* cluster, const std::vector<std::string>& children,
                   const std::string& type_url =
                       "type.googleapis.com/"
                       "envoy.extensions.clusters.aggregate.v3.ClusterConfig") {
  cluster->clear_eds_cluster_config();
  envoy::extensions::clusters::aggregate::v3::ClusterConfig config;
  for (const std::string& child : children) config.add_clusters(child);
  cluster->mutable_cluster_type()->set_name("envoy.clusters.aggregate");
  auto* any = cluster->mutable_cluster_type()->mutable_typed_config();
  any->set_type_url(type_url);
  any->set_value(config.SerializeAsString());
}

// Checks the contract on `bytes` under both federation settings; returns
// whether the fast path took them (with federation on).
bool CheckBytes(const std::string& bytes) {
  bool took_federation = false;
  for (bool federation : {false, true}) {
    DecodeContext context;
    context.federation = federation;
    std::string slow_name;
    const absl::StatusOr<ClusterResource> slow =
        internal::DecodeClusterWithProtobuf(context, bytes, &slow_name);
    ClusterResource fast;
    const bool took = internal::FastDecodeCluster(context, bytes, &fast);
    if (took) {
      EXPECT_TRUE(slow.ok()) << slow.status();
      if (slow.ok()) {
        EXPECT_TRUE(fast == *slow)
            << "fast: " << fast.ToJson().toStyledString()
            << "\nslow: " << slow->ToJson().toStyledString();
        EXPECT_EQ(fast.name, slow_name);
      }
    }
    const DecodeResult both = ClusterResourceType().Decode(context, bytes);
    EXPECT_EQ(both.name, slow_name);
    EXPECT_EQ(both.value.ok(), slow.ok());
    if (both.value.ok() && slow.ok()) {
      EXPECT_TRUE(*::xdsfed::resources::ClusterResourceType().Cast(
                      both.value->get()) == *slow);
    } else {
      EXPECT_EQ(both.value.status(), slow.status());
    }
    if (federation) took_federation = took;
  }
  return took_federation;
}

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Key(uint32_t field, uint32_t type) {
  return Varint((uint64_t{field} << 3) | type);
}
std::string Len(uint32_t field, const std::string& bytes) {
  return Key(field, 2) + Varint(bytes.size()) + bytes;
}
std::string VarintField(uint32_t field, uint64_t v) {
  return Key(field, 0) + Varint(v);
}
// name "c", type EDS, eds_cluster_config {eds_config {ads {}}} + `extra`.
std::string EdsCluster(const std::string& extra = "") {
  return Len(1, "c") + VarintField(2, 3) + Len(3, Len(1, Len(3, ""))) + extra;
}

// ------------------------------------------------------------- tests

TEST(ClusterFastTest, AvailableForTheseProtos) {
  for (const std::string& m : internal::ClusterFastPathMismatches()) {
    ADD_FAILURE() << m;
  }
  EXPECT_TRUE(internal::ClusterFastPathAvailable());
}

// Clusters a serializer writes: `fast` says whether the fast path must take
// them (false: left to libprotobuf).
TEST(ClusterFastTest, ClustersTable) {
  using Edit = std::function<void(Cluster*)>;
  struct Case {
    const char* name;
    Edit edit;
    bool fast;
  };
  const Case kCases[] = {
      {"base (EDS over ADS)", [](auto*) {}, true},
      {"EDS over self, service name, ring hash, circuit breakers, lrs self",
       [](auto* c) {
         c->mutable_eds_cluster_config()->mutable_eds_config()->mutable_self();
         c->mutable_eds_cluster_config()->set_service_name("eds-1");
         c->mutable_eds_cluster_config()
             ->mutable_eds_config()
             ->mutable_initial_fetch_timeout()
             ->set_seconds(3);
         c->mutable_eds_cluster_config()
             ->mutable_eds_config()
             ->set_resource_api_version(envoy::config::core::v3::V3);
         c->set_lb_policy(Cluster::RING_HASH);
         c->mutable_connect_timeout()->set_seconds(5);
         auto* cb = c->mutable_circuit_breakers();
         auto* high = cb->add_thresholds();
         high->set_priority(envoy::config::core::v3::HIGH);
         high->mutable_max_requests()->set_value(1);
         auto* def = cb->add_thresholds();
         def->mutable_max_requests()->set_value(77);
         def->mutable_max_connections()->set_value(3);
         cb->add_thresholds()->mutable_max_requests()->set_value(99);
         cb->add_per_host_thresholds()->mutable_max_retries()->set_value(2);
         c->mutable_lrs_server()->mutable_self();
       },
       true},
      {"DEFAULT thresholds without max_requests",
       [](auto* c) {
         c->mutable_circuit_breakers()->add_thresholds();
         c->mutable_circuit_breakers()
             ->add_thresholds()
             ->mutable_max_requests()
             ->set_value(5);
       },
       true},
      // A47 §CDS Resource Validation: checked with federation on only.
      {"xdstp name without service name",
       [](auto* c) {
         c->set_name("xdstp://a.com/envoy.config.cluster.v3.Cluster/c");
       },
       false},
      {"xdstp name with service name",
       [](auto* c) {
         c->set_name("xdstp://a.com/envoy.config.cluster.v3.Cluster/c");
         c->mutable_eds_cluster_config()->set_service_name(
             "xdstp://a.com/"
             "envoy.config.endpoint.v3.ClusterLoadAssignment/c");
       },
       true},
      // A37 §Validation.
      {"aggregate",
       [](auto* c) {
         MakeAggregate(c, {"a", "b", "\xc3\xbc"});
       },
       true},
      {"aggregate, type URL without prefix",
       [](auto* c) {
         MakeAggregate(c, {"a"},
                       "envoy.extensions.clusters.aggregate.v3.ClusterConfig");
       },
       true},
      {"aggregate with leftover eds_cluster_config",
       [](auto* c) {
         MakeAggregate(c, {"a"});
         c->mutable_eds_cluster_config()->mutable_eds_config()->mutable_ads();
       },
       true},
      {"aggregate without children", [](auto* c) { MakeAggregate(c, {}); },
       false},
      {"aggregate of another type URL",
       [](auto* c) { MakeAggregate(c, {"a"}, "type.googleapis.com/x.Y"); },
       false},
      {"aggregate without typed_config",
       [](auto* c) {
         MakeAggregate(c, {"a"});
         c->mutable_cluster_type()->clear_typed_config();
       },
       false},
      {"aggregate config that does not parse",
       [](auto* c) {
         MakeAggregate(c, {"a"});
         c->mutable_cluster_type()->mutable_typed_config()->set_value("\x0a");
       },
       false},
      {"aggregate child not UTF-8",
       [](auto* c) {
         MakeAggregate(c, {"a"});
         c->mutable_cluster_type()->mutable_typed_config()->set_value(
             "\x0a\x01\xff");
       },
       false},
      // Left to libprotobuf: LOGICAL_DNS and every error.
      {"LOGICAL_DNS",
       [](auto* c) {
         c->set_type(Cluster::LOGICAL_DNS);
         auto* socket = c->mutable_load_assignment()
                            ->add_endpoints()
                            ->add_lb_endpoints()
                            ->mutable_endpoint()
                            ->mutable_address()
                            ->mutable_socket_address();
         socket->set_address("localhost");
         socket->set_port_value(80);
       },
       false},
      {"STATIC", [](auto* c) { c->set_type(Cluster::STATIC); }, false},
      {"no discovery type", [](auto* c) { c->clear_cluster_discovery_type(); },
       false},
      {"no eds_cluster_config", [](auto* c) { c->clear_eds_cluster_config(); },
       false},
      {"no eds_config",
       [](auto* c) { c->mutable_eds_cluster_config()->clear_eds_config(); },
       false},
      {"eds_config path",
       [](auto* c) {
         c->mutable_eds_cluster_config()->mutable_eds_config()->set_path("/p");
       },
       false},
      {"LEAST_REQUEST",
       [](auto* c) { c->set_lb_policy(Cluster::LEAST_REQUEST); }, false},
      {"transport_socket",
       [](auto* c) { c->mutable_transport_socket()->set_name("tls"); }, false},
      {"lrs_server ads",
       [](auto* c) { c->mutable_lrs_server()->mutable_ads(); }, false},
      {"metadata",
       [](auto* c) {
         (*c->mutable_metadata()->mutable_filter_metadata())["k"];
       },
       false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Cluster cluster = BaseCluster();
    c.edit(&cluster);
    EXPECT_EQ(CheckBytes(cluster.SerializeAsString()), c.fast);
  }
}

// Inputs a serializer does not write (encoding spec: unknown fields are
// skipped; a singular field twice is last-one-wins or merged, a second
// oneof member replaces the first; proto3 strings must be UTF-8).
TEST(ClusterFastTest, WireLevelTable) {
  struct Case {
    const char* name;
    std::string bytes;
    bool fast;
  };
  const Case kCases[] = {
      {"plain", EdsCluster(), true},
      {"unknown fields of each wire type",
       EdsCluster(VarintField(99, 5) + Key(98, 1) + std::string(8, 'x') +
                  Key(97, 5) + std::string(4, 'y') + Len(96, "\xff")),
       true},
      {"type EDS as 2^32 + 3",
       Len(1, "c") + VarintField(2, (1ull << 32) + 3) +
           Len(3, Len(1, Len(3, ""))),
       true},
      {"type twice (last wins)", EdsCluster(VarintField(2, 2)), false},
      {"type then cluster_type (oneof replaced)",
       EdsCluster(Len(38, Len(1, "x"))), false},
      {"eds_cluster_config twice (merged)", EdsCluster(Len(3, Len(2, "s"))),
       false},
      {"lb_policy twice", EdsCluster(VarintField(6, 2) + VarintField(6, 0)),
       false},
      {"invalid UTF-8 name",
       Len(1, "\xc0\xaf") + VarintField(2, 3) + Len(3, Len(1, Len(3, ""))),
       false},
      {"invalid UTF-8 service name",
       Len(1, "c") + VarintField(2, 3) +
           Len(3, Len(1, Len(3, "")) + Len(2, "\xff")),
       false},
      {"ads with unknown fields inside",
       Len(1, "c") + VarintField(2, 3) +
           Len(3, Len(1, Len(3, VarintField(9, 1) + Len(8, "zz")))),
       true},
      {"malformed connect_timeout", EdsCluster(Len(4, "\x08")), false},
      {"group", EdsCluster(Key(99, 3) + Key(99, 4)), false},
      {"truncated", EdsCluster().substr(0, 6), false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CheckBytes(c.bytes), c.fast);
  }
}

// A small in-test differential fuzz: byte flips, insertions and
// truncations of valid clusters (the fuzzer does this at scale).
TEST(ClusterFastTest, MutatedInputsAgree) {
  std::vector<std::string> seeds;
  {
    Cluster c = BaseCluster();
    c.mutable_eds_cluster_config()->set_service_name("eds");
    c.set_lb_policy(Cluster::RING_HASH);
    c.mutable_circuit_breakers()
        ->add_thresholds()
        ->mutable_max_requests()
        ->set_value(8);
    c.mutable_lrs_server()->mutable_self();
    seeds.push_back(c.SerializeAsString());
    Cluster a = BaseCluster();
    MakeAggregate(&a, {"x", "y"});
    seeds.push_back(a.SerializeAsString());
  }
  std::mt19937 rng(6);
  int took = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = seeds[i % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const size_t pos = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes[pos] = static_cast<char>(rng());
          break;
        case 1:
          bytes[pos] ^= static_cast<char>(1 << (rng() % 8));
          break;
        case 2:
          bytes.insert(pos, 1, static_cast<char>(rng()));
          break;
        case 3:
          bytes.resize(pos);
          break;
      }
    }
    took += CheckBytes(bytes);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "input: " << absl::CEscape(bytes);
      break;
    }
  }
  EXPECT_GT(took, 100);
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
