#include "lib/name/xds_target.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/name/percent_encoding.h"
#include "lib/name/uri.h"

namespace xdsfed {
namespace {

absl::Status TargetError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("invalid xds target: ", what));
}

absl::Status AddressError(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid listening address: ", what));
}

// Parses 1-n decimal digits (no sign) into *value, up to `max`.
bool ParseDecimal(absl::string_view s, uint32_t max, size_t max_digits,
                  uint32_t* value) {
  if (s.empty() || s.size() > max_digits) return false;
  uint32_t v = 0;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  if (v > max) return false;
  *value = v;
  return true;
}

// Dotted quad, each part 0-255 without leading zeros (which some parsers
// read as octal).
bool ParseIpv4(absl::string_view s, uint8_t out[4]) {
  std::vector<absl::string_view> parts = absl::StrSplit(s, '.');
  if (parts.size() != 4) return false;
  for (int i = 0; i < 4; ++i) {
    uint32_t v;
    if (parts[i].size() > 1 && parts[i][0] == '0') return false;
    if (!ParseDecimal(parts[i], 255, 3, &v)) return false;
    out[i] = static_cast<uint8_t>(v);
  }
  return true;
}

// RFC 4291 §2.2 text forms, including "::" and a trailing dotted quad.
bool ParseIpv6(absl::string_view s, uint16_t words[8]) {
  int gap = -1;  // index where "::" was
  int n = 0;
  if (absl::StartsWith(s, "::")) {
    gap = 0;
    s.remove_prefix(2);
    if (s.empty()) {
      for (int i = 0; i < 8; ++i) words[i] = 0;
      return true;
    }
  } else if (absl::StartsWith(s, ":")) {
    return false;
  }
  while (true) {
    if (n == 8) return false;
    const size_t colon = s.find(':');
    absl::string_view group = s.substr(0, colon);
    if (colon == absl::string_view::npos && absl::StrContains(group, '.')) {
      uint8_t v4[4];
      if (n > 6 || !ParseIpv4(group, v4)) return false;
      words[n++] = static_cast<uint16_t>(v4[0] << 8 | v4[1]);
      words[n++] = static_cast<uint16_t>(v4[2] << 8 | v4[3]);
      break;
    }
    if (group.empty() || group.size() > 4) return false;
    uint32_t v = 0;
    for (char c : group) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
      v = v * 16 + (absl::ascii_isdigit(static_cast<unsigned char>(c))
                        ? c - '0'
                        : absl::ascii_tolower(c) - 'a' + 10);
    }
    words[n++] = static_cast<uint16_t>(v);
    if (colon == absl::string_view::npos) break;
    s.remove_prefix(colon + 1);
    if (absl::StartsWith(s, ":")) {
      if (gap >= 0) return false;  // a second "::"
      gap = n;
      s.remove_prefix(1);
      if (s.empty()) break;
    } else if (s.empty()) {
      return false;  // trailing single ':'
    }
  }
  if (gap < 0) return n == 8;
  if (n == 8) return false;  // "::" must stand for at least one group
  const int tail = n - gap;
  for (int i = 0; i < tail; ++i) words[7 - i] = words[n - 1 - i];
  for (int i = gap; i < 8 - tail; ++i) words[i] = 0;
  return true;
}

// RFC 5952 text, as glibc's inet_ntop prints it (dotted tail for
// IPv4-mapped and -compatible addresses).
std::string FormatIpv6(const uint16_t w[8]) {
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (w[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && w[j] == 0) ++j;
    if (j - i > best_len) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  if (best_len < 2) best = -1;
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out.append("::");
      i += best_len - 1;
      continue;
    }
    if (i == 6 && best == 0 &&
        (best_len == 6 || (best_len == 5 && w[5] == 0xffff))) {
      if (out.back() != ':') out.push_back(':');
      absl::StrAppend(&out, w[6] >> 8, ".", w[6] & 0xff, ".", w[7] >> 8, ".",
                      w[7] & 0xff);
      break;
    }
    if (!out.empty() && out.back() != ':') out.push_back(':');
    absl::StrAppend(&out, absl::Hex(w[i]));
  }
  return out;
}

}  // namespace

