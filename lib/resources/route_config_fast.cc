#include "lib/resources/route_config_fast.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/config.h"
#include "absl/container/inlined_vector.h"
#include "envoy/config/core/v3/base.pb.h"
#include "envoy/config/route/v3/route.pb.h"
#include "envoy/config/route/v3/route_components.pb.h"
#include "envoy/type/matcher/v3/regex.pb.h"
#include "envoy/type/matcher/v3/string.pb.h"
#include "envoy/type/v3/percent.pb.h"
#include "envoy/type/v3/range.pb.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/wrappers.pb.h"
#include "lib/resources/internal/descriptor_signature.h"
#include "lib/resources/internal/wire_reader.h"
#include "lib/resources/safe_regex.h"

namespace xdsfed {
namespace resources {
namespace internal {

namespace {

using wire::ForEachField;
using wire::kLengthDelimited;
using wire::kVarint;
using wire::OneofBytes;
using wire::OneofString;
using wire::ParseWrappedVarint;
using wire::Reader;
using wire::Seen;
using wire::SingularBytes;
using wire::SingularString;
using wire::SingularVarint;
using wire::Tag;

// Every Parse* function below returns false to give up: on input the reader
// refuses, on a field it does not handle, on a singular field or oneof met
// twice (libprotobuf would merge or replace; rare enough not to model), and
// on anything the validator in route_config.cc reports as an error - also
// where that validator would not have looked (inside a route it drops), which
// is safe because giving up only means running the libprotobuf path.

// ------------------------------------------------ well-known wrappers

// google.protobuf.Duration {int64 seconds = 1; int32 nanos = 2;}
bool ParseDuration(absl::string_view bytes, ProtoDuration* out) {
  *out = ProtoDuration{};  // absent fields are 0, not the caller's default
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    uint64_t v;
    if (tag.field != 1 && tag.field != 2) return r.Skip(tag.type);
    if (!SingularVarint(&r, tag, &seen, &v)) return false;
    if (tag.field == 1) {
      out->seconds = static_cast<int64_t>(v);
    } else {
      out->nanos = static_cast<int32_t>(static_cast<uint32_t>(v));
    }
    return true;
  });
}

// The range internal::ParseDuration (route_config_util.cc) enforces.
bool DurationValid(const ProtoDuration& d) {
  return d.seconds >= 0 && d.seconds <= 315576000000 && d.nanos >= 0 &&
         d.nanos <= 999999999;
}

bool ParseValidDuration(absl::string_view bytes, ProtoDuration* out) {
  return ParseDuration(bytes, out) && DurationValid(*out);
}

// ------------------------------------------------------------ matchers

// The checks route_config.cc applies (gRPC's rules; see there for why),
// counting bytes eight at a time: they run for every host and route, and
// byte loops with early exits were a tenth of the decode.

// How many bytes of `s` equal `c`.
size_t CountByte(absl::string_view s, char c) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t count = 0;
  size_t i = 0;
#ifdef ABSL_IS_LITTLE_ENDIAN
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  const uint64_t pattern = kOnes * static_cast<uint8_t>(c);
  // 1 in each byte of `word` equal to c, else 0 (exact: adding kLow7 to
  // the low 7 bits never carries into the next byte).
  auto matches = [&](uint64_t word) {
    const uint64_t x = word ^ pattern;
    return (~(((x & kLow7) + kLow7) | x) & ~kLow7) >> 7;
  };
  auto add = [&](uint64_t ones) {
    count += static_cast<size_t>((ones * kOnes) >> 56);
  };
  if (n >= 8) {
    uint64_t word;
    for (; i + 8 <= n; i += 8) {
      std::memcpy(&word, p + i, 8);
      add(matches(word));
    }
    if (i < n) {
      // The last 8 bytes again, without the low-order (first) ones that
      // were already counted.
      std::memcpy(&word, p + n - 8, 8);
      add(matches(word) & (~uint64_t{0} << (8 * (8 - (n - i)))));
      i = n;
    }
  }
#endif
  for (; i < n; ++i) count += p[i] == c;
  return count;
}

bool IsValidDomainPattern(absl::string_view domain) {
  if (domain.empty()) return false;
  if (domain.front() == '*' || domain.back() == '*') return true;
  return CountByte(domain, '*') == 0;
}

// "/", "/service" or "/service/...": one or two '/', the first leading,
// the second not right after it.
bool PrefixCanMatch(absl::string_view prefix) {
  if (prefix.empty()) return true;
  if (prefix[0] != '/') return false;
  const size_t slashes = CountByte(prefix, '/');
  return slashes == 1 ||
         (slashes == 2 && prefix.size() > 1 && prefix[1] != '/');
}

// Exactly "/service/method", both non-empty.
bool PathCanMatch(absl::string_view path) {
  return path.size() >= 4 && path[0] == '/' && path[1] != '/' &&
         path.back() != '/' && CountByte(path, '/') == 2;
}

// Sets a freshly default-constructed string: constructing and moving is
// inlined for short strings, where assign() is an out-of-line call.
void SetString(std::string* s, absl::string_view v) {
  if (!v.empty()) *s = std::string(v.data(), v.size());
}

// envoy.type.matcher.v3.RegexMatcher {GoogleRE2 google_re2 = 1 (oneof);
// string regex = 2;}: the regex.
bool ParseRegexMatcher(absl::string_view bytes, absl::string_view* regex) {
  Seen seen;
  *regex = {};
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1: {
        // GoogleRE2 {UInt32Value max_program_size = 1;}
        if (!SingularBytes(&r, tag, &seen, &v)) return false;
        Seen re2_seen;
        return ForEachField(v, [&](Reader& re2, const Tag& t) {
          absl::string_view inner;
          if (t.field != 1) return re2.Skip(t.type);
          return SingularBytes(&re2, t, &re2_seen, &inner) &&
                 wire::SkipMessage(inner);
        });
      }
      case 2:
        return SingularString(&r, tag, &seen, regex);
      default:
        return r.Skip(tag.type);
    }
  });
}

