// Proto3 JSON (the canonical protobuf JSON mapping) -> serialized xDS
// messages, for tools that take resources as text (`xdsfed validate`, the
// control plane's snapshot files).
//
//   absl::StatusOr<SerializedMessage> m = ProtoJsonToSerialized(
//       R"({"name":"c","type":"EDS"})", "envoy.config.cluster.v3.Cluster");
//   // m->type_name == "envoy.config.cluster.v3.Cluster", m->bytes: the wire
//   // form, as a DiscoveryResponse would carry it
//
// The text is checked with the JSON rules of the bootstrap reader first
// (lib/json CheckJsonText: valid UTF-8, no raw control character or NUL in a
// string, nesting at most kMaxJsonDepth), so both readers take the same
// inputs. The conversion goes straight from text to wire bytes: no tree of
// the document and no message object is built, so memory stays near the
// size of the text. A field unknown to the type an inner "@type" names is
// reported with that type, so a wrong "@type" is visible as such.
#ifndef XDSFED_LIB_RESOURCES_PROTO_JSON_H_
#define XDSFED_LIB_RESOURCES_PROTO_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed::resources {

struct SerializedMessage {
  std::string type_name;  // "envoy.config.cluster.v3.Cluster", no URL prefix
  std::string bytes;
};

// Converts `text`. Without a top-level "@type" the text is a message of
// `default_type_name`; with one, it is an Any and its type is the one
// "@type" names (the caller decides whether that type is acceptable).
// Errors are kInvalidArgument "invalid proto3 JSON for <type>: <detail>".
absl::StatusOr<SerializedMessage> ProtoJsonToSerialized(
    absl::string_view text, absl::string_view default_type_name);

}  // namespace xdsfed::resources

#endif  // XDSFED_LIB_RESOURCES_PROTO_JSON_H_
