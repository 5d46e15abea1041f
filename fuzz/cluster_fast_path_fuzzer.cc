// Differential fuzzer for the Cluster wire-reader fast path
// (lib/resources/cluster_fast.h) against the libprotobuf path.
// Invariants, on every input and with federation off and on:
//   - if FastDecodeCluster takes the bytes, the libprotobuf path accepts
//     them too, with an equal value and the same name;
//   - ClusterResourceType().Decode (fast path, then libprotobuf) gives
//     exactly what the libprotobuf path alone gives: same name, same status
//     (message included) or equal values.
// Input: raw bytes are the serialized Cluster. An input starting with "t:"
// is instead a Cluster in protobuf text format (the rest), serialized
// before the check, so that mutations explore valid clusters field by
// field and not only broken wire bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "lib/base/check.h"
#include "lib/resources/cluster.h"
#include "lib/resources/cluster_fast.h"
#include "lib/resources/resource_type.h"

namespace {

using xdsfed::resources::ClusterResource;

class SilentErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
  void AddWarning(int, int, const std::string&) override {}
};

void Check(absl::string_view bytes) {
  namespace internal = xdsfed::resources::internal;
  for (bool federation : {false, true}) {
    xdsfed::resources::DecodeContext context;
    context.federation = federation;
    std::string slow_name;
    const absl::StatusOr<ClusterResource> slow =
        internal::DecodeClusterWithProtobuf(context, bytes, &slow_name);
    ClusterResource fast;
    if (internal::FastDecodeCluster(context, bytes, &fast)) {
      XDSFED_CHECK(slow.ok());
      XDSFED_CHECK(fast == *slow);
      XDSFED_CHECK(fast.name == slow_name);
    }
    const xdsfed::resources::DecodeResult both =
        xdsfed::resources::ClusterResourceType().Decode(context, bytes);
    XDSFED_CHECK(both.name == slow_name);
    XDSFED_CHECK(both.value.ok() == slow.ok());
    if (both.value.ok()) {
      XDSFED_CHECK(*::xdsfed::resources::ClusterResourceType().Cast(
                       both.value->get()) == *slow);
    } else {
      XDSFED_CHECK(both.value.status() == slow.status());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  if (absl::StartsWith(input, "t:")) {
    envoy::config::cluster::v3::Cluster proto;
    google::protobuf::TextFormat::Parser parser;
    SilentErrors errors;
    parser.RecordErrorsTo(&errors);
    const std::string text(input.substr(2));
    if (!parser.ParseFromString(text, &proto)) return 0;
    Check(proto.SerializeAsString());
    return 0;
  }
  Check(input);
  return 0;
}