// For a kSafeRegex match, compiles it into m->regex as the validator does;
// false (give up: the libprotobuf path reports the error) if RE2 rejects it.
bool CompileRegex(StringMatch* m) {
  if (m->type != StringMatch::Type::kSafeRegex) return true;
  auto re = CompileSafeRegex(m->value, m->case_sensitive);
  if (!re.ok()) return false;
  m->regex = *std::move(re);
  return true;
}

// envoy.type.matcher.v3.StringMatcher {oneof match_pattern {string exact = 1;
// prefix = 2; suffix = 3; RegexMatcher safe_regex = 5; string contains = 7;}
// bool ignore_case = 6;}
bool ParseStringMatcher(absl::string_view bytes, StringMatch* out) {
  Seen seen;
  uint32_t which = 0;
  bool ignore_case = false;
  absl::string_view value;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    uint64_t u;
    absl::string_view v;
    switch (tag.field) {
      case 1:
      case 2:
      case 3:
      case 7:
        return OneofString(&r, tag, &which, &value);
      case 5:
        return OneofBytes(&r, tag, &which, &v) && ParseRegexMatcher(v, &value);
      case 6:
        if (!SingularVarint(&r, tag, &seen, &u)) return false;
        ignore_case = u != 0;
        return true;
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  using T = StringMatch::Type;
  switch (which) {
    case 1:
      out->type = T::kExact;
      break;
    case 2:
      out->type = T::kPrefix;
      break;
    case 3:
      out->type = T::kSuffix;
      break;
    case 5:
      out->type = T::kSafeRegex;
      break;
    case 7:
      out->type = T::kContains;
      break;
    default:
      return false;  // "invalid string matcher: no match_pattern set"
  }
  SetString(&out->value, value);
  out->case_sensitive = !ignore_case;
  return CompileRegex(out);
}

// envoy.type.v3.Int64Range {int64 start = 1; int64 end = 2;}
bool ParseInt64Range(absl::string_view bytes, int64_t* start, int64_t* end) {
  Seen seen;
  *start = 0;
  *end = 0;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    uint64_t v;
    if (tag.field != 1 && tag.field != 2) return r.Skip(tag.type);
    if (!SingularVarint(&r, tag, &seen, &v)) return false;
    (tag.field == 1 ? *start : *end) = static_cast<int64_t>(v);
    return true;
  });
}

