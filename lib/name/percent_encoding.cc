#include "lib/name/percent_encoding.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/name/internal/char_class.h"

namespace xdsfed {
namespace {

using name_internal::HasClass;

std::string PercentEncode(absl::string_view s, uint16_t allowed) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (HasClass(c, allowed)) {
      out.push_back(c);
    } else {
      const auto b = static_cast<uint8_t>(c);
      out.push_back('%');
      out.push_back(name_internal::kUpperHex[b >> 4]);
      out.push_back(name_internal::kUpperHex[b & 15]);
    }
  }
  return out;
}

}  // namespace

bool IsUnreservedChar(char c) {
  return HasClass(c, name_internal::kUnreserved);
}
bool IsSubDelimChar(char c) { return HasClass(c, name_internal::kSubDelim); }
bool IsPathChar(char c) { return HasClass(c, name_internal::kPath); }
bool IsAuthorityChar(char c) { return HasClass(c, name_internal::kAuthority); }
bool IsQueryChar(char c) { return HasClass(c, name_internal::kQuery); }

std::string PercentEncodePath(absl::string_view s) {
  return PercentEncode(s, name_internal::kPath);
}
std::string PercentEncodeAuthority(absl::string_view s) {
  return PercentEncode(s, name_internal::kAuthority);
}
std::string PercentEncodeQuery(absl::string_view component) {
  return PercentEncode(component, name_internal::kQueryPart);
}

absl::StatusOr<std::string> PercentDecode(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size() || !HasClass(s[i + 1], name_internal::kHexDigit) ||
        !HasClass(s[i + 2], name_internal::kHexDigit)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid percent-encoding at offset ", i,
                       ": expected two hex digits after '%'"));
    }
    out.push_back(static_cast<char>(name_internal::HexValue(s[i + 1]) * 16 +
                                    name_internal::HexValue(s[i + 2])));
    i += 2;
  }
  return out;
}

std::string PercentDecodeLenient(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() &&
        HasClass(s[i + 1], name_internal::kHexDigit) &&
        HasClass(s[i + 2], name_internal::kHexDigit)) {
      out.push_back(static_cast<char>(name_internal::HexValue(s[i + 1]) * 16 +
                                      name_internal::HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace xdsfed
