// Drives an XdsClient (fake transport, fake clock, fake resource types; no
// real ResourceType) with a sequence of operations read from the input:
//
//   byte 0: bit 0 = federation gate
//   then records: op (1 byte), length (2 bytes, little endian), payload
//     op % 5 == 0: payload is a serialized DiscoveryResponse, sent as is
//     op % 5 == 1: payload describes a response built from a small alphabet
//                  (type, version, resources with names / validity / Any
//                  type / Resource wrapper), to reach deep states quickly
//     op % 5 == 2: the stream fails
//     op % 5 == 3: the clock advances payload[0] seconds (timers, reconnects)
//     op % 5 == 4: watch or cancel watch number payload[0] % kNames
//
// Invariants (C-core 1.51 xds_client.cc): no crash; every response on a live
// stream that decodes, with a known type URL, gets exactly one request back
// (ACK or NACK) of that type echoing its nonce; any other response gets none;
// a NACK's version is never the rejected response's unless part of it was
// valid.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "fuzz/default_flags.h"
#include "google/protobuf/stubs/logging.h"
#include "lib/base/check.h"
#include "lib/bootstrap/bootstrap.h"
#include "lib/client/xds_client.h"
#include "tests/client/client_test_util.h"

namespace xdsfed {
namespace client {
namespace testing {
namespace {

constexpr char kBootstrap[] = R"json({
  "xds_servers": [{"server_uri": "xds1:443",
                   "channel_creds": [{"type": "insecure"}]}],
  "node": {"id": "fuzz"},
  "authorities": {"a.com": {}, "": {}}
})json";

const FakeType* const kTypes[] = {&FakeListenerType(), &FakeRouteType(),
                                  &FakeClusterType(), &FakeEndpointType()};

// Names per type: old-style, xdstp spellings of one resource, another
// authority spelling, an unknown authority, an unparseable one.
std::vector<std::string> NamesFor(const FakeType& type) {
  const std::string t(type.type_name());
  return {"r0",
          "r1",
          absl::StrCat("xdstp://a.com/", t, "/x?b=2&a=1"),
          absl::StrCat("xdstp://a.com/", t, "/x?a=1&b=2"),
          absl::StrCat("xdstp:///", t, "/y"),
          absl::StrCat("xdstp://nope.com/", t, "/z"),
          absl::StrCat("xdstp://a.com/", t, "/bad?")};
}
constexpr size_t kNames = 7;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return n_ == 0; }
  uint8_t Byte() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  std::string Bytes(size_t len) {
    len = std::min(len, n_);
    std::string out(reinterpret_cast<const char*>(p_), len);
    p_ += len;
    n_ -= len;
    return out;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

envoy::service::discovery::v3::DiscoveryResponse Structured(
    const std::string& payload) {
  Reader r(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  const FakeType& type = *kTypes[r.Byte() % 4];
  const std::vector<std::string> names = NamesFor(type);
  const std::string version = absl::StrCat("v", r.Byte() % 4);
  const std::string nonce = absl::StrCat("n", r.Byte());
  std::vector<FakeResource> resources;
  const size_t count = r.Byte() % 6;
  for (size_t i = 0; i < count && !r.empty(); ++i) {
    FakeResource res;
    res.name = names[r.Byte() % names.size()];
    res.value = absl::StrCat(r.Byte() % 3);
    const uint8_t flags = r.Byte();
    res.invalid = (flags & 1) != 0;
    res.wrap = (flags & 2) != 0;
    if ((flags & 4) != 0) res.any_type_url = std::string(kCdsUrl);
    resources.push_back(std::move(res));
  }
  return MakeResponse(type.type_url(), version, nonce, resources);
}

// The type URL of a known type, with or without "type.googleapis.com/"
// (C-core matches both); "" if unknown.
absl::string_view KnownType(absl::string_view url) {
  absl::ConsumePrefix(&url, xdsfed::resources::kTypeUrlPrefix);
  for (const FakeType* t : kTypes) {
    if (t->type_name() == url) return t->type_url();
  }
  return "";
}

}  // namespace
}  // namespace testing
}  // namespace client
}  // namespace xdsfed

