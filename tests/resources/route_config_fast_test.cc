// The RouteConfiguration wire-reader fast path (lib/resources/
// route_config_fast.h) against the libprotobuf path it stands in for: on
// every input either the fast path gives up, or both give equal values.
// Sources: the protobuf encoding spec (protobuf.dev/programming-guides/
// encoding: varints, tags, last-one-wins, oneofs, unknown fields) and
// libprotobuf 3.21's parser, which the reference path runs; the validation
// rules are route_config_test.cc's.
#include "lib/resources/route_config_fast.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/route/v3/route.pb.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "lib/resources/internal/wire_reader.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace resources {
namespace {

namespace route_pb = envoy::config::route::v3;

// ------------------------------------------------------------- helpers

// Invalid UTF-8 makes libprotobuf log; keep the output readable.
class QuietProtobufLogs : public ::testing::Environment {
 public:
  void SetUp() override { google::protobuf::SetLogHandler(nullptr); }
};
const auto* const kQuiet =
    ::testing::AddGlobalTestEnvironment(new QuietProtobufLogs);

// One valid vhost with one route "" -> cluster "c".
route_pb::RouteConfiguration BaseConfig() {
  route_pb::RouteConfiguration rc;
  rc.set_name("rc");
  auto* vh = rc.add_virtual_hosts();
  vh->set_name("vh");
  vh->add_domains("*");
  auto* route = vh->add_routes();
  route->mutable_match()->set_prefix("");
  route->mutable_route()->set_cluster("c");
  return rc;
}

route_pb::Route* FirstRoute(route_pb::RouteConfiguration* rc) {
  return rc->mutable_virtual_hosts(0)->mutable_routes(0);
}

const RouteConfig& ValueOf(const DecodeResult& r) {
  return *XdsResourceType<RouteConfig>::Cast(r.value->get());
}

// Checks the contract on `bytes` and returns whether the fast path took
// them. Also checks that Decode (fast path, then libprotobuf) answers
// exactly as the libprotobuf path alone.
bool CheckBytes(const std::string& bytes) {
  const DecodeResult slow = internal::DecodeRouteConfigWithProtobuf(bytes);
  RouteConfig fast;
  const bool took = internal::FastDecodeRouteConfig(bytes, &fast);
  if (took) {
    EXPECT_TRUE(slow.value.ok()) << slow.value.status();
    if (slow.value.ok()) {
      EXPECT_TRUE(fast == ValueOf(slow))
          << "fast: " << fast.ToJson().toStyledString()
          << "\nslow: " << ValueOf(slow).ToJson().toStyledString();
      EXPECT_EQ(fast.name, slow.name);
    }
  }
  const DecodeResult both = RouteConfigResourceType().Decode({}, bytes);
  EXPECT_EQ(both.name, slow.name);
  EXPECT_EQ(both.value.ok(), slow.value.ok());
  if (both.value.ok() && slow.value.ok()) {
    EXPECT_TRUE(ValueOf(both) == ValueOf(slow));
  } else {
    EXPECT_EQ(both.value.status(), slow.value.status());
  }
  return took;
}

// A tiny wire writer for inputs a protobuf serializer never produces.
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

// RouteConfiguration{virtual_hosts: [host]} around a VirtualHost's bytes.
std::string InConfig(const std::string& vhost) { return Len(2, vhost); }
// A VirtualHost {domains: ["*"], routes: [route]} around a Route's bytes.
std::string InHost(const std::string& route) {
  return Len(2, "*") + Len(3, route);
}
// Route bytes with match {prefix: ""} and route {cluster: "c"} + `extra`.
std::string PlainRoute(const std::string& extra = "") {
  return Len(1, Len(1, "")) + Len(2, Len(1, "c")) + extra;
}

// ------------------------------------------------------------- tests

TEST(RouteConfigFastTest, AvailableForTheseProtos) {
  // Fails (naming the message) when a proto edit changed a message the
  // fast path reads: update route_config_fast.cc, then its expected list.
  const std::vector<std::string> mismatches =
      internal::RouteConfigFastPathMismatches();
  for (const std::string& m : mismatches) ADD_FAILURE() << m;
  EXPECT_TRUE(internal::RouteConfigFastPathAvailable());
}

TEST(RouteConfigFastTest, Utf8AgreesWithLibprotobuf) {
  // Every 1-, 2- and 3-byte string, and 4-byte strings over the lead and
  // boundary bytes; each also after 9 ASCII bytes (the 8-byte step).
  auto check = [](const std::string& s) {
    const bool want = google::protobuf::internal::IsStructurallyValidUTF8(
        s.data(), static_cast<int>(s.size()));
    if (wire::IsValidUtf8(s) != want) {
      ADD_FAILURE() << "differs on " << absl::CEscape(s);
      return false;
    }
    const std::string padded = "abcdefghi" + s;
    return wire::IsValidUtf8(padded) ==
           google::protobuf::internal::IsStructurallyValidUTF8(
               padded.data(), static_cast<int>(padded.size()));
  };
  for (int a = 0; a < 256; ++a) {
    ASSERT_TRUE(check(std::string(1, static_cast<char>(a))));
    for (int b = 0; b < 256; ++b) {
      std::string two = {static_cast<char>(a), static_cast<char>(b)};
      ASSERT_TRUE(check(two));
      if (a < 0xE0) continue;  // 3 bytes: from the 3- and 4-byte leads
      for (int c = 0; c < 256; ++c) {
        ASSERT_TRUE(check(two + static_cast<char>(c)));
      }
    }
  }
  const int kEdges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90,
                        0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
  for (int a = 0xF0; a < 0x100; ++a) {
    for (int b : kEdges) {
      for (int c : kEdges) {
        for (int d : kEdges) {
          ASSERT_TRUE(check({static_cast<char>(a), static_cast<char>(b),
                             static_cast<char>(c), static_cast<char>(d)}));
        }
      }
    }
  }
}

// Serialized configurations: `fast` says whether the fast path must take
// them (false: it must leave them to libprotobuf, which may accept them).
TEST(RouteConfigFastTest, ConfigurationsTable) {
  using Edit = std::function<void(route_pb::RouteConfiguration*)>;
  struct Case {
    const char* name;
    Edit edit;
    bool fast;
  };
  auto route = [](route_pb::RouteConfiguration* rc) { return FirstRoute(rc); };
  auto add_route = [](route_pb::RouteConfiguration* rc) {
    return rc->mutable_virtual_hosts(0)->add_routes();
  };
  const Case kCases[] = {
      {"base", [](auto*) {}, true},
      {"empty names, xdstp cluster, non-ASCII domain",
       [&](auto* rc) {
         rc->clear_name();
         rc->mutable_virtual_hosts(0)->clear_name();
         rc->mutable_virtual_hosts(0)->add_domains(
             "\xc3\xbc\xe2\x82\xac.example.com*");
         route(rc)->mutable_route()->set_cluster(
             "xdstp://a.com/envoy.config.cluster.v3.Cluster/c?b=2&a=1");
       },
       true},
      {"domains *.a, a.*, *a*b, a*b*, x",
       [](auto* rc) {
         auto* vh = rc->mutable_virtual_hosts(0);
         for (const char* d : {"*.a.com", "a.*", "*a*b", "a*b*", "x"}) {
           vh->add_domains(d);
         }
       },
       true},
      // A28: retry policy of the host, inherited by routes without one.
      {"host retry policy inherited, route's own wins",
       [&](auto* rc) {
         auto* retry = rc->mutable_virtual_hosts(0)->mutable_retry_policy();
         retry->set_retry_on("cancelled,5xx,unavailable,internal");
         retry->mutable_num_retries()->set_value(3);
         auto* backoff = retry->mutable_retry_back_off();
         backoff->mutable_base_interval()->set_nanos(300000000);
         backoff->mutable_base_interval()->set_seconds(1);
         auto* r2 = add_route(rc);
         r2->mutable_match()->set_prefix("/x");
         r2->mutable_route()->set_cluster("c2");
         auto* own = r2->mutable_route()->mutable_retry_policy();
         own->set_retry_on(
             "deadline-exceeded,resource-exhausted,,cancelled,bogus");
         own->mutable_retry_back_off()->mutable_base_interval()->set_seconds(2);
         own->mutable_retry_back_off()->mutable_max_interval()->set_seconds(5);
       },
       true},
      {"retry policy empty backoff base (0s)",
       [&](auto* rc) {
         route(rc)
             ->mutable_route()
             ->mutable_retry_policy()
             ->mutable_retry_back_off()
             ->mutable_base_interval();
       },
       true},
      {"headers of every kind",
       [&](auto* rc) {
         auto* match = route(rc)->mutable_match();
         match->add_headers()->set_exact_match("e");
         auto* h = match->add_headers();
         h->set_name("p");
         h->set_prefix_match("pre");
         h->set_invert_match(true);
         h->set_treat_missing_header_as_empty(true);
         match->add_headers()->set_suffix_match("suf");
         match->add_headers()->set_contains_match("con");
         match->add_headers()->mutable_safe_regex_match()->set_regex("a.*");
         auto* range = match->add_headers()->mutable_range_match();
         range->set_start(-5);
         range->set_end(-5);
         match->add_headers()->set_present_match(true);
         match->add_headers()->set_present_match(false);
         match->add_headers()->mutable_range_match();
         for (int kind = 0; kind < 5; ++kind) {
           auto* sm = match->add_headers()->mutable_string_match();
           sm->set_ignore_case(kind % 2 == 0);
           switch (kind) {
             case 0:
               sm->set_exact("x");
               break;
             case 1:
               sm->set_prefix("x");
               break;
             case 2:
               sm->set_suffix("x");
               break;
             case 3:
               sm->set_contains("x");
               break;
             case 4:
               sm->mutable_safe_regex()->set_regex("x+");
               sm->mutable_safe_regex()
                   ->mutable_google_re2()
                   ->mutable_max_program_size()
                   ->set_value(100);
               break;
           }
         }
       },
       true},
      {"runtime fraction per denominator, clamped, no default_value",
       [&](auto* rc) {
         using FP = envoy::type::v3::FractionalPercent;
         const FP::DenominatorType kDenominators[] = {
             FP::HUNDRED, FP::TEN_THOUSAND, FP::MILLION, FP::HUNDRED};
         const uint32_t kNumerators[] = {7, 7, 7, 150};
         for (int i = 0; i < 4; ++i) {
           auto* r = add_route(rc);
           r->mutable_match()->set_prefix("");
           r->mutable_route()->set_cluster("c");
           auto* rf = r->mutable_match()->mutable_runtime_fraction();
           rf->set_runtime_key("key");
           rf->mutable_default_value()->set_numerator(kNumerators[i]);
           rf->mutable_default_value()->set_denominator(kDenominators[i]);
         }
         route(rc)
             ->mutable_match()
             ->mutable_runtime_fraction()
             ->set_runtime_key("k");
       },
       true},
      {"path, safe_regex, case_sensitive, grpc options",
       [&](auto* rc) {
         route(rc)->mutable_match()->set_path("/s/m");
         route(rc)->mutable_match()->mutable_case_sensitive()->set_value(false);
         route(rc)->mutable_match()->mutable_grpc();
         auto* r2 = add_route(rc);
         r2->mutable_match()->mutable_safe_regex()->set_regex("/s/.*");
         r2->mutable_match()->mutable_case_sensitive();
         r2->mutable_route()->set_cluster("c");
         auto* r3 = add_route(rc);
         r3->mutable_match()->set_prefix("/s/");
         r3->mutable_match()->mutable_case_sensitive()->set_value(true);
         r3->mutable_route()->set_cluster("c");
       },
       true},
      {"weighted clusters, zero weight dropped, total and prefix ignored",
       [&](auto* rc) {
         auto* wc = route(rc)->mutable_route()->mutable_weighted_clusters();
         auto* a = wc->add_clusters();
         a->set_name("a");
         a->mutable_weight()->set_value(3);
         auto* b = wc->add_clusters();
         b->set_name("b");
         b->mutable_weight()->set_value(0);
         auto* c = wc->add_clusters();
         c->set_name("xdstp://x/envoy.config.cluster.v3.Cluster/c");
         c->mutable_weight()->set_value(UINT32_MAX - 3);
         wc->mutable_total_weight()->set_value(7);
         wc->set_runtime_key_prefix("rk");
       },
       true},
      {"max stream duration: header max wins, then max, offset ignored",
       [&](auto* rc) {
         auto* msd = route(rc)->mutable_route()->mutable_max_stream_duration();
         msd->mutable_max_stream_duration()->set_seconds(9);
         msd->mutable_grpc_timeout_header_max()->set_nanos(5);
         auto* r2 = add_route(rc);
         r2->mutable_match()->set_prefix("");
         r2->mutable_route()->set_cluster("c");
         auto* msd2 = r2->mutable_route()->mutable_max_stream_duration();
         msd2->mutable_max_stream_duration()->set_seconds(315576000000);
         msd2->mutable_max_stream_duration()->set_nanos(999999999);
         msd2->mutable_grpc_timeout_header_offset()->set_seconds(-1);
         auto* r3 = add_route(rc);
         r3->mutable_match()->set_prefix("");
         r3->mutable_route()->set_cluster("c");
         r3->mutable_route()->mutable_max_stream_duration();
         r3->mutable_route()->mutable_timeout()->set_seconds(-3);
       },
       true},
      // A36: non_forwarding_action kept; other actions kept as unsupported.
      {"every action kind",
       [&](auto* rc) {
         for (int kind = 0; kind < 5; ++kind) {
           auto* r = add_route(rc);
           r->set_name(absl::StrCat("r", kind));
           r->mutable_match()->set_prefix("");
           switch (kind) {
             case 0:
               r->mutable_non_forwarding_action();
               break;
             case 1:
               r->mutable_redirect();
               break;
             case 2:
               r->mutable_direct_response();
               break;
             case 3:
               r->mutable_filter_action();
               break;
             case 4:
               break;  // none
           }
         }
       },
       true},
      {"ignored routes dropped (bad prefix/path, cluster_header, plugin)",
       [&](auto* rc) {
         const char* kPrefixes[] = {"svc", "//x", "/a/b/c"};
         for (const char* p : kPrefixes) {
           auto* r = add_route(rc);
           r->mutable_match()->set_prefix(p);
           r->mutable_route()->set_cluster("c");
         }
         const char* kPaths[] = {"/a", "/a/", "a/b", "//b", "/a/b/c", ""};
         for (const char* p : kPaths) {
           auto* r = add_route(rc);
           r->mutable_match()->set_path(p);
           r->mutable_route()->set_cluster("c");
         }
         auto* h = add_route(rc);
         h->mutable_match()->set_prefix("");
         h->mutable_route()->set_cluster_header("x-cluster");
         auto* p = add_route(rc);
         p->mutable_match()->set_prefix("");
         p->mutable_route()->set_cluster_specifier_plugin("rls");
         auto* none = add_route(rc);
         none->mutable_match()->set_prefix("");
         none->mutable_route();
       },
       true},
      // Left to libprotobuf (fields the fast path does not read).
      {"host typed_per_filter_config",
       [](auto* rc) {
         (*rc->mutable_virtual_hosts(0)
               ->mutable_typed_per_filter_config())["f"];
       },
       false},
      {"route typed_per_filter_config",
       [&](auto* rc) { (*route(rc)->mutable_typed_per_filter_config())["f"]; },
       false},
      {"query parameters (route ignored)",
       [&](auto* rc) {
         route(rc)->mutable_match()->add_query_parameters()->set_name("q");
         add_route(rc)->mutable_match()->set_prefix("");
       },
       false},
      {"route metadata", [&](auto* rc) { route(rc)->mutable_metadata(); },
       false},
      {"hash policy",
       [&](auto* rc) { route(rc)->mutable_route()->add_hash_policy(); }, false},
      {"cluster_specifier_plugins",
       [](auto* rc) { rc->add_cluster_specifier_plugins(); }, false},
      {"weighted cluster typed_per_filter_config",
       [&](auto* rc) {
         auto* c = route(rc)
                       ->mutable_route()
                       ->mutable_weighted_clusters()
                       ->add_clusters();
         c->set_name("a");
         c->mutable_weight()->set_value(1);
         (*c->mutable_typed_per_filter_config())["f"];
       },
       false},
      // Validation errors: always left to libprotobuf and route_config.cc.
      {"no virtual hosts is valid", [](auto* rc) { rc->clear_virtual_hosts(); },
       true},
      {"no domains",
       [](auto* rc) { rc->mutable_virtual_hosts(0)->clear_domains(); }, false},
      {"bad domain",
       [](auto* rc) { rc->mutable_virtual_hosts(0)->add_domains("a*b"); },
       false},
      {"empty domain",
       [](auto* rc) { rc->mutable_virtual_hosts(0)->add_domains(""); }, false},
      {"no routes",
       [](auto* rc) { rc->mutable_virtual_hosts(0)->clear_routes(); }, false},
      {"every route ignored",
       [&](auto* rc) { route(rc)->mutable_match()->set_prefix("x"); }, false},
      {"no match", [&](auto* rc) { route(rc)->clear_match(); }, false},
      {"no path specifier",
       [&](auto* rc) { route(rc)->mutable_match()->clear_prefix(); }, false},
      {"empty cluster",
       [&](auto* rc) { route(rc)->mutable_route()->set_cluster(""); }, false},
      {"weights sum to 0",
       [&](auto* rc) {
         auto* c = route(rc)
                       ->mutable_route()
                       ->mutable_weighted_clusters()
                       ->add_clusters();
         c->set_name("a");
         c->mutable_weight();
       },
       false},
      {"weights overflow uint32",
       [&](auto* rc) {
         auto* wc = route(rc)->mutable_route()->mutable_weighted_clusters();
         for (int i = 0; i < 2; ++i) {
           auto* c = wc->add_clusters();
           c->set_name("a");
           c->mutable_weight()->set_value(UINT32_MAX / 2 + 1);
         }
       },
       false},
      {"weight missing",
       [&](auto* rc) {
         route(rc)
             ->mutable_route()
             ->mutable_weighted_clusters()
             ->add_clusters()
             ->set_name("a");
       },
       false},
      {"weighted cluster without name",
       [&](auto* rc) {
         route(rc)
             ->mutable_route()
             ->mutable_weighted_clusters()
             ->add_clusters()
             ->mutable_weight()
             ->set_value(1);
       },
       false},
      {"header without specifier",
       [&](auto* rc) { route(rc)->mutable_match()->add_headers(); }, false},
      {"header range end < start",
       [&](auto* rc) {
         route(rc)
             ->mutable_match()
             ->add_headers()
             ->mutable_range_match()
             ->set_start(1);
       },
       false},
      {"string matcher without pattern",
       [&](auto* rc) {
         route(rc)->mutable_match()->add_headers()->mutable_string_match();
       },
       false},
      {"unknown denominator",
       [&](auto* rc) {
         route(rc)
             ->mutable_match()
             ->mutable_runtime_fraction()
             ->mutable_default_value()
             ->set_denominator(
                 static_cast<
                     envoy::type::v3::FractionalPercent::DenominatorType>(3));
       },
       false},
      {"num_retries 0",
       [](auto* rc) {
         rc->mutable_virtual_hosts(0)
             ->mutable_retry_policy()
             ->mutable_num_retries();
       },
       false},
      {"backoff without base",
       [&](auto* rc) {
         route(rc)
             ->mutable_route()
             ->mutable_retry_policy()
             ->mutable_retry_back_off();
       },
       false},
      {"backoff base nanos out of range",
       [&](auto* rc) {
         route(rc)
             ->mutable_route()
             ->mutable_retry_policy()
             ->mutable_retry_back_off()
             ->mutable_base_interval()
             ->set_nanos(1000000000);
       },
       false},
      {"path safe_regex RE2 rejects (NACK: the validator reports it)",
       [&](auto* rc) {
         route(rc)->mutable_match()->mutable_safe_regex()->set_regex("(a");
       },
       false},
      {"header safe_regex_match RE2 rejects",
       [&](auto* rc) {
         route(rc)
             ->mutable_match()
             ->add_headers()
             ->mutable_safe_regex_match()
             ->set_regex("[a");
       },
       false},
      {"header string_match safe_regex RE2 rejects",
       [&](auto* rc) {
         route(rc)
             ->mutable_match()
             ->add_headers()
             ->mutable_string_match()
             ->mutable_safe_regex()
             ->set_regex("a**");
       },
       false},
      {"max stream duration seconds < 0",
       [&](auto* rc) {
         route(rc)
             ->mutable_route()
             ->mutable_max_stream_duration()
             ->mutable_grpc_timeout_header_max()
             ->set_seconds(-1);
       },
       false},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    route_pb::RouteConfiguration rc = BaseConfig();
    c.edit(&rc);
    EXPECT_EQ(CheckBytes(rc.SerializeAsString()), c.fast);
  }
}

// Inputs a serializer does not produce (encoding spec: unknown fields are
// skipped; a repeated singular field is last-one-wins, a second oneof
// member replaces the first; proto3 strings must be UTF-8).
TEST(RouteConfigFastTest, WireLevelTable) {
  const std::string kHost = InHost(PlainRoute());
  struct Case {
    const char* name;
    std::string bytes;
    bool fast;
  };
  const Case kCases[] = {
      {"empty input", "", true},
      {"unknown fields of each wire type skipped",
       VarintField(99, 5) + Key(98, 1) + std::string(8, 'x') + Key(97, 5) +
           std::string(4, 'y') + Len(96, "\xff\xfe") +
           InConfig(VarintField(1000, 1) + kHost) +
           InConfig(InHost(PlainRoute(Len(500, "zz")))),
       true},
      {"overlong tag and length",
       std::string("\x8a\x00", 2) + std::string("\x82\x80\x00", 3) + "rc",
       true},
      {"6-byte length",
       Key(1, 2) + std::string("\x82\x80\x80\x80\x80\x00", 6) + "rc", false},
      {"10-byte varint (negative range)",
       InConfig(InHost(
           Len(1, Len(1, "") + Len(6, Len(6, VarintField(1, ~uint64_t{0}) +
                                                 VarintField(2, 0)))) +
           Len(2, Len(1, "c")))),
       true},
      {"11-byte varint",
       Key(99, 0) + std::string(10, '\xff') + std::string(1, '\0'), false},
      {"10th varint byte > 1 (libprotobuf drops the bits)",
       Key(99, 0) + std::string(9, '\xff') + "\x02", false},
      {"name twice (last wins)", Len(1, "a") + Len(1, "b"), false},
      {"match twice (merged)",
       InConfig(InHost(Len(1, Len(1, "")) + Len(1, Len(1, "/x")) +
                       Len(2, Len(1, "c")))),
       false},
      {"oneof twice (replaced)",
       InConfig(
           InHost(Len(1, Len(1, "") + Len(2, "/a/b")) + Len(2, Len(1, "c")))),
       false},
      {"known field, other wire type (unknown to libprotobuf)",
       VarintField(1, 7), false},
      {"group", Key(99, 3) + Key(99, 4), false},
      {"field number 0", Key(0, 0) + Varint(0), false},
      {"wire type 6", Key(5, 6), false},
      {"truncated length", Key(1, 2) + Varint(5) + "ab", false},
      {"truncated varint", Key(99, 0) + "\x80", false},
      {"invalid UTF-8 name", Len(1, "\xc0\xaf"), false},
      {"invalid UTF-8 cluster",
       InConfig(InHost(PlainRoute(Len(2, Len(1, "\xed\xa0\x80"))))), false},
      {"UTF-8 in domain",
       InConfig(Len(2, "\xf0\x9f\x98\x80.com") + Len(3, PlainRoute())), true},
      {"empty shells with unknown fields",
       InConfig(InHost(Len(1, Len(1, "") + Len(8, VarintField(3, 1))) +
                       Len(18, Len(7, "x")))),
       true},
      {"malformed shell",
       InConfig(InHost(Len(1, Len(1, "")) + Len(18, "\x08"))), false},
      {"host retry policy after its routes",
       InConfig(kHost +
                Len(16, Len(1, "unavailable") + Len(2, VarintField(1, 4)))),
       true},
      {"host retry policy twice", InConfig(kHost + Len(16, "") + Len(16, "")),
       false},
      {"bool as large varint",
       InConfig(
           InHost(Len(1, Len(1, "") +
                             Len(6, Len(1, "h") + VarintField(7, 1ull << 40))) +
                  Len(2, Len(1, "c")))),
       true},
      {"uint32 weight truncated to 0",
       InConfig(InHost(
           Len(1, Len(1, "")) +
           Len(2,
               Len(3, Len(1, Len(1, "a") + Len(2, VarintField(1, 1ull << 32))) +
                          Len(1, Len(1, "b") + Len(2, VarintField(1, 1))))))),
       true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(CheckBytes(c.bytes), c.fast);
  }
}

TEST(RouteConfigFastTest, BenchmarkShapedConfig) {
  route_pb::RouteConfiguration rc;
  rc.set_name("route-0");
  for (int i = 0; i < 1000; ++i) {
    auto* vh = rc.add_virtual_hosts();
    vh->set_name(absl::StrCat("vh-", i));
    vh->add_domains(absl::StrCat("svc-", i, ".v1.example.com"));
    auto* r = vh->add_routes();
    r->mutable_match()->set_prefix(absl::StrCat("/svc-", i, "/"));
    r->mutable_route()->set_cluster(absl::StrCat("cluster-", i));
  }
  EXPECT_TRUE(CheckBytes(rc.SerializeAsString()));
}

// Prefix / path / domain checks count bytes a word at a time: every
// string over {a, /, *} up to 6 bytes, and random ones up to 40 bytes, as a
// route's prefix and path (beside a valid route, so the host stays valid
// when they are dropped) and, in another configuration, as a domain.
TEST(RouteConfigFastTest, MatchersAtEveryLength) {
  std::vector<std::string> strings = {""};
  for (size_t begin = 0, len = 1; len <= 6; ++len) {
    const size_t end = strings.size();
    for (size_t i = begin; i < end; ++i) {
      for (char c : {'a', '/', '*'}) strings.push_back(strings[i] + c);
    }
    begin = end;
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string s(8 + rng() % 33, 'a');
    for (char& c : s) {
      const uint32_t r = rng() % 10;
      c = r == 0 ? '/' : r == 1 ? '*' : 'a';
    }
    if (i % 3 == 0) s[0] = '/';
    strings.push_back(s);
  }
  int fast = 0;
  for (const std::string& s : strings) {
    SCOPED_TRACE(s);
    route_pb::RouteConfiguration domain = BaseConfig();
    domain.mutable_virtual_hosts(0)->add_domains(s);
    fast += CheckBytes(domain.SerializeAsString());
    route_pb::RouteConfiguration rc = BaseConfig();
    auto* vh = rc.mutable_virtual_hosts(0);
    auto* prefix_route = vh->add_routes();
    prefix_route->mutable_match()->set_prefix(s);
    prefix_route->mutable_route()->set_cluster("p");
    auto* path_route = vh->add_routes();
    path_route->mutable_match()->set_path(s);
    path_route->mutable_route()->set_cluster("q");
    fast += CheckBytes(rc.SerializeAsString());
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(fast, 1000);
}

// Issue 16 item 8 (route_config_fast_path_fuzzer, 23.1 M executions): the
// same bytes decoded twice gave two different errors. typed_per_filter_config
// is a protobuf Map, whose iteration order differs between two parses; past
// ValidationErrors::kMaxErrors that order decided which errors were shown.
// 40 hosts x (no routes + 8 bad filter configs) = 360 errors.
TEST(RouteConfigFastTest, ErrorsPastTheCapDoNotDependOnMapOrder) {
  route_pb::RouteConfiguration rc;
  rc.set_name("rc");
  for (int h = 0; h < 40; ++h) {
    auto* vh = rc.add_virtual_hosts();
    vh->add_domains("*");
    for (int k = 0; k < 8; ++k) {
      (*vh->mutable_typed_per_filter_config())[absl::StrCat("f", k)];
    }
  }
  const std::string bytes = rc.SerializeAsString();
  const DecodeResult first = internal::DecodeRouteConfigWithProtobuf(bytes);
  ASSERT_FALSE(first.value.ok());
  EXPECT_NE(first.value.status().message().find("more errors not shown"),
            absl::string_view::npos);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(internal::DecodeRouteConfigWithProtobuf(bytes).value.status(),
              first.value.status());
    EXPECT_FALSE(CheckBytes(bytes));
  }
}

// A small in-test differential fuzz: byte flips, insertions and
// truncations of valid configurations (the fuzzer does this at scale).
TEST(RouteConfigFastTest, MutatedInputsAgree) {
  std::vector<std::string> seeds;
  {
    route_pb::RouteConfiguration rc = BaseConfig();
    auto* r = FirstRoute(&rc);
    r->mutable_match()->add_headers()->set_exact_match("e");
    r->mutable_match()
        ->mutable_runtime_fraction()
        ->mutable_default_value()
        ->set_numerator(5);
    auto* retry = r->mutable_route()->mutable_retry_policy();
    retry->set_retry_on("unavailable");
    retry->mutable_retry_back_off()->mutable_base_interval()->set_seconds(1);
    auto* r2 = rc.mutable_virtual_hosts(0)->add_routes();
    r2->mutable_match()->set_path("/a/b");
    auto* wc = r2->mutable_route()->mutable_weighted_clusters();
    auto* c = wc->add_clusters();
    c->set_name("w");
    c->mutable_weight()->set_value(2);
    seeds.push_back(rc.SerializeAsString());
    seeds.push_back(BaseConfig().SerializeAsString());
  }
  std::mt19937 rng(4);
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
    const bool fast = CheckBytes(bytes);
    took += fast;
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "input: " << absl::CEscape(bytes);
      break;
    }
  }
  // Most mutations break the input; some must still take the fast path.
  EXPECT_GT(took, 100);
}

}  // namespace
}  // namespace resources
}  // namespace xdsfed
