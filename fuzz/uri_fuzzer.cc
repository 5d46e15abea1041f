// Fuzzes ParseUri, ParseXdsTarget and FormatListeningAddress. Invariants:
// a parsed URI re-serializes to its input (scheme lower-cased) and reparses
// equal, every component decodes; a parsed xds: target has a non-empty
// data-plane authority that decodes to its hostname; a canonical listening
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

  auto target = xdsfed::ParseXdsTarget(text);
  if (target.ok()) {
    XDSFED_CHECK(uri.ok() && uri->scheme == "xds");
    XDSFED_CHECK(!target->data_plane_authority.empty());
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
