#include "lib/json/json_reader.h"

#include <json/reader.h>
#include <json/writer.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xdsfed {
namespace {

absl::Status Malformed(absl::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat("malformed JSON: ", detail));
}

// Line and column (both 1-based) of byte `offset`, as jsoncpp reports them.
std::string Position(absl::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::StrCat("line ", line, ", column ", column);
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
size_t Utf8SequenceLength(absl::string_view s, size_t i) {
  const auto byte = [&](size_t k) -> unsigned {
    return static_cast<unsigned char>(s[k]);
  };
  const unsigned b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t len;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates U+D800..U+DFFF
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

bool IsValidUtf8(absl::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = Utf8SequenceLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// Length of the RFC 8259 number starting at s[i], or 0 if the token there is
// not one. jsoncpp alone would accept "-" and "01".
size_t NumberLength(absl::string_view s, size_t i) {
  const size_t start = i;
  const auto digit = [&](size_t k) {
    return k < s.size() && absl::ascii_isdigit(s[k]);
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (!digit(i)) return 0;
  if (s[i] == '0') {
    ++i;
  } else {
    while (digit(i)) ++i;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digit(i)) return 0;
    while (digit(i)) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digit(i)) return 0;
    while (digit(i)) ++i;
  }
  // "01" or "1.2.3": the number must end here.
  if (i < s.size() &&
      (absl::ascii_isdigit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
       s[i] == '+' || s[i] == '-')) {
    return 0;
  }
  return i - start;
}

// One pass over the raw text before jsoncpp runs: rejects invalid UTF-8
// anywhere, control characters in strings, numbers RFC 8259 does not allow,
// and nesting deeper than kMaxJsonDepth. jsoncpp recurses once per
// level, so this keeps hostile input from ever reaching deep recursion.
absl::Status PreScan(absl::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const size_t len = Utf8SequenceLength(text, i);
    if (len == 0) {
      return Malformed(absl::StrCat(Position(text, i), ": invalid UTF-8"));
    }
    if (in_string) {
      if (static_cast<unsigned char>(c) < 0x20) {
        return Malformed(
            absl::StrCat(Position(text, i), ": control character in string"));
      }
      if (c == '\\' && i + 1 < text.size() &&
          static_cast<unsigned char>(text[i + 1]) < 0x80) {
        i += 2;  // skips an escaped '"' or '\\'
        continue;
      }
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '-' || absl::ascii_isdigit(c)) {
      const size_t number = NumberLength(text, i);
      if (number == 0) {
        return Malformed(absl::StrCat(Position(text, i), ": invalid number"));
      }
      i += number;
      continue;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        return Malformed(absl::StrCat(Position(text, i),
                                      ": arrays and objects nest deeper than ",
                                      kMaxJsonDepth, " levels"));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    i += len;
  }
  return absl::OkStatus();
}

// "* Line 1, Column 10\n  Syntax error: value expected.\n..." ->
// "line 1, column 10: syntax error: value expected" (first error only).
std::string FirstJsoncppError(absl::string_view errs) {
  absl::string_view where, what;
  size_t newline = errs.find('\n');
  where = errs.substr(0, newline);
  if (newline != absl::string_view::npos) {
    absl::string_view rest = errs.substr(newline + 1);
    what = rest.substr(0, rest.find('\n'));
  }
  where = absl::StripAsciiWhitespace(absl::StripPrefix(where, "* "));
  what = absl::StripAsciiWhitespace(what);
  what = absl::StripSuffix(what, ".");
  if (where.empty() && what.empty()) return "parse error";
  // jsoncpp capitalizes; our messages are lowercase.
  std::string out = absl::AsciiStrToLower(where);
  absl::StrAppend(&out, ": ", what);
  const size_t what_start = where.size() + 2;
  if (what_start < out.size()) {
    out[what_start] = absl::ascii_tolower(out[what_start]);
  }
  return out;
}

// \u escapes can produce strings the raw text never contained, e.g. a lone
// "\udc00" decodes to the UTF-8 encoding of a surrogate. Checks every string
// and key after decoding. Depth is bounded by kMaxJsonDepth.
bool AllStringsValidUtf8(const Json::Value& json) {
  switch (json.type()) {
    case Json::stringValue: {
      const char* begin = nullptr;
      const char* end = nullptr;
      json.getString(&begin, &end);
      return begin == nullptr ||
             IsValidUtf8(absl::string_view(begin, end - begin));
    }
    case Json::arrayValue:
      for (const Json::Value& element : json) {
        if (!AllStringsValidUtf8(element)) return false;
      }
      return true;
    case Json::objectValue:
      for (auto it = json.begin(); it != json.end(); ++it) {
        const char* key_end = nullptr;
        const char* key = it.memberName(&key_end);
        if (!IsValidUtf8(absl::string_view(key, key_end - key))) return false;
        if (!AllStringsValidUtf8(*it)) return false;
      }
      return true;
    default:
      return true;
  }
}

std::unique_ptr<Json::CharReader> MakeStrictReader() {
  Json::CharReaderBuilder builder;
  Json::Value& s = builder.settings_;
  s["collectComments"] = false;
  s["allowComments"] = false;
  s["allowTrailingCommas"] = false;
  s["strictRoot"] = false;  // RFC 8259 allows any value as the root
  s["allowDroppedNullPlaceholders"] = false;
  s["allowNumericKeys"] = false;
  s["allowSingleQuotes"] = false;
  // Pre-scan already enforces kMaxJsonDepth; this is a second fence.
  s["stackLimit"] = kMaxJsonDepth + 8;
  s["failIfExtra"] = true;
  s["rejectDupKeys"] = true;
  s["allowSpecialFloats"] = false;
  s["skipBom"] = false;
  return std::unique_ptr<Json::CharReader>(builder.newCharReader());
}

bool IsJsonWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t SkipWhitespace(absl::string_view text, size_t i) {
  while (i < text.size() && IsJsonWhitespace(text[i])) ++i;
  return i;
}

// The end of the string token starting at text[i] == '"' (one past the
// closing quote), or npos if it does not end.
size_t StringEnd(absl::string_view text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return absl::string_view::npos;
}

// The end of the value starting at text[i]: a string, a balanced array or
// object (brackets inside strings skipped), or a run of literal characters.
// npos if it is unbalanced or empty.
size_t ValueEnd(absl::string_view text, size_t i) {
  if (i >= text.size()) return absl::string_view::npos;
  if (text[i] == '"') return StringEnd(text, i);
  if (text[i] == '[' || text[i] == '{') {
    std::string open;  // the brackets still open, innermost last
    while (i < text.size()) {
      const char c = text[i];
      if (c == '"') {
        i = StringEnd(text, i);
        if (i == absl::string_view::npos) return i;
        continue;
      }
      if (c == '[' || c == '{') {
        open.push_back(c);
      } else if (c == ']' || c == '}') {
        if (open.empty() || open.back() != (c == ']' ? '[' : '{')) {
          return absl::string_view::npos;
        }
        open.pop_back();
        if (open.empty()) return i + 1;
      }
      ++i;
    }
    return absl::string_view::npos;
  }
  const size_t start = i;
  while (i < text.size() && !IsJsonWhitespace(text[i]) && text[i] != ',' &&
         text[i] != '}' && text[i] != ']' && text[i] != ':') {
    ++i;
  }
  return i == start ? absl::string_view::npos : i;
}

}  // namespace

absl::Status CheckJsonText(absl::string_view text) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return Malformed("JSON text is empty");
  }
  return PreScan(text);
}

