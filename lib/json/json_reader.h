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

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

// Deepest allowed nesting of arrays and objects; "[[1]]" has depth 2.
inline constexpr int kMaxJsonDepth = 64;

// Parses one JSON text. Errors are kInvalidArgument and always start with
// "malformed JSON: ".
absl::StatusOr<Json::Value> ParseJsonText(absl::string_view text);

// Checks `text` as ParseJsonText does before parsing (not empty, valid
// UTF-8, no raw control character inside a string, RFC 8259 numbers,
// nesting at most kMaxJsonDepth) without building a tree. For inputs that
// another parser reads (libprotobuf's proto3 JSON parser), so that both
// readers apply one rule; the message is the one ParseJsonText would give.
absl::Status CheckJsonText(absl::string_view text);

// One member of a JSON object: its key (unescaped) and the raw text of its
// value, a view into the text given to SplitJsonObject.
struct JsonMemberSpan {
  std::string key;
  absl::string_view value;
};

// The members of the JSON object `text`, in order, each value left as raw
// text: for large documents whose parts go to different readers, so no tree
// of the whole is ever built. Checks the object's own syntax (braces, keys,
// colons, commas, duplicate keys are errors) and that each value is one
// balanced token; the values themselves are for their reader to check. Run
// CheckJsonText on the whole text first for the byte-level rules. Errors are
// kInvalidArgument "malformed JSON: ...".
absl::StatusOr<std::vector<JsonMemberSpan>> SplitJsonObject(
    absl::string_view text);

// Serializes compactly (no whitespace), for logs, CLI output and tests.
// Keys come out sorted, as jsoncpp stores them.
std::string JsonToString(const Json::Value& json);

}  // namespace xdsfed

#endif  // XDSFED_LIB_JSON_JSON_READER_H_
