// Tests for lib/resources/endpoint.h: the ClusterLoadAssignment (EDS) rules
// of gRPC C-core 1.51 xds_endpoint.cc on resources built with our generated
// protos. Valid rows check the value through its JSON form.
#include "lib/resources/endpoint.h"

#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace resources {
namespace {

using envoy::config::endpoint::v3::ClusterLoadAssignment;
using envoy::config::endpoint::v3::LbEndpoint;
using envoy::config::endpoint::v3::LocalityLbEndpoints;

std::string Compact(const Json::Value& value) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  return Json::writeString(builder, value);
}

LocalityLbEndpoints* AddLocality(ClusterLoadAssignment* cla, const char* zone,
                                 uint32_t weight, uint32_t priority = 0) {
  LocalityLbEndpoints* locality = cla->add_endpoints();
  locality->mutable_locality()->set_region("r");
  locality->mutable_locality()->set_zone(zone);
  if (weight != 0) locality->mutable_load_balancing_weight()->set_value(weight);
  locality->set_priority(priority);
  return locality;
}

LbEndpoint* AddEndpoint(LocalityLbEndpoints* locality, const char* ip,
                        uint32_t port) {
  LbEndpoint* endpoint = locality->add_lb_endpoints();
  auto* socket_address =
      endpoint->mutable_endpoint()->mutable_address()->mutable_socket_address();
  socket_address->set_address(ip);
  socket_address->set_port_value(port);
  return endpoint;
}

envoy::type::v3::FractionalPercent* AddDrop(ClusterLoadAssignment* cla,
                                            const char* category,
                                            uint32_t numerator) {
  auto* drop = cla->mutable_policy()->add_drop_overloads();
  drop->set_category(category);
  drop->mutable_drop_percentage()->set_numerator(numerator);
  return drop->mutable_drop_percentage();
}

constexpr char kPrefix[] = "errors validating ClusterLoadAssignment resource: ";

// One locality "z" of weight 1 in priority 0 with endpoint 10.0.0.1:80.
ClusterLoadAssignment BaseCla() {
  ClusterLoadAssignment cla;
  cla.set_cluster_name("eds");
  AddEndpoint(AddLocality(&cla, "z", 1), "10.0.0.1", 80);
  return cla;
}

std::string LocalityJson(const char* zone, uint32_t weight,
                         const std::string& endpoints) {
  return absl::StrCat(R"({"endpoints":[)", endpoints,
                      R"(],"locality":{"region":"r","sub_zone":"",)",
                      R"("zone":")", zone, R"("},"weight":)", weight, "}");
}
std::string EndpointJson(const char* address, const char* health = "UNKNOWN",
                         uint32_t weight = 1) {
  return absl::StrCat(R"({"address":")", address, R"(","health_status":")",
                      health, R"(","load_balancing_weight":)", weight, "}");
}
std::string Priority(int priority, const std::string& localities) {
  return absl::StrCat(R"({"localities":[)", localities, R"(],"priority":)",
                      priority, "}");
}
std::string ClaJson(const std::string& priorities,
                    const std::string& drops = "") {
  return absl::StrCat(R"({"cluster_name":"eds","drop_categories":[)", drops,
                      R"(],"priorities":[)", priorities, "]}");
}
std::string Drop(const char* category, uint32_t ppm) {
  return absl::StrCat(R"({"category":")", category, R"(","parts_per_million":)",
                      ppm, "}");
}

struct Case {
  const char* source;
  std::function<void(ClusterLoadAssignment*)> mutate;
  std::string want;  // a JSON object: the value's ToJson(); else the error
};