absl::StatusOr<std::vector<JsonMemberSpan>> SplitJsonObject(
    absl::string_view text) {
  std::vector<JsonMemberSpan> members;
  std::unordered_set<std::string> keys;
  size_t i = SkipWhitespace(text, 0);
  if (i >= text.size() || text[i] != '{') {
    return Malformed(absl::StrCat(Position(text, i), ": expected an object"));
  }
  i = SkipWhitespace(text, i + 1);
  if (i < text.size() && text[i] == '}') {
    i = SkipWhitespace(text, i + 1);
    if (i != text.size()) {
      return Malformed(absl::StrCat(Position(text, i),
                                    ": extra non-whitespace after JSON value"));
    }
    return members;
  }
  while (true) {
    if (i >= text.size() || text[i] != '"') {
      return Malformed(
          absl::StrCat(Position(text, i), ": expected a string key"));
    }
    const size_t key_end = StringEnd(text, i);
    if (key_end == absl::string_view::npos) {
      return Malformed(
          absl::StrCat(Position(text, i), ": string does not end"));
    }
    // A key without escapes is its bytes (CheckJsonText vouches for them);
    // the strict reader unescapes the others.
    const absl::string_view raw_key = text.substr(i + 1, key_end - i - 2);
    std::string key;
    if (raw_key.find('\\') == absl::string_view::npos) {
      key = std::string(raw_key);
    } else {
      absl::StatusOr<Json::Value> parsed =
          ParseJsonText(text.substr(i, key_end - i));
      if (!parsed.ok()) return parsed.status();
      key = parsed->asString();
    }
    if (!keys.insert(key).second) {
      return Malformed(
          absl::StrCat(Position(text, i), ": duplicate key: '", key, "'"));
    }
    i = SkipWhitespace(text, key_end);
    if (i >= text.size() || text[i] != ':') {
      return Malformed(absl::StrCat(Position(text, i),
                                    ": missing ':' after object member name"));
    }
    i = SkipWhitespace(text, i + 1);
    const size_t value_end = ValueEnd(text, i);
    if (value_end == absl::string_view::npos) {
      return Malformed(
          absl::StrCat(Position(text, i), ": value expected or does not end"));
    }
    members.push_back({std::move(key), text.substr(i, value_end - i)});
    i = SkipWhitespace(text, value_end);
    if (i < text.size() && text[i] == ',') {
      i = SkipWhitespace(text, i + 1);
      continue;
    }
    if (i < text.size() && text[i] == '}') break;
    return Malformed(absl::StrCat(
        Position(text, i), ": missing ',' or '}' in object declaration"));
  }
  i = SkipWhitespace(text, i + 1);
  if (i != text.size()) {
    return Malformed(absl::StrCat(Position(text, i),
                                  ": extra non-whitespace after JSON value"));
  }
  return members;
}