absl::StatusOr<XdsTarget> ParseXdsTarget(absl::string_view target) {
  // Lenient as gRPC C-core is (see ParseTargetUri): users write
  // `xds:///[::1]:8080` and `xds:///svc name`, and a channel accepts them.
  // What the target becomes is encoded before it reaches a resource name.
  absl::StatusOr<Uri> uri = ParseTargetUri(target);
  if (!uri.ok()) return TargetError(uri.status().message());
  if (uri->scheme != "xds") {
    return TargetError(
        absl::StrCat("scheme is \"", uri->scheme, "\"; expected \"xds\""));
  }
  XdsTarget result;
  // gRPC C-core cannot tell "xds:///x" from "xds:x": an empty authority is
  // no authority, so the common "xds:///service" form uses the default
  // template.
  if (!uri->authority.empty()) {
    result.authority = PercentDecodeLenient(uri->authority);
  }
  const std::string path = PercentDecodeLenient(uri->path);
  result.hostname = std::string(absl::StripPrefix(path, "/"));
  // gRPC C-core's xds resolver refuses an empty path and one ending in '/'
  // (IsValidUri): neither names a data-plane authority.
  if (result.hostname.empty()) {
    return TargetError(
        "empty data-plane authority; expected a non-empty path, e.g. "
        "xds:///server.example.com");
  }
  if (absl::EndsWith(path, "/")) {
    return TargetError(
        "path ends with '/', which leaves no data-plane authority (gRPC "
        "refuses it too); expected e.g. xds:///server.example.com");
  }
  // A47 §gRPC Client Target URI Syntax, latest revision (which supersedes
  // "the last path component" of the first): the whole path minus its
  // leading '/', with any other '/' percent-encoded, as for any target URI.
  // gRPC C-core's default authority is computed the same way.
  result.data_plane_authority = PercentEncodeAuthority(result.hostname);
  return result;
}

absl::StatusOr<std::string> FormatListeningAddress(absl::string_view ip_port) {
  absl::string_view host, port;
  const bool bracketed = absl::StartsWith(ip_port, "[");
  if (bracketed) {
    const size_t close = ip_port.find(']');
    if (close == absl::string_view::npos) {
      return AddressError("missing ']' after IPv6 address");
    }
    host = ip_port.substr(1, close - 1);
    absl::string_view rest = ip_port.substr(close + 1);
    if (!absl::ConsumePrefix(&rest, ":")) {
      return AddressError("expected \":port\" after \"]\"");
    }
    port = rest;
  } else {
    const size_t colon = ip_port.rfind(':');
    if (colon == absl::string_view::npos) {
      return AddressError("expected ip:port");
    }
    host = ip_port.substr(0, colon);
    port = ip_port.substr(colon + 1);
  }
  uint32_t port_value;
  if (!ParseDecimal(port, 65535, 5, &port_value)) {
    return AddressError("port must be a decimal number from 0 to 65535");
  }
  if (bracketed) {
    uint16_t words[8];
    if (!ParseIpv6(host, words)) {
      return AddressError(
          "expected an IPv6 address inside [], e.g. [::1]:8080");
    }
    return absl::StrCat("[", FormatIpv6(words), "]:", port_value);
  }
  uint8_t v4[4];
  if (!ParseIpv4(host, v4)) {
    return AddressError(
        "expected an IPv4 dotted quad (or IPv6 in brackets), e.g. "
        "0.0.0.0:8080");
  }
  return absl::StrCat(v4[0], ".", v4[1], ".", v4[2], ".", v4[3], ":",
                      port_value);
}

}  // namespace xdsfed
