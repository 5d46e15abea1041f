// google.protobuf.Duration in its proto3 JSON form: decimal seconds with an
// "s" suffix ("600s", "1.5s", "-0.000000001s"): an optional '-', at least
// one digit, an optional '.' followed by 1 to 9 digits (nanosecond
// precision), and no spaces; the Duration message's range, +-315576000000 s.
//
//   absl::Duration d;
//   ParseProtoDuration("1.5s", &d);          // kOk, d == 1500 ms
//   ParseProtoDuration("soon", &d);          // kMalformed
//   FormatProtoDuration(absl::Seconds(600));  // "600s"
//
// The generated schema loaders (codegen/) use it for Duration fields, and the
// generator itself for their default values, so both read one grammar.
#ifndef XDSFED_LIB_JSON_PROTO_DURATION_H_
#define XDSFED_LIB_JSON_PROTO_DURATION_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace xdsfed {
namespace json {

// The largest magnitude a google.protobuf.Duration holds, in seconds.
inline constexpr int64_t kMaxProtoDurationSeconds = 315576000000;

enum class DurationParse { kOk, kMalformed, kOutOfRange };

// *out is set only on kOk.
DurationParse ParseProtoDuration(absl::string_view text, absl::Duration* out);

// The canonical proto3 JSON form: 0, 3, 6 or 9 fractional digits, as many as
// the value needs ("600s", "1.500s", "0.000000001s"). Sub-nanosecond parts
// are truncated.
std::string FormatProtoDuration(absl::Duration d);

}  // namespace json
}  // namespace xdsfed

#endif  // XDSFED_LIB_JSON_PROTO_DURATION_H_
