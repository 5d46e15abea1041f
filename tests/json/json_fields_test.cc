#include "lib/json/json_fields.h"

#include <cstdint>
#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "lib/json/json_reader.h"

namespace xdsfed {
namespace json {
namespace {

Json::Value J(const std::string& text) {
  absl::StatusOr<Json::Value> json = ParseJsonText(text);
  EXPECT_TRUE(json.ok()) << text << ": " << json.status();
  return json.ok() ? *json : Json::Value();
}

// Runs `load` on `text` and returns "" or the recorded error message.
std::string LoadError(
    const std::string& text,
    const std::function<bool(const Json::Value&, ValidationErrors*)>& load) {
  ValidationErrors errors;
  ValidationErrors::ScopedField field(&errors, ".f");
  const bool ok = load(J(text), &errors);
  EXPECT_EQ(ok, errors.ok()) << text;
  return errors.Message();
}

// Integers: JSON numbers, integral doubles and decimal strings (as C-core and
// proto3 JSON accept), range-checked per type.
TEST(JsonFieldsTest, Integers) {
  struct Case {
    std::string type, in, want_value, want_error;
  };
  const Case kCases[] = {
      {"int32", "-5", "-5", ""},
      {"int32", "\"17\"", "17", ""},
      {"int32", "1e3", "1000", ""},
      {"int32", "2147483647", "2147483647", ""},
      {"int32", "2147483648", "",
       "[field:f error:is out of range for int32 (expected "
       "-2147483648..2147483647)]"},
      {"int32", "1.5", "", "[field:f error:is not an integer]"},
      {"int32", "\"1.5\"", "", "[field:f error:is not an integer]"},
      {"int32", "\"abc\"", "", "[field:f error:is not an integer]"},
      {"int32", "true", "", "[field:f error:is not a number]"},
      {"int32", "null", "", "[field:f error:is not a number]"},
      {"int32", "[1]", "", "[field:f error:is not a number]"},
      {"uint32", "4294967295", "4294967295", ""},
      {"uint32", "-1", "",
       "[field:f error:is out of range for uint32 (expected 0..4294967295)]"},
      {"int64", "-9223372036854775808", "-9223372036854775808", ""},
      {"int64", "9223372036854775808", "",
       "[field:f error:is out of range for int64 (expected "
       "-9223372036854775808..9223372036854775807)]"},
      {"int64", "\"-9223372036854775808\"", "-9223372036854775808", ""},
      {"uint64", "18446744073709551615", "18446744073709551615", ""},
      {"uint64", "\"18446744073709551615\"", "18446744073709551615", ""},
      {"uint64", "\"18446744073709551616\"", "",
       "[field:f error:is out of range for uint64 (expected "
       "0..18446744073709551615)]"},
      {"uint64", "1e30", "",
       "[field:f error:is out of range for uint64 (expected "
       "0..18446744073709551615)]"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.type + " " + c.in);
    std::string got;
    const std::string error =
        LoadError(c.in, [&](const Json::Value& j, ValidationErrors* e) {
          if (c.type == "int32") {
            int32_t v = 0;
            bool ok = LoadInt32(j, &v, e);
            got = std::to_string(v);
            return ok;
          }
          if (c.type == "uint32") {
            uint32_t v = 0;
            bool ok = LoadUInt32(j, &v, e);
            got = std::to_string(v);
            return ok;
          }
          if (c.type == "int64") {
            int64_t v = 0;
            bool ok = LoadInt64(j, &v, e);
            got = std::to_string(v);
            return ok;
          }
          uint64_t v = 0;
          bool ok = LoadUInt64(j, &v, e);
          got = std::to_string(v);
          return ok;
        });
    EXPECT_EQ(error, c.want_error);
    if (c.want_error.empty()) {
      EXPECT_EQ(got, c.want_value);
    }
  }
}

// Strings, booleans, doubles, objects: C-core's wording for type errors.
TEST(JsonFieldsTest, TypeErrors) {
  struct Case {
    std::string kind, in, want_error;
  };
  const Case kCases[] = {
      {"string", "\"x\"", ""},
      {"string", "1", "[field:f error:is not a string]"},
      {"string", "null", "[field:f error:is not a string]"},
      {"bool", "false", ""},
      {"bool", "\"true\"", "[field:f error:is not a boolean]"},
      {"bool", "0", "[field:f error:is not a boolean]"},
      {"double", "0.25", ""},
      {"double", "7", ""},
      {"double", "\"0.5\"", ""},
      {"double", "\"inf\"", "[field:f error:is not a number]"},
      {"double", "\"x\"", "[field:f error:is not a number]"},
      {"double", "{}", "[field:f error:is not a number]"},
      {"float", "1e300", "[field:f error:is out of range for float]"},
      {"struct", "{\"a\": [1]}", ""},
      {"struct", "[]", "[field:f error:is not an object]"},
      {"object", "\"{}\"", "[field:f error:is not an object]"},
      {"array", "{}", "[field:f error:is not an array]"},
      {"value", "null", ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.kind + " " + c.in);
    const std::string error =
        LoadError(c.in, [&](const Json::Value& j, ValidationErrors* e) {
          std::string s;
          bool b;
          double d;
          float f;
          Json::Value v;
          if (c.kind == "string") return LoadString(j, &s, e);
          if (c.kind == "bool") return LoadBool(j, &b, e);
          if (c.kind == "double") return LoadDouble(j, &d, e);
          if (c.kind == "float") return LoadFloat(j, &f, e);
          if (c.kind == "struct") return LoadStruct(j, &v, e);
          if (c.kind == "object") return CheckObject(j, e);
          if (c.kind == "array") return CheckArray(j, e);
          return LoadValue(j, &v, e);
        });
    EXPECT_EQ(error, c.want_error);
  }
}

// Strings keep embedded NUL bytes.
TEST(JsonFieldsTest, StringWithNul) {
  ValidationErrors errors;
  std::string s;
  ASSERT_TRUE(LoadString(J(R"("a\u0000b")"), &s, &errors));
  EXPECT_EQ(s, std::string("a\0b", 3));
}

// Arrays and maps report element errors under "[i]" and MapKey paths.
TEST(JsonFieldsTest, ArrayAndMapPaths) {
  ValidationErrors errors;
  std::vector<std::string> list;
  std::map<std::string, uint32_t> map;
  {
    ValidationErrors::ScopedField field(&errors, ".list");
    EXPECT_TRUE(
        LoadArray(J(R"(["a", 2, "c", null])"), &list, &errors, LoadString));
  }
  {
    ValidationErrors::ScopedField field(&errors, ".map");
    EXPECT_TRUE(
        LoadMap(J(R"({"ok": 1, "a\"b": -1})"), &map, &errors, LoadUInt32));
  }
  EXPECT_EQ(list.size(), 4u);
  EXPECT_EQ(map.at("ok"), 1u);
  EXPECT_EQ(errors.Message(),
            "[field:list[1] error:is not a string; "
            "field:list[3] error:is not a string; "
            "field:map[\"a\\\"b\"] error:is out of range for uint32 (expected "
            "0..4294967295)]");
}

TEST(JsonFieldsTest, Rules) {
  struct Case {
    std::function<bool(ValidationErrors*)> check;
    std::string want_error;
  };
  const Case kCases[] = {
      {[](ValidationErrors* e) { return CheckNonEmpty("", e); },
       "[field:f error:must be non-empty]"},
      {[](ValidationErrors* e) { return CheckNonEmpty("x", e); }, ""},
      {[](ValidationErrors* e) { return CheckNonEmptySize(0, e); },
       "[field:f error:must be non-empty]"},
      {[](ValidationErrors* e) { return CheckMinInt(-6, -5, e); },
       "[field:f error:must be >= -5]"},
      {[](ValidationErrors* e) { return CheckMaxInt(5, 5, e); }, ""},
      {[](ValidationErrors* e) { return CheckMaxUInt(101, 100, e); },
       "[field:f error:must be <= 100]"},
      {[](ValidationErrors* e) { return CheckMinUInt(1, 1, e); }, ""},
      {[](ValidationErrors* e) { return CheckMaxDouble(1.5, 1, e); },
       "[field:f error:must be <= 1]"},
      {[](ValidationErrors* e) { return CheckMinDouble(-0.5, 0, e); },
       "[field:f error:must be >= 0]"},
      {[](ValidationErrors* e) {
         return CheckOneof({{"a", true}, {"b", false}, {"c", true}}, false, e);
       },
       "[field:f error:only one of \"a\", \"c\" may be set]"},
      {[](ValidationErrors* e) {
         return CheckOneof({{"a", false}, {"b", false}}, true, e);
       },
       "[field:f error:one of \"a\", \"b\" must be set]"},
      {[](ValidationErrors* e) {
         return CheckOneof({{"a", false}, {"b", false}}, false, e);
       },
       ""},
      {[](ValidationErrors* e) { return CheckSingleKey(J("{}"), e); },
       "[field:f error:must have exactly one field, found 0]"},
      {[](ValidationErrors* e) {
         return CheckSingleKey(J(R"({"a":{},"b":{}})"), e);
       },
       "[field:f error:must have exactly one field, found 2]"},
  };
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    SCOPED_TRACE(i);
    ValidationErrors errors;
    ValidationErrors::ScopedField field(&errors, ".f");
    EXPECT_EQ(kCases[i].check(&errors), kCases[i].want_error.empty());
    EXPECT_EQ(errors.Message(), kCases[i].want_error);
  }
}

}  // namespace
}  // namespace json
}  // namespace xdsfed