// envoy.config.route.v3.HeaderMatcher.
bool ParseHeaderMatcher(absl::string_view bytes, HeaderMatch* out) {
  Seen seen;
  uint32_t which = 0;
  absl::string_view name;
  absl::string_view text;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    uint64_t u;
    absl::string_view v;
    switch (tag.field) {
      case 1:  // name
        return SingularString(&r, tag, &seen, &name);
      case 4:   // exact_match
      case 9:   // prefix_match
      case 10:  // suffix_match
      case 12:  // contains_match
        return OneofString(&r, tag, &which, &text);
      case 11:  // safe_regex_match
        return OneofBytes(&r, tag, &which, &v) && ParseRegexMatcher(v, &text);
      case 6:  // range_match
        return OneofBytes(&r, tag, &which, &v) &&
               ParseInt64Range(v, &out->range_start, &out->range_end) &&
               out->range_end >= out->range_start;
      case 7:  // present_match
        if (tag.type != kVarint || which != 0) return false;
        which = tag.field;
        if (!r.ReadVarint(&u)) return false;
        out->present_match = u != 0;
        return true;
      case 13:  // string_match
        return OneofBytes(&r, tag, &which, &v) &&
               ParseStringMatcher(v, &out->string_match);
      case 8:  // invert_match
        if (!SingularVarint(&r, tag, &seen, &u)) return false;
        out->invert_match = u != 0;
        return true;
      case 14:  // treat_missing_header_as_empty (not used by gRPC 1.51)
        return SingularVarint(&r, tag, &seen, &u);
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  SetString(&out->name, name);
  using T = StringMatch::Type;
  auto string_match = [&](T type) {
    out->type = HeaderMatch::Type::kString;
    out->string_match.type = type;
    SetString(&out->string_match.value, text);
  };
  switch (which) {
    case 4:
      string_match(T::kExact);
      break;
    case 9:
      string_match(T::kPrefix);
      break;
    case 10:
      string_match(T::kSuffix);
      break;
    case 11:
      string_match(T::kSafeRegex);
      if (!CompileRegex(&out->string_match)) return false;
      break;
    case 12:
      string_match(T::kContains);
      break;
    case 13:
      out->type = HeaderMatch::Type::kString;
      break;
    case 6:
      out->type = HeaderMatch::Type::kRange;
      break;
    case 7:
      out->type = HeaderMatch::Type::kPresent;
      break;
    default:
      return false;  // "invalid header matcher: no header_match_specifier set"
  }
  return true;
}

// envoy.config.core.v3.RuntimeFractionalPercent {FractionalPercent
// default_value = 1; string runtime_key = 2;}, FractionalPercent {uint32
// numerator = 1; DenominatorType denominator = 2;}: per million, clamped.
bool ParseRuntimeFraction(absl::string_view bytes,
                          std::optional<uint32_t>* out) {
  Seen seen;
  return ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1: {
        if (!SingularBytes(&r, tag, &seen, &v)) return false;
        Seen fraction_seen;
        uint64_t numerator = 0;
        uint64_t denominator = 0;
        const bool read = ForEachField(v, [&](Reader& f, const Tag& t) {
          if (t.field != 1 && t.field != 2) return f.Skip(t.type);
          return SingularVarint(&f, t, &fraction_seen,
                                t.field == 1 ? &numerator : &denominator);
        });
        if (!read) return false;
        // uint32 keeps the low 32 bits; HUNDRED, TEN_THOUSAND, MILLION.
        numerator &= UINT32_MAX;
        if (denominator == 0) {
          numerator *= 10000;
        } else if (denominator == 1) {
          numerator *= 100;
        } else if (denominator != 2) {
          return false;  // "unknown denominator type"
        }
        *out = static_cast<uint32_t>(std::min<uint64_t>(numerator, 1000000));
        return true;
      }
      case 2:
        return SingularString(&r, tag, &seen, &v);
      default:
        return r.Skip(tag.type);
    }
  });
}

// envoy.config.route.v3.RouteMatch. *can_match is false for a path or
// prefix gRPC ignores the route for.
bool ParseRouteMatch(absl::string_view bytes, RouteMatch* out,
                     bool* can_match) {
  Seen seen;
  uint32_t which = 0;
  absl::string_view path;
  bool case_sensitive = true;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 1:  // prefix
      case 2:  // path
        return OneofString(&r, tag, &which, &path);
      case 10:  // safe_regex
        return OneofBytes(&r, tag, &which, &v) && ParseRegexMatcher(v, &path);
      case 4:  // case_sensitive (BoolValue)
        if (!SingularBytes(&r, tag, &seen, &v) || !ParseWrappedVarint(v, &u))
          return false;
        case_sensitive = u != 0;
        return true;
      case 6:  // headers
        if (tag.type != kLengthDelimited || !r.ReadBytes(&v)) return false;
        out->headers.emplace_back();
        return ParseHeaderMatcher(v, &out->headers.back());
      case 8:  // grpc (GrpcRouteMatchOptions, no fields)
        return SingularBytes(&r, tag, &seen, &v) && wire::SkipMessage(v);
      case 9:  // runtime_fraction
        return SingularBytes(&r, tag, &seen, &v) &&
               ParseRuntimeFraction(v, &out->fraction_per_million);
      case 7:  // query_parameters: the route is ignored; left to libprotobuf
        return false;
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  StringMatch& m = out->path;
  m.case_sensitive = case_sensitive;
  switch (which) {
    case 1:
      m.type = StringMatch::Type::kPrefix;
      *can_match = PrefixCanMatch(path);
      break;
    case 2:
      m.type = StringMatch::Type::kExact;
      *can_match = PathCanMatch(path);
      break;
    case 10:
      m.type = StringMatch::Type::kSafeRegex;
      *can_match = true;
      break;
    default:
      return false;  // "invalid path specifier: none set"
  }
  SetString(&m.value, path);
  return CompileRegex(&m);
}

