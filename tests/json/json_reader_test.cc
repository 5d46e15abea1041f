#include "lib/json/json_reader.h"

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace xdsfed {
namespace {

// Inputs the strict reader accepts, with their compact re-serialization.
// RFC 8259: any value may be the root; \u escapes decode to UTF-8.
TEST(ParseJsonTextTest, AcceptsStrictJson) {
  struct Case {
    std::string in, want;
  };
  const Case kCases[] = {
      {R"({"a": [1, 2]})", R"({"a":[1,2]})"},
      {"  [ ]\n", "[]"},
      {"1", "1"},
      {"-0.5e+3", "-500.0"},
      {"\"x\"", "\"x\""},
      {"null", "null"},
      {"true", "true"},
      {R"({"\ud83d\ude00": 1})", "{\"\xF0\x9F\x98\x80\":1}"},
      {"\"caf\xC3\xA9\"", "\"caf\xC3\xA9\""},
      {R"("\u0000")", R"("\u0000")"},
      {"18446744073709551615", "18446744073709551615"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    absl::StatusOr<Json::Value> json = ParseJsonText(c.in);
    ASSERT_TRUE(json.ok()) << json.status();
    EXPECT_EQ(JsonToString(*json), c.want);
    // What we write, we read back unchanged.
    absl::StatusOr<Json::Value> again = ParseJsonText(JsonToString(*json));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(*again == *json);
  }
}

// Every rejection is "malformed JSON: ..." with the position where known.
TEST(ParseJsonTextTest, RejectsMalformedJson) {
  struct Case {
    std::string in, want;
  };
  const Case kCases[] = {
      {"", "malformed JSON: JSON text is empty"},
      {" \n\t ", "malformed JSON: JSON text is empty"},
      {"{",
       "malformed JSON: line 1, column 2: missing '}' or object member "
       "name"},
      // Trailing garbage and a second root.
      {R"({"a":1} x)",
       "malformed JSON: line 1, column 9: extra "
       "non-whitespace after JSON value"},
      {R"({"a":1}{})",
       "malformed JSON: line 1, column 8: extra "
       "non-whitespace after JSON value"},
      {"[1]]",
       "malformed JSON: line 1, column 4: extra non-whitespace after "
       "JSON value"},
      // No JSON5-isms.
      {"[1,]",
       "malformed JSON: line 1, column 4: syntax error: value, object "
       "or array expected"},
      {"// c\n{}",
       "malformed JSON: line 1, column 1: syntax error: value, "
       "object or array expected"},
      {"{'a':1}",
       "malformed JSON: line 1, column 2: missing '}' or object "
       "member name"},
      {"NaN",
       "malformed JSON: line 1, column 1: syntax error: value, object "
       "or array expected"},
      {"\xEF\xBB\xBF{}",
       "malformed JSON: line 1, column 1: syntax error: "
       "value, object or array expected"},
      // Duplicate keys are rejected, as gRPC C-core does.
      {R"({"a":1,"a":2})",
       "malformed JSON: line 1, column 8: duplicate key: "
       "'a'"},
      // Numbers: RFC 8259 grammar only, and finite.
      {"-", "malformed JSON: line 1, column 1: invalid number"},
      {"[01]", "malformed JSON: line 1, column 2: invalid number"},
      {"1.", "malformed JSON: line 1, column 1: invalid number"},
      {"[1,\n -]", "malformed JSON: line 2, column 2: invalid number"},
      {"1e999", "malformed JSON: line 1, column 1: '1e999' is not a number"},
      // Strings.
      {"\"\t\"",
       "malformed JSON: line 1, column 2: control character in "
       "string"},
      {R"(["\x"])",
       "malformed JSON: line 1, column 2: bad escape sequence in "
       "string"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    absl::StatusOr<Json::Value> json = ParseJsonText(c.in);
    ASSERT_FALSE(json.ok());
    EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(json.status().message(), c.want);
  }
}

// Invalid UTF-8 is rejected in the raw text and after \u unescaping.
TEST(ParseJsonTextTest, RejectsInvalidUtf8) {
  struct Case {
    std::string in, want;
  };
  const Case kCases[] = {
      {"\"a\xFF\"", "malformed JSON: line 1, column 3: invalid UTF-8"},
      // Overlong encoding of '/'.
      {"\"\xC0\xAF\"", "malformed JSON: line 1, column 2: invalid UTF-8"},
      // Surrogate encoded directly.
      {"\"\xED\xA0\x80\"", "malformed JSON: line 1, column 2: invalid UTF-8"},
      // Truncated sequence at the end of the text.
      {"\"\xE2\x82", "malformed JSON: line 1, column 2: invalid UTF-8"},
      // In a key.
      {"{\"k\xFE\": 1}", "malformed JSON: line 1, column 4: invalid UTF-8"},
      {R"("\udc00")",
       "malformed JSON: string escape decodes to invalid UTF-8 "
       "(unpaired surrogate)"},
      {R"({"\udc00": 1})",
       "malformed JSON: string escape decodes to invalid "
       "UTF-8 (unpaired surrogate)"},
      {R"("\ud800")",
       "malformed JSON: line 1, column 1: additional six "
       "characters expected to parse unicode surrogate pair"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    absl::StatusOr<Json::Value> json = ParseJsonText(c.in);
    ASSERT_FALSE(json.ok());
    EXPECT_EQ(json.status().message(), c.want);
  }
}

// Nesting is limited to kMaxJsonDepth before jsoncpp recurses, so 100,000
// levels are a clean error, not a stack overflow.
TEST(ParseJsonTextTest, NestingDepthIsLimited) {
  const std::string ok =
      std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJsonText(ok).ok());
  const std::string too_deep =
      std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_EQ(ParseJsonText(too_deep).status().message(),
            "malformed JSON: line 1, column 65: arrays and objects nest "
            "deeper than 64 levels");
  std::string hostile;
  for (int i = 0; i < 100000; ++i) hostile += "{\"a\":[";
  EXPECT_EQ(ParseJsonText(hostile).status().message(),
            "malformed JSON: line 1, column 193: arrays and objects nest "
            "deeper than 64 levels");
  // Brackets inside strings do not count.
  const std::string in_string =
      "\"" + std::string(100000, '[') + "\\\"" + std::string(10, '{') + "\"";
  EXPECT_TRUE(ParseJsonText(in_string).ok());
}

// A 10 MB document parses.
TEST(ParseJsonTextTest, LargeInput) {
  std::string text = "[";
  while (text.size() < 10 * 1024 * 1024) {
    text += R"({"server_uri": "xds.example.com:443", "n": 12345.5},)";
  }
  text += "null]";
  absl::StatusOr<Json::Value> json = ParseJsonText(text);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_GT(json->size(), 190000u);
}

// Random byte edits of valid documents: the reader never crashes or throws,
// every error says "malformed JSON: ", and every success round-trips.
TEST(ParseJsonTextTest, RandomMutations) {
  const std::string kSeeds[] = {
      R"({"xds_servers": [{"server_uri": "a:1", "channel_creds": [{"type":
          "insecure"}]}], "node": {"id": "n\u00e9", "metadata": {"k": [1.5e3,
          -2, true, false, null]}}})",
      R"([{"priority_experimental": {"children": {"p0": {"config": [{"x":
          {}}]}}, "priorities": ["p0"]}}])",
  };
  const char kAlphabet[] = "{}[]\",:-+.eE0123456789 \\u\x80\xff\xc3tfn";
  std::mt19937 rng(47);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = kSeeds[i % 2];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % text.size();
      const char c = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
      switch (rng() % 3) {
        case 0:
          text[pos] = c;
          break;
        case 1:
          text.insert(pos, 1, c);
          break;
        default:
          text.erase(pos, 1);
          if (text.empty()) text = "x";
          break;
      }
    }
    absl::StatusOr<Json::Value> json = ParseJsonText(text);
    if (!json.ok()) {
      ASSERT_EQ(json.status().message().substr(0, 15), "malformed JSON:")
          << text;
      continue;
    }
    ++parsed;
    absl::StatusOr<Json::Value> again = ParseJsonText(JsonToString(*json));
    ASSERT_TRUE(again.ok()) << text;
    ASSERT_TRUE(*again == *json) << text;
  }
  EXPECT_GT(parsed, 0);
}

