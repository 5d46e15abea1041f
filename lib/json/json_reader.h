// Strict JSON text -> Json::Value, for bootstrap files and LB policy configs.
//
// Every input either parses or yields kInvalidArgument "malformed JSON: ...";
// nothing throws, and hostile input (deep nesting, invalid UTF-8, trailing
// garbage) is rejected cleanly rather than crashing the process:
//
//   absl::StatusOr<Json::Value> json = ParseJsonText(R"({"a": [1, 2]})");
//   // json->isObject() == true
//   ParseJsonText("{\"a\": 1} x").status().message();
//   // "malformed JSON: line 1, column 10: syntax error: extra non-whitespace
//   // after JSON value"
//
// The dialect is RFC 8259 and nothing more:
//   - no comments, trailing commas, single quotes, NaN/Infinity, or BOM;
//   - any value may be the root (RFC 8259), and only one root is allowed;
//   - duplicate object keys are rejected, as gRPC C-core's reader does, since
//     silently keeping one of two conflicting settings hides mistakes;
//   - strings (including object keys, after \u unescaping) must be valid
//     UTF-8 without surrogate code points;
//   - arrays and objects nest at most kMaxJsonDepth deep. The limit is checked
//     before jsoncpp sees the text, so jsoncpp's recursion is always shallow.
#ifndef XDSFED_LIB_JSON_JSON_READER_H_
#define XDSFED_LIB_JSON_JSON_READER_H_

#include <json/value.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

// Deepest allowed nesting of arrays and objects; "[[1]]" has depth 2.
inline constexpr int kMaxJsonDepth = 64;

// Parses one JSON text. Errors are kInvalidArgument and always start with
// "malformed JSON: ".
absl::StatusOr<Json::Value> ParseJsonText(absl::string_view text);

// Serializes compactly (no whitespace), for logs, CLI output and tests.
// Keys come out sorted, as jsoncpp stores them.
std::string JsonToString(const Json::Value& json);

}  // namespace xdsfed

#endif  // XDSFED_LIB_JSON_JSON_READER_H_
