// Fuzzes filter chain selection (lib/routing/filter_chain_select.h) with
// random server Listeners and connections, on the path lib/server runs:
// Listener bytes -> ListenerResourceType().Decode -> FilterChainSelector
// over the ServerListener (what each server generation builds) -> Select
// (what the accept loop calls per connection). The bytes decode to a Listener
// of up to 12 filter chains whose FilterChainMatch fields (destination and
// source prefixes drawn from a small pool of overlapping IPv4 / IPv6 /
// IPv4-mapped ranges, source type, source ports, destination_port,
// server_names, transport_protocol, application_protocols) are random; the
// Listener goes through the production decoder (validation, A36 duplicate
// check, map, renumbering), then up to 16 connections (local, peer or an
// unknown peer) are selected. Each selection is checked against a reference
// written from A36 §FilterChainMatch alone: a linear scan over the chains as
// given, narrowing the candidates step by step (destination prefix, server
// name, transport protocol, application protocol, source type, source
// prefix, source port). Invariants: at most one candidate survives (a
// Listener that passed validation has no duplicate matchers); the selector
// picks exactly it (mapped back through input_index); SocketAddress text
// round-trips.
//
// Speed: the Listener's wire bytes are assembled from pieces serialized once
// (the name and address, one chain's filters, the default chain) plus each
// chain's small FilterChainMatch, instead of building and serializing the
// whole message per input; every chain carries the same filter bytes, which
// the decoder decodes once per Listener (listener.cc); and libFuzzer's
// entropic schedule is off by default (LLVMFuzzerInitialize).
#include <arpa/inet.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/extensions/filters/http/router/v3/router.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "fuzz/default_flags.h"
#include "lib/base/check.h"
#include "lib/resources/listener.h"
#include "lib/routing/filter_chain_select.h"

namespace {

namespace listener_pb = envoy::config::listener::v3;
namespace hcm_pb =
    envoy::extensions::filters::network::http_connection_manager::v3;
using xdsfed::routing::SocketAddress;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next(uint8_t fallback = 0) {
    return pos_ < size_ ? data_[pos_++] : fallback;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Addresses that prefixes and connections are built around, so that they
// overlap often: nested IPv4 ranges, loopback, IPv6 and IPv4-mapped IPv6.
constexpr const char* kBases[] = {
    "10.0.0.0",  "10.1.0.0", "10.1.2.0",        "10.1.2.3", "127.0.0.1",
    "127.0.0.2", "0.0.0.0",  "192.168.1.1",     "fd00::",   "fd00:1::1",
    "::1",       "::",       "::ffff:10.1.2.3", "fe80::1",  "10.255.255.255",
};
constexpr size_t kNumBases = sizeof(kBases) / sizeof(kBases[0]);

// An address in the reference's own form: family + 16 bytes (IPv4 in the
// first 4), IPv4-mapped IPv6 addresses taken as IPv4 (A36 leaves this to
// the platform; the selector documents it).
struct RefAddress {
  bool ipv6 = false;
  uint8_t bytes[16] = {};
  uint16_t port = 0;
};

RefAddress RefFromText(const std::string& text, uint16_t port) {
  RefAddress a;
  a.port = port;
  if (inet_pton(AF_INET, text.c_str(), a.bytes) == 1) return a;
  XDSFED_CHECK(inet_pton(AF_INET6, text.c_str(), a.bytes) == 1);
  a.ipv6 = true;
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(a.bytes, kMapped, 12) == 0) {
    a.ipv6 = false;
    std::memmove(a.bytes, a.bytes + 12, 4);
    std::memset(a.bytes + 4, 0, 12);
  }
  return a;
}

std::string RefToText(const RefAddress& a) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(a.ipv6 ? AF_INET6 : AF_INET, a.bytes, buf, sizeof(buf));
  return a.ipv6 ? absl::StrCat("[", buf, "]:", a.port)
                : absl::StrCat(buf, ":", a.port);
}

// A prefix as the proto gives it (not normalized).
struct RefCidr {
  std::string text;
  int prefix_len;  // -1: absent (= 0)
};

// A36 §FilterChainMatch normalization, done here from the text: a prefix of
// the other family never contains the address; a length beyond the
// family's width counts as the width.
// Returns the effective length if `range` contains `a`, else -1.
int ContainsLen(const RefCidr& range, const RefAddress& a) {
  uint8_t bytes[16] = {};
  bool ipv6;
  if (inet_pton(AF_INET, range.text.c_str(), bytes) == 1) {
    ipv6 = false;
  } else if (inet_pton(AF_INET6, range.text.c_str(), bytes) == 1) {
    ipv6 = true;
  } else {
    return -1;
  }
  if (ipv6 != a.ipv6) return -1;
  const int width = ipv6 ? 128 : 32;
  const int len = std::min(std::max(range.prefix_len, 0), width);
  for (int bit = 0; bit < len; ++bit) {
    const int byte = bit / 8, shift = 7 - bit % 8;
    if (((bytes[byte] >> shift) & 1) != ((a.bytes[byte] >> shift) & 1)) {
      return -1;
    }
  }
  return len;
}

