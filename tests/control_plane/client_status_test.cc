// Tests for tools/control_plane/client_status.h: the management server's
// CSDS view of one ADS stream (csds.proto §ConfigStatus and
// config_dump_shared.proto §ClientResourceStatus, as a state-of-the-world
// server can know them).
#include "tools/control_plane/client_status.h"

#include <map>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace xdsfed::control_plane {
namespace {

using envoy::service::discovery::v3::DiscoveryRequest;

constexpr char kCds[] = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
constexpr char kEds[] =
    "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

DiscoveryRequest Request(const std::string& type,
                         const std::vector<std::string>& names,
                         const std::string& nonce = "",
                         const std::string& version = "",
                         const std::string& nack = "") {
  DiscoveryRequest r;
  r.set_type_url(type);
  for (const auto& n : names) r.add_resource_names(n);
  r.set_response_nonce(nonce);
  r.set_version_info(version);
  if (!nack.empty()) r.mutable_error_detail()->set_message(nack);
  return r;
}

struct Row {
  std::string client_status;
  std::string config_status;
  std::string version;
  std::string error_version;  // "" = no error_state
  std::string error;
};

std::map<std::string, Row> Rows(const AdsClientStatus& status,
                                const std::vector<std::string>& existing) {
  auto config =
      status.ToClientConfig([&](const std::string&, const std::string& name) {
        for (const auto& e : existing) {
          if (e == name) return true;
        }
        return false;
      });
  std::map<std::string, Row> rows;
  for (const auto& g : config.generic_xds_configs()) {
    rows[g.name()] = {
        envoy::admin::v3::ClientResourceStatus_Name(g.client_status()),
        envoy::service::status::v3::ConfigStatus_Name(g.config_status()),
        g.version_info(),
        g.has_error_state() ? g.error_state().version_info() : "",
        g.error_state().details()};
  }
  return rows;
}

void Expect(const std::map<std::string, Row>& got, const std::string& name,
            const Row& want) {
  SCOPED_TRACE(name);
  auto it = got.find(name);
  ASSERT_NE(it, got.end());
  EXPECT_EQ(it->second.client_status, want.client_status);
  EXPECT_EQ(it->second.config_status, want.config_status);
  EXPECT_EQ(it->second.version, want.version);
  EXPECT_EQ(it->second.error_version, want.error_version);
  EXPECT_EQ(it->second.error, want.error);
}

AdsClientStatus NewStatus() {
  return AdsClientStatus([](const std::string& name) { return name; });
}

TEST(AdsClientStatusTest, LifecycleOfAResponse) {
  AdsClientStatus s = NewStatus();
  DiscoveryRequest first = Request(kCds, {"a", "b", "gone"});
  first.mutable_node()->set_id("n1");
  s.OnRequest(first, absl::Now());
  // Subscribed, not yet sent: REQUESTED, or DOES_NOT_EXIST if the server
  // lacks it.
  auto rows = Rows(s, {"a", "b"});
  Expect(rows, "a", {"REQUESTED", "NOT_SENT", "", "", ""});
  Expect(rows, "gone", {"DOES_NOT_EXIST", "NOT_SENT", "", "", ""});
  // Sent, unanswered: STALE.
  s.OnResponse(kCds, "1", "v1", {"a", "b"});
  Expect(Rows(s, {"a", "b"}), "a", {"REQUESTED", "STALE", "", "", ""});
  // ACKed: SYNCED at that version.
  s.OnRequest(Request(kCds, {"a", "b", "gone"}, "1", "v1"), absl::Now());
  rows = Rows(s, {"a", "b"});
  Expect(rows, "a", {"ACKED", "SYNCED", "v1", "", ""});
  Expect(rows, "b", {"ACKED", "SYNCED", "v1", "", ""});
  // v2 NACKed: every resource of that response is NACKED with the rejected
  // version and the client's error; version stays the last ACKed one.
  s.OnResponse(kCds, "2", "v2", {"a", "b"});
  s.OnRequest(Request(kCds, {"a", "b", "gone"}, "2", "v1", "b: bad"),
              absl::Now());
  rows = Rows(s, {"a", "b"});
  Expect(rows, "b", {"NACKED", "ERROR", "v1", "v2", "b: bad"});
  // v3 ACKed: the error is gone.
  s.OnResponse(kCds, "3", "v3", {"a", "b"});
  s.OnRequest(Request(kCds, {"a", "b", "gone"}, "3", "v3"), absl::Now());
  Expect(Rows(s, {"a", "b"}), "b", {"ACKED", "SYNCED", "v3", "", ""});
  EXPECT_EQ(s.ToClientConfig([](auto&, auto&) { return true; }).node().id(),
            "n1");
}

TEST(AdsClientStatusTest, TypesAreIndependentAndUnsubscribedLeave) {
  AdsClientStatus s = NewStatus();
  s.OnRequest(Request(kCds, {"a"}), absl::Now());
  s.OnRequest(Request(kEds, {"e"}), absl::Now());
  s.OnResponse(kCds, "1", "v1", {"a"});
  s.OnResponse(kEds, "2", "v1", {"e"});
  s.OnRequest(Request(kEds, {"e"}, "2", "", "eds bad"), absl::Now());
  auto rows = Rows(s, {"a", "e"});
  Expect(rows, "a", {"REQUESTED", "STALE", "", "", ""});
  Expect(rows, "e", {"NACKED", "ERROR", "", "v1", "eds bad"});
  // An answer to an unknown nonce changes nothing; dropping "a" removes it.
  s.OnRequest(Request(kCds, {}, "99", "v9"), absl::Now());
  rows = Rows(s, {"a", "e"});
  // CDS with no names is the wildcard: "a" (sent) stays.
  Expect(rows, "a", {"REQUESTED", "STALE", "", "", ""});
  s.OnRequest(Request(kEds, {}, "", ""), absl::Now());
  EXPECT_EQ(Rows(s, {"a", "e"}).count("e"), 0u);
}

}  // namespace
}  // namespace xdsfed::control_plane