// envoy.config.route.v3.RetryPolicy, as gRPC's RetryPolicyParse.
bool ParseRetryPolicy(absl::string_view bytes, RetryPolicy* out) {
  Seen seen;
  absl::string_view retry_on;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 1:
        return SingularString(&r, tag, &seen, &retry_on);
      case 2:  // num_retries (UInt32Value)
        if (!SingularBytes(&r, tag, &seen, &v) || !ParseWrappedVarint(v, &u))
          return false;
        out->num_retries = static_cast<uint32_t>(u);
        return out->num_retries != 0;  // "must be greater than 0"
      case 8: {  // retry_back_off {Duration base_interval = 1; max = 2;}
        if (!SingularBytes(&r, tag, &seen, &v)) return false;
        Seen backoff_seen;
        const bool read_backoff = ForEachField(v, [&](Reader& b, const Tag& t) {
          absl::string_view d;
          if (t.field != 1 && t.field != 2) return b.Skip(t.type);
          return SingularBytes(&b, t, &backoff_seen, &d) &&
                 ParseValidDuration(d, t.field == 1 ? &out->base_interval
                                                    : &out->max_interval);
        });
        if (!read_backoff) return false;
        if (!backoff_seen.Has(1)) return false;  // "field not present"
        if (!backoff_seen.Has(2)) {
          // An unset max_interval is 10 times the (valid) base.
          const int64_t nanos10 = int64_t{out->base_interval.nanos} * 10;
          out->max_interval.seconds =
              out->base_interval.seconds * 10 + nanos10 / 1000000000;
          out->max_interval.nanos = static_cast<int32_t>(nanos10 % 1000000000);
        }
        return true;
      }
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  // Other retry_on values (e.g. HTTP ones) are ignored, as in gRPC.
  size_t start = 0;
  while (true) {
    const size_t comma = retry_on.find(',', start);
    const absl::string_view code = retry_on.substr(
        start, comma == absl::string_view::npos ? comma : comma - start);
    if (code == "cancelled" || code == "deadline-exceeded" ||
        code == "internal" || code == "resource-exhausted" ||
        code == "unavailable") {
      out->retry_on.emplace_back(code);
    }
    if (comma == absl::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

// envoy.config.route.v3.WeightedCluster: the clusters with a non-zero
// weight, in order.
bool ParseWeightedClusters(absl::string_view bytes,
                           std::vector<ClusterWeight>* out) {
  Seen seen;
  uint64_t sum = 0;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    uint64_t u;
    switch (tag.field) {
      case 1: {  // clusters {string name = 1; UInt32Value weight = 2;
                 //           map typed_per_filter_config = 10;}
        if (tag.type != kLengthDelimited || !r.ReadBytes(&v)) return false;
        Seen c_seen;
        absl::string_view name;
        uint64_t weight = 0;
        const bool read_cluster = ForEachField(v, [&](Reader& c, const Tag& t) {
          absl::string_view w;
          switch (t.field) {
            case 1:
              return SingularString(&c, t, &c_seen, &name);
            case 2:
              return SingularBytes(&c, t, &c_seen, &w) &&
                     ParseWrappedVarint(w, &weight);
            case 10:  // typed_per_filter_config: left to libprotobuf
              return false;
            default:
              return c.Skip(t.type);
          }
        });
        if (!read_cluster || name.empty() || !c_seen.Has(2)) return false;
        weight &= UINT32_MAX;
        // A zero-weight cluster never gets traffic; gRPC drops it.
        if (weight == 0) return true;
        sum += weight;
        out->push_back({std::string(name), static_cast<uint32_t>(weight)});
        return true;
      }
      case 2:  // runtime_key_prefix
        return SingularString(&r, tag, &seen, &v);
      case 3:  // total_weight (UInt32Value, not checked)
        return SingularBytes(&r, tag, &seen, &v) && ParseWrappedVarint(v, &u);
      default:
        return r.Skip(tag.type);
    }
  });
  return read && sum != 0 && sum <= UINT32_MAX;
}

// envoy.config.route.v3.RouteAction. *routable is false when gRPC ignores
// the route (cluster_header, cluster_specifier_plugin, no cluster).
bool ParseRouteAction(absl::string_view bytes,
                      const std::optional<RetryPolicy>& vhost_retry,
                      RouteAction* out, bool* routable) {
  Seen seen;
  uint32_t which = 0;
  absl::string_view cluster;
  absl::string_view weighted;
  absl::string_view max_stream_duration;
  absl::string_view retry_policy;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    ProtoDuration d;
    switch (tag.field) {
      case 1:   // cluster
      case 2:   // cluster_header
      case 37:  // cluster_specifier_plugin
        return OneofString(&r, tag, &which, &cluster);
      case 3:  // weighted_clusters
        return OneofBytes(&r, tag, &which, &weighted);
      case 8:  // timeout (not used by gRPC)
        return SingularBytes(&r, tag, &seen, &v) && ParseDuration(v, &d);
      case 9:
        return SingularBytes(&r, tag, &seen, &retry_policy);
      case 36:
        return SingularBytes(&r, tag, &seen, &max_stream_duration);
      case 15:  // hash_policy: left to libprotobuf
        return false;
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  switch (which) {
    case 1:
      if (cluster.empty()) return false;  // "must be non-empty"
      SetString(&out->cluster, cluster);
      *routable = true;
      break;
    case 3:
      if (!ParseWeightedClusters(weighted, &out->weighted_clusters)) {
        return false;
      }
      *routable = true;
      break;
    default:
      *routable = false;
  }
  if (seen.Has(36)) {
    // MaxStreamDuration {max_stream_duration = 1; grpc_timeout_header_max =
    // 2; grpc_timeout_header_offset = 3;}: the header max wins.
    Seen m_seen;
    ProtoDuration durations[4];
    const bool read_max =
        ForEachField(max_stream_duration, [&](Reader& m, const Tag& t) {
          absl::string_view d;
          if (t.field < 1 || t.field > 3) return m.Skip(t.type);
          return SingularBytes(&m, t, &m_seen, &d) &&
                 ParseDuration(d, &durations[t.field]);
        });
    if (!read_max) return false;
    for (uint32_t field : {2u, 1u}) {
      if (!m_seen.Has(field)) continue;
      if (!DurationValid(durations[field])) return false;
      if (!out->max_stream_duration.has_value()) {
        out->max_stream_duration = durations[field];
      }
    }
  }
  if (seen.Has(9)) {
    out->retry_policy.emplace();
    if (!ParseRetryPolicy(retry_policy, &*out->retry_policy)) return false;
  } else {
    out->retry_policy = vhost_retry;
  }
  return true;
}

// envoy.config.route.v3.Route. *keep is false when gRPC ignores the route.
bool ParseRoute(absl::string_view bytes,
                const std::optional<RetryPolicy>& vhost_retry, Route* out,
                bool* keep) {
  Seen seen;
  uint32_t which = 0;
  bool can_match = false;
  bool routable = true;
  absl::string_view name;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:  // match
        return SingularBytes(&r, tag, &seen, &v) &&
               ParseRouteMatch(v, &out->match, &can_match);
      case 2:  // route
        return OneofBytes(&r, tag, &which, &v) &&
               ParseRouteAction(v, vhost_retry,
                                &std::get<RouteAction>(out->action), &routable);
      case 3:   // redirect
      case 7:   // direct_response
      case 17:  // filter_action
      case 18:  // non_forwarding_action
        // Messages with no fields in our protos.
        return OneofBytes(&r, tag, &which, &v) && wire::SkipMessage(v);
      case 14:
        return SingularString(&r, tag, &seen, &name);
      case 4:          // metadata
      case 13:         // typed_per_filter_config
        return false;  // left to libprotobuf
      default:
        return r.Skip(tag.type);
    }
  });
  if (!read) return false;
  if (!seen.Has(1)) return false;  // "field not present"
  SetString(&out->name, name);
  switch (which) {
    case 2:
      break;  // the RouteAction, parsed in place
    case 18:
      out->action = NonForwardingAction{};
      break;
    case 3:
      out->action = UnsupportedAction{"redirect"};
      break;
    case 7:
      out->action = UnsupportedAction{"direct_response"};
      break;
    case 17:
      out->action = UnsupportedAction{"filter_action"};
      break;
    default:
      out->action = UnsupportedAction{""};
  }
  *keep = can_match && routable;
  return true;
}