struct RefChain {
  std::vector<RefCidr> prefix_ranges;
  int source_type = 0;  // 0 ANY, 1 SAME_IP_OR_LOOPBACK, 2 EXTERNAL
  std::vector<RefCidr> source_prefix_ranges;
  std::vector<uint32_t> source_ports;
  bool has_destination_port = false;
  bool has_server_names = false;
  std::string transport_protocol;
  bool has_application_protocols = false;
};

// The most specific matching length of `ranges` for `a` (an empty list
// matches anything, least specifically: -1); nullopt if none contains it.
// a == nullptr (unknown peer): only an empty list matches.
std::optional<int> Specificity(const std::vector<RefCidr>& ranges,
                               const RefAddress* a) {
  if (ranges.empty()) return -1;
  if (a == nullptr) return std::nullopt;
  std::optional<int> best;
  for (const RefCidr& r : ranges) {
    const int len = ContainsLen(r, *a);
    if (len >= 0 && (!best.has_value() || len > *best)) best = len;
  }
  return best;
}

// Keeps the candidates with the highest score; nullopt scores drop out.
template <typename Score>
void KeepBest(std::vector<size_t>* cands, Score score) {
  std::vector<size_t> kept;
  std::optional<int> best;
  for (size_t i : *cands) {
    std::optional<int> s = score(i);
    if (!s.has_value()) continue;
    if (!best.has_value() || *s > *best) {
      best = s;
      kept.clear();
    }
    if (*s == *best) kept.push_back(i);
  }
  *cands = kept;
}

// The reference: the index of the chain (as given) for the connection, or
// -1. Aborts if more than one chain is left (validation must prevent it).
int Reference(const std::vector<RefChain>& chains, const RefAddress& local,
              const RefAddress* peer) {
  std::vector<size_t> cands;
  // destination_port needs use_original_dst: such chains never match.
  for (size_t i = 0; i < chains.size(); ++i) {
    if (!chains[i].has_destination_port) cands.push_back(i);
  }
  // 1. The most specific destination prefix, over every remaining chain
  //    (a chain that cannot match still makes its prefix the most specific).
  KeepBest(&cands, [&](size_t i) {
    return Specificity(chains[i].prefix_ranges, &local);
  });
  // 2. Server name: a connection has none (no TLS inspector).
  KeepBest(&cands, [&](size_t i) -> std::optional<int> {
    if (chains[i].has_server_names) return std::nullopt;
    return 0;
  });
  // 3. Transport protocol: always "raw_buffer"; an exact match is more
  //    specific than an empty one; anything else never matches.
  KeepBest(&cands, [&](size_t i) -> std::optional<int> {
    const std::string& t = chains[i].transport_protocol;
    if (t == "raw_buffer") return 1;
    if (t.empty()) return 0;
    return std::nullopt;
  });
  // 4. Application protocols: a connection has none.
  KeepBest(&cands, [&](size_t i) -> std::optional<int> {
    if (chains[i].has_application_protocols) return std::nullopt;
    return 0;
  });
  // 5. Source type: the connection's type beats ANY.
  int type = 2;
  if (peer != nullptr) {
    const bool loopback =
        peer->ipv6 ? (std::memcmp(peer->bytes,
                                  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16) == 0)
                   : (std::memcmp(peer->bytes, "\x7f\0\0\1", 4) == 0);
    const bool same = peer->ipv6 == local.ipv6 &&
                      std::memcmp(peer->bytes, local.bytes, 16) == 0;
    if (loopback || same) type = 1;
  }
  KeepBest(&cands, [&](size_t i) -> std::optional<int> {
    if (chains[i].source_type == type) return 1;
    if (chains[i].source_type == 0) return 0;
    return std::nullopt;
  });
  // 6. The most specific source prefix.
  KeepBest(&cands, [&](size_t i) {
    return Specificity(chains[i].source_prefix_ranges, peer);
  });
  // 7. The exact source port beats "any port" (no ports listed; Envoy's
  //    and C-core's port 0, which no TCP peer has, means the same).
  KeepBest(&cands, [&](size_t i) -> std::optional<int> {
    const auto& ports = chains[i].source_ports;
    std::optional<int> score;
    if (ports.empty()) score = 0;
    for (uint32_t p : ports) {
      if (p == 0) score = std::max(score.value_or(0), 0);
      if (peer != nullptr && peer->port != 0 && p == peer->port) score = 1;
    }
    return score;
  });
  XDSFED_CHECK(cands.size() <= 1);
  return cands.empty() ? -1 : static_cast<int>(cands[0]);
}

