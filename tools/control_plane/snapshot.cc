// Snapshot parsing: the CLI.md snapshot file format into wire-ready bytes.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message.h"
#include "google/protobuf/wire_format_lite.h"
#include "lib/base/validation_errors.h"
#include "lib/json/json_reader.h"
#include "lib/resources/proto_json.h"
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

// The last value of the top-level string field `number` in `bytes`, or
// nullopt if the field is absent (or the bytes do not parse).
std::optional<absl::string_view> TopLevelString(absl::string_view bytes,
                                                int number) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  std::optional<absl::string_view> found;
  while (uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == number &&
        WireFormatLite::GetTagWireType(tag) ==
            WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length;
      if (!in.ReadVarint32(&length) || length > bytes.size()) return found;
      const int at = in.CurrentPosition();
      if (!in.Skip(static_cast<int>(length))) return found;
      found = bytes.substr(at, length);
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return found;
    }
  }
  return found;
}

// Parses one resource: `text` is its proto3 JSON, straight from the file
// (no tree of the snapshot is built). Records problems at the current path.
std::optional<SnapshotResource> ParseResource(
    const google::protobuf::Descriptor* type, const std::string& name,
    absl::string_view text, ValidationErrors* errors) {
  absl::StatusOr<std::vector<JsonMemberSpan>> members = SplitJsonObject(text);
  if (!members.ok()) {
    errors->AddError(text.empty() || text[0] != '{'
                         ? std::string("is not an object")
                         : std::string(members.status().message()));
    return std::nullopt;
  }
  const google::protobuf::Descriptor* send_type = type;
  // With an "@type" (a type name or URL), the rest of the object is parsed
  // as that type: the object is rebuilt without it (rare, and small).
  std::string without_at_type;
  bool has_at_type = false;
  for (const JsonMemberSpan& member : *members) {
    if (member.key != "@type") {
      absl::StrAppend(&without_at_type, without_at_type.empty() ? "{" : ",",
                      JsonToString(Json::Value(member.key)), ":", member.value);
      continue;
    }
    has_at_type = true;
    ValidationErrors::ScopedField field(errors, "[\"@type\"]");
    absl::StatusOr<Json::Value> at_type = ParseJsonText(member.value);
    if (!at_type.ok() || !at_type->isString()) {
      errors->AddError("is not a string");
      return std::nullopt;
    }
    send_type = FindType(at_type->asString());
    if (send_type == nullptr) {
      errors->AddError(
          absl::StrCat("unknown message type \"", at_type->asString(), "\""));
      return std::nullopt;
    }
  }
  if (has_at_type) {
    if (without_at_type.empty()) without_at_type = "{";
    without_at_type += "}";
    text = without_at_type;
  }
  absl::StatusOr<resources::SerializedMessage> message =
      resources::ProtoJsonToSerialized(text, send_type->full_name());
  if (!message.ok()) {
    errors->AddError(message.status().message());
    return std::nullopt;
  }
  SnapshotResource resource{
      absl::StrCat(kTypeUrlPrefix, send_type->full_name()),
      std::move(message->bytes)};
  const google::protobuf::FieldDescriptor* field = NameField(send_type);
  if (field == nullptr) return resource;
  std::optional<absl::string_view> own_name =
      TopLevelString(resource.bytes, field->number());
  if (own_name.has_value() && !own_name->empty()) return resource;
  // The name comes from the map key: rare, so a message is built for it.
  std::unique_ptr<google::protobuf::Message> parsed(
      google::protobuf::MessageFactory::generated_factory()
          ->GetPrototype(send_type)
          ->New());
  if (!parsed->ParseFromString(resource.bytes)) {
    errors->AddError("does not serialize");
    return std::nullopt;
  }
  parsed->GetReflection()->SetString(parsed.get(), field, name);
  resource.bytes = parsed->SerializeAsString();
  return resource;
}

// The members of the object `text`, or an error at the current path.
std::optional<std::vector<JsonMemberSpan>> ObjectMembers(
    absl::string_view text, ValidationErrors* errors) {
  if (text.empty() || text[0] != '{') {
    errors->AddError("is not an object");
    return std::nullopt;
  }
  absl::StatusOr<std::vector<JsonMemberSpan>> members = SplitJsonObject(text);
  if (!members.ok()) {
    errors->AddError(members.status().message());
    return std::nullopt;
  }
  return *std::move(members);
}

}  // namespace

