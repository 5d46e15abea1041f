#include "lib/json/proto_duration.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xdsfed {
namespace json {
namespace {

// Reads the leading digits of *s into *value (at most max_digits of them).
// Returns how many were read, or -1 if there were more.
int ConsumeDigits(absl::string_view* s, int max_digits, int64_t* value) {
  int n = 0;
  *value = 0;
  while (!s->empty() && absl::ascii_isdigit(s->front())) {
    if (n == max_digits) return -1;
    *value = *value * 10 + (s->front() - '0');
    s->remove_prefix(1);
    ++n;
  }
  return n;
}

}  // namespace

DurationParse ParseProtoDuration(absl::string_view text, absl::Duration* out) {
  if (text.empty() || text.back() != 's') return DurationParse::kMalformed;
  text.remove_suffix(1);
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  // 18 digits cannot overflow int64; anything longer is out of range anyway
  // unless it is leading zeros, which no one writes.
  int64_t seconds = 0;
  const int seconds_digits = ConsumeDigits(&text, 18, &seconds);
  if (seconds_digits == -1) return DurationParse::kOutOfRange;
  if (seconds_digits == 0) return DurationParse::kMalformed;
  int64_t nanos = 0;
  if (!text.empty() && text.front() == '.') {
    text.remove_prefix(1);
    const int fraction_digits = ConsumeDigits(&text, 9, &nanos);
    if (fraction_digits <= 0) return DurationParse::kMalformed;
    for (int i = fraction_digits; i < 9; ++i) nanos *= 10;
  }
  if (!text.empty()) return DurationParse::kMalformed;
  if (seconds > kMaxProtoDurationSeconds) return DurationParse::kOutOfRange;
  absl::Duration d = absl::Seconds(seconds) + absl::Nanoseconds(nanos);
  *out = negative ? -d : d;
  return DurationParse::kOk;
}

std::string FormatProtoDuration(absl::Duration d) {
  const bool negative = d < absl::ZeroDuration();
  if (negative) d = -d;
  absl::Duration rest;
  const int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &rest);
  const int64_t nanos = absl::ToInt64Nanoseconds(rest);
  std::string out = negative ? "-" : "";
  absl::StrAppend(&out, seconds);
  if (nanos % 1000000000 == 0) {
    // whole seconds: no fraction
  } else if (nanos % 1000000 == 0) {
    absl::StrAppendFormat(&out, ".%03d", nanos / 1000000);
  } else if (nanos % 1000 == 0) {
    absl::StrAppendFormat(&out, ".%06d", nanos / 1000);
  } else {
    absl::StrAppendFormat(&out, ".%09d", nanos);
  }
  out += 's';
  return out;
}

}  // namespace json
}  // namespace xdsfed