// libFuzzer's entropic schedule updates a frequency per rare feature on
// every run; with the ~27,000 features an XdsClient input reaches, that
// bookkeeping took most of the time (perf: InputCorpus::
// UpdateFeatureFrequency + AddRareFeature 55%, this target 27%) and ran ~12x
// fewer executions than the plain schedule (fuzz/RESULTS.md). Unless the
// command line chooses, this target runs without it.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xdsfed::fuzz::AddDefaultFlag(argc, argv, "-entropic=", "0");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xdsfed::client::testing;  // NOLINT
  using xdsfed::client::WatchId;
  using xdsfed::client::XdsClient;
  // Random bytes make protobuf log about invalid UTF-8; the parse failing is
  // what matters (the response is ignored).
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
  // Parsed once per gate: the bootstrap is not what this fuzzes, and parsing
  // it per input cost more than most inputs' steps.
  static const auto* const kBootstraps = [] {
    auto* both = new std::shared_ptr<const xdsfed::Bootstrap>[2];
    for (int federation = 0; federation < 2; ++federation) {
      auto parsed = xdsfed::Bootstrap::Parse(kBootstrap, federation == 1);
      XDSFED_CHECK(parsed.ok());
      both[federation] = *std::move(parsed);
    }
    return both;
  }();
  Reader in(data, size);
  const bool federation = (in.Byte() & 1) != 0;
  const std::shared_ptr<const xdsfed::Bootstrap>& bootstrap =
      kBootstraps[federation ? 1 : 0];
  auto factory = std::make_shared<FakeTransportFactory>();
  auto timers = std::make_shared<FakeTimers>();
  XdsClient::Options options;
  options.timers = timers;
  auto created = XdsClient::Create(bootstrap, factory, options);
  XDSFED_CHECK(created.ok());
  std::shared_ptr<XdsClient> client = std::move(*created);
  auto watcher = std::make_shared<RecordingWatcher>();
  // Watch the first name of every type; the rest start unwatched.
  WatchId ids[4][kNames] = {};
  for (size_t t = 0; t < 4; ++t) {
    ids[t][0] = client->Watch(*kTypes[t], NamesFor(*kTypes[t])[0], watcher);
  }
  int steps = 0;
  while (!in.empty() && ++steps < 64) {
    const uint8_t op = in.Byte();
    size_t len = in.Byte();
    len |= static_cast<size_t>(in.Byte()) << 8;
    const std::string payload = in.Bytes(len);
    switch (op % 5) {
      case 0:
      case 1: {
        FakeCall* call = factory->LatestCall("xds1:443");
        if (call == nullptr || call->ended()) break;
        std::string bytes = payload;
        envoy::service::discovery::v3::DiscoveryResponse response;
        if (op % 5 == 1) {
          response = Structured(payload);
          bytes = response.SerializeAsString();
        }
        const bool decodes = response.ParseFromString(bytes);
        const size_t before = call->request_count();
        call->RespondBytes(bytes);
        const size_t after = call->request_count();
        const absl::string_view known = KnownType(response.type_url());
        if (decodes && !known.empty()) {
          XDSFED_CHECK(after == before + 1);
          DiscoveryRequest reply = call->LastRequest();
          XDSFED_CHECK(reply.type_url() == known);
          XDSFED_CHECK(reply.response_nonce() == response.nonce());
          if (reply.has_error_detail()) {
            XDSFED_CHECK(reply.error_detail().code() == 3);
          } else {
            XDSFED_CHECK(reply.version_info() == response.version_info());
          }
        } else {
          XDSFED_CHECK(after == before);
        }
        break;
      }
      case 2: {
        FakeCall* call = factory->LatestCall("xds1:443");
        if (call != nullptr) call->Fail(absl::UnavailableError("fuzz"));
        break;
      }
      case 3:
        timers->Advance(absl::Seconds(payload.empty() ? 1 : payload[0]));
        break;
      case 4: {
        const uint8_t b = payload.empty() ? 0 : payload[0];
        const size_t t = (b >> 4) % 4;
        const size_t n = b % kNames;
        if (ids[t][n] != 0) {
          client->CancelWatch(ids[t][n]);
          ids[t][n] = 0;
        } else {
          ids[t][n] =
              client->Watch(*kTypes[t], NamesFor(*kTypes[t])[n], watcher);
        }
        break;
      }
    }
  }
  // The dump must be producible in whatever state the steps left. (Once per
  // input, not per step: it walks every resource, and was most of the cost.)
  client->DumpConfig();
  client.reset();
  XDSFED_CHECK(factory->live_transport_count() == 0);
  return 0;
}
