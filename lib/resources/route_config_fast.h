// The fast path of RouteConfigResourceType().Decode (internal, not part of
// the public API): a serialized RouteConfiguration read straight from the
// wire into the validated RouteConfig, with no intermediate protobuf message.
// A 10,000-virtual-host configuration is ~100,000 small messages; building
// them with libprotobuf and then copying them into the value was most of
// the RDS ingestion cost (bench/RESULTS.md, XdsClient section).
//
//   RouteConfig config;
//   if (internal::FastDecodeRouteConfig(bytes, &config)) {
//     // exactly the value the libprotobuf path gives for `bytes`
//   } else {
//     DecodeResult r = internal::DecodeRouteConfigWithProtobuf(bytes);
//   }
//
// The contract is one-sided: the fast path either gives up (returns false)
// or returns the value the libprotobuf path would return for the same bytes.
// It gives up on anything it does not handle or cannot be sure of -
// malformed or unusual wire input (groups, a singular field or oneof set
// twice, a known field with another wire type), fields it does not read
// (typed_per_filter_config, query_parameters, metadata, hash_policy,
// cluster_specifier_plugins), and every validation error - so that error
// messages and field paths always come from the one validator in
// route_config.cc. Tests (route_config_fast_test.cc) and a differential
// fuzzer (route_config_fast_path_fuzzer) check the contract.
#ifndef XDSFED_LIB_RESOURCES_ROUTE_CONFIG_FAST_H_
#define XDSFED_LIB_RESOURCES_ROUTE_CONFIG_FAST_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/resources/resource_type.h"
#include "lib/resources/route_config.h"

namespace xdsfed {
namespace resources {
namespace internal {

// True, with *out set, if `serialized` decodes and validates with no error
// on the libprotobuf path, whose value *out then equals (and whose result
// name is out->name). False if the caller must run the libprotobuf path;
// *out is then unspecified.
bool FastDecodeRouteConfig(absl::string_view serialized, RouteConfig* out);

// An update decoded against the value a client already holds (what
// RouteConfigResourceType().DecodeUpdate runs). `previous` must equal the
// value `previous_serialized` decodes to (an accepted value and its bytes,
// as the XdsClient's cache keeps them). A virtual host of `serialized` whose
// bytes equal those of the previous bytes' host at the same index is that
// host (a host's value depends on its bytes alone), so only the others are
// read, by the fast path. Same one-sided contract as FastDecodeRouteConfig:
enum class RouteConfigUpdate {
  kGaveUp,     // the caller runs the full decode
  kUnchanged,  // `serialized` decodes to a value equal to `previous`
  kDecoded,    // *out is the value `serialized` decodes to
};
RouteConfigUpdate FastDecodeRouteConfigUpdate(
    absl::string_view serialized, const RouteConfig& previous,
    absl::string_view previous_serialized, RouteConfig* out);

// The name a serialized RouteConfiguration carries (its first name field),
// to look up the previous value before decoding; false if the bytes do not
// read that far.
bool PeekRouteConfigName(absl::string_view serialized, absl::string_view* name);

// Whether the fast path is in use. It turns itself off (FastDecodeRouteConfig
// always returns false) if the generated messages' fields differ from those
// it was written for, checked once against their descriptors, so editing
// proto/envoy/config/route/v3/*.proto cannot make the two paths disagree.
bool RouteConfigFastPathAvailable();

// What turned the fast path off: one line per message whose descriptor
// differs from the expected field list ("<message>: want <...> got <...>");
// empty when the fast path is available.
std::vector<std::string> RouteConfigFastPathMismatches();

// The libprotobuf path alone: parse, then ParseRouteConfig (route_config.cc);
// *name is set as soon as the bytes parse.
absl::StatusOr<RouteConfig> DecodeRouteConfigProto(absl::string_view serialized,
                                                   std::string* name);
// The same as a ResourceType's DecodeResult.
DecodeResult DecodeRouteConfigWithProtobuf(absl::string_view serialized);

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_ROUTE_CONFIG_FAST_H_
