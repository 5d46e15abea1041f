// The ClusterLoadAssignment wire-reader fast path (lib/resources/
// endpoint_fast.h) against the libprotobuf path it stands in for: on every
// input either the fast path gives up, or both give equal values; and
// Decode answers exactly as the libprotobuf path alone. Sources: the
// protobuf encoding spec (protobuf.dev/programming-guides/encoding) and
// libprotobuf 3.21's parser; the validation rules are endpoint_test.cc's
// (gRPC C-core 1.51 xds_endpoint.cc).
#include "lib/resources/endpoint_fast.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {
namespace {

namespace endpoint_pb = envoy::config::endpoint::v3;
namespace core_pb = envoy::config::core::v3;

class QuietProtobufLogs : public ::testing::Environment {
 public:
  void SetUp() override { google::protobuf::SetLogHandler(nullptr); }
};
const auto* const kQuiet =
    ::testing::AddGlobalTestEnvironment(new QuietProtobufLogs);

// One locality (weight 1) with one HEALTHY endpoint 10.0.0.1:80.
endpoint_pb::ClusterLoadAssignment BaseAssignment() {
  endpoint_pb::ClusterLoadAssignment cla;
  cla.set_cluster_name("eds");
  auto* locality = cla.add_endpoints();
  locality->mutable_locality()->set_region("r");
  locality->mutable_load_balancing_weight()->set_value(1);
  auto* lb = locality->add_lb_endpoints();
  lb->set_health_status(core_pb::HEALTHY);
  auto* socket =
      lb->mutable_endpoint()->mutable_address()->mutable_socket_address();
  socket->set_address("10.0.0.1");
  socket->set_port_value(80);
  return cla;
}

endpoint_pb::LbEndpoint* AddEndpoint(endpoint_pb::LocalityLbEndpoints* l,
                                     const std::string& ip, uint32_t port,
                                     core_pb::HealthStatus health) {
  auto* lb = l->add_lb_endpoints();
  lb->set_health_status(health);
  auto* socket =
      lb->mutable_endpoint()->mutable_address()->mutable_socket_address();
  socket->set_address(ip);
  socket->set_port_value(port);
  return lb;
}

// Checks the contract on `bytes`; returns whether the fast path took them.
bool CheckBytes(const std::string& bytes) {
  std::string slow_name;
  const absl::StatusOr<EndpointResource> slow =
      internal::DecodeClusterLoadAssignmentWithProtobuf(bytes, &slow_name);
  EndpointResource fast;
  const bool took = internal::FastDecodeClusterLoadAssignment(bytes, &fast);
  if (took) {
    EXPECT_TRUE(slow.ok()) << slow.status();
    if (slow.ok()) {
      EXPECT_TRUE(fast == *slow)
          << "fast: " << fast.ToJson().toStyledString()
          << "\nslow: " << slow->ToJson().toStyledString();
      EXPECT_EQ(fast.cluster_name, slow_name);
    }
  }
  const DecodeResult both = EndpointResourceType().Decode({}, bytes);
  EXPECT_EQ(both.name, slow_name);
  EXPECT_EQ(both.value.ok(), slow.ok());
  if (both.value.ok() && slow.ok()) {
    EXPECT_TRUE(*::xdsfed::resources::EndpointResourceType().Cast(
                    both.value->get()) == *slow);
  } else {
    EXPECT_EQ(both.value.status(), slow.status());
  }
  return took;
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
// LbEndpoint bytes for ip:port plus `extra`.
std::string LbEndpointBytes(const std::string& ip, uint64_t port,
                            const std::string& extra = "") {
  return Len(1, Len(1, Len(1, Len(2, ip) + VarintField(3, port)))) + extra;
}
// A ClusterLoadAssignment with one locality {region "r", weight 1} holding
// the given LbEndpoint bytes.
std::string InLocality(const std::string& lb_endpoints) {
  return Len(1, "eds") +
         Len(2, Len(1, Len(1, "r")) + lb_endpoints + Len(3, VarintField(1, 1)));
}

// ------------------------------------------------------------- tests

TEST(EndpointFastTest, AvailableForTheseProtos) {
  for (const std::string& m : internal::EndpointFastPathMismatches()) {
    ADD_FAILURE() << m;
  }
  EXPECT_TRUE(internal::EndpointFastPathAvailable());
}

// Assignments a serializer writes: `fast` says whether the fast path must
// take them (false: left to libprotobuf, which reports the error or takes
// them itself).
TEST(EndpointFastTest, AssignmentsTable) {
  using Edit = std::function<void(endpoint_pb::ClusterLoadAssignment*)>;
  struct Case {
    const char* name;
    Edit edit;
    bool fast;
  };
  auto first = [](endpoint_pb::ClusterLoadAssignment* cla) {
    return cla->mutable_endpoints(0);
  };
  const Case kCases[] = {
      {"base", [](auto*) {}, true},
      {"empty assignment", [](auto* cla) { cla->Clear(); }, true},
      {"UNKNOWN health, endpoint weight 3, IPv6 and scope",
       [&](auto* cla) {
         auto* lb = cla->mutable_endpoints(0)->mutable_lb_endpoints(0);
         lb->set_health_status(core_pb::UNKNOWN);
         lb->mutable_load_balancing_weight()->set_value(3);
         AddEndpoint(first(cla), "2001:0db8:0:0::1", 443, core_pb::HEALTHY);
         AddEndpoint(first(cla), "fe80::1%eth0", 0, core_pb::HEALTHY);
       },
       true},
      // xds_endpoint.cc: endpoints in another health state are skipped
      // before anything else is looked at.
      {"UNHEALTHY, DRAINING, TIMEOUT, DEGRADED skipped, even if invalid",
       [&](auto* cla) {
         AddEndpoint(first(cla), "10.0.0.2", 80, core_pb::UNHEALTHY);
         AddEndpoint(first(cla), "not-an-ip", 80, core_pb::DRAINING);
         AddEndpoint(first(cla), "10.0.0.3", 70000, core_pb::TIMEOUT);
         first(cla)->add_lb_endpoints()->set_health_status(core_pb::DEGRADED);
       },
       true},
      {"unknown health value 7 skipped",
       [&](auto* cla) {
         first(cla)->add_lb_endpoints()->set_health_status(
             static_cast<core_pb::HealthStatus>(7));
       },
       true},
      {"locality without weight skipped with its invalid endpoints",
       [&](auto* cla) {
         auto* l = cla->add_endpoints();
         AddEndpoint(l, "bad", 80, core_pb::HEALTHY);
         auto* l0 = cla->add_endpoints();
         l0->mutable_load_balancing_weight()->set_value(0);
       },
       true},
      {"priorities 0 and 1, several localities, sub_zone, drops",
       [&](auto* cla) {
         auto* l = cla->add_endpoints();
         l->set_priority(1);
         l->mutable_locality()->set_zone("z");
         l->mutable_locality()->set_sub_zone("s");
         l->mutable_load_balancing_weight()->set_value(7);
         AddEndpoint(l, "127.0.0.1", 1, core_pb::HEALTHY);
         auto* l2 = cla->add_endpoints();
         l2->mutable_locality()->set_region("r2");
         l2->mutable_load_balancing_weight()->set_value(2);
         auto* policy = cla->mutable_policy();
         auto* d = policy->add_drop_overloads();
         d->set_category("lb");
         d->mutable_drop_percentage()->set_numerator(5);
         d = policy->add_drop_overloads();
         d->set_category("throttle");
         d->mutable_drop_percentage()->set_numerator(300);
         d->mutable_drop_percentage()->set_denominator(
             envoy::type::v3::FractionalPercent::TEN_THOUSAND);
         d = policy->add_drop_overloads();
         d->set_category("all");
         d->mutable_drop_percentage()->set_numerator(4000000);
         d->mutable_drop_percentage()->set_denominator(
             envoy::type::v3::FractionalPercent::MILLION);
         policy->mutable_overprovisioning_factor()->set_value(140);
       },
       true},
      {"hostname and pipe-free address fields",
       [&](auto* cla) {
         auto* lb = first(cla)->mutable_lb_endpoints(0);
         lb->mutable_endpoint()->set_hostname("h.example.com");
         auto* socket = lb->mutable_endpoint()
                            ->mutable_address()
                            ->mutable_socket_address();
         socket->set_resolver_name("r");
         socket->set_ipv4_compat(true);
         socket->set_protocol(core_pb::SocketAddress::UDP);
       },
       true},
      // Errors (endpoint_test.cc has their messages): left to libprotobuf.
      {"endpoint weight 0",
       [&](auto* cla) {
         first(cla)->mutable_lb_endpoints(0)->mutable_load_balancing_weight();
       },
       false},
      {"no endpoint",
       [&](auto* cla) {
         first(cla)->mutable_lb_endpoints(0)->clear_endpoint();
       },
       false},
      {"pipe address",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_pipe()
             ->set_path("/tmp/s");
       },
       false},
      {"named port",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->set_named_port("http");
       },
       false},
      {"port 65536",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->set_port_value(65536);
       },
       false},
      {"host name",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->set_address("localhost");
       },
       false},
      // An absent address reads as an empty view (data() may be null:
      // the UBSan finding of endpoint_fast_path_fuzzer's first run).
      {"socket address without address",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->clear_address();
       },
       false},
      {"leading zero IPv4",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->set_address("10.0.0.01");
       },
       false},
      {"NUL inside the address",
       [&](auto* cla) {
         first(cla)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->set_address(std::string("10.0.0.1\0x", 10));
       },
       false},
      {"locality missing", [&](auto* cla) { first(cla)->clear_locality(); },
       false},
      {"sparse priority", [&](auto* cla) { first(cla)->set_priority(1); },
       false},
      {"duplicate locality",
       [&](auto* cla) { *cla->add_endpoints() = cla->endpoints(0); }, false},
      {"locality weights overflow uint32",
       [&](auto* cla) {
         first(cla)->mutable_load_balancing_weight()->set_value(0xFFFFFFFF);
         auto* l = cla->add_endpoints();
         l->mutable_locality()->set_region("r2");
         l->mutable_load_balancing_weight()->set_value(1);
       },
       false},
      {"drop without category",
       [&](auto* cla) {
         cla->mutable_policy()->add_drop_overloads()->mutable_drop_percentage();
       },
       false},
      {"drop without percentage",
       [&](auto* cla) {
         cla->mutable_policy()->add_drop_overloads()->set_category("c");
       },
       false},
      {"drop with unknown denominator",
       [&](auto* cla) {
         auto* d = cla->mutable_policy()->add_drop_overloads();
         d->set_category("c");
         d->mutable_drop_percentage()->set_denominator(
             static_cast<envoy::type::v3::FractionalPercent::DenominatorType>(
                 9));
       },
       false},
      {"metadata (not walked)",
       [&](auto* cla) {
         (*first(cla)
               ->mutable_lb_endpoints(0)
               ->mutable_metadata()
               ->mutable_filter_metadata())["k"];
       },
       false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    endpoint_pb::ClusterLoadAssignment cla = BaseAssignment();
    c.edit(&cla);
    EXPECT_EQ(CheckBytes(cla.SerializeAsString()), c.fast);
  }
}

