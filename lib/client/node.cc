#include "lib/client/node.h"

#include <string>

#include "google/protobuf/struct.pb.h"
#include "json/json.h"

namespace xdsfed {
namespace client {
namespace {

void JsonToValue(const Json::Value& json, google::protobuf::Value* value);

void JsonToStruct(const Json::Value& json, google::protobuf::Struct* out) {
  if (!json.isObject()) return;
  for (const std::string& key : json.getMemberNames()) {
    JsonToValue(json[key], &(*out->mutable_fields())[key]);
  }
}

void JsonToValue(const Json::Value& json, google::protobuf::Value* value) {
  switch (json.type()) {
    case Json::nullValue:
      value->set_null_value(google::protobuf::NULL_VALUE);
      break;
    case Json::intValue:
    case Json::uintValue:
    case Json::realValue:
      value->set_number_value(json.asDouble());
      break;
    case Json::stringValue:
      value->set_string_value(json.asString());
      break;
    case Json::booleanValue:
      value->set_bool_value(json.asBool());
      break;
    case Json::arrayValue: {
      google::protobuf::ListValue* list = value->mutable_list_value();
      for (const Json::Value& element : json) {
        JsonToValue(element, list->add_values());
      }
      break;
    }
    case Json::objectValue:
      JsonToStruct(json, value->mutable_struct_value());
      break;
  }
}

}  // namespace

envoy::config::core::v3::Node BuildNode(const Bootstrap& bootstrap,
                                        absl::string_view user_agent_name,
                                        absl::string_view user_agent_version) {
  envoy::config::core::v3::Node node;
  if (bootstrap.node().has_value()) {
    const auto& raw = *bootstrap.node();
    if (!raw.id.empty()) node.set_id(raw.id);
    if (!raw.cluster.empty()) node.set_cluster(raw.cluster);
    if (raw.locality.has_value()) {
      const auto& loc = *raw.locality;
      if (!loc.region.empty() || !loc.zone.empty() || !loc.sub_zone.empty()) {
        envoy::config::core::v3::Locality* out = node.mutable_locality();
        if (!loc.region.empty()) out->set_region(loc.region);
        if (!loc.zone.empty()) out->set_zone(loc.zone);
        if (!loc.sub_zone.empty()) out->set_sub_zone(loc.sub_zone);
      }
    }
    if (raw.metadata.has_value() && raw.metadata->isObject() &&
        !raw.metadata->empty()) {
      JsonToStruct(*raw.metadata, node.mutable_metadata());
    }
  }
  node.set_user_agent_name(std::string(user_agent_name));
  node.set_user_agent_version(std::string(user_agent_version));
  node.add_client_features("envoy.lb.does_not_support_overprovisioning");
  node.add_client_features("xds.config.resource-in-sotw");
  return node;
}

}  // namespace client
}  // namespace xdsfed