// envoy.config.route.v3.VirtualHost.
bool ParseVirtualHost(absl::string_view bytes, VirtualHost* out) {
  // Routes are parsed after the host's other fields: they inherit its retry
  // policy, which follows them on the wire, and their count sizes the
  // vector (a Route is ~270 bytes, not worth moving on growth).
  absl::InlinedVector<absl::string_view, 8> routes;
  absl::string_view retry_bytes;
  Seen seen;
  const bool read = ForEachField(bytes, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        if (!SingularString(&r, tag, &seen, &v)) return false;
        SetString(&out->name, v);
        return true;
      case 2:
        if (tag.type != kLengthDelimited || !r.ReadString(&v) ||
            !IsValidDomainPattern(v)) {
          return false;
        }
        out->domains.emplace_back(v);
        return true;
      case 3:
        if (tag.type != kLengthDelimited || !r.ReadBytes(&v)) return false;
        routes.push_back(v);
        return true;
      case 15:  // typed_per_filter_config: left to libprotobuf
        return false;
      case 16:
        return SingularBytes(&r, tag, &seen, &retry_bytes);
      default:
        return r.Skip(tag.type);
    }
  });
  // "must be non-empty"
  if (!read || out->domains.empty() || routes.empty()) return false;
  std::optional<RetryPolicy> retry;
  if (seen.Has(16)) {
    retry.emplace();
    if (!ParseRetryPolicy(retry_bytes, &*retry)) return false;
  }
  out->routes.reserve(routes.size());
  for (absl::string_view route : routes) {
    bool keep = false;
    out->routes.emplace_back();
    if (!ParseRoute(route, retry, &out->routes.back(), &keep)) return false;
    if (!keep) out->routes.pop_back();
  }
  // gRPC 1.51 NACKs a virtual host whose routes were all ignored.
  return !out->routes.empty();
}