std::string AddressText(Reader& in) {
  RefAddress a = RefFromText(kBases[in.Next() % kNumBases], 0);
  // Perturb a few low-order bytes so that some addresses fall outside.
  const uint8_t flips = in.Next();
  const int width = a.ipv6 ? 16 : 4;
  if (flips & 1) a.bytes[width - 1] ^= in.Next();
  if (flips & 2) a.bytes[width - 2] ^= in.Next();
  if (flips & 4) a.bytes[1] ^= in.Next();
  std::string text = RefToText(a);
  // Without the port.
  text = text.substr(0, text.rfind(':'));
  if (text[0] == '[') text = text.substr(1, text.size() - 2);
  // Sometimes the IPv4-mapped spelling of an IPv4 address.
  if (!a.ipv6 && (flips & 8)) text = "::ffff:" + text;
  return text;
}

RefCidr Cidr(Reader& in) {
  static constexpr int kLens[] = {-1, 0,  8,  16,  24,  30,
                                  32, 64, 96, 120, 128, 200};
  RefCidr c;
  c.text = AddressText(in);
  const uint8_t l = in.Next();
  c.prefix_len =
      l < 200 ? kLens[l % (sizeof(kLens) / sizeof(kLens[0]))] : l - 200;
  return c;
}

uint16_t Port(Reader& in) {
  static constexpr uint16_t kPorts[] = {0, 80, 443, 1000, 50051};
  const uint8_t p = in.Next();
  return p < 250 ? kPorts[p % 5] : static_cast<uint16_t>(p * 257);
}

// One chain's filters (an HttpConnectionManager over RDS with the router),
// serialized: the part of every FilterChain that selection does not read.
std::string ChainFilters() {
  hcm_pb::HttpConnectionManager hcm;
  auto* rds = hcm.mutable_rds();
  rds->mutable_config_source()->mutable_ads();
  rds->set_route_config_name("rc");
  auto* router = hcm.add_http_filters();
  router->set_name("router");
  router->mutable_typed_config()->PackFrom(
      envoy::extensions::filters::http::router::v3::Router());
  listener_pb::FilterChain chain;
  auto* filter = chain.add_filters();
  filter->set_name("hcm");
  filter->mutable_typed_config()->PackFrom(hcm);
  return chain.SerializeAsString();
}

// Pieces of the Listener's wire form, serialized once. Serialized messages
// concatenate as a merge: name + address, then each chain as a
// length-delimited Listener.filter_chains entry, then the default chain.
struct ListenerPieces {
  std::string head;           // name "l", address 0.0.0.0:50051
  std::string chain_filters;  // a FilterChain's filters
  std::string default_chain;  // Listener.default_filter_chain, tag included
  static const ListenerPieces& Get() {
    static const ListenerPieces* const pieces = [] {
      auto* p = new ListenerPieces;
      listener_pb::Listener head;
      head.set_name("l");
      auto* sa = head.mutable_address()->mutable_socket_address();
      sa->set_address("0.0.0.0");
      sa->set_port_value(50051);
      p->head = head.SerializeAsString();
      p->chain_filters = ChainFilters();
      listener_pb::Listener with_default;
      XDSFED_CHECK(with_default.mutable_default_filter_chain()->ParseFromString(
          p->chain_filters));
      p->default_chain = with_default.SerializeAsString();
      return p;
    }();
    return *pieces;
  }
};

// Appends one Listener.filter_chains entry (field 3, length-delimited).
void AppendChain(const std::string& chain, std::string* out) {
  out->push_back(static_cast<char>((3 << 3) | 2));
  for (uint64_t n = chain.size();; n >>= 7) {
    if (n < 0x80) {
      out->push_back(static_cast<char>(n));
      break;
    }
    out->push_back(static_cast<char>((n & 0x7f) | 0x80));
  }
  out->append(chain);
}

void AddRanges(
    const std::vector<RefCidr>& ranges,
    google::protobuf::RepeatedPtrField<envoy::config::core::v3::CidrRange>*
        out) {
  for (const RefCidr& r : ranges) {
    auto* c = out->Add();
    c->set_address_prefix(r.text);
    if (r.prefix_len >= 0) c->mutable_prefix_len()->set_value(r.prefix_len);
  }
}

}  // namespace

