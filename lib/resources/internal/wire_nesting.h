// Why a serialized resource did not parse, when the reason is its depth.
//
// libprotobuf refuses messages nested deeper than its recursion limit (100
// levels below the top) with the same "false" as any malformed input. The
// decoders call DecodeFailureMessage so that the error says which it was:
//
//   "cannot decode Cluster resource: not a serialized
//    envoy.config.cluster.v3.Cluster: messages nest deeper than protobuf's
//    limit of 100 levels"
#ifndef XDSFED_LIB_RESOURCES_INTERNAL_WIRE_NESTING_H_
#define XDSFED_LIB_RESOURCES_INTERNAL_WIRE_NESTING_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace xdsfed::resources {

// protobuf's default recursion limit: submessage levels below the top.
inline constexpr int kProtobufNestingLimit = 100;

// How many message levels `bytes`, read as `type`, nest below the top (0 for
// a message without submessages), counting groups and unknown groups as
// libprotobuf does; stops counting once past `stop_after`. Walks the wire
// format with an explicit stack: no recursion, whatever the input.
int WireNestingDepth(const google::protobuf::Descriptor& type,
                     absl::string_view bytes,
                     int stop_after = kProtobufNestingLimit);

// "<prefix>: not a serialized <type>", plus the nesting limit when that is
// why the bytes did not parse.
std::string DecodeFailureMessage(absl::string_view prefix,
                                 const google::protobuf::Descriptor& type,
                                 absl::string_view bytes);

}  // namespace xdsfed::resources

#endif  // XDSFED_LIB_RESOURCES_INTERNAL_WIRE_NESTING_H_