// ------------------------------------------------------- the top level

// envoy.config.route.v3.RouteConfiguration {string name = 1; repeated
// VirtualHost virtual_hosts = 2; repeated ClusterSpecifierPlugin
// cluster_specifier_plugins = 12;}, as the fast path takes it: the name read
// once, no cluster_specifier_plugins. Calls on_host with each virtual host's
// bytes, in order; false to give up.
template <typename OnHost>
bool ReadTopLevel(absl::string_view serialized, absl::string_view* name,
                  OnHost on_host) {
  Seen seen;
  *name = {};
  return ForEachField(serialized, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        return SingularString(&r, tag, &seen, name);
      case 2:
        return tag.type == kLengthDelimited && r.ReadBytes(&v) && on_host(v);
      case 12:
        return false;
      default:
        return r.Skip(tag.type);
    }
  });
}

// The virtual hosts of an accepted configuration's bytes, in order: the
// i-th is the bytes of the value's virtual_hosts[i] (both decoders keep one
// host per occurrence of the field, and accept no value that drops one).
class HostCursor {
 public:
  explicit HostCursor(absl::string_view serialized) : r_(serialized) {}

  // False at the end, or on bytes the reader refuses (give up: failed()).
  bool Next(absl::string_view* host) {
    while (!r_.done()) {
      Tag tag;
      if (!r_.ReadTag(&tag)) return Fail();
      if (tag.field == 2) {
        if (tag.type != kLengthDelimited || !r_.ReadBytes(host)) return Fail();
        return true;
      }
      if (!r_.Skip(tag.type)) return Fail();
    }
    return false;
  }
  bool failed() const { return failed_; }

 private:
  bool Fail() {
    failed_ = true;
    return false;
  }

  Reader r_;
  bool failed_ = false;
};

// ------------------------------------------------- descriptor self-check