absl::StatusOr<Json::Value> ParseJsonText(absl::string_view text) {
  absl::Status scanned = CheckJsonText(text);
  if (!scanned.ok()) return scanned;
  Json::Value root;
  std::string errs;
  bool ok = false;
  // jsoncpp reports some failures (its stack limit, internal assertions) by
  // throwing; nothing may escape to our callers.
  try {
    // One reader per thread: building one (its settings are a Json::Value)
    // costs more than parsing a small text, and the bootstrap and snapshot
    // readers parse many small parts. parse() starts afresh on every call.
    thread_local std::unique_ptr<Json::CharReader> reader = MakeStrictReader();
    ok = reader->parse(text.data(), text.data() + text.size(), &root, &errs);
  } catch (const std::exception& e) {
    return Malformed(e.what());
  } catch (...) {
    return Malformed("parse error");
  }
  if (!ok) return Malformed(FirstJsoncppError(errs));
  if (!AllStringsValidUtf8(root)) {
    return Malformed(
        "string escape decodes to invalid UTF-8 (unpaired "
        "surrogate)");
  }
  return root;
}

std::string JsonToString(const Json::Value& json) {
  Json::StreamWriterBuilder builder;
  builder["indentation"] = "";
  builder["emitUTF8"] = true;
  return Json::writeString(builder, json);
}

}  // namespace xdsfed