// SplitJsonObject: members as raw spans, for documents read in parts (the
// control plane's snapshot files).
TEST(SplitJsonObjectTest, Table) {
  struct Case {
    const char* text;
    std::vector<std::pair<std::string, std::string>> want;
    const char* error;  // nullptr: success
  };
  const Case kCases[] = {
      {"{}", {}, nullptr},
      {" { \"a\" : 1 , \"b\":[1,{\"c\":\"]}\"}] ,\"\\u0040type\":\"x\"} ",
       {{"a", "1"}, {"b", "[1,{\"c\":\"]}\"}]"}, {"@type", "\"x\""}},
       nullptr},
      {"{\"s\":\"a\\\"}\"}", {{"s", "\"a\\\"}\""}}, nullptr},
      {"[1]", {}, "malformed JSON: line 1, column 1: expected an object"},
      {"{\"a\":1,\"a\":2}",
       {},
       "malformed JSON: line 1, column 8: duplicate key: 'a'"},
      {"{\"a\" 1}",
       {},
       "malformed JSON: line 1, column 6: missing ':' after object member "
       "name"},
      {"{\"a\":1 2}",
       {},
       "malformed JSON: line 1, column 8: missing ',' or '}' in object "
       "declaration"},
      {"{\"a\":[1}",
       {},
       "malformed JSON: line 1, column 6: value expected or does not end"},
      {"{\"a\":1} x",
       {},
       "malformed JSON: line 1, column 9: extra non-whitespace after JSON "
       "value"},
      {"{1:2}", {}, "malformed JSON: line 1, column 2: expected a string key"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    absl::StatusOr<std::vector<JsonMemberSpan>> members =
        SplitJsonObject(c.text);
    if (c.error != nullptr) {
      EXPECT_EQ(std::string(members.status().message()), c.error);
      continue;
    }
    ASSERT_TRUE(members.ok()) << members.status();
    std::vector<std::pair<std::string, std::string>> got;
    for (const JsonMemberSpan& m : *members) {
      got.emplace_back(m.key, std::string(m.value));
    }
    EXPECT_EQ(got, c.want);
  }
}

// CheckJsonText applies ParseJsonText's byte-level rules without a tree:
// both accept and reject the same texts for those rules.
TEST(CheckJsonTextTest, SameRulesAsParseJsonText) {
  const std::string deep(kMaxJsonDepth + 1, '[');
  const std::string kCases[] = {
      "{}",       "",   "  ", std::string("\"a\0b\"", 5),
      "\"\xff\"", "01", deep, "\"\\u0000\"",
  };
  for (const std::string& text : kCases) {
    SCOPED_TRACE(text);
    absl::Status checked = CheckJsonText(text);
    absl::StatusOr<Json::Value> parsed = ParseJsonText(text);
    if (!checked.ok()) {
      EXPECT_EQ(checked, parsed.status());
    } else if (text != deep) {
      EXPECT_TRUE(parsed.ok()) << parsed.status();
    }
  }
}

}  // namespace
}  // namespace xdsfed