std::vector<std::string> ComputeMismatches() {
  namespace route_pb = envoy::config::route::v3;
  namespace pb = google::protobuf;
  const ExpectedFields kExpected[] = {
      {route_pb::RouteConfiguration::descriptor(),
       "proto3: 1 name string; "
       "2 virtual_hosts message repeated envoy.config.route.v3.VirtualHost; "
       "12 cluster_specifier_plugins message repeated "
       "envoy.config.route.v3.ClusterSpecifierPlugin"},
      {route_pb::VirtualHost::descriptor(),
       "proto3: 1 name string; 2 domains string repeated; "
       "3 routes message repeated envoy.config.route.v3.Route; "
       "15 typed_per_filter_config message repeated "
       "envoy.config.route.v3.VirtualHost.TypedPerFilterConfigEntry; "
       "16 retry_policy message envoy.config.route.v3.RetryPolicy"},
      {route_pb::Route::descriptor(),
       "proto3: 1 match message envoy.config.route.v3.RouteMatch; "
       "2 route message oneof action envoy.config.route.v3.RouteAction; "
       "3 redirect message oneof action envoy.config.route.v3.RedirectAction; "
       "4 metadata message envoy.config.core.v3.Metadata; "
       "7 direct_response message oneof action "
       "envoy.config.route.v3.DirectResponseAction; "
       "13 typed_per_filter_config message repeated "
       "envoy.config.route.v3.Route.TypedPerFilterConfigEntry; "
       "14 name string; "
       "17 filter_action message oneof action "
       "envoy.config.route.v3.FilterAction; "
       "18 non_forwarding_action message oneof action "
       "envoy.config.route.v3.NonForwardingAction"},
      {route_pb::RouteMatch::descriptor(),
       "proto3: 1 prefix string oneof path_specifier; "
       "2 path string oneof path_specifier; "
       "4 case_sensitive message google.protobuf.BoolValue; "
       "6 headers message repeated envoy.config.route.v3.HeaderMatcher; "
       "7 query_parameters message repeated "
       "envoy.config.route.v3.QueryParameterMatcher; "
       "8 grpc message "
       "envoy.config.route.v3.RouteMatch.GrpcRouteMatchOptions; "
       "9 runtime_fraction message "
       "envoy.config.core.v3.RuntimeFractionalPercent; "
       "10 safe_regex message oneof path_specifier "
       "envoy.type.matcher.v3.RegexMatcher"},
      {route_pb::RouteMatch::GrpcRouteMatchOptions::descriptor(), "proto3: "},
      {route_pb::RedirectAction::descriptor(), "proto3: "},
      {route_pb::DirectResponseAction::descriptor(), "proto3: "},
      {route_pb::FilterAction::descriptor(), "proto3: "},
      {route_pb::NonForwardingAction::descriptor(), "proto3: "},
      {route_pb::RouteAction::descriptor(),
       "proto3: 1 cluster string oneof cluster_specifier; "
       "2 cluster_header string oneof cluster_specifier; "
       "3 weighted_clusters message oneof cluster_specifier "
       "envoy.config.route.v3.WeightedCluster; "
       "8 timeout message google.protobuf.Duration; "
       "9 retry_policy message envoy.config.route.v3.RetryPolicy; "
       "15 hash_policy message repeated "
       "envoy.config.route.v3.RouteAction.HashPolicy; "
       "36 max_stream_duration message "
       "envoy.config.route.v3.RouteAction.MaxStreamDuration; "
       "37 cluster_specifier_plugin string oneof cluster_specifier"},
      {route_pb::RouteAction::MaxStreamDuration::descriptor(),
       "proto3: 1 max_stream_duration message google.protobuf.Duration; "
       "2 grpc_timeout_header_max message google.protobuf.Duration; "
       "3 grpc_timeout_header_offset message google.protobuf.Duration"},
      {route_pb::WeightedCluster::descriptor(),
       "proto3: 1 clusters message repeated "
       "envoy.config.route.v3.WeightedCluster.ClusterWeight; "
       "2 runtime_key_prefix string; "
       "3 total_weight message google.protobuf.UInt32Value"},
      {route_pb::WeightedCluster::ClusterWeight::descriptor(),
       "proto3: 1 name string; "
       "2 weight message google.protobuf.UInt32Value; "
       "10 typed_per_filter_config message repeated "
       "envoy.config.route.v3.WeightedCluster.ClusterWeight."
       "TypedPerFilterConfigEntry"},
      {route_pb::RetryPolicy::descriptor(),
       "proto3: 1 retry_on string; "
       "2 num_retries message google.protobuf.UInt32Value; "
       "8 retry_back_off message "
       "envoy.config.route.v3.RetryPolicy.RetryBackOff"},
      {route_pb::RetryPolicy::RetryBackOff::descriptor(),
       "proto3: 1 base_interval message google.protobuf.Duration; "
       "2 max_interval message google.protobuf.Duration"},
      {route_pb::HeaderMatcher::descriptor(),
       "proto3: 1 name string; "
       "4 exact_match string oneof header_match_specifier; "
       "6 range_match message oneof header_match_specifier "
       "envoy.type.v3.Int64Range; "
       "7 present_match bool oneof header_match_specifier; "
       "8 invert_match bool; "
       "9 prefix_match string oneof header_match_specifier; "
       "10 suffix_match string oneof header_match_specifier; "
       "11 safe_regex_match message oneof header_match_specifier "
       "envoy.type.matcher.v3.RegexMatcher; "
       "12 contains_match string oneof header_match_specifier; "
       "13 string_match message oneof header_match_specifier "
       "envoy.type.matcher.v3.StringMatcher; "
       "14 treat_missing_header_as_empty bool"},
      {envoy::type::matcher::v3::StringMatcher::descriptor(),
       "proto3: 1 exact string oneof match_pattern; "
       "2 prefix string oneof match_pattern; "
       "3 suffix string oneof match_pattern; "
       "5 safe_regex message oneof match_pattern "
       "envoy.type.matcher.v3.RegexMatcher; "
       "6 ignore_case bool; "
       "7 contains string oneof match_pattern"},
      {envoy::type::matcher::v3::RegexMatcher::descriptor(),
       "proto3: 1 google_re2 message oneof engine_type "
       "envoy.type.matcher.v3.RegexMatcher.GoogleRE2; "
       "2 regex string"},
      {envoy::type::matcher::v3::RegexMatcher::GoogleRE2::descriptor(),
       "proto3: 1 max_program_size message google.protobuf.UInt32Value"},
      {envoy::type::v3::Int64Range::descriptor(),
       "proto3: 1 start int64; 2 end int64"},
      {envoy::config::core::v3::RuntimeFractionalPercent::descriptor(),
       "proto3: 1 default_value message envoy.type.v3.FractionalPercent; "
       "2 runtime_key string"},
      {envoy::type::v3::FractionalPercent::descriptor(),
       "proto3: 1 numerator uint32; "
       "2 denominator enum envoy.type.v3.FractionalPercent.DenominatorType"},
      {pb::Duration::descriptor(), "proto3: 1 seconds int64; 2 nanos int32"},
      {pb::UInt32Value::descriptor(), "proto3: 1 value uint32"},
      {pb::BoolValue::descriptor(), "proto3: 1 value bool"},
  };
  return SignatureMismatches(kExpected);
}

const std::vector<std::string>& Mismatches() {
  static const auto* const kMismatches =
      new std::vector<std::string>(ComputeMismatches());
  return *kMismatches;
}

}  // namespace