Snapshot& Snapshot::Add(absl::string_view name,
                        const google::protobuf::Message& resource) {
  resources[resource.GetTypeName()][std::string(name)] =
      SnapshotResource{absl::StrCat(kTypeUrlPrefix, resource.GetTypeName()),
                       resource.SerializeAsString()};
  return *this;
}

// The snapshot file is read without building a tree of it (issue 16 item
// 5: a 57 MB file peaked at 2.1 GB that way): the envelope is split into
// spans, and each resource's proto3 JSON goes from its span straight to wire
// bytes. Hence no generated loader (schema/) for the envelope either: a
// loader takes a Json::Value tree of the whole document.
absl::StatusOr<Snapshot> ParseSnapshot(absl::string_view json_text) {
  LinkPayloadTypes();
  absl::Status checked = CheckJsonText(json_text);
  if (!checked.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid snapshot: ", checked.message()));
  }
  const size_t first = json_text.find_first_not_of(" \t\r\n");
  if (first == absl::string_view::npos || json_text[first] != '{') {
    return absl::InvalidArgumentError(
        "invalid snapshot: expected a JSON object with \"version\" and "
        "\"resources\"");
  }
  absl::StatusOr<std::vector<JsonMemberSpan>> root = SplitJsonObject(json_text);
  if (!root.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid snapshot: ", root.status().message()));
  }
  Snapshot snapshot;
  ValidationErrors errors;
  std::optional<absl::string_view> version_text, resources_text;
  for (const JsonMemberSpan& member : *root) {
    if (member.key == "version") {
      version_text = member.value;
    } else if (member.key == "resources") {
      resources_text = member.value;
    } else {
      ValidationErrors::ScopedField field(&errors, "." + member.key);
      errors.AddError("unknown field; expected \"version\" or \"resources\"");
    }
  }
  {
    ValidationErrors::ScopedField field(&errors, ".version");
    absl::StatusOr<Json::Value> version =
        version_text.has_value() ? ParseJsonText(*version_text)
                                 : absl::StatusOr<Json::Value>(Json::Value());
    if (!version.ok()) {
      errors.AddError(version.status().message());
    } else if (version->isNull()) {
      errors.AddError("field not present");
    } else if (!version->isString()) {
      errors.AddError("is not a string");
    } else {
      snapshot.version = version->asString();
    }
  }
  ValidationErrors::ScopedField resources_field(&errors, ".resources");
  std::optional<std::vector<JsonMemberSpan>> by_type;
  if (resources_text.has_value() && *resources_text != "null") {
    by_type = ObjectMembers(*resources_text, &errors);
  }
  if (!errors.ok()) return errors.status("invalid snapshot");
  if (!by_type.has_value()) return snapshot;  // an empty snapshot
  for (const JsonMemberSpan& type_member : *by_type) {
    ValidationErrors::ScopedField type_field(
        &errors, ValidationErrors::MapKey(type_member.key));
    const google::protobuf::Descriptor* type = FindType(type_member.key);
    if (type == nullptr) {
      errors.AddError("unknown resource type");
      continue;
    }
    std::optional<std::vector<JsonMemberSpan>> by_name =
        ObjectMembers(type_member.value, &errors);
    if (!by_name.has_value()) continue;
    auto& out = snapshot.resources[type->full_name()];
    for (const JsonMemberSpan& resource_member : *by_name) {
      ValidationErrors::ScopedField name_field(
          &errors, ValidationErrors::MapKey(resource_member.key));
      std::optional<SnapshotResource> resource = ParseResource(
          type, resource_member.key, resource_member.value, &errors);
      if (!resource.has_value()) continue;
      if (!out.emplace(resource_member.key, *std::move(resource)).second) {
        errors.AddError(
            "duplicate resource: its type is also spelled another way");
      }
    }
  }
  if (!errors.ok()) return errors.status("invalid snapshot");
  return snapshot;
}

}  // namespace xdsfed::control_plane
