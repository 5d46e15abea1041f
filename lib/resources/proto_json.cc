#include "lib/resources/proto_json.h"

#include <climits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "lib/json/json_reader.h"

namespace xdsfed::resources {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

constexpr absl::string_view kUrlPrefix = "type.googleapis.com";

absl::string_view TypeNameOf(absl::string_view type_url) {
  const size_t slash = type_url.rfind('/');
  return slash == absl::string_view::npos ? type_url
                                          : type_url.substr(slash + 1);
}

const Descriptor* FindType(absl::string_view name) {
  return google::protobuf::DescriptorPool::generated_pool()
      ->FindMessageTypeByName(std::string(TypeNameOf(name)));
}

google::protobuf::util::TypeResolver* Resolver() {
  static google::protobuf::util::TypeResolver* resolver =
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          std::string(kUrlPrefix),
          google::protobuf::DescriptorPool::generated_pool());
  return resolver;
}

absl::Status Invalid(absl::string_view type_name, absl::string_view detail) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid proto3 JSON for ", type_name, ": ", detail));
}

const FieldDescriptor* FindField(const Descriptor* type,
                                 const std::string& key) {
  const FieldDescriptor* field = type->FindFieldByName(key);
  if (field == nullptr) field = type->FindFieldByCamelcaseName(key);
  if (field == nullptr) {
    for (int i = 0; i < type->field_count(); ++i) {
      if (type->field(i)->json_name() == key) return type->field(i);
    }
  }
  return field;
}

// After libprotobuf reported "Cannot find field": looks for a member unknown
// to the type an enclosing Any's "@type" names, which libprotobuf reports
// without naming the type, e.g. HttpConnectionManager fields under an
// "@type" that names a Router. Returns the message, or nullopt if the
// unknown field is not inside an Any (libprotobuf's message then suffices).
//
// `any_type` is set when `json` is the body of an Any whose "@type" names it.
std::optional<std::string> FindUnknownFieldInAny(const Json::Value& json,
                                                 const Descriptor* type,
                                                 const std::string& path,
                                                 const Descriptor* any_type) {
  if (!json.isObject()) return std::nullopt;
  if (type->full_name() == "google.protobuf.Any") {
    const Json::Value& at_type = json["@type"];
    if (!at_type.isString()) return std::nullopt;
    const Descriptor* inner = FindType(at_type.asString());
    // Well-known types have JSON forms of their own ("value").
    if (inner == nullptr ||
        absl::StartsWith(inner->full_name(), "google.protobuf.")) {
      return std::nullopt;
    }
    return FindUnknownFieldInAny(json, inner, path, inner);
  }
  if (absl::StartsWith(type->full_name(), "google.protobuf.")) {
    return std::nullopt;
  }
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string key = it.name();
    if (any_type != nullptr && key == "@type") continue;
    const std::string here = path.empty() ? key : absl::StrCat(path, ".", key);
    const FieldDescriptor* field = FindField(type, key);
    if (field == nullptr) {
      if (any_type == nullptr) return std::nullopt;
      return absl::StrCat(path.empty() ? "(top level)" : path,
                          ": \"@type\" names ", any_type->full_name(),
                          ", which has no field \"", key, "\"");
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const Json::Value& value = *it;
    std::optional<std::string> found;
    if (field->is_map()) {
      const FieldDescriptor* map_value = field->message_type()->map_value();
      if (map_value->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
          !value.isObject()) {
        continue;
      }
      for (auto entry = value.begin(); entry != value.end() && !found;
           ++entry) {
        found = FindUnknownFieldInAny(
            *entry, map_value->message_type(),
            absl::StrCat(here, "[\"", entry.name(), "\"]"), nullptr);
      }
    } else if (field->is_repeated()) {
      if (!value.isArray()) continue;
      for (Json::ArrayIndex i = 0; i < value.size() && !found; ++i) {
        found = FindUnknownFieldInAny(value[i], field->message_type(),
                                      absl::StrCat(here, "[", i, "]"), nullptr);
      }
    } else {
      found =
          FindUnknownFieldInAny(value, field->message_type(), here, nullptr);
    }
    if (found.has_value()) return found;
  }
  return std::nullopt;
}

// True if the top-level object of `text` has an "@type" member. Anything
// that is not an object is left to libprotobuf to reject.
bool HasTopLevelAtType(absl::string_view text) {
  absl::StatusOr<std::vector<JsonMemberSpan>> members = SplitJsonObject(text);
  if (!members.ok()) return false;
  for (const JsonMemberSpan& member : *members) {
    if (member.key == "@type") return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<SerializedMessage> ProtoJsonToSerialized(
    absl::string_view text, absl::string_view default_type_name) {
  absl::Status checked = CheckJsonText(text);
  if (!checked.ok()) return Invalid(default_type_name, checked.message());
  const bool is_any = HasTopLevelAtType(text);
  const std::string parse_type =
      is_any ? "google.protobuf.Any" : std::string(default_type_name);
  const Descriptor* descriptor = FindType(parse_type);
  if (descriptor == nullptr) {
    return absl::InternalError(
        absl::StrCat("no generated message for ", parse_type));
  }
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return Invalid(default_type_name, "text larger than 2 GiB");
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  std::string binary;
  google::protobuf::util::Status status;
  {
    google::protobuf::io::ArrayInputStream input(text.data(),
                                                 static_cast<int>(text.size()));
    google::protobuf::io::StringOutputStream output(&binary);
    status = google::protobuf::util::JsonToBinaryStream(
        Resolver(), absl::StrCat(kUrlPrefix, "/", parse_type), &input, &output,
        options);
  }
  if (!status.ok()) {
    std::string detail(status.message().data(), status.message().size());
    if (absl::StrContains(detail, "Cannot find field")) {
      // The error path may build a tree: the input is already rejected.
      absl::StatusOr<Json::Value> json = ParseJsonText(text);
      if (json.ok()) {
        std::optional<std::string> better =
            FindUnknownFieldInAny(*json, descriptor, "", nullptr);
        if (better.has_value()) detail = *std::move(better);
      }
    }
    return Invalid(default_type_name, detail);
  }
  if (!is_any) {
    return SerializedMessage{std::string(default_type_name), std::move(binary)};
  }
  google::protobuf::Any any;
  if (!any.ParseFromString(binary)) {
    return Invalid(default_type_name, "\"@type\" does not make an Any");
  }
  binary.clear();
  binary.shrink_to_fit();
  return SerializedMessage{std::string(TypeNameOf(any.type_url())),
                           std::move(*any.mutable_value())};
}

}  // namespace xdsfed::resources
