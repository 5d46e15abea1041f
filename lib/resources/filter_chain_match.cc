#include "lib/resources/filter_chain_match.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory_resource>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "envoy/config/listener/v3/listener_components.pb.h"
#include "lib/base/validation_errors.h"

namespace xdsfed {
namespace resources {

namespace {

using Field = ValidationErrors::ScopedField;

// Writes `v` in decimal at `out`; returns the end.
char* AppendDecimalByte(unsigned char v, char* out) {
  if (v >= 100) *out++ = static_cast<char>('0' + v / 100);
  if (v >= 10) *out++ = static_cast<char>('0' + v / 10 % 10);
  *out++ = static_cast<char>('0' + v % 10);
  return out;
}

std::optional<CidrRange> ParseCidrRange(
    const envoy::config::core::v3::CidrRange& proto, ValidationErrors* errors) {
  unsigned char bytes[16] = {};
  CidrRange out;
  const std::string& text = proto.address_prefix();
  if (inet_pton(AF_INET, text.c_str(), bytes) == 1) {
    out.ipv6 = false;
  } else if (inet_pton(AF_INET6, text.c_str(), bytes) == 1) {
    out.ipv6 = true;
  } else {
    Field field(errors, ".address_prefix");
    errors->AddError(absl::StrCat("invalid IP address \"", text,
                                  "\": expected an IPv4 or IPv6 address"));
    return std::nullopt;
  }
  // A36: absent prefix_len = 0; clamp to the family's width; mask the
  // unused low bits.
  const uint32_t width = out.ipv6 ? 128 : 32;
  out.prefix_len =
      proto.has_prefix_len() ? std::min(proto.prefix_len().value(), width) : 0;
  for (uint32_t bit = out.prefix_len; bit < width; ++bit) {
    bytes[bit / 8] &= static_cast<unsigned char>(~(0x80u >> (bit % 8)));
  }
  if (out.ipv6) {
    char buf[INET6_ADDRSTRLEN] = {};
    inet_ntop(AF_INET6, bytes, buf, sizeof(buf));
    out.address_prefix = buf;
  } else {
    // Dotted quad, as inet_ntop writes it, without glibc's inet_ntop or a
    // StrCat (each was a third of this function's cost at 1,000 chains).
    char text_out[16];
    char* end = text_out;
    for (int i = 0; i < 4; ++i) {
      if (i > 0) *end++ = '.';
      end = AppendDecimalByte(bytes[i], end);
    }
    out.address_prefix.assign(text_out, static_cast<size_t>(end - text_out));
  }
  return out;
}

const char* SourceTypeName(ConnectionSourceType type) {
  switch (type) {
    case ConnectionSourceType::kAny:
      return "ANY";
    case ConnectionSourceType::kSameIpOrLoopback:
      return "SAME_IP_OR_LOOPBACK";
    case ConnectionSourceType::kExternal:
      return "EXTERNAL";
  }
  return "UNKNOWN";
}

std::string CidrListString(const std::vector<CidrRange>& list) {
  return absl::StrJoin(list, ", ", [](std::string* out, const CidrRange& c) {
    out->append(c.ToString());
  });
}

// One normalized matcher: a single value (or "absent") per field (A36).
// The values are pointers into the chain's FilterChainMatch (which outlives
// the set), compared and hashed by what they point to: no string is built
// per matcher (a 1,000-chain Listener checks 1,000 of them).
struct NormalizedMatcher {
  std::optional<uint32_t> destination_port;
  const CidrRange* prefix_range;  // null: absent
  const std::string* server_name;
  const std::string* transport_protocol;  // never null
  const std::string* application_protocol;
  int source_type;
  const CidrRange* source_prefix_range;
  std::optional<uint32_t> source_port;

  bool operator==(const NormalizedMatcher& o) const {
    return destination_port == o.destination_port &&
           SameCidr(prefix_range, o.prefix_range) &&
           SameString(server_name, o.server_name) &&
           *transport_protocol == *o.transport_protocol &&
           SameString(application_protocol, o.application_protocol) &&
           source_type == o.source_type &&
           SameCidr(source_prefix_range, o.source_prefix_range) &&
           source_port == o.source_port;
  }
  template <typename H>
  friend H AbslHashValue(H h, const NormalizedMatcher& m) {
    h = CombinePort(std::move(h), m.destination_port);
    h = CombineCidr(std::move(h), m.prefix_range);
    h = CombineString(std::move(h), m.server_name);
    h = H::combine(std::move(h), *m.transport_protocol);
    h = CombineString(std::move(h), m.application_protocol);
    h = H::combine(std::move(h), m.source_type);
    h = CombineCidr(std::move(h), m.source_prefix_range);
    return CombinePort(std::move(h), m.source_port);
  }

