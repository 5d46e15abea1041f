#include "tools/xdsfed/resource_input.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "google/protobuf/descriptor.h"
#include "lib/resources/proto_json.h"

namespace xdsfed::cli {

// The JSON parser resolves an Any's "@type" in the generated descriptor
// pool, which holds a message only if its .pb.cc object file was linked in.
// From a static library that happens only for referenced code, so every
// message our resources carry inside an Any is referenced here, in a way
// the optimizer cannot drop. True if all of them are in the pool.
bool AnyPayloadTypesLinked() {
  const google::protobuf::Message* const kPayloads[] = {
      &envoy::extensions::filters::network::http_connection_manager::v3::
          HttpConnectionManager::default_instance(),
      &envoy::extensions::filters::http::router::v3::Router::default_instance(),
      &envoy::extensions::clusters::aggregate::v3::ClusterConfig::
          default_instance(),
  };
  const google::protobuf::DescriptorPool* pool =
      google::protobuf::DescriptorPool::generated_pool();
  for (const google::protobuf::Message* payload : kPayloads) {
    const std::string& name = payload->GetDescriptor()->full_name();
    if (pool->FindMessageTypeByName(name) == nullptr) return false;
  }
  return true;
}

// Proto3 JSON -> serialized resource, or the reason it is not one. A
// top-level "@type" makes the text an Any, whose type must be TYPE.
absl::StatusOr<std::string> JsonToSerialized(
    const std::string& text, const resources::ResourceType& type) {
  absl::StatusOr<resources::SerializedMessage> message =
      resources::ProtoJsonToSerialized(text, type.type_name());
  if (!message.ok()) return message.status();
  if (message->type_name != type.type_name()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"@type\" is \"type.googleapis.com/", message->type_name,
                     "\", expected \"", type.type_url(), "\""));
  }
  return std::move(message->bytes);
}

absl::StatusOr<std::string> ResourceFileToSerialized(
    const std::string& file, std::string contents,
    const resources::ResourceType& type) {
  if (absl::EndsWith(file, ".pb")) return contents;
  return JsonToSerialized(contents, type);
}

}  // namespace xdsfed::cli
