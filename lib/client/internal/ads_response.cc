#include "lib/client/internal/ads_response.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xdsfed {
namespace client {
namespace {

constexpr absl::string_view kResourceWrapperType =
    "envoy.service.discovery.v3.Resource";

}  // namespace

std::string ResourceErrorPrefix(int index, absl::string_view name) {
  return name.empty()
             ? absl::StrCat("resource index ", index, ": ")
             : absl::StrCat("resource index ", index, ": ", name, ": ");
}

envoy::service::discovery::v3::DiscoveryResponse* ParseDiscoveryResponse(
    absl::string_view payload, google::protobuf::Arena* arena) {
  auto* response = google::protobuf::Arena::CreateMessage<
      envoy::service::discovery::v3::DiscoveryResponse>(arena);
  if (!response->ParseFromArray(payload.data(),
                                static_cast<int>(payload.size()))) {
    return nullptr;
  }
  return response;
}

std::vector<DecodedResource> DecodeResources(
    envoy::service::discovery::v3::DiscoveryResponse* response,
    const resources::ResourceType& type,
    const resources::DecodeContext& context, google::protobuf::Arena* arena,
    const resources::PreviousLookup* previous) {
  const absl::string_view type_name = type.type_name();
  std::vector<DecodedResource> out(response->resources_size());
  for (int i = 0; i < response->resources_size(); ++i) {
    DecodedResource& r = out[i];
    r.index = i;
    google::protobuf::Any& any = *response->mutable_resources(i);
    absl::string_view any_type =
        absl::StripPrefix(any.type_url(), resources::kTypeUrlPrefix);
    r.bytes = any.mutable_value();
    r.serialized = *r.bytes;
    if (any_type == kResourceWrapperType) {
      // On the arena: `serialized` points into it after this block.
      auto& wrapper = *google::protobuf::Arena::CreateMessage<
          envoy::service::discovery::v3::Resource>(arena);
      if (!wrapper.ParseFromArray(r.serialized.data(),
                                  static_cast<int>(r.serialized.size()))) {
        r.error = absl::StrCat("resource index ", i,
                               ": Can't decode Resource proto wrapper");
        continue;
      }
      if (!wrapper.has_resource()) {
        r.error =
            absl::StrCat("resource index ", i,
                         ": No resource present in Resource proto wrapper");
        continue;
      }
      any_type = absl::StripPrefix(wrapper.resource().type_url(),
                                   resources::kTypeUrlPrefix);
      r.bytes = wrapper.mutable_resource()->mutable_value();
      r.serialized = *r.bytes;
      r.name = wrapper.name();
    }
    if (any_type != type_name) {
      r.error = absl::StrCat(ResourceErrorPrefix(i, r.name),
                             "incorrect resource type \"", any_type,
                             "\" (should be \"", type_name, "\")");
      continue;
    }
    resources::DecodeResult result =
        previous == nullptr
            ? type.Decode(context, r.serialized)
            : type.DecodeUpdate(context, r.serialized, *previous);
    if (r.name.empty()) {
      if (result.name.empty()) {
        r.error = absl::StrCat(ResourceErrorPrefix(i, r.name),
                               result.value.status().ToString());
        continue;
      }
      r.name = std::move(result.name);
    }
    if (!result.value.ok()) {
      r.error = absl::StrCat(ResourceErrorPrefix(i, r.name),
                             result.value.status().ToString());
    }
    r.named = true;
    r.value = std::move(result.value);
  }
  return out;
}

}  // namespace client
}  // namespace xdsfed