 private:
  // A CIDR's canonical text and length identify it (the text fixes the
  // family).
  static bool SameCidr(const CidrRange* a, const CidrRange* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return a->address_prefix == b->address_prefix &&
           a->prefix_len == b->prefix_len;
  }
  static bool SameString(const std::string* a, const std::string* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return *a == *b;
  }
  // (This Abseil hashes no std::optional: presence, then the value.)
  template <typename H>
  static H CombinePort(H h, const std::optional<uint32_t>& port) {
    if (!port.has_value()) return H::combine(std::move(h), false);
    return H::combine(std::move(h), true, *port);
  }
  template <typename H>
  static H CombineCidr(H h, const CidrRange* c) {
    if (c == nullptr) return H::combine(std::move(h), false);
    return H::combine(std::move(h), true, c->address_prefix, c->prefix_len);
  }
  template <typename H>
  static H CombineString(H h, const std::string* s) {
    if (s == nullptr) return H::combine(std::move(h), false);
    return H::combine(std::move(h), true, *s);
  }
};

// Pointers to a list's entries, or one null for an empty list ("absent").
template <typename T>
absl::InlinedVector<const T*, 1> OrAbsent(const std::vector<T>& list) {
  absl::InlinedVector<const T*, 1> out;
  if (list.empty()) out.push_back(nullptr);
  for (const T& item : list) out.push_back(&item);
  return out;
}

size_t SaturatingProduct(std::initializer_list<size_t> sizes) {
  size_t product = 1;
  for (size_t n : sizes) {
    if (n != 0 && product > kMaxNormalizedMatchers / n) {
      return kMaxNormalizedMatchers + 1;
    }
    product *= n;
  }
  return product;
}

using NormalizedMatcherSet =
    absl::flat_hash_set<NormalizedMatcher, absl::Hash<NormalizedMatcher>,
                        std::equal_to<NormalizedMatcher>,
                        std::pmr::polymorphic_allocator<NormalizedMatcher>>;

// Adds chain `m`'s normalized matchers to `seen`; false on the first one
// already present. `m` must outlive `seen`.
bool AddNormalizedMatchers(const FilterChainMatch& m,
                           NormalizedMatcherSet* seen) {
  const auto dests = OrAbsent(m.prefix_ranges);
  const auto servers = OrAbsent(m.server_names);
  const auto apps = OrAbsent(m.application_protocols);
  const auto sources = OrAbsent(m.source_prefix_ranges);
  absl::InlinedVector<std::optional<uint32_t>, 1> ports;
  if (m.source_ports.empty()) ports.push_back(std::nullopt);
  // Source port 0 (no TCP peer has it) is the lookup's "any port" key, as
  // in C-core and Envoy: [0] and no ports are the same matcher.
  for (uint32_t p : m.source_ports) {
    ports.push_back(p == 0 ? std::nullopt : std::optional<uint32_t>(p));
  }
  for (const CidrRange* dest : dests) {
    for (const std::string* server : servers) {
      for (const std::string* app : apps) {
        for (const CidrRange* source : sources) {
          for (const auto& port : ports) {
            if (!seen->insert(NormalizedMatcher{m.destination_port, dest,
                                                server, &m.transport_protocol,
                                                app,
                                                static_cast<int>(m.source_type),
                                                source, port})
                     .second) {
              return false;
            }
          }
        }
      }
    }
  }
  return true;
}

// The map under construction, in the scratch memory. Sources are found by
// their prefix text while it is built (hashed: a 1,000-chain Listener has up
// to 1,000 of them) and put in text order at the end, for a stable order;
// destinations are few.
struct InternalSourceIp {
  std::string key;  // the prefix text, "" for any source
  std::optional<CidrRange> prefix_range;
  std::map<uint32_t, size_t> ports;  // moved into the map
};
struct InternalSources {
  explicit InternalSources(std::pmr::memory_resource* scratch)
      : entries(scratch),
        index(0, absl::Hash<std::string>(), std::equal_to<std::string>(),
              scratch) {}
  std::pmr::vector<InternalSourceIp> entries;
  // key -> entries[i]
  absl::flat_hash_map<
      std::string, size_t, absl::Hash<std::string>, std::equal_to<std::string>,
      std::pmr::polymorphic_allocator<std::pair<const std::string, size_t>>>
      index;
};
struct InternalDestination {
  explicit InternalDestination(std::pmr::memory_resource* scratch)
      : source_types{InternalSources(scratch), InternalSources(scratch),
                     InternalSources(scratch)} {}
  std::optional<CidrRange> prefix_range;
  std::array<InternalSources, 3> source_types;
};

// The first 8 bytes of `text` as a big-endian number (zero-padded): its
// order is the text's order as far as those bytes go.
uint64_t TextPrefix(const std::string& text) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = (v << 8) | (i < text.size() ? static_cast<unsigned char>(text[i]) : 0u);
  }
  return v;
}
struct SortKey {
  uint64_t prefix;
  size_t index;
};

// `chains`: how many chains the Listener has (an upper bound on the sources
// of one type, reserved on first use).
void AddToDestination(const FilterChainMatch& m, size_t index, size_t chains,
                      InternalDestination* dest) {
  InternalSources& sources =
      dest->source_types[static_cast<size_t>(m.source_type)];
  if (sources.entries.empty()) {
    sources.entries.reserve(chains);
    sources.index.reserve(chains);
  }
  for (const CidrRange* source : OrAbsent(m.source_prefix_ranges)) {
    auto [it, added] = sources.index.try_emplace(
        source != nullptr ? source->ToString() : std::string(),
        sources.entries.size());
    if (added) {
      sources.entries.push_back({it->first, std::nullopt, {}});
      if (source != nullptr) sources.entries.back().prefix_range = *source;
    }
    InternalSourceIp& entry = sources.entries[it->second];
    if (m.source_ports.empty()) {
      entry.ports.emplace(0, index);
    } else {
      // A duplicate here was already reported by the normalized check.
      for (uint32_t port : m.source_ports) entry.ports.emplace(port, index);
    }
  }
}

}  // namespace