bool FastDecodeRouteConfig(absl::string_view serialized, RouteConfig* out) {
  // Sizes near INT_MAX are where libprotobuf's own limits start to differ.
  if (serialized.size() > (size_t{1} << 30)) return false;
  static const bool kAvailable = RouteConfigFastPathAvailable();
  if (!kAvailable) return false;
  *out = RouteConfig();
  // envoy.config.route.v3.RouteConfiguration {string name = 1; repeated
  // VirtualHost virtual_hosts = 2; repeated ClusterSpecifierPlugin
  // cluster_specifier_plugins = 12;}. First pass: the number of hosts.
  size_t hosts = 0;
  {
    Reader r(serialized);
    while (!r.done()) {
      Tag tag;
      if (!r.ReadTag(&tag) || tag.field == 12) return false;
      hosts += tag.field == 2;
      if (!r.Skip(tag.type)) return false;
    }
  }
  out->virtual_hosts.reserve(hosts);
  Seen seen;
  return ForEachField(serialized, [&](Reader& r, const Tag& tag) {
    absl::string_view v;
    switch (tag.field) {
      case 1:
        if (!SingularString(&r, tag, &seen, &v)) return false;
        SetString(&out->name, v);
        return true;
      case 2:
        if (tag.type != kLengthDelimited || !r.ReadBytes(&v)) return false;
        out->virtual_hosts.emplace_back();
        return ParseVirtualHost(v, &out->virtual_hosts.back());
      default:
        return r.Skip(tag.type);
    }
  });
}

RouteConfigUpdate FastDecodeRouteConfigUpdate(
    absl::string_view serialized, const RouteConfig& previous,
    absl::string_view previous_serialized, RouteConfig* out) {
  using Result = RouteConfigUpdate;
  if (serialized.size() > (size_t{1} << 30)) return Result::kGaveUp;
  static const bool kAvailable = RouteConfigFastPathAvailable();
  if (!kAvailable) return Result::kGaveUp;
  const std::vector<VirtualHost>& old_hosts = previous.virtual_hosts;
  // First the bytes alone: which hosts differ from the previous host at
  // their index (or have none there). When most do, decoding them all in one
  // pass (FastDecodeRouteConfig) is cheaper than decoding them here and
  // copying the rest: give up as soon as more than half of the hosts so far
  // (past the first few) changed.
  HostCursor cursor(previous_serialized);
  std::vector<std::pair<size_t, absl::string_view>> changed;
  size_t hosts = 0;
  absl::string_view name;
  const bool read = ReadTopLevel(serialized, &name, [&](absl::string_view v) {
    const size_t index = hosts++;
    if (index < old_hosts.size()) {
      absl::string_view old;
      if (!cursor.Next(&old)) return false;  // fewer than the value has
      if (old == v) return true;             // the same bytes: the same host
    }
    changed.emplace_back(index, v);
    return changed.size() <= 8 + hosts / 2;
  });
  if (!read) return Result::kGaveUp;
  // The previous bytes must hold exactly the value's hosts, or the two do
  // not belong together.
  absl::string_view rest;
  for (size_t i = hosts; i < old_hosts.size(); ++i) {
    if (!cursor.Next(&rest)) return Result::kGaveUp;
  }
  if (cursor.Next(&rest) || cursor.failed()) return Result::kGaveUp;
  // Then the changed hosts, decoded.
  std::vector<VirtualHost> decoded(changed.size());
  bool equal = hosts == old_hosts.size() && name == previous.name;
  for (size_t i = 0; i < changed.size(); ++i) {
    if (!ParseVirtualHost(changed[i].second, &decoded[i])) {
      return Result::kGaveUp;
    }
    const size_t index = changed[i].first;
    equal = equal && index < old_hosts.size() && decoded[i] == old_hosts[index];
  }
  if (equal) return Result::kUnchanged;
  *out = RouteConfig();
  SetString(&out->name, name);
  out->virtual_hosts.reserve(hosts);
  size_t next = 0;
  for (size_t i = 0; i < hosts; ++i) {
    if (next < changed.size() && changed[next].first == i) {
      out->virtual_hosts.push_back(std::move(decoded[next++]));
    } else {
      out->virtual_hosts.push_back(old_hosts[i]);
    }
  }
  return Result::kDecoded;
}

bool PeekRouteConfigName(absl::string_view serialized,
                         absl::string_view* name) {
  Reader r(serialized);
  while (!r.done()) {
    Tag tag;
    if (!r.ReadTag(&tag)) return false;
    if (tag.field == 1 && tag.type == kLengthDelimited) {
      return r.ReadString(name);
    }
    if (!r.Skip(tag.type)) return false;
  }
  return false;
}

bool RouteConfigFastPathAvailable() { return Mismatches().empty(); }

std::vector<std::string> RouteConfigFastPathMismatches() {
  return Mismatches();
}

}  // namespace internal
}  // namespace resources
}  // namespace xdsfed