// Inputs a serializer does not write (encoding spec: unknown fields are
// skipped; a singular field twice is last-one-wins or merged; proto3
// strings must be UTF-8, also inside endpoints gRPC skips).
TEST(EndpointFastTest, WireLevelTable) {
  const std::string kHealthy = VarintField(2, 1);
  const std::string kUnhealthy = VarintField(2, 2);
  struct Case {
    const char* name;
    std::string bytes;
    bool fast;
  };
  const Case kCases[] = {
      {"empty input", "", true},
      {"plain", InLocality(Len(2, LbEndpointBytes("1.2.3.4", 5))), true},
      {"unknown fields of each wire type",
       VarintField(99, 5) + Key(98, 1) + std::string(8, 'x') + Key(97, 5) +
           std::string(4, 'y') + Len(96, "\xff") +
           InLocality(Len(2, LbEndpointBytes("1.2.3.4", 5, Len(50, "z")))),
       true},
      {"health as a 10-byte varint (-1: skipped)",
       InLocality(
           Len(2, LbEndpointBytes("1.2.3.4", 5, VarintField(2, ~uint64_t{0})))),
       true},
      {"health 2^32 + 1 (stored as HEALTHY)",
       InLocality(Len(
           2, LbEndpointBytes("1.2.3.4", 5, VarintField(2, (1ull << 32) + 1)))),
       true},
      {"port 2^32 + 80 (stored as 80)",
       InLocality(Len(2, LbEndpointBytes("1.2.3.4", (1ull << 32) + 80))), true},
      {"health twice (last wins)",
       InLocality(Len(2, LbEndpointBytes("1.2.3.4", 5, kUnhealthy + kHealthy))),
       false},
      {"endpoint twice (merged)",
       InLocality(Len(
           2, LbEndpointBytes("1.2.3.4", 5) + LbEndpointBytes("1.2.3.5", 6))),
       false},
      {"port_value then named_port (oneof replaced)",
       InLocality(
           Len(2, Len(1, Len(1, Len(1, Len(2, "1.2.3.4") + VarintField(3, 5) +
                                           Len(4, "http")))))),
       false},
      {"invalid UTF-8 in a skipped endpoint's address",
       InLocality(Len(2, LbEndpointBytes("\xc0\xaf", 5, kUnhealthy))), false},
      {"invalid UTF-8 in a hostname",
       InLocality(Len(2, Len(1, Len(3, "\xff")))), false},
      {"truncated skipped endpoint",
       InLocality(Len(2, kUnhealthy + Key(1, 2) + Varint(9) + "ab")), false},
      {"known field, other wire type", InLocality(Len(2, Len(2, "x"))), false},
      {"group", Key(99, 3) + Key(99, 4), false},
      {"cluster name twice", Len(1, "a") + Len(1, "b"), false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CheckBytes(c.bytes), c.fast);
  }
}

