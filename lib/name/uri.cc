#include "lib/name/uri.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/base/status_macros.h"
#include "lib/name/internal/char_class.h"

namespace xdsfed {
namespace {

using name_internal::HasClass;

absl::Status UriError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("invalid uri: ", what));
}

// Checks that text[begin, end) holds only bytes of `allowed` and valid "%XX"
// escapes.
absl::Status CheckComponent(absl::string_view text, size_t begin, size_t end,
                            uint16_t allowed, absl::string_view component) {
  for (size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (HasClass(c, allowed)) continue;
    if (c == '%') {
      if (i + 2 < end && HasClass(text[i + 1], name_internal::kHexDigit) &&
          HasClass(text[i + 2], name_internal::kHexDigit)) {
        i += 2;
        continue;
      }
      return UriError(absl::StrCat("invalid percent-encoding at offset ", i,
                                   ": expected two hex digits after '%'"));
    }
    return UriError(absl::StrCat(
        "byte 0x", absl::Hex(static_cast<uint8_t>(c), absl::kZeroPad2),
        " at offset ", i, " not allowed in ", component, "; expected RFC 3986 ",
        component, " characters or %XX"));
  }
  return absl::OkStatus();
}

enum Component { kAuthority, kPath, kQuery, kFragment };
constexpr uint16_t kStrictClass[] = {
    name_internal::kAuthority, name_internal::kPath, name_internal::kQuery,
    name_internal::kQuery};
constexpr const char* kComponentName[] = {"authority", "path", "query",
                                          "fragment"};

// Splits text into its components; `check` validates each one
// (text, begin, end, component name) before it is kept.
template <typename CheckFn>
absl::StatusOr<Uri> SplitUri(absl::string_view text, CheckFn check) {
  Uri uri;
  const size_t colon = text.find(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return UriError("missing scheme; expected scheme \":\" ...");
  }
  if (!absl::ascii_isalpha(static_cast<unsigned char>(text[0]))) {
    return UriError("scheme must start with a letter");
  }
  for (size_t i = 0; i < colon; ++i) {
    if (!HasClass(text[i], name_internal::kScheme)) {
      return UriError(absl::StrCat(
          "byte 0x", absl::Hex(static_cast<uint8_t>(text[i]), absl::kZeroPad2),
          " at offset ", i,
          " not allowed in scheme; expected letters, digits, '+', '-', '.'"));
    }
  }
  uri.scheme = absl::AsciiStrToLower(text.substr(0, colon));
  size_t pos = colon + 1;
  if (text.substr(pos, 2) == "//") {
    pos += 2;
    size_t end = text.find_first_of("/?#", pos);
    if (end == absl::string_view::npos) end = text.size();
    XDSFED_RETURN_IF_ERROR(check(text, pos, end, Component::kAuthority));
    uri.has_authority = true;
    uri.authority = std::string(text.substr(pos, end - pos));
    pos = end;
  }
  size_t end = text.find_first_of("?#", pos);
  if (end == absl::string_view::npos) end = text.size();
  XDSFED_RETURN_IF_ERROR(check(text, pos, end, Component::kPath));
  uri.path = std::string(text.substr(pos, end - pos));
  pos = end;
  if (pos < text.size() && text[pos] == '?') {
    ++pos;
    end = text.find('#', pos);
    if (end == absl::string_view::npos) end = text.size();
    XDSFED_RETURN_IF_ERROR(check(text, pos, end, Component::kQuery));
    uri.has_query = true;
    uri.query = std::string(text.substr(pos, end - pos));
    pos = end;
  }
  if (pos < text.size()) {  // text[pos] == '#'
    ++pos;
    XDSFED_RETURN_IF_ERROR(check(text, pos, text.size(), Component::kFragment));
    uri.has_fragment = true;
    uri.fragment = std::string(text.substr(pos));
  }
  return uri;
}

}  // namespace

absl::StatusOr<Uri> ParseUri(absl::string_view text) {
  return SplitUri(text, [](absl::string_view text, size_t begin, size_t end,
                           Component component) {
    return CheckComponent(text, begin, end, kStrictClass[component],
                          kComponentName[component]);
  });
}

absl::StatusOr<Uri> ParseTargetUri(absl::string_view text) {
  return SplitUri(text, [](absl::string_view text, size_t begin, size_t end,
                           Component component) {
    switch (component) {
      case Component::kAuthority:
      case Component::kPath:
        return absl::OkStatus();
      case Component::kQuery:
        if (begin == end) {
          return UriError(absl::StrCat("empty query at offset ", begin,
                                       "; expected text after '?'"));
        }
        break;
      case Component::kFragment:
        break;
    }
    for (size_t i = begin; i < end; ++i) {
      if (text[i] == '%' || HasClass(text[i], name_internal::kQuery)) continue;
      return UriError(absl::StrCat(
          "byte 0x", absl::Hex(static_cast<uint8_t>(text[i]), absl::kZeroPad2),
          " at offset ", i, " not allowed in ", kComponentName[component],
          "; expected RFC 3986 ", kComponentName[component],
          " characters or '%'"));
    }
    return absl::OkStatus();
  });
}

std::string Uri::ToString() const {
  std::string out = absl::StrCat(scheme, ":");
  if (has_authority) absl::StrAppend(&out, "//", authority);
  out.append(path);
  if (has_query) absl::StrAppend(&out, "?", query);
  if (has_fragment) absl::StrAppend(&out, "#", fragment);
  return out;
}

}  // namespace xdsfed