bool CidrRange::operator<(const CidrRange& o) const {
  return std::tie(ipv6, address_prefix, prefix_len) <
         std::tie(o.ipv6, o.address_prefix, o.prefix_len);
}

std::string CidrRange::ToString() const {
  return absl::StrCat(address_prefix, "/", prefix_len);
}

Json::Value CidrRange::ToJson() const { return ToString(); }

bool FilterChainMatch::CanMatch() const {
  // A36 §FilterChainMatch: destination_port needs use_original_dst;
  // server_names, transport_protocol and application_protocols need listener
  // filters; a connection's transport protocol is always "raw_buffer".
  return !destination_port.has_value() && server_names.empty() &&
         (transport_protocol.empty() || transport_protocol == "raw_buffer") &&
         application_protocols.empty();
}

std::string FilterChainMatch::ToString() const {
  std::vector<std::string> parts;
  if (destination_port.has_value()) {
    parts.push_back(absl::StrCat("destination_port=", *destination_port));
  }
  if (!prefix_ranges.empty()) {
    parts.push_back(
        absl::StrCat("prefix_ranges={", CidrListString(prefix_ranges), "}"));
  }
  if (source_type != ConnectionSourceType::kAny) {
    parts.push_back(absl::StrCat("source_type=", SourceTypeName(source_type)));
  }
  if (!source_prefix_ranges.empty()) {
    parts.push_back(absl::StrCat("source_prefix_ranges={",
                                 CidrListString(source_prefix_ranges), "}"));
  }
  if (!source_ports.empty()) {
    parts.push_back(
        absl::StrCat("source_ports={", absl::StrJoin(source_ports, ", "), "}"));
  }
  if (!server_names.empty()) {
    parts.push_back(
        absl::StrCat("server_names={", absl::StrJoin(server_names, ", "), "}"));
  }
  if (!transport_protocol.empty()) {
    parts.push_back(absl::StrCat("transport_protocol=", transport_protocol));
  }
  if (!application_protocols.empty()) {
    parts.push_back(absl::StrCat("application_protocols={",
                                 absl::StrJoin(application_protocols, ", "),
                                 "}"));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::optional<FilterChainMatch> ParseFilterChainMatch(
    const envoy::config::listener::v3::FilterChainMatch& proto,
    ValidationErrors* errors) {
  FilterChainMatch out;
  bool ok = true;
  if (proto.has_destination_port()) {
    out.destination_port = proto.destination_port().value();
  }
  // A field path piece per range, built in one reused string (a 1,000-chain
  // Listener has 1,000 or more of them).
  std::string piece;
  for (int i = 0; i < proto.prefix_ranges_size(); ++i) {
    piece.clear();
    absl::StrAppend(&piece, ".prefix_ranges[", i, "]");
    Field field(errors, piece);
    std::optional<CidrRange> range =
        ParseCidrRange(proto.prefix_ranges(i), errors);
    if (range.has_value()) {
      out.prefix_ranges.push_back(std::move(*range));
    } else {
      ok = false;
    }
  }
  const int source_type = proto.source_type();
  if (source_type < 0 || source_type > 2) {
    // Proto3 enums are open; gRPC 1.51 would assert here.
    Field field(errors, ".source_type");
    errors->AddError(
        absl::StrCat("unknown value ", source_type,
                     ": expected ANY, SAME_IP_OR_LOOPBACK or EXTERNAL"));
    ok = false;
  } else {
    out.source_type = static_cast<ConnectionSourceType>(source_type);
  }
  for (int i = 0; i < proto.source_prefix_ranges_size(); ++i) {
    piece.clear();
    absl::StrAppend(&piece, ".source_prefix_ranges[", i, "]");
    Field field(errors, piece);
    std::optional<CidrRange> range =
        ParseCidrRange(proto.source_prefix_ranges(i), errors);
    if (range.has_value()) {
      out.source_prefix_ranges.push_back(std::move(*range));
    } else {
      ok = false;
    }
  }
  out.source_ports.assign(proto.source_ports().begin(),
                          proto.source_ports().end());
  out.server_names.assign(proto.server_names().begin(),
                          proto.server_names().end());
  out.transport_protocol = proto.transport_protocol();
  out.application_protocols.assign(proto.application_protocols().begin(),
                                   proto.application_protocols().end());
  if (!ok) return std::nullopt;
  return out;
}

FilterChainMap BuildFilterChainMap(
    absl::Span<const std::optional<FilterChainMatch>> matches,
    ValidationErrors* errors, std::pmr::memory_resource* scratch) {
  // 1. Uniqueness. A36 §FilterChainMatch: "While an always-failing matcher
  // may be pruned and ignored when matching a new connection, it must still
  // be checked when verifying that the most-specific matching logic is
  // guaranteed to produce a unique result during Listener validation." So
  // every chain's normalized matchers (the Cartesian product of its present
  // fields, all fields included) go into one set, whether it can match or
  // not. (C-core 1.51 instead drops destination_port chains before checking.)
  // Hashed (membership is all that is asked); the field path is built only
  // for an error (a Listener of 1,000 chains checks 1,000 matchers).
  NormalizedMatcherSet seen(0, absl::Hash<NormalizedMatcher>(),
                            std::equal_to<NormalizedMatcher>(), scratch);
  seen.reserve(matches.size());
  size_t total = 0;
  for (size_t i = 0; i < matches.size(); ++i) {
    if (!matches[i].has_value()) continue;
    const FilterChainMatch& m = *matches[i];
    auto field = [&] {
      return absl::StrCat(".filter_chains[", i, "].filter_chain_match");
    };
    total +=
        SaturatingProduct({std::max<size_t>(m.prefix_ranges.size(), 1),
                           std::max<size_t>(m.server_names.size(), 1),
                           std::max<size_t>(m.application_protocols.size(), 1),
                           std::max<size_t>(m.source_prefix_ranges.size(), 1),
                           std::max<size_t>(m.source_ports.size(), 1)});
    if (total > kMaxNormalizedMatchers) {
      Field path(errors, field());
      errors->AddError(
          absl::StrCat("too many normalized filter chain matchers: more than ",
                       kMaxNormalizedMatchers, " in the Listener"));
      return {};
    }
    if (!AddNormalizedMatchers(m, &seen)) {
      Field path(errors, field());
      errors->AddError(absl::StrCat(
          "duplicate matching rules detected when adding filter chain: ",
          m.ToString()));
    }
  }
  // 2. The lookup map, from chains that can match, as C-core builds it. A
  // destination entry exists for every chain without destination_port, even
  // if the chain is then pruned: the most specific destination prefix is
  // chosen first, and finding nothing below it means "no match" (Envoy).
  // Within a destination, once a chain names transport_protocol
  // "raw_buffer", chains that leave it empty are less specific and unused.
  const auto dest_keys = [](const FilterChainMatch& m) {
    return OrAbsent(m.prefix_ranges);
  };
  const auto key_text = [](const CidrRange* c) {
    return c != nullptr ? c->ToString() : std::string();
  };
  std::set<std::string> raw_buffer_dests;
  for (const auto& m : matches) {
    if (!m.has_value() || m->destination_port.has_value() ||
        !m->server_names.empty() || m->transport_protocol != "raw_buffer") {
      continue;
    }
    for (const CidrRange* key : dest_keys(*m)) {
      raw_buffer_dests.insert(key_text(key));
    }
  }
  std::map<std::string, InternalDestination> dests;
  for (size_t i = 0; i < matches.size(); ++i) {
    const auto& m = matches[i];
    if (!m.has_value() || m->destination_port.has_value()) continue;
    for (const CidrRange* key : dest_keys(*m)) {
      std::string text = key_text(key);
      const bool unused =
          m->transport_protocol.empty() && raw_buffer_dests.count(text) > 0;
      auto [it, added] = dests.try_emplace(std::move(text), scratch);
      if (added && key != nullptr) it->second.prefix_range = *key;
      if (!m->CanMatch() || unused) continue;
      AddToDestination(*m, i, matches.size(), &it->second);
    }
  }
  FilterChainMap out;
  out.destination_ips.reserve(dests.size());
  std::pmr::vector<SortKey> order(scratch);  // of a type's sources
  for (auto& [key, dest] : dests) {
    FilterChainMap::DestinationIp d;
    d.prefix_range = std::move(dest.prefix_range);
    for (size_t t = 0; t < 3; ++t) {
      std::pmr::vector<InternalSourceIp>& entries =
          dest.source_types[t].entries;
      // By text; the first 8 bytes as one big-endian number decide most
      // comparisons ("10.0.12.0/24" vs "10.0.120.0/24" needs the rest).
      order.clear();
      for (size_t i = 0; i < entries.size(); ++i) {
        order.push_back({TextPrefix(entries[i].key), i});
      }
      std::sort(order.begin(), order.end(),
                [&entries](const SortKey& a, const SortKey& b) {
                  if (a.prefix != b.prefix) return a.prefix < b.prefix;
                  return entries[a.index].key < entries[b.index].key;
                });
      d.source_types[t].reserve(entries.size());
      for (const SortKey& k : order) {
        d.source_types[t].push_back({std::move(entries[k.index].prefix_range),
                                     std::move(entries[k.index].ports)});
      }
    }
    out.destination_ips.push_back(std::move(d));
  }
  return out;
}

Json::Value FilterChainMap::ToJson() const {
  static constexpr const char* kTypeKeys[] = {"any", "same_ip_or_loopback",
                                              "external"};
  Json::Value out(Json::arrayValue);
  for (const DestinationIp& d : destination_ips) {
    Json::Value dest(Json::objectValue);
    dest["prefix_range"] =
        d.prefix_range.has_value() ? d.prefix_range->ToJson() : Json::Value();
    Json::Value types(Json::objectValue);
    for (size_t t = 0; t < 3; ++t) {
      Json::Value sources(Json::arrayValue);
      for (const SourceIp& s : d.source_types[t]) {
        Json::Value source(Json::objectValue);
        source["prefix_range"] = s.prefix_range.has_value()
                                     ? s.prefix_range->ToJson()
                                     : Json::Value();
        Json::Value ports(Json::objectValue);
        for (const auto& [port, index] : s.ports) {
          ports[std::to_string(port)] = Json::UInt64{index};
        }
        source["ports"] = ports;
        sources.append(source);
      }
      types[kTypeKeys[t]] = sources;
    }
    dest["source_types"] = types;
    out.append(dest);
  }
  return out;
}

}  // namespace resources
}  // namespace xdsfed
