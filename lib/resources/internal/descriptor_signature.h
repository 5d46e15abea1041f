// The self-check of the wire-reader fast paths (route_config_fast.h,
// endpoint_fast.h, cluster_fast.h; internal): each was written against a
// fixed list of fields per message, and turns itself off if the generated
// messages' descriptors say otherwise, so editing proto/ cannot make a fast
// path and the libprotobuf path disagree.
//
//   const ExpectedFields kExpected[] = {
//       {pb::Duration::descriptor(), "proto3: 1 seconds int64; 2 nanos int32"},
//   };
//   std::vector<std::string> mismatches = SignatureMismatches(kExpected);
#ifndef XDSFED_LIB_RESOURCES_INTERNAL_DESCRIPTOR_SIGNATURE_H_
#define XDSFED_LIB_RESOURCES_INTERNAL_DESCRIPTOR_SIGNATURE_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "google/protobuf/descriptor.h"

namespace xdsfed {
namespace resources {
namespace internal {

// "<proto3|not proto3>: <number> <name> <type>[ repeated][ optional]
// [ oneof <name>][ <message or enum>]; ..." per field, in number order.
std::string FieldSignature(const google::protobuf::Descriptor* descriptor);

struct ExpectedFields {
  const google::protobuf::Descriptor* descriptor;
  const char* signature;  // as FieldSignature writes it
};

// One line per message whose signature differs:
// "<message>: want <...> got <...>". Empty when all match.
std::vector<std::string> SignatureMismatches(
    absl::Span<const ExpectedFields> expected);

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed

#endif  // XDSFED_LIB_RESOURCES_INTERNAL_DESCRIPTOR_SIGNATURE_H_
