// Snapshot parsing: the CLI.md snapshot file format into wire-ready bytes.
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "envoy/config/cluster/v3/cluster.pb.h"
#include "envoy/config/endpoint/v3/endpoint.pb.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/extensions/clusters/aggregate/v3/cluster.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "envoy/service/load_stats/v3/lrs.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "lib/base/validation_errors.h"
#include "lib/json/json_reader.h"
#include "tools/control_plane/control_plane.h"

namespace xdsfed::control_plane {
namespace {

// The generated pool knows a type only if its .pb.cc object is linked into
// the binary, and a static library contributes an object only when something
// references it. Resources and the Anys inside them (HttpConnectionManager in
// a Listener, Router in its filters, the aggregate ClusterConfig) must all
// resolve, so every payload type is referenced here.
void LinkPayloadTypes() {
  static const google::protobuf::Descriptor* const kLinked[] = {
      envoy::config::listener::v3::Listener::descriptor(),
      envoy::config::route::v3::RouteConfiguration::descriptor(),
      envoy::config::cluster::v3::Cluster::descriptor(),
      envoy::config::endpoint::v3::ClusterLoadAssignment::descriptor(),
      envoy::extensions::filters::network::http_connection_manager::v3::
          HttpConnectionManager::descriptor(),
      envoy::extensions::filters::http::router::v3::Router::descriptor(),
      envoy::extensions::clusters::aggregate::v3::ClusterConfig::descriptor(),
      envoy::service::discovery::v3::Resource::descriptor(),
      envoy::service::load_stats::v3::LoadStatsRequest::descriptor(),
  };
  (void)kLinked;
}

// "type.googleapis.com/a.b.C" and "a.b.C" both name a.b.C.
absl::string_view TypeNameOf(absl::string_view type) {
  size_t slash = type.rfind('/');
  return slash == absl::string_view::npos ? type : type.substr(slash + 1);
}

const google::protobuf::Descriptor* FindType(absl::string_view type) {
  return google::protobuf::DescriptorPool::generated_pool()
      ->FindMessageTypeByName(std::string(TypeNameOf(type)));
}

// The field that carries a resource's name: "name", or "cluster_name" for
// ClusterLoadAssignment.
const google::protobuf::FieldDescriptor* NameField(
    const google::protobuf::Descriptor* type) {
  for (const char* field_name : {"name", "cluster_name"}) {
    const google::protobuf::FieldDescriptor* field =
        type->FindFieldByName(field_name);
    if (field != nullptr && !field->is_repeated() &&
        field->type() == google::protobuf::FieldDescriptor::TYPE_STRING) {
      return field;
    }
  }
  return nullptr;
}

// Parses one resource object; records problems at the current path.
std::optional<SnapshotResource> ParseResource(
    const google::protobuf::Descriptor* type, const std::string& name,
    const Json::Value& value, ValidationErrors* errors) {
  if (!value.isObject()) {
    errors->AddError("is not an object");
    return std::nullopt;
  }
  Json::Value object = value;
  const google::protobuf::Descriptor* send_type = type;
  if (object.isMember("@type")) {
    const Json::Value& at_type = object["@type"];
    ValidationErrors::ScopedField field(errors, "[\"@type\"]");
    if (!at_type.isString()) {
      errors->AddError("is not a string");
      return std::nullopt;
    }
    send_type = FindType(at_type.asString());
    if (send_type == nullptr) {
      errors->AddError(
          absl::StrCat("unknown message type \"", at_type.asString(), "\""));
      return std::nullopt;
    }
    object.removeMember("@type");
  }
  std::unique_ptr<google::protobuf::Message> message(
      google::protobuf::MessageFactory::generated_factory()
          ->GetPrototype(send_type)
          ->New());
  auto status = google::protobuf::util::JsonStringToMessage(
      JsonToString(object), message.get());
  if (!status.ok()) {
    errors->AddError(absl::StrCat(
        "invalid proto3 JSON for ", send_type->full_name(), ": ",
        std::string(status.message().data(), status.message().size())));
    return std::nullopt;
  }
  if (const google::protobuf::FieldDescriptor* field = NameField(send_type)) {
    const google::protobuf::Reflection* reflection = message->GetReflection();
    if (reflection->GetString(*message, field).empty()) {
      reflection->SetString(message.get(), field, name);
    }
  }
  return SnapshotResource{absl::StrCat(kTypeUrlPrefix, send_type->full_name()),
                          message->SerializeAsString()};
}

}  // namespace

Snapshot& Snapshot::Add(absl::string_view name,
                        const google::protobuf::Message& resource) {
  resources[resource.GetTypeName()][std::string(name)] =
      SnapshotResource{absl::StrCat(kTypeUrlPrefix, resource.GetTypeName()),
                       resource.SerializeAsString()};
  return *this;
}

absl::StatusOr<Snapshot> ParseSnapshot(absl::string_view json_text) {
  LinkPayloadTypes();
  absl::StatusOr<Json::Value> root = ParseJsonText(json_text);
  if (!root.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid snapshot: ", root.status().message()));
  }
  if (!root->isObject()) {
    return absl::InvalidArgumentError(
        "invalid snapshot: expected a JSON object with \"version\" and "
        "\"resources\"");
  }
  Snapshot snapshot;
  ValidationErrors errors;
  for (const std::string& key : root->getMemberNames()) {
    if (key != "version" && key != "resources") {
      ValidationErrors::ScopedField field(&errors, "." + key);
      errors.AddError("unknown field; expected \"version\" or \"resources\"");
    }
  }
  {
    ValidationErrors::ScopedField field(&errors, ".version");
    const Json::Value& version = (*root)["version"];
    if (version.isNull()) {
      errors.AddError("field not present");
    } else if (!version.isString()) {
      errors.AddError("is not a string");
    } else {
      snapshot.version = version.asString();
    }
  }
  ValidationErrors::ScopedField resources_field(&errors, ".resources");
  const Json::Value& resources = (*root)["resources"];
  if (!resources.isNull() && !resources.isObject()) {
    errors.AddError("is not an object");
  }
  if (!errors.ok()) return errors.status("invalid snapshot");
  if (resources.isNull()) return snapshot;  // an empty snapshot
  for (const std::string& type_key : resources.getMemberNames()) {
    ValidationErrors::ScopedField type_field(
        &errors, ValidationErrors::MapKey(type_key));
    const google::protobuf::Descriptor* type = FindType(type_key);
    if (type == nullptr) {
      errors.AddError("unknown resource type");
      continue;
    }
    const Json::Value& by_name = resources[type_key];
    if (!by_name.isObject()) {
      errors.AddError("is not an object");
      continue;
    }
    auto& out = snapshot.resources[type->full_name()];
    for (const std::string& name : by_name.getMemberNames()) {
      ValidationErrors::ScopedField name_field(&errors,
                                               ValidationErrors::MapKey(name));
      std::optional<SnapshotResource> resource =
          ParseResource(type, name, by_name[name], &errors);
      if (!resource.has_value()) continue;
      if (!out.emplace(name, *std::move(resource)).second) {
        errors.AddError(
            "duplicate resource: its type is also spelled another way");
      }
    }
  }
  if (!errors.ok()) return errors.status("invalid snapshot");
  return snapshot;
}

}  // namespace xdsfed::control_plane
