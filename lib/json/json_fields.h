// Typed readers and checks that the generated schema loaders
// (codegen/, schema/*.proto -> *.xds.h) call for each field. Each reader
// records an error at the current ValidationErrors path and returns false if
// the JSON value has the wrong type, so a loader reports every bad field at
// once:
//
//   ValidationErrors errors;
//   ValidationErrors::ScopedField field(&errors, ".server_uri");
//   std::string uri;
//   if (json::LoadString(Json::Value(5), &uri, &errors)) { ... }
//   // errors: [field:server_uri error:is not a string]
//
// Accepted forms (the wording of errors follows gRPC C-core):
//   string  JSON string only                        "is not a string"
//   bool    JSON true/false only                    "is not a boolean"
//   ints    JSON number, or a JSON string holding a decimal integer, as
//           C-core and proto3 JSON accept; an integral double such as 1e3 is
//           accepted too. Else "is not a number" (wrong type), "is not an
//           integer", or "is out of range for uint32 (expected 0..4294967295)"
//   double  JSON number or numeric string, finite    "is not a number"
//   object  "is not an object"; array "is not an array"
// JSON null is not special: for a string field it is "is not a string", as
// in C-core. Only google.protobuf.Value fields accept it.
#ifndef XDSFED_LIB_JSON_JSON_FIELDS_H_
#define XDSFED_LIB_JSON_JSON_FIELDS_H_

#include <json/value.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/base/validation_errors.h"

namespace xdsfed {
namespace json {

// Records "is not an object" / "is not an array" unless json has that type.
bool CheckObject(const Json::Value& json, ValidationErrors* errors);
bool CheckArray(const Json::Value& json, ValidationErrors* errors);

// The member `key` of `object`, or nullptr if absent. `object` must be an
// object (check with CheckObject first).
const Json::Value* FindField(const Json::Value& object, absl::string_view key);

bool LoadString(const Json::Value& json, std::string* out,
                ValidationErrors* errors);
bool LoadBool(const Json::Value& json, bool* out, ValidationErrors* errors);
bool LoadInt32(const Json::Value& json, int32_t* out, ValidationErrors* errors);
bool LoadInt64(const Json::Value& json, int64_t* out, ValidationErrors* errors);
bool LoadUInt32(const Json::Value& json, uint32_t* out,
                ValidationErrors* errors);
bool LoadUInt64(const Json::Value& json, uint64_t* out,
                ValidationErrors* errors);
bool LoadDouble(const Json::Value& json, double* out, ValidationErrors* errors);
bool LoadFloat(const Json::Value& json, float* out, ValidationErrors* errors);
// google.protobuf.Duration: a JSON string in the proto3 form
// (lib/json/proto_duration.h). Errors: "is not a string", "is not a duration
// (decimal seconds with an \"s\" suffix, e.g. \"600s\" or \"1.5s\")",
// "is out of range for a duration (+-315576000000s)".
bool LoadDuration(const Json::Value& json, absl::Duration* out,
                  ValidationErrors* errors);
// The proto3 JSON form of a duration, for ToJson ("600s").
Json::Value DurationToJson(absl::Duration d);
// google.protobuf.Struct: any JSON object, kept as is.
bool LoadStruct(const Json::Value& json, Json::Value* out,
                ValidationErrors* errors);
// google.protobuf.Value: any JSON value, kept as is. Never fails.
bool LoadValue(const Json::Value& json, Json::Value* out,
               ValidationErrors* errors);

// Loads a JSON array element by element; element i is loaded under path
// "[i]". `load(const Json::Value&, T*, ValidationErrors*) -> bool`.
template <typename T, typename LoadFn>
bool LoadArray(const Json::Value& json, std::vector<T>* out,
               ValidationErrors* errors, LoadFn load) {
  if (!CheckArray(json, errors)) return false;
  out->clear();
  out->reserve(json.size());
  for (Json::ArrayIndex i = 0; i < json.size(); ++i) {
    ValidationErrors::ScopedField field(errors, absl::StrCat("[", i, "]"));
    out->emplace_back();
    load(json[i], &out->back(), errors);
  }
  return true;
}

// Loads a JSON object as a map; the entry for key k is loaded under path
// ValidationErrors::MapKey(k).
template <typename T, typename LoadFn>
bool LoadMap(const Json::Value& json, std::map<std::string, T>* out,
             ValidationErrors* errors, LoadFn load) {
  if (!CheckObject(json, errors)) return false;
  out->clear();
  for (auto it = json.begin(); it != json.end(); ++it) {
    const char* key_end = nullptr;
    const char* key_begin = it.memberName(&key_end);
    std::string key(key_begin, key_end - key_begin);
    ValidationErrors::ScopedField field(errors, ValidationErrors::MapKey(key));
    load(*it, &(*out)[key], errors);
  }
  return true;
}

// Field rules (schema/xdsfed_options.proto). Each records an error and
// returns false when the rule is broken.
bool CheckNonEmpty(absl::string_view value, ValidationErrors* errors);
bool CheckNonEmptySize(size_t size, ValidationErrors* errors);
bool CheckMinInt(int64_t value, int64_t min, ValidationErrors* errors);
bool CheckMaxInt(int64_t value, int64_t max, ValidationErrors* errors);
bool CheckMinUInt(uint64_t value, uint64_t min, ValidationErrors* errors);
bool CheckMaxUInt(uint64_t value, uint64_t max, ValidationErrors* errors);
bool CheckMinDouble(double value, double min, ValidationErrors* errors);
bool CheckMaxDouble(double value, double max, ValidationErrors* errors);
// "must be >= 1s" / "must be <= 86400s".
bool CheckMinDuration(absl::Duration value, absl::Duration min,
                      ValidationErrors* errors);
bool CheckMaxDuration(absl::Duration value, absl::Duration max,
                      ValidationErrors* errors);

// Oneof rule: `members` pairs each JSON key with whether it was set. Records
// `only one of "a", "b" may be set` if several are set, and, when
// `required`, `one of "a", "b", "c" must be set` if none is.
bool CheckOneof(
    std::initializer_list<std::pair<absl::string_view, bool>> members,
    bool required, ValidationErrors* errors);

// For messages marked single_key (a LoadBalancingConfig entry
// {"policy_name": {...}}): the object must have exactly one member.
bool CheckSingleKey(const Json::Value& object, ValidationErrors* errors);

// Copies the members of `object` whose key is not in `known` into `out`.
void CollectUnknownFields(const Json::Value& object,
                          std::initializer_list<absl::string_view> known,
                          std::map<std::string, Json::Value>* out);

// Parses a JSON array of generated structs (e.g. a LoadBalancingConfig
// list): element i reports errors under "[i]".
//   auto list = json::ParseArray<schema::LoadBalancingConfig>(j, "bad list");
template <typename T>
absl::StatusOr<std::vector<T>> ParseArray(const Json::Value& json,
                                          absl::string_view error_prefix) {
  ValidationErrors errors;
  std::vector<T> out;
  LoadArray(json, &out, &errors,
            [](const Json::Value& element, T* item, ValidationErrors* errors) {
              item->LoadFrom(element, errors);
              return true;
            });
  if (!errors.ok()) return errors.status(error_prefix);
  return out;
}

}  // namespace json
}  // namespace xdsfed

#endif  // XDSFED_LIB_JSON_JSON_FIELDS_H_