// libFuzzer's entropic schedule (InputCorpus::UpdateFeatureFrequency) took
// 79% of the time with this target's ~35,000 features (perf): 20 exec/s
// with it, 155 without, same corpus and load. Unless the command line
// chooses, run without it.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xdsfed::fuzz::AddDefaultFlag(argc, argv, "-entropic=", "0");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in(data, size);
  const ListenerPieces& pieces = ListenerPieces::Get();
  std::string bytes = pieces.head;
  std::vector<RefChain> chains(in.Next() % 13);
  listener_pb::FilterChain match_only;  // reused: only its match is set
  std::string chain_bytes;
  for (RefChain& c : chains) {
    const uint8_t shape = in.Next();
    const int dests = shape % 3, sources = (shape / 3) % 3;
    for (int i = 0; i < dests; ++i) c.prefix_ranges.push_back(Cidr(in));
    for (int i = 0; i < sources; ++i)
      c.source_prefix_ranges.push_back(Cidr(in));
    c.source_type = in.Next() % 3;
    const uint8_t extras = in.Next();
    for (int i = 0; i < (extras & 3) % 3; ++i)
      c.source_ports.push_back(Port(in));
    c.has_destination_port = (extras & 0x1c) == 0x04;
    c.has_server_names = (extras & 0x1c) == 0x08;
    c.has_application_protocols = (extras & 0x1c) == 0x0c;
    if ((extras & 0x60) == 0x20) c.transport_protocol = "raw_buffer";
    if ((extras & 0x60) == 0x40) c.transport_protocol = "tls";

    match_only.Clear();
    auto* m = match_only.mutable_filter_chain_match();
    AddRanges(c.prefix_ranges, m->mutable_prefix_ranges());
    AddRanges(c.source_prefix_ranges, m->mutable_source_prefix_ranges());
    m->set_source_type(
        static_cast<listener_pb::FilterChainMatch::ConnectionSourceType>(
            c.source_type));
    for (uint32_t p : c.source_ports) m->add_source_ports(p);
    if (c.has_destination_port) m->mutable_destination_port()->set_value(50051);
    if (c.has_server_names) m->add_server_names("a.example.com");
    if (c.has_application_protocols) m->add_application_protocols("h2");
    m->set_transport_protocol(c.transport_protocol);
    chain_bytes = pieces.chain_filters;
    match_only.AppendToString(&chain_bytes);
    AppendChain(chain_bytes, &bytes);
  }
  if (chains.empty() || (in.Next() & 1)) bytes += pieces.default_chain;
  xdsfed::resources::DecodeResult r =
      xdsfed::resources::ListenerResourceType().Decode({}, bytes);
  if (!r.value.ok()) return 0;  // e.g. duplicate matchers: rejected is fine
  const auto& listener =
      *xdsfed::resources::XdsResourceType<xdsfed::resources::Listener>::Cast(
          r.value->get());
  const auto& server =
      std::get<xdsfed::resources::ServerListener>(listener.listener);
  XDSFED_CHECK(server.input_index.size() == server.filter_chains.size());
  const xdsfed::routing::FilterChainSelector selector(server);

  const int connections = 1 + in.Next() % 16;
  for (int k = 0; k < connections; ++k) {
    const RefAddress local = RefFromText(AddressText(in), Port(in));
    const uint8_t peer_kind = in.Next();
    std::optional<RefAddress> peer;
    if (peer_kind % 8 == 1) {
      peer = local;  // same IP
      peer->port = Port(in);
    } else if (peer_kind % 8 != 0) {
      peer = RefFromText(AddressText(in), Port(in));
    }
    const int want = Reference(chains, local, peer ? &*peer : nullptr);

    std::optional<SocketAddress> local_sa =
        SocketAddress::Parse(RefToText(local));
    XDSFED_CHECK(local_sa.has_value());
    XDSFED_CHECK(SocketAddress::Parse(local_sa->ToString()) == local_sa);
    std::optional<SocketAddress> peer_sa;
    if (peer.has_value()) {
      peer_sa = SocketAddress::Parse(RefToText(*peer));
      XDSFED_CHECK(peer_sa.has_value());
    }
    std::optional<size_t> got =
        selector.Select(*local_sa, peer_sa ? &*peer_sa : nullptr);
    const int got_index =
        got.has_value() ? static_cast<int>(server.input_index.at(*got)) : -1;
    if (got_index != want) {
      std::fprintf(stderr, "local %s peer %s: selector %d, reference %d\n",
                   RefToText(local).c_str(),
                   peer ? RefToText(*peer).c_str() : "unknown", got_index,
                   want);
      XDSFED_CHECK(got_index == want);
    }
  }
  return 0;
}
