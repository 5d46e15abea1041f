#include "lib/resources/listener.h"

#include <atomic>
#include <climits>
#include <memory>
#include <memory_resource>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "envoy/config/listener/v3/listener.pb.h"
#include "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.pb.h"
#include "google/protobuf/arena.h"
#include "lib/base/validation_errors.h"
#include "lib/resources/internal/route_config_util.h"
#include "lib/resources/internal/wire_nesting.h"
#include "lib/resources/resource_type.h"

namespace xdsfed {
namespace resources {

namespace {

namespace listener_pb = envoy::config::listener::v3;
namespace hcm_pb =
    envoy::extensions::filters::network::http_connection_manager::v3;
using Field = ValidationErrors::ScopedField;

constexpr absl::string_view kDownstreamTlsContextType =
    "envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext";

// Decodes an Any that must hold an HttpConnectionManager; errors under the
// current path (the Any's field).
std::optional<HttpConnectionManager> ParseHcmAny(
    const google::protobuf::Any& any, bool is_client,
    ValidationErrors* errors) {
  std::optional<std::string> type = internal::ExtensionTypeName(any, errors);
  if (!type.has_value()) return std::nullopt;
  if (*type != internal::kHttpConnectionManagerType) {
    Field field(errors, ".type_url");
    errors->AddError(absl::StrCat("unsupported filter type ", *type,
                                  ": expected ",
                                  internal::kHttpConnectionManagerType));
    return std::nullopt;
  }
  Field field(errors, absl::StrCat(".value[", *type, "]"));
  hcm_pb::HttpConnectionManager proto;
  if (any.type_url().find("TypedStruct") != std::string::npos ||
      !proto.ParseFromString(any.value())) {
    errors->AddError("cannot decode HttpConnectionManager");
    return std::nullopt;
  }
  return ParseHttpConnectionManager(proto, is_client, errors);
}

ApiListener ParseClientListener(const listener_pb::Listener& proto,
                                ValidationErrors* errors) {
  ApiListener out;
  Field field(errors, ".api_listener.api_listener");
  if (!proto.api_listener().has_api_listener()) {
    errors->AddError("field not present");
    return out;
  }
  std::optional<HttpConnectionManager> hcm = ParseHcmAny(
      proto.api_listener().api_listener(), /*is_client=*/true, errors);
  if (hcm.has_value()) out.http_connection_manager = std::move(*hcm);
  return out;
}

// A36 §Resource Validation, for default_filter_chain and every entry of
// filter_chains.
FilterChainData ParseFilterChain(const listener_pb::FilterChain& proto,
                                 const DecodeContext& context,
                                 ValidationErrors* errors) {
  FilterChainData out;
  {
    Field field(errors, ".filters");
    if (proto.filters_size() != 1) {
      errors->AddError(
          "must have exactly one filter, the HttpConnectionManager; no other "
          "filter is supported");
    } else {
      Field filter(errors, "[0].typed_config");
      if (!proto.filters(0).has_typed_config()) {
        errors->AddError("field not present");
      } else {
        std::optional<HttpConnectionManager> hcm = ParseHcmAny(
            proto.filters(0).typed_config(), /*is_client=*/false, errors);
        if (hcm.has_value()) out.http_connection_manager = std::move(*hcm);
      }
    }
  }
  if (proto.has_transport_socket()) {
    Field field(errors, ".transport_socket.typed_config");
    if (!proto.transport_socket().has_typed_config()) {
      errors->AddError("field not present");
    } else {
      const google::protobuf::Any& any =
          proto.transport_socket().typed_config();
      std::optional<std::string> type =
          internal::ExtensionTypeName(any, errors);
      if (type.has_value() && *type != kDownstreamTlsContextType) {
        Field type_url(errors, ".type_url");
        errors->AddError(absl::StrCat("unsupported transport socket type ",
                                      *type, ": expected ",
                                      kDownstreamTlsContextType));
      } else if (type.has_value()) {
        Field value(errors, absl::StrCat(".value[", *type, "]"));
        out.tls = ParseDownstreamTlsContext(
            any.value(), errors, context.certificate_provider_instances);
        if (out.tls.has_value()) out.downstream_tls_context = any.value();
      }
    }
  }
  return out;
}

// The bytes ParseFilterChain reads (the one filter's typed_config, the
// transport socket's), as a key: within one decode (one context), chains
// with equal keys decode to equal values. nullopt for a chain that is not
// one filter with a typed_config (decoded on its own, for its errors). The
// views point into the Listener proto, which outlives the key.
struct FilterChainDataKey {
  absl::string_view filter_type_url;
  absl::string_view filter_value;
  bool has_transport_socket = false;
  absl::string_view tls_type_url;
  absl::string_view tls_value;

