// Fuzzes ParseUri, ParseTargetUri, ParseXdsTarget and FormatListeningAddress.
// Invariants: a parsed URI (strict or lenient) re-serializes to its input
// (scheme lower-cased) and reparses equal; every component of a strict URI
// decodes; whatever the strict parser takes the lenient one takes, equal
// (but an empty query, which gRPC C-core refuses); a
// parsed xds: target has a non-empty data-plane authority that strictly
// decodes to its hostname, which does not end in '/'; a canonical listening
// address is a fixed point.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "lib/base/check.h"
#include "lib/name/percent_encoding.h"
#include "lib/name/uri.h"
#include "lib/name/xds_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);

  auto uri = xdsfed::ParseUri(text);
  if (uri.ok()) {
    const std::string again = uri->ToString();
    XDSFED_CHECK(again.size() == text.size());
    XDSFED_CHECK(again.substr(uri->scheme.size()) ==
                 text.substr(uri->scheme.size()));
    XDSFED_CHECK(absl::AsciiStrToLower(text.substr(0, uri->scheme.size())) ==
                 uri->scheme);
    auto reparsed = xdsfed::ParseUri(again);
    XDSFED_CHECK(reparsed.ok() && *reparsed == *uri);
    XDSFED_CHECK(xdsfed::PercentDecode(uri->authority).ok());
    XDSFED_CHECK(xdsfed::PercentDecode(uri->path).ok());
    XDSFED_CHECK(xdsfed::PercentDecode(uri->query).ok());
    XDSFED_CHECK(xdsfed::PercentDecode(uri->fragment).ok());
  }

  auto lenient = xdsfed::ParseTargetUri(text);
  // C-core refuses an empty query ("x:a?"), which RFC 3986 allows.
  if (uri.ok() && !(uri->has_query && uri->query.empty())) {
    XDSFED_CHECK(lenient.ok() && *lenient == *uri);
  }
  if (lenient.ok()) {
    const std::string again = lenient->ToString();
    XDSFED_CHECK(again.substr(lenient->scheme.size()) ==
                 text.substr(lenient->scheme.size()));
    auto reparsed = xdsfed::ParseTargetUri(again);
    XDSFED_CHECK(reparsed.ok() && *reparsed == *lenient);
  }

  auto target = xdsfed::ParseXdsTarget(text);
  if (target.ok()) {
    XDSFED_CHECK(lenient.ok() && lenient->scheme == "xds");
    XDSFED_CHECK(!target->data_plane_authority.empty());
    XDSFED_CHECK(target->hostname.back() != '/');
    auto decoded = xdsfed::PercentDecode(target->data_plane_authority);
    XDSFED_CHECK(decoded.ok() && *decoded == target->hostname);
    XDSFED_CHECK(!target->authority.has_value() || !target->authority->empty());
  }

  auto address = xdsfed::FormatListeningAddress(text);
  if (address.ok()) {
    auto again = xdsfed::FormatListeningAddress(*address);
    XDSFED_CHECK(again.ok() && *again == *address);
  }
  return 0;
}
