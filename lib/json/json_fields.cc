#include "lib/json/json_fields.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "lib/json/proto_duration.h"

namespace xdsfed {
namespace json {
namespace {

// A JSON integer after type checks: either fits int64 (`is_signed`) or is a
// uint64 above INT64_MAX.
struct Integer {
  bool is_signed = true;
  int64_t s = 0;
  uint64_t u = 0;
};

enum class IntegerRead { kOk, kNotNumber, kNotInteger, kOutOfRange };

bool IsDecimalInteger(absl::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

IntegerRead ReadInteger(const Json::Value& json, Integer* out) {
  switch (json.type()) {
    case Json::intValue:
      out->s = json.asInt64();
      return IntegerRead::kOk;
    case Json::uintValue: {
      const uint64_t u = json.asUInt64();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        out->s = static_cast<int64_t>(u);
      } else {
        out->is_signed = false;
        out->u = u;
      }
      return IntegerRead::kOk;
    }
    case Json::realValue: {
      const double d = json.asDouble();
      if (!std::isfinite(d) || d != std::trunc(d)) {
        return IntegerRead::kNotInteger;
      }
      // 2^63 and 2^64 are exact doubles.
      if (d < -9223372036854775808.0 || d >= 18446744073709551616.0) {
        return IntegerRead::kOutOfRange;
      }
      if (d < 9223372036854775808.0) {
        out->s = static_cast<int64_t>(d);
      } else {
        out->is_signed = false;
        out->u = static_cast<uint64_t>(d);
      }
      return IntegerRead::kOk;
    }
    case Json::stringValue: {
      // C-core (and proto3 JSON) accept integers written as strings.
      const std::string s = json.asString();
      if (!IsDecimalInteger(s)) return IntegerRead::kNotInteger;
      if (absl::SimpleAtoi(s, &out->s)) return IntegerRead::kOk;
      if (absl::SimpleAtoi(s, &out->u)) {
        out->is_signed = false;
        return IntegerRead::kOk;
      }
      return IntegerRead::kOutOfRange;
    }
    default:
      return IntegerRead::kNotNumber;
  }
}

template <typename T>
bool LoadInteger(const Json::Value& json, T* out, absl::string_view type_name,
                 ValidationErrors* errors) {
  using Limits = std::numeric_limits<T>;
  Integer value;
  IntegerRead read = ReadInteger(json, &value);
  if (read == IntegerRead::kOk) {
    if (value.is_signed) {
      const bool fits =
          std::is_signed<T>::value
              ? (value.s >= static_cast<int64_t>(Limits::min()) &&
                 value.s <= static_cast<int64_t>(Limits::max()))
              : (value.s >= 0 && static_cast<uint64_t>(value.s) <=
                                     static_cast<uint64_t>(Limits::max()));
      if (fits) {
        *out = static_cast<T>(value.s);
        return true;
      }
    } else if (value.u <= static_cast<uint64_t>(Limits::max())) {
      *out = static_cast<T>(value.u);
      return true;
    }
    read = IntegerRead::kOutOfRange;
  }
  switch (read) {
    case IntegerRead::kNotNumber:
      errors->AddError("is not a number");
      break;
    case IntegerRead::kNotInteger:
      errors->AddError("is not an integer");
      break;
    default:
      errors->AddError(absl::StrCat("is out of range for ", type_name,
                                    " (expected ", +Limits::min(), "..",
                                    +Limits::max(), ")"));
      break;
  }
  return false;
}

}  // namespace

bool CheckObject(const Json::Value& json, ValidationErrors* errors) {
  if (json.type() == Json::objectValue) return true;
  errors->AddError("is not an object");
  return false;
}

bool CheckArray(const Json::Value& json, ValidationErrors* errors) {
  if (json.type() == Json::arrayValue) return true;
  errors->AddError("is not an array");
  return false;
}

const Json::Value* FindField(const Json::Value& object, absl::string_view key) {
  if (object.type() != Json::objectValue) return nullptr;
  return object.find(key.data(), key.data() + key.size());
}

bool LoadString(const Json::Value& json, std::string* out,
                ValidationErrors* errors) {
  if (json.type() != Json::stringValue) {
    errors->AddError("is not a string");
    return false;
  }
  const char* begin = nullptr;
  const char* end = nullptr;
  if (json.getString(&begin, &end)) {
    out->assign(begin, end);
  } else {
    out->clear();
  }
  return true;
}

bool LoadBool(const Json::Value& json, bool* out, ValidationErrors* errors) {
  if (json.type() != Json::booleanValue) {
    errors->AddError("is not a boolean");
    return false;
  }
  *out = json.asBool();
  return true;
}

bool LoadInt32(const Json::Value& json, int32_t* out,
               ValidationErrors* errors) {
  return LoadInteger(json, out, "int32", errors);
}
bool LoadInt64(const Json::Value& json, int64_t* out,
               ValidationErrors* errors) {
  return LoadInteger(json, out, "int64", errors);
}
bool LoadUInt32(const Json::Value& json, uint32_t* out,
                ValidationErrors* errors) {
  return LoadInteger(json, out, "uint32", errors);
}
bool LoadUInt64(const Json::Value& json, uint64_t* out,
                ValidationErrors* errors) {
  return LoadInteger(json, out, "uint64", errors);
}

bool LoadDouble(const Json::Value& json, double* out,
                ValidationErrors* errors) {
  switch (json.type()) {
    case Json::intValue:
    case Json::uintValue:
    case Json::realValue:
      *out = json.asDouble();
      return true;
    case Json::stringValue: {
      double d;
      if (absl::SimpleAtod(json.asString(), &d) && std::isfinite(d)) {
        *out = d;
        return true;
      }
      break;
    }
    default:
      break;
  }
  errors->AddError("is not a number");
  return false;
}

bool LoadFloat(const Json::Value& json, float* out, ValidationErrors* errors) {
  double d;
  if (!LoadDouble(json, &d, errors)) return false;
  if (std::fabs(d) > FLT_MAX) {
    errors->AddError("is out of range for float");
    return false;
  }
  *out = static_cast<float>(d);
  return true;
}

bool LoadDuration(const Json::Value& json, absl::Duration* out,
                  ValidationErrors* errors) {
  std::string text;
  if (!LoadString(json, &text, errors)) return false;
  switch (ParseProtoDuration(text, out)) {
    case DurationParse::kOk:
      return true;
    case DurationParse::kMalformed:
      errors->AddError(
          "is not a duration (decimal seconds with an \"s\" suffix, e.g. "
          "\"600s\" or \"1.5s\")");
      return false;
    case DurationParse::kOutOfRange:
      errors->AddError(absl::StrCat("is out of range for a duration (+-",
                                    kMaxProtoDurationSeconds, "s)"));
      return false;
  }
  return false;
}

Json::Value DurationToJson(absl::Duration d) {
  return Json::Value(FormatProtoDuration(d));
}

bool LoadStruct(const Json::Value& json, Json::Value* out,
                ValidationErrors* errors) {
  if (!CheckObject(json, errors)) return false;
  *out = json;
  return true;
}

bool LoadValue(const Json::Value& json, Json::Value* out,
               ValidationErrors* /*errors*/) {
  *out = json;
  return true;
}

bool CheckNonEmpty(absl::string_view value, ValidationErrors* errors) {
  return CheckNonEmptySize(value.size(), errors);
}

bool CheckNonEmptySize(size_t size, ValidationErrors* errors) {
  if (size > 0) return true;
  errors->AddError("must be non-empty");
  return false;
}

bool CheckMinInt(int64_t value, int64_t min, ValidationErrors* errors) {
  if (value >= min) return true;
  errors->AddError(absl::StrCat("must be >= ", min));
  return false;
}

bool CheckMaxInt(int64_t value, int64_t max, ValidationErrors* errors) {
  if (value <= max) return true;
  errors->AddError(absl::StrCat("must be <= ", max));
  return false;
}

bool CheckMinUInt(uint64_t value, uint64_t min, ValidationErrors* errors) {
  if (value >= min) return true;
  errors->AddError(absl::StrCat("must be >= ", min));
  return false;
}

bool CheckMaxUInt(uint64_t value, uint64_t max, ValidationErrors* errors) {
  if (value <= max) return true;
  errors->AddError(absl::StrCat("must be <= ", max));
  return false;
}

bool CheckMinDouble(double value, double min, ValidationErrors* errors) {
  if (value >= min) return true;
  errors->AddError(absl::StrCat("must be >= ", min));
  return false;
}

bool CheckMaxDouble(double value, double max, ValidationErrors* errors) {
  if (value <= max) return true;
  errors->AddError(absl::StrCat("must be <= ", max));
  return false;
}

bool CheckMinDuration(absl::Duration value, absl::Duration min,
                      ValidationErrors* errors) {
  if (value >= min) return true;
  errors->AddError(absl::StrCat("must be >= ", FormatProtoDuration(min)));
  return false;
}

bool CheckMaxDuration(absl::Duration value, absl::Duration max,
                      ValidationErrors* errors) {
  if (value <= max) return true;
  errors->AddError(absl::StrCat("must be <= ", FormatProtoDuration(max)));
  return false;
}

namespace {

std::string QuotedList(absl::string_view separator,
                       const std::vector<absl::string_view>& names) {
  return absl::StrJoin(names, separator,
                       [](std::string* out, absl::string_view name) {
                         absl::StrAppend(out, "\"", name, "\"");
                       });
}

}  // namespace

bool CheckOneof(
    std::initializer_list<std::pair<absl::string_view, bool>> members,
    bool required, ValidationErrors* errors) {
  std::vector<absl::string_view> set, all;
  for (const auto& [name, is_set] : members) {
    all.push_back(name);
    if (is_set) set.push_back(name);
  }
  if (set.size() > 1) {
    errors->AddError(
        absl::StrCat("only one of ", QuotedList(", ", set), " may be set"));
    return false;
  }
  if (required && set.empty()) {
    errors->AddError(
        absl::StrCat("one of ", QuotedList(", ", all), " must be set"));
    return false;
  }
  return true;
}

bool CheckSingleKey(const Json::Value& object, ValidationErrors* errors) {
  if (object.type() != Json::objectValue || object.size() == 1) return true;
  errors->AddError(
      absl::StrCat("must have exactly one field, found ", object.size()));
  return false;
}

void CollectUnknownFields(const Json::Value& object,
                          std::initializer_list<absl::string_view> known,
                          std::map<std::string, Json::Value>* out) {
  if (object.type() != Json::objectValue) return;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const char* key_end = nullptr;
    const char* key_begin = it.memberName(&key_end);
    const absl::string_view key(key_begin, key_end - key_begin);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      (*out)[std::string(key)] = *it;
    }
  }
}

}  // namespace json
}  // namespace xdsfed