// The shared harness's EDS scale case (../shared/peers eds_snapshot.js):
// endpoint 0 real, N-1 UNHEALTHY on distinct 127.1.x.y addresses, each with
// load_balancing_weight 1; and the all-HEALTHY variant.
TEST(EndpointFastTest, HarnessShapedAssignments) {
  for (bool all_healthy : {false, true}) {
    endpoint_pb::ClusterLoadAssignment cla;
    cla.set_cluster_name("lat-eds");
    auto* l = cla.add_endpoints();
    l->mutable_locality()->set_region("r1");
    l->mutable_locality()->set_zone("z1");
    l->mutable_locality()->set_sub_zone("s1");
    l->mutable_load_balancing_weight()->set_value(1);
    AddEndpoint(l, "127.0.0.1", 19301, core_pb::HEALTHY)
        ->mutable_load_balancing_weight()
        ->set_value(2);
    for (int i = 1; i < 2000; ++i) {
      AddEndpoint(l,
                  absl::StrCat("127.", 1 + i / 65536, ".", (i / 256) % 256, ".",
                               i % 256),
                  20000 + i % 20000,
                  all_healthy ? core_pb::HEALTHY : core_pb::UNHEALTHY)
          ->mutable_load_balancing_weight()
          ->set_value(1);
    }
    EXPECT_TRUE(CheckBytes(cla.SerializeAsString()));
    EndpointResource value;
    ASSERT_TRUE(internal::FastDecodeClusterLoadAssignment(
        cla.SerializeAsString(), &value));
    EXPECT_EQ(
        value.priorities.at(0).localities.begin()->second.endpoints.size(),
        all_healthy ? 2000u : 1u);
  }
}

// A small in-test differential fuzz: byte flips, insertions and
// truncations of valid assignments (the fuzzer does this at scale).
TEST(EndpointFastTest, MutatedInputsAgree) {
  std::vector<std::string> seeds;
  {
    endpoint_pb::ClusterLoadAssignment cla = BaseAssignment();
    AddEndpoint(cla.mutable_endpoints(0), "10.0.0.2", 81, core_pb::UNHEALTHY);
    AddEndpoint(cla.mutable_endpoints(0), "::1", 82, core_pb::UNKNOWN)
        ->mutable_load_balancing_weight()
        ->set_value(4);
    auto* l = cla.add_endpoints();
    l->set_priority(1);
    l->mutable_locality()->set_zone("z");
    l->mutable_load_balancing_weight()->set_value(3);
    AddEndpoint(l, "192.168.1.1", 443, core_pb::HEALTHY);
    auto* d = cla.mutable_policy()->add_drop_overloads();
    d->set_category("c");
    d->mutable_drop_percentage()->set_numerator(20);
    seeds.push_back(cla.SerializeAsString());
    seeds.push_back(BaseAssignment().SerializeAsString());
  }
  std::mt19937 rng(5);
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
