#include "lib/client/internal/ads_request.h"

#include "envoy/service/discovery/v3/discovery.pb.h"
#include "google/protobuf/arena.h"

namespace xdsfed {
namespace client {

std::string BuildAdsRequest(
    absl::string_view type_url, absl::string_view version,
    absl::string_view nonce,
    const std::vector<absl::string_view>& resource_names,
    const absl::Status& error, const envoy::config::core::v3::Node* node) {
  // On an arena: a 10,000-resource request is 10,000 name strings, freed
  // together.
  google::protobuf::Arena arena;
  auto& request = *google::protobuf::Arena::CreateMessage<
      envoy::service::discovery::v3::DiscoveryRequest>(&arena);
  request.set_type_url(std::string(type_url));
  if (!version.empty()) request.set_version_info(std::string(version));
  if (!nonce.empty()) request.set_response_nonce(std::string(nonce));
  if (!error.ok()) {
    // C-core hard-codes INVALID_ARGUMENT whatever the individual errors were.
    request.mutable_error_detail()->set_code(
        static_cast<int>(absl::StatusCode::kInvalidArgument));
    request.mutable_error_detail()->set_message(std::string(error.message()));
  }
  if (node != nullptr) *request.mutable_node() = *node;
  request.mutable_resource_names()->Reserve(
      static_cast<int>(resource_names.size()));
  for (absl::string_view name : resource_names) {
    request.add_resource_names(name.data(), name.size());
  }
  return request.SerializeAsString();
}

}  // namespace client
}  // namespace xdsfed
