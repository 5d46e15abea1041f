// Reading an xDS resource given on the command line (`validate`,
// `filter-chain`): proto3 JSON, or the serialized message for a ".pb" file.
//
//   if (!AnyPayloadTypesLinked()) return UsageError("internal error: ...");
//   absl::StatusOr<std::string> bytes = ResourceFileToSerialized(
//       file, contents, resources::ListenerResourceType());
#ifndef XDSFED_TOOLS_XDSFED_RESOURCE_INPUT_H_
#define XDSFED_TOOLS_XDSFED_RESOURCE_INPUT_H_

#include <string>

#include "absl/status/statusor.h"
#include "lib/resources/resource_type.h"

namespace xdsfed::cli {

// True if every message our resources carry inside an Any is in the
// generated descriptor pool (the JSON parser needs them; see the .cc).
bool AnyPayloadTypesLinked();

// Proto3 JSON -> serialized resource, or the reason it is not one. A
// top-level "@type" makes the text an Any, whose type must be `type`.
absl::StatusOr<std::string> JsonToSerialized(
    const std::string& text, const resources::ResourceType& type);

// `contents` of `file` as the serialized resource: as is for a ".pb" file,
// else converted from proto3 JSON.
absl::StatusOr<std::string> ResourceFileToSerialized(
    const std::string& file, std::string contents,
    const resources::ResourceType& type);

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_RESOURCE_INPUT_H_
