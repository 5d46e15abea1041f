// Differential fuzzer for the ClusterLoadAssignment wire-reader fast path
// (lib/resources/endpoint_fast.h) against the libprotobuf path.
// Invariants, on every input:
//   - if FastDecodeClusterLoadAssignment takes the bytes, the libprotobuf
//     path accepts them too, with an equal value and the same name;
//   - EndpointResourceType().Decode (fast path, then libprotobuf) gives
//     exactly what the libprotobuf path alone gives: same name, same status
//     (message included) or equal values.
// Input: raw bytes are the serialized ClusterLoadAssignment. An input
// starting with "t:" is instead one in protobuf text format (the rest),
// serialized before the check, so that mutations explore valid assignments
// field by field and not only broken wire bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "lib/base/check.h"
#include "lib/resources/endpoint.h"
#include "lib/resources/endpoint_fast.h"
#include "lib/resources/resource_type.h"

namespace {

using xdsfed::resources::EndpointResource;

class SilentErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
  void AddWarning(int, int, const std::string&) override {}
};

void Check(absl::string_view bytes) {
  namespace internal = xdsfed::resources::internal;
  std::string slow_name;
  const absl::StatusOr<EndpointResource> slow =
      internal::DecodeClusterLoadAssignmentWithProtobuf(bytes, &slow_name);
  EndpointResource fast;
  if (internal::FastDecodeClusterLoadAssignment(bytes, &fast)) {
    XDSFED_CHECK(slow.ok());
    XDSFED_CHECK(fast == *slow);
    XDSFED_CHECK(fast.cluster_name == slow_name);
  }
  const xdsfed::resources::DecodeResult both =
      xdsfed::resources::EndpointResourceType().Decode({}, bytes);
  XDSFED_CHECK(both.name == slow_name);
  XDSFED_CHECK(both.value.ok() == slow.ok());
  if (both.value.ok()) {
    XDSFED_CHECK(*::xdsfed::resources::EndpointResourceType().Cast(
                     both.value->get()) == *slow);
  } else {
    XDSFED_CHECK(both.value.status() == slow.status());
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
    envoy::config::endpoint::v3::ClusterLoadAssignment proto;
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
