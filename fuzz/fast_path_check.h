// The differential check every wire-reader fast-path fuzzer runs (Cluster,
// ClusterLoadAssignment, RouteConfiguration; lib/resources/*_fast.h), in one
// place. Invariants, on every input (and, where the decoding depends on it,
// with federation off and on):
//   - if the fast path takes the bytes, the libprotobuf path accepts them
//     too, with an equal value and the same resource name;
//   - the resource type's Decode (fast path, then libprotobuf) gives exactly
//     what the libprotobuf path alone gives: the same name, and the same
//     status (message included) or equal values.
// Input: raw bytes are the serialized message. An input starting with "t:"
// is instead the message in protobuf text format (the rest), serialized
// before the check, so that mutations explore valid messages field by field
// and not only broken wire bytes.
//
// A fuzzer is its traits and one line:
//   struct ClusterTraits {
//     using Proto = envoy::config::cluster::v3::Cluster;  // for "t:" inputs
//     using Value = resources::ClusterResource;
//     static constexpr bool kFederationMatters = true;
//     static const resources::XdsResourceType<Value>& Type();
//     static bool Fast(const resources::DecodeContext&, absl::string_view,
//                      Value*);
//     static absl::StatusOr<Value> Slow(const resources::DecodeContext&,
//                                       absl::string_view, std::string* name);
//     static const std::string& NameOf(const Value&);
//   };
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {
//     return xdsfed::fuzz::FastPathFuzzerInput<ClusterTraits>(d, n);
//   }
#ifndef XDSFED_FUZZ_FAST_PATH_CHECK_H_
#define XDSFED_FUZZ_FAST_PATH_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "lib/base/check.h"
#include "lib/resources/resource_type.h"

namespace xdsfed::fuzz {

// Both invariants for one decode context.
template <typename Traits>
void CheckFastPathIn(const resources::DecodeContext& context,
                     absl::string_view bytes) {
  using Value = typename Traits::Value;
  std::string slow_name;
  const absl::StatusOr<Value> slow = Traits::Slow(context, bytes, &slow_name);
  Value fast;
  if (Traits::Fast(context, bytes, &fast)) {
    XDSFED_CHECK(slow.ok());
    XDSFED_CHECK(fast == *slow);
    XDSFED_CHECK(Traits::NameOf(fast) == slow_name);
  }
  const resources::DecodeResult both = Traits::Type().Decode(context, bytes);
  XDSFED_CHECK(both.name == slow_name);
  XDSFED_CHECK(both.value.ok() == slow.ok());
  if (both.value.ok()) {
    XDSFED_CHECK(*Traits::Type().Cast(both.value->get()) == *slow);
  } else {
    XDSFED_CHECK(both.value.status() == slow.status());
  }
}

template <typename Traits>
void CheckFastPath(absl::string_view bytes) {
  for (bool federation : {false, true}) {
    if (federation && !Traits::kFederationMatters) break;
    resources::DecodeContext context;
    context.federation = federation;
    CheckFastPathIn<Traits>(context, bytes);
  }
}

// Text-format parse errors are expected; keep runs quiet.
class SilentTextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, int, const std::string&) override {}
  void AddWarning(int, int, const std::string&) override {}
};

// The body of LLVMFuzzerTestOneInput: "t:" text or raw bytes, then the check.
template <typename Traits>
int FastPathFuzzerInput(const uint8_t* data, size_t size) {
  // Invalid UTF-8 in a string field makes protobuf log; keep runs quiet.
  static const bool kQuiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)kQuiet;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  if (absl::StartsWith(input, "t:")) {
    typename Traits::Proto proto;
    google::protobuf::TextFormat::Parser parser;
    SilentTextErrors errors;
    parser.RecordErrorsTo(&errors);
    const std::string text(input.substr(2));
    if (!parser.ParseFromString(text, &proto)) return 0;
    CheckFastPath<Traits>(proto.SerializeAsString());
    return 0;
  }
  CheckFastPath<Traits>(input);
  return 0;
}

}  // namespace xdsfed::fuzz

#endif  // XDSFED_FUZZ_FAST_PATH_CHECK_H_