TEST(EndpointTest, Validation) {
  const std::string kBase =
      ClaJson(Priority(0, LocalityJson("z", 1, EndpointJson("10.0.0.1:80"))));
  const std::string kEndpointPath =
      "field:endpoints[0].lb_endpoints[0].endpoint";
  const Case kCases[] = {
      {"gRPC 1.51 xds_endpoint.cc: one locality, one endpoint",
       [](ClusterLoadAssignment*) {}, kBase},
      // --- localities ---
      {"gRPC 1.51 LocalityParse: locality without weight gets no load",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->clear_load_balancing_weight();
       },
       ClaJson("")},
      {"gRPC 1.51 LocalityParse: weight 0 skipped before any other check",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->mutable_load_balancing_weight()->set_value(
             0);
         cla->mutable_endpoints(0)->clear_locality();
         cla->mutable_endpoints(0)->mutable_lb_endpoints(0)->clear_endpoint();
       },
       ClaJson("")},
      {"gRPC 1.51 LocalityParse: locality required",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->clear_locality();
       },
       std::string(kPrefix) +
           "[field:endpoints[0].locality error:field not present]"},
      {"gRPC 1.51 EdsResourceParse: priorities may arrive out of order",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->set_priority(1);
         AddEndpoint(AddLocality(cla, "y", 3, 0), "10.0.0.2", 81);
       },
       ClaJson(Priority(0, LocalityJson("y", 3, EndpointJson("10.0.0.2:81"))) +
               "," +
               Priority(1, LocalityJson("z", 1, EndpointJson("10.0.0.1:80"))))},
      {"gRPC 1.51 EdsResourceParse: localities sorted by name in a priority",
       [](ClusterLoadAssignment* cla) { AddLocality(cla, "a", 2); },
       ClaJson(
           Priority(0, LocalityJson("a", 2, "") + "," +
                           LocalityJson("z", 1, EndpointJson("10.0.0.1:80"))))},
      {"gRPC 1.51 EdsResourceParse: sparse priority list",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->set_priority(1);
       },
       std::string(kPrefix) +
           "[field:endpoints error:sparse priority list: priority 0 has no "
           "localities]"},
      {"gRPC 1.51 EdsResourceParse: sparse, huge priority (no allocation)",
       [](ClusterLoadAssignment* cla) {
         AddLocality(cla, "y", 1, 4000000000u);
       },
       std::string(kPrefix) +
           "[field:endpoints error:sparse priority list: priority 1 has no "
           "localities]"},
      {"gRPC 1.51 EdsResourceParse: skipped localities leave a gap",
       [](ClusterLoadAssignment* cla) {
         AddLocality(cla, "y", 0, 1);
         AddLocality(cla, "x", 1, 2);
       },
       std::string(kPrefix) +
           "[field:endpoints error:sparse priority list: priority 1 has no "
           "localities]"},
      {"gRPC 1.51 EdsResourceParse: duplicate locality in one priority",
       [](ClusterLoadAssignment* cla) { AddLocality(cla, "z", 5); },
       std::string(kPrefix) +
           "[field:endpoints[1] error:duplicate locality {region=\"r\", "
           "zone=\"z\", sub_zone=\"\"} found in priority 0]"},
      {"gRPC 1.51 EdsResourceParse: same locality in two priorities is fine",
       [](ClusterLoadAssignment* cla) { AddLocality(cla, "z", 5, 1); },
       ClaJson(Priority(0, LocalityJson("z", 1, EndpointJson("10.0.0.1:80"))) +
               "," + Priority(1, LocalityJson("z", 5, "")))},
      {"gRPC xds_endpoint.cc (after 1.51): locality weights fit in uint32",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->mutable_load_balancing_weight()->set_value(
             0xffffffffu);
         AddLocality(cla, "y", 1);
       },
       std::string(kPrefix) +
           "[field:endpoints error:sum of locality weights for priority 0 "
           "exceeds uint32 max]"},
      // --- endpoints ---
      {"gRPC 1.51 ServerAddressParse: HEALTHY kept, weight recorded",
       [](ClusterLoadAssignment* cla) {
         LbEndpoint* e = cla->mutable_endpoints(0)->mutable_lb_endpoints(0);
         e->set_health_status(envoy::config::core::v3::HEALTHY);
         e->mutable_load_balancing_weight()->set_value(7);
       },
       ClaJson(Priority(
           0,
           LocalityJson("z", 1, EndpointJson("10.0.0.1:80", "HEALTHY", 7))))},
      {"gRPC 1.51 ServerAddressParse: other health states skipped unchecked",
       [](ClusterLoadAssignment* cla) {
         using envoy::config::core::v3::HealthStatus;
         auto* locality = cla->mutable_endpoints(0);
         const HealthStatus kSkipped[] = {envoy::config::core::v3::UNHEALTHY,
                                          envoy::config::core::v3::DRAINING,
                                          envoy::config::core::v3::TIMEOUT,
                                          envoy::config::core::v3::DEGRADED,
                                          static_cast<HealthStatus>(99)};
         for (HealthStatus status : kSkipped) {
           LbEndpoint* e = AddEndpoint(locality, "not-an-ip", 99999);
           e->set_health_status(status);
         }
       },
       kBase},
      {"gRPC 1.51 ServerAddressParse: endpoint weight must be > 0",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->mutable_load_balancing_weight()
             ->set_value(0);
       },
       std::string(kPrefix) +
           "[field:endpoints[0].lb_endpoints[0].load_balancing_weight "
           "error:must be greater than 0]"},
      {"gRPC 1.51 ServerAddressParse: endpoint required",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)->mutable_lb_endpoints(0)->clear_endpoint();
       },
       std::string(kPrefix) + "[" + kEndpointPath +
           " error:field not present]"},
      {"gRPC 1.51 ServerAddressParse: address required",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->clear_address();
       },
       std::string(kPrefix) + "[" + kEndpointPath +
           ".address error:field not present]"},
      {"gRPC 1.51 ServerAddressParse: socket address required",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_pipe()
             ->set_path("/s");
       },
       std::string(kPrefix) + "[" + kEndpointPath +
           ".address.socket_address error:field not present]"},
      {"xdsfed: port_value required (named_port is not resolved)",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_endpoints(0)
             ->mutable_lb_endpoints(0)
             ->mutable_endpoint()
             ->mutable_address()
             ->mutable_socket_address()
             ->set_named_port("http");
       },
       std::string(kPrefix) + "[" + kEndpointPath +
           ".address.socket_address.port_value error:field not present]"},
      {"gRPC 1.51 ServerAddressParse: port must fit in 16 bits",
       [](ClusterLoadAssignment* cla) {
         AddEndpoint(cla->mutable_endpoints(0), "10.0.0.2", 65536);
       },
       std::string(kPrefix) +
           "[field:endpoints[0].lb_endpoints[1].endpoint.address."
           "socket_address.port_value error:invalid port: must be at most "
           "65535]"},
      {"gRPC 1.51 ServerAddressParse: address must be an IP literal",
       [](ClusterLoadAssignment* cla) {
         AddEndpoint(cla->mutable_endpoints(0), "host.example.com", 80);
       },
       std::string(kPrefix) +
           "[field:endpoints[0].lb_endpoints[1].endpoint.address."
           "socket_address.address error:expected an IPv4 or IPv6 address, "
           "got \"host.example.com\"]"},
      {"gRPC 1.51 ServerAddressParse: IPv6 in canonical form, port 0 ok",
       [](ClusterLoadAssignment* cla) {
         AddEndpoint(cla->mutable_endpoints(0), "2001:DB8:0:0::1", 443);
         AddEndpoint(cla->mutable_endpoints(0), "fe80::1%eth0", 0);
       },
       ClaJson(Priority(
           0, LocalityJson("z", 1,
                           EndpointJson("10.0.0.1:80") + "," +
                               EndpointJson("[2001:db8::1]:443") + "," +
                               EndpointJson("[fe80::1%eth0]:0"))))},
      // --- drops (gRPC 1.51 DropParseAndAppend) ---
      {"gRPC 1.51 DropParseAndAppend: denominators to parts per million",
       [](ClusterLoadAssignment* cla) {
         AddDrop(cla, "hundred", 5);
         AddDrop(cla, "ten_thousand", 5)
             ->set_denominator(
                 envoy::type::v3::FractionalPercent::TEN_THOUSAND);
         AddDrop(cla, "million", 5)
             ->set_denominator(envoy::type::v3::FractionalPercent::MILLION);
         AddDrop(cla, "capped", 200);
         AddDrop(cla, "no_wraparound", 4000000000u);
       },
       ClaJson(Priority(0, LocalityJson("z", 1, EndpointJson("10.0.0.1:80"))),
               Drop("hundred", 50000) + "," + Drop("ten_thousand", 500) + "," +
                   Drop("million", 5) + "," + Drop("capped", 1000000) + "," +
                   Drop("no_wraparound", 1000000))},
      {"gRPC 1.51 DropParseAndAppend: category required",
       [](ClusterLoadAssignment* cla) { AddDrop(cla, "", 1); },
       std::string(kPrefix) +
           "[field:policy.drop_overloads[0].category error:empty drop "
           "category name]"},
      {"gRPC xds_endpoint.cc: drop_percentage required",
       [](ClusterLoadAssignment* cla) {
         cla->mutable_policy()->add_drop_overloads()->set_category("lb");
       },
       std::string(kPrefix) +
           "[field:policy.drop_overloads[0].drop_percentage error:field not "
           "present]"},
      {"gRPC 1.51 DropParseAndAppend: unknown denominator",
       [](ClusterLoadAssignment* cla) {
         AddDrop(cla, "lb", 1)
             ->set_denominator(
                 static_cast<
                     envoy::type::v3::FractionalPercent::DenominatorType>(7));
       },
       std::string(kPrefix) +
           "[field:policy.drop_overloads[0].drop_percentage.denominator "
           "error:unknown denominator type]"},
      // --- every problem at once, sorted by field path ---
      {"gRPC 1.51 EdsResourceParse: all errors in one status",
       [](ClusterLoadAssignment* cla) {
         LocalityLbEndpoints* bad = AddLocality(cla, "y", 1);
         AddEndpoint(bad, "1.2.3", 80);
         AddEndpoint(bad, "10.0.0.9", 80)
             ->mutable_load_balancing_weight()
             ->set_value(0);
         AddLocality(cla, "x", 1)->clear_locality();
         AddDrop(cla, "", 1);
       },
       std::string(kPrefix) +
           "[field:endpoints[1].lb_endpoints[0].endpoint.address."
           "socket_address.address error:expected an IPv4 or IPv6 address, "
           "got \"1.2.3\"; "
           "field:endpoints[1].lb_endpoints[1].load_balancing_weight "
           "error:must be greater than 0; "
           "field:endpoints[2].locality error:field not present; "
           "field:policy.drop_overloads[0].category error:empty drop "
           "category name]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.source);
    ClusterLoadAssignment cla = BaseCla();
    c.mutate(&cla);
    const DecodeResult result =
        EndpointResourceType().Decode({}, cla.SerializeAsString());
    EXPECT_EQ(result.name, "eds");
    if (c.want[0] == '{') {
      ASSERT_TRUE(result.value.ok()) << result.value.status();
      EXPECT_EQ(Compact(EndpointResourceType().ToJson(result.value->get())),
                c.want);
    } else {
      ASSERT_FALSE(result.value.ok());
      EXPECT_EQ(result.value.status().code(),
                absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(result.value.status().message(), c.want);
    }
  }
}