  bool operator==(const FilterChainDataKey& o) const {
    return filter_type_url == o.filter_type_url &&
           filter_value == o.filter_value &&
           has_transport_socket == o.has_transport_socket &&
           tls_type_url == o.tls_type_url && tls_value == o.tls_value;
  }
  template <typename H>
  friend H AbslHashValue(H h, const FilterChainDataKey& k) {
    return H::combine(std::move(h), k.filter_type_url, k.filter_value,
                      k.has_transport_socket, k.tls_type_url, k.tls_value);
  }
};

std::optional<FilterChainDataKey> KeyOfFilterChain(
    const listener_pb::FilterChain& proto) {
  if (proto.filters_size() != 1 || !proto.filters(0).has_typed_config()) {
    return std::nullopt;
  }
  const google::protobuf::Any& filter = proto.filters(0).typed_config();
  FilterChainDataKey key;
  key.filter_type_url = filter.type_url();
  key.filter_value = filter.value();
  if (proto.has_transport_socket()) {
    if (!proto.transport_socket().has_typed_config()) return std::nullopt;
    const google::protobuf::Any& tls = proto.transport_socket().typed_config();
    key.has_transport_socket = true;
    key.tls_type_url = tls.type_url();
    key.tls_value = tls.value();
  }
  return key;
}

std::string JoinHostPort(const std::string& host, uint32_t port) {
  if (host.find(':') != std::string::npos) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

// `scratch`: the working memory (not the value's).
ServerListener ParseServerListener(const listener_pb::Listener& proto,
                                   const DecodeContext& context,
                                   ValidationErrors* errors,
                                   std::pmr::memory_resource* scratch) {
  ServerListener out;
  {
    Field field(errors, ".address");
    if (!proto.address().has_socket_address()) {
      Field socket(errors, ".socket_address");
      errors->AddError("field not present");
    } else {
      Field socket(errors, ".socket_address");
      const auto& address = proto.address().socket_address();
      if (address.protocol() != envoy::config::core::v3::SocketAddress::TCP) {
        Field protocol(errors, ".protocol");
        errors->AddError("value must be TCP");
      }
      if (address.port_value() > 65535) {
        Field port(errors, ".port_value");
        errors->AddError("invalid port: must be at most 65535");
      }
      out.address = JoinHostPort(address.address(), address.port_value());
    }
  }
  // A36 §Resource Validation.
  if (proto.listener_filters_size() > 0) {
    Field field(errors, ".listener_filters");
    errors->AddError("must be empty");
  }
  if (proto.has_use_original_dst() && proto.use_original_dst().value()) {
    Field field(errors, ".use_original_dst");
    errors->AddError("must not be true");
  }
  const size_t n = static_cast<size_t>(proto.filter_chains_size());
  std::pmr::vector<std::optional<FilterChainMatch>> matches(scratch);
  matches.reserve(n);
  std::vector<std::shared_ptr<const FilterChainData>> chains;
  chains.reserve(n);
  // Listeners often repeat one HttpConnectionManager (and TLS context) over
  // many matches: a chain whose bytes equal an earlier valid chain's shares
  // its value instead of a second decode (key -> index in chains).
  absl::flat_hash_map<FilterChainDataKey, size_t> decoded;
  // Repeats usually follow each other: the last reusable chain is compared
  // first, without hashing the key's bytes.
  std::optional<std::pair<FilterChainDataKey, size_t>> last;
  std::string piece;  // the field path piece, one string reused
  for (int i = 0; i < proto.filter_chains_size(); ++i) {
    piece.clear();
    absl::StrAppend(&piece, ".filter_chains[", i, "]");
    Field field(errors, piece);
    const listener_pb::FilterChain& chain = proto.filter_chains(i);
    {
      Field match_field(errors, ".filter_chain_match");
      matches.push_back(
          ParseFilterChainMatch(chain.filter_chain_match(), errors));
    }
    std::optional<FilterChainDataKey> key = KeyOfFilterChain(chain);
    std::optional<size_t> repeat;
    if (key.has_value()) {
      if (last.has_value() && last->first == *key) {
        repeat = last->second;
      } else if (auto seen = decoded.find(*key); seen != decoded.end()) {
        repeat = seen->second;
      }
    }
    if (repeat.has_value()) {
      chains.push_back(chains[*repeat]);
      last.emplace(*key, *repeat);
      continue;
    }
    const size_t errors_before = errors->size();
    chains.push_back(std::make_shared<const FilterChainData>(
        ParseFilterChain(chain, context, errors)));
    // Only an error-free value is reused: an invalid chain's errors are
    // reported under each chain's own path.
    if (key.has_value() && errors->size() == errors_before) {
      decoded.emplace(*key, chains.size() - 1);
      last.emplace(*key, chains.size() - 1);
    }
  }
  out.filter_chain_map = BuildFilterChainMap(matches, errors, scratch);
  // Keep only the chains the map can select, renumbered in input order.
  std::vector<bool> selectable(n, false);
  out.filter_chain_map.ForEachChainIndex(
      [&selectable](size_t& index) { selectable[index] = true; });
  std::vector<size_t> renumber(n, 0);
  out.input_index.reserve(n);
  for (size_t old_index = 0; old_index < n; ++old_index) {
    if (!selectable[old_index]) continue;
    renumber[old_index] = out.input_index.size();
    out.input_index.push_back(old_index);
  }
  if (out.input_index.size() == n) {
    // Every chain can be selected (the usual case): no renumbering.
    out.filter_chains = std::move(chains);
  } else {
    out.filter_chains.reserve(out.input_index.size());
    for (size_t old_index : out.input_index) {
      out.filter_chains.push_back(std::move(chains[old_index]));
    }
    out.filter_chain_map.ForEachChainIndex(
        [&renumber](size_t& index) { index = renumber[index]; });
  }
  if (proto.has_default_filter_chain()) {
    Field field(errors, ".default_filter_chain");
    out.default_filter_chain =
        ParseFilterChain(proto.default_filter_chain(), context, errors);
  }
  if (proto.filter_chains_size() == 0 && !proto.has_default_filter_chain()) {
    // gRPC 1.51: "No filter chain provided."
    Field field(errors, ".filter_chains");
    errors->AddError(
        "no filter chain provided: need filter_chains or "
        "default_filter_chain");
  }
  return out;
}

// A Listener decode starts its protobuf arena in one kept block, and takes
// its working memory (the chains' matches, the duplicate-matcher set, the
// map under construction) from a second one: the parsed proto of a
// 1,000-chain Listener (~0.75 MB of small messages) and ~0.55 MB of working
// memory then land on pages touched before, where malloc'd memory was fresh
// pages (~190 + ~130 first-touch faults, ~1.2 us each on a VM,
// bench/RESULTS.md), grown by an mprotect per page or two and, for blocks of
// 128 KB and more, mapped and unmapped in every decode. One pair of blocks
// per process, used by one decode at a time; another decode meanwhile
// allocates as before. Only the pages a decode (or PrewarmListenerDecode)
// touched become resident.
class ListenerDecodeScratch {
 public:
  static constexpr size_t kBytes = size_t{1} << 20;  // each block

  static ListenerDecodeScratch& Get() {
    static ListenerDecodeScratch* const scratch = new ListenerDecodeScratch();
    return *scratch;
  }
  // The blocks while held; null if another decode holds them.
  class Hold {
   public:
    Hold() : scratch_(Get()), blocks_(scratch_.TryAcquire()) {}
    ~Hold() {
      if (blocks_ != nullptr) scratch_.Release();
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    // The protobuf arena's first block.
    char* arena_block() const { return blocks_; }
    // The working memory's.
    char* work_block() const {
      return blocks_ == nullptr ? nullptr : blocks_ + kBytes;
    }

   private:
    ListenerDecodeScratch& scratch_;
    char* const blocks_;
  };

  void Touch() {
    Hold hold;
    if (hold.arena_block() == nullptr) return;  // a decode touches them
    volatile char* pages = hold.arena_block();
    for (size_t i = 0; i < 2 * kBytes; i += 4096) pages[i] = 0;
  }

 private:
  char* TryAcquire() {
    if (busy_.exchange(true, std::memory_order_acquire)) return nullptr;
    return blocks_.get();
  }
  void Release() { busy_.store(false, std::memory_order_release); }

  ListenerDecodeScratch() : blocks_(new char[2 * kBytes]) {}
  std::atomic<bool> busy_{false};
  const std::unique_ptr<char[]> blocks_;
};

class ListenerType final : public XdsResourceType<Listener> {
 public:
  absl::string_view type_url() const override { return kListenerTypeUrl; }
  absl::string_view short_name() const override { return "Listener"; }
  bool all_resources_required_in_sotw() const override { return true; }

 protected:
  absl::StatusOr<Listener> DecodeValue(const DecodeContext& context,
                                       absl::string_view serialized,
                                       std::string* name) const override {
    // On an arena, as ClusterLoadAssignment and RouteConfiguration: a
    // 1,000-chain Listener is ~10,000 small messages and strings, freed one
    // by one otherwise (2.3M instructions at 1,000 chains).
    google::protobuf::ArenaOptions options;
    options.start_block_size = 4096;
    options.max_block_size = 64 * 1024;
    // Declared before the arena and the working memory: released after
    // both are gone.
    ListenerDecodeScratch::Hold scratch;
    options.initial_block = scratch.arena_block();
    if (options.initial_block != nullptr) {
      options.initial_block_size = ListenerDecodeScratch::kBytes;
    }
    std::optional<std::pmr::monotonic_buffer_resource> work_block;
    std::pmr::memory_resource* work = std::pmr::new_delete_resource();
    if (scratch.work_block() != nullptr) {
      work = &work_block.emplace(scratch.work_block(),
                                 ListenerDecodeScratch::kBytes,
                                 std::pmr::new_delete_resource());
    }
    google::protobuf::Arena arena(options);
    listener_pb::Listener& proto =
        *google::protobuf::Arena::CreateMessage<listener_pb::Listener>(&arena);
    if (serialized.size() > static_cast<size_t>(INT_MAX) ||
        !proto.ParseFromArray(serialized.data(),
                              static_cast<int>(serialized.size()))) {
      return absl::InvalidArgumentError(DecodeFailureMessage(
          "cannot decode Listener", *proto.GetDescriptor(), serialized));
    }
    *name = proto.name();
    ValidationErrors errors;
    Listener listener;
    listener.name = proto.name();
    // As gRPC: api_listener wins when both are set (istio sends both).
    if (proto.has_api_listener()) {
      listener.listener = ParseClientListener(proto, &errors);
    } else if (proto.has_address()) {
      listener.listener = ParseServerListener(proto, context, &errors, work);
    } else {
      Field field(&errors, ".api_listener");
      errors.AddError("neither api_listener nor address is set");
    }
    if (!errors.ok()) return errors.status("errors validating Listener");
    return listener;
  }
};

}  // namespace

Json::Value FilterChainData::ToJson() const {
  Json::Value out(Json::objectValue);
  out["http_connection_manager"] = http_connection_manager.ToJson();
  out["has_downstream_tls_context"] = !downstream_tls_context.empty();
  if (tls.has_value()) out["downstream_tls_context"] = tls->ToJson();
  return out;
}

Json::Value Listener::ToJson() const {
  Json::Value out(Json::objectValue);
  out["name"] = name;
  if (const auto* api = std::get_if<ApiListener>(&listener)) {
    out["api_listener"]["http_connection_manager"] =
        api->http_connection_manager.ToJson();
    return out;
  }
  const ServerListener& server = std::get<ServerListener>(listener);
  Json::Value json(Json::objectValue);
  json["address"] = server.address;
  json["filter_chain_map"] = server.filter_chain_map.ToJson();
  Json::Value chains(Json::arrayValue);
  for (const auto& c : server.filter_chains) chains.append(c->ToJson());
  json["filter_chains"] = chains;
  json["default_filter_chain"] = server.default_filter_chain.has_value()
                                     ? server.default_filter_chain->ToJson()
                                     : Json::Value();
  out["server_listener"] = json;
  return out;
}

template <>
const XdsResourceType<Listener>& XdsResourceType<Listener>::Get() {
  static const ListenerType* const kType = new ListenerType();
  return *kType;
}

const XdsResourceType<Listener>& ListenerResourceType() {
  return XdsResourceType<Listener>::Get();
}

void PrewarmListenerDecode() { ListenerDecodeScratch::Get().Touch(); }

}  // namespace resources
}  // namespace xdsfed