TEST(EndpointTest, UndecodableBytes) {
  const std::string kInputs[] = {
      std::string("\xff\xff\xff", 3),
      std::string("\x12\x10\x0a", 3),  // truncated locality
  };
  for (const std::string& input : kInputs) {
    SCOPED_TRACE(input);
    const DecodeResult result = EndpointResourceType().Decode({}, input);
    EXPECT_EQ(result.name, "");
    EXPECT_EQ(result.value.status(),
              absl::InvalidArgumentError(
                  "cannot decode ClusterLoadAssignment resource: not a "
                  "serialized envoy.config.endpoint.v3.ClusterLoadAssignment"));
  }
}

TEST(EndpointTest, ValueAndEquality) {
  ClusterLoadAssignment cla = BaseCla();
  AddDrop(&cla, "all", 100);
  const std::string bytes = cla.SerializeAsString();
  absl::StatusOr<EndpointResource> value =
      DecodeClusterLoadAssignment({}, bytes);
  ASSERT_TRUE(value.ok()) << value.status();
  ASSERT_EQ(value->priorities.size(), 1u);
  const EndpointResource::Locality zone{"r", "z", ""};
  ASSERT_EQ(value->priorities[0].localities.count(zone), 1u);
  EXPECT_EQ(value->priorities[0].localities.at(zone).endpoints[0].address,
            "10.0.0.1:80");
  EXPECT_TRUE(value->DropsAll());

  const DecodeResult a = EndpointResourceType().Decode({}, bytes);
  const DecodeResult b = EndpointResourceType().Decode({}, bytes);
  ASSERT_TRUE(a.value.ok() && b.value.ok());
  EXPECT_TRUE(EndpointResourceType().Equal(a.value->get(), b.value->get()));
  cla.mutable_endpoints(0)->mutable_load_balancing_weight()->set_value(2);
  const DecodeResult c =
      EndpointResourceType().Decode({}, cla.SerializeAsString());
  ASSERT_TRUE(c.value.ok());
  EXPECT_FALSE(EndpointResourceType().Equal(a.value->get(), c.value->get()));
  EndpointResource copy = *value;
  EXPECT_EQ(copy, *value);
  copy.drop_categories.clear();
  EXPECT_NE(copy, *value);
  EXPECT_FALSE(copy.DropsAll());
}

// Endpoint ingestion is benchmarked later with 10,000 endpoints; this checks
// that such an assignment decodes completely.
TEST(EndpointTest, TenThousandEndpoints) {
  ClusterLoadAssignment cla;
  cla.set_cluster_name("eds");
  for (int l = 0; l < 10; ++l) {
    LocalityLbEndpoints* locality =
        AddLocality(&cla, absl::StrCat("zone", l).c_str(), 1);
    for (int e = 0; e < 1000; ++e) {
      AddEndpoint(locality,
                  absl::StrCat("10.", l, ".", e / 256, ".", e % 256).c_str(),
                  8080);
    }
  }
  absl::StatusOr<EndpointResource> value =
      DecodeClusterLoadAssignment({}, cla.SerializeAsString());
  ASSERT_TRUE(value.ok()) << value.status();
  ASSERT_EQ(value->priorities.size(), 1u);
  size_t count = 0;
  for (const auto& entry : value->priorities[0].localities) {
    count += entry.second.endpoints.size();
  }
  EXPECT_EQ(count, 10000u);
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
