// Drives ResourceCache with random sequences of insert / lookup / ack / nack
// / does-not-exist / watch / unwatch / erase over a small name alphabet
// (old-style names and xdstp names with params in varying order, escaped
// spellings, fragments, unknown authorities, wrong types; lookups take the
// guessed canonical form first, then normalize), checking it
// against a std::map reference model. Each step checks only what it can have
// changed: the size, the entry it named and, when the step added or removed
// that entry, how many entries the iteration of its server and type visits
// and whether it is among them. The whole model, every iteration included,
// is checked after the last step. (Checking everything after every step made
// a step cost O(model): 6,079 executions in CI's 20 s.) The model computes a
// name's identity from the pieces it was built from, not through lib/name.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "fuzz/default_flags.h"
#include "lib/base/check.h"
#include "lib/cache/resource_cache.h"

namespace xdsfed {
namespace cache {
namespace {

// A cached value for these tests: the cache only stores it.
struct IntData final : ResourceData {
  explicit IntData(int v) : value(v) {}
  const int value;
};
int IntOf(const Entry& e) {
  const auto* data = dynamic_cast<const IntData*>(e.value().get());
  return data == nullptr ? -1 : data->value;
}

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return n_ == 0; }
  uint8_t Next() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

constexpr absl::string_view kTypes[] = {"envoy.config.listener.v3.Listener",
                                        "envoy.config.cluster.v3.Cluster"};
// Index 3 is never added to the cache: an unknown authority.
constexpr absl::string_view kAuthorities[] = {"", "a.example", "b.example",
                                              "zz"};
constexpr ServerId kAuthorityServers[] = {1, 1, 2};
constexpr ServerId kOldStyleServer = 0;
constexpr absl::string_view kOldNames[] = {
    "x", "a.example", "old:", "y/z", "server.example.com", "x?a=1"};
constexpr absl::string_view kIds[] = {"x", "y/z", "svc", "a.example"};
// "node" sorts before "node.c" although '.' < '='; a raw '?' in a value is
// a query character.
const std::pair<absl::string_view, absl::string_view> kParams[] = {
    {"a", "1"}, {"b", "2"}, {"node.c", "v-3"}, {"node", "x?y"}};
constexpr absl::string_view kVersions[] = {"", "1", "2", "long-version-3"};

// Spells s, percent-encoding some unreserved characters (upper-case hex):
// equivalent to s after normalization (TP1 §Normalization).
std::string Spell(absl::string_view s, Bytes& in) {
  constexpr char kHex[] = "0123456789ABCDEF";
  const uint8_t mask = in.Next();
  std::string out;
  int i = 0;
  for (char c : s) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (unreserved && ((mask >> (i++ % 8)) & 1)) {
      const auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// A generated name and what the model expects of it.
struct Name {
  std::string raw;
  TypeId type = 0;
  enum Outcome { kOk, kBadName, kUnknownAuthority } outcome = kOk;
  // Identity (when kOk): (type, old_style, authority, key).
  std::tuple<TypeId, bool, std::string, std::string> id;
  std::string canonical;
  ServerId server = kOldStyleServer;
};

Name MakeName(Bytes& in, bool federation) {
  Name n;
  uint8_t b = in.Next();
  n.type = b & 1;
  if ((b >> 1) % 3 == 0) {
    n.raw = std::string(kOldNames[(b >> 3) % 6]);
  } else {
    uint8_t c = in.Next();
    size_t authority = c % 4;
    bool wrong_type = (c >> 2) % 8 == 0;
    absl::string_view id = kIds[(c >> 5) % 4];
    uint8_t d = in.Next();
    std::vector<std::pair<absl::string_view, absl::string_view>> params;
    for (int k = 0; k < 3; ++k) {
      if ((d >> k) & 1) params.push_back(kParams[k]);
    }
    if ((d >> 7) & 1) params.push_back(kParams[3]);
    for (int r = (d >> 3) % 6; r > 0; --r) {
      std::next_permutation(params.begin(), params.end());
    }
    bool fragment = (d >> 6) & 1;
    absl::string_view type = kTypes[wrong_type ? 1 - n.type : n.type];
    n.raw = absl::StrCat("xdstp://", kAuthorities[authority], "/", type, "/",
                         Spell(id, in));
    for (size_t k = 0; k < params.size(); ++k) {
      absl::StrAppend(&n.raw, k == 0 ? "?" : "&", Spell(params[k].first, in),
                      "=", Spell(params[k].second, in));
    }
    if (fragment) absl::StrAppend(&n.raw, "#frag");
    if (federation) {
      std::sort(params.begin(), params.end());
      std::string key(id);
      for (size_t k = 0; k < params.size(); ++k) {
        absl::StrAppend(&key, k == 0 ? "?" : "&", params[k].first, "=",
                        params[k].second);
      }
      if (wrong_type) {
        n.outcome = Name::kBadName;
      } else if (authority == 3) {
        n.outcome = Name::kUnknownAuthority;
      }
      n.canonical = absl::StrCat("xdstp://", kAuthorities[authority], "/", type,
                                 "/", key);
      n.id = {n.type, false, std::string(kAuthorities[authority]), key};
      if (authority < 3) n.server = kAuthorityServers[authority];
      return n;
    }
  }
  // Old-style, or any name with the gate off: opaque (A47 gate section).
  n.canonical = n.raw;
  n.id = {n.type, true, "", n.raw};
  return n;
}

struct ModelEntry {
  std::string canonical;
  ServerId server;
  State state = State::kRequested;
  std::string version;
  int value = 0;  // 0: null
  std::string bytes;
  bool error = false;
  std::string error_version;
  std::vector<WatcherId> watchers;
};
using Model =
    std::map<std::tuple<TypeId, bool, std::string, std::string>, ModelEntry>;

void CheckEntry(const ResourceCache& cache, const Entry* e,
                const ModelEntry& m) {
  XDSFED_CHECK(e != nullptr);
  XDSFED_CHECK(e->name() == m.canonical);
  XDSFED_CHECK(cache.server(e->authority()) == m.server);
  XDSFED_CHECK(e->state() == m.state);
  XDSFED_CHECK(e->version() == m.version);
  XDSFED_CHECK((e->value() == nullptr) == (m.value == 0));
  if (m.value != 0) XDSFED_CHECK(IntOf(*e) == m.value);
  XDSFED_CHECK(e->serialized() == m.bytes);
  XDSFED_CHECK(e->error().ok() == !m.error);
  if (m.error) XDSFED_CHECK(e->error_version() == m.error_version);
  XDSFED_CHECK(std::vector<WatcherId>(e->watchers().begin(),
                                      e->watchers().end()) == m.watchers);
}

using ModelId = std::tuple<TypeId, bool, std::string, std::string>;

// The entry for `id`, found by its canonical name, matches the model.
void CheckModelEntry(ResourceCache& cache, const ModelId& id,
                     const ModelEntry& m) {
  Entry* e = cache.Find(std::get<0>(id), m.canonical);
  CheckEntry(cache, e, m);
  XDSFED_CHECK(e->old_style() == std::get<1>(id));
  XDSFED_CHECK(cache.AuthorityName(e->authority()) == std::get<2>(id));
  XDSFED_CHECK(e->key() == std::get<3>(id));
  XDSFED_CHECK((e->authority() == kOldStyleAuthority) == std::get<1>(id));
}

// Incremental form of the iteration check: the iteration of (server, type)
// visits `want_count` entries, `name` among them iff `want_present`.
void CheckServerIterationCount(ResourceCache& cache, ServerId s, TypeId t,
                               size_t want_count, absl::string_view name,
                               bool want_present) {
  size_t count = 0;
  bool present = false;
  cache.ForEachOfServer(s, t, [&](const Entry& e) {
    ++count;
    present = present || e.name() == name;
  });
  XDSFED_CHECK(count == want_count);
  XDSFED_CHECK(present == want_present);
}

// Iteration of one (server, type), as a request is built, matches the model.
void CheckServerIteration(ResourceCache& cache, const Model& model, ServerId s,
                          TypeId t) {
  std::vector<std::string> got, want;
  cache.ForEachOfServer(s, t,
                        [&](const Entry& e) { got.emplace_back(e.name()); });
  for (const auto& [id, m] : model) {
    if (std::get<0>(id) == t && m.server == s) want.push_back(m.canonical);
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  XDSFED_CHECK(got == want);
}

void CheckAll(ResourceCache& cache, const Model& model) {
  XDSFED_CHECK(cache.size() == model.size());
  for (const auto& [id, m] : model) CheckModelEntry(cache, id, m);
  for (TypeId t = 0; t < 2; ++t) {
    for (ServerId s = 0; s < 3; ++s) CheckServerIteration(cache, model, s, t);
  }
  size_t count = 0;
  cache.ForEach([&](const Entry&) { ++count; });
  XDSFED_CHECK(count == model.size());
}

}  // namespace
}  // namespace cache
}  // namespace xdsfed

// As for ads_response_fuzzer: libFuzzer's entropic bookkeeping
// (InputCorpus::UpdateFeatureFrequency) took 61% of the time, this target
// 24% (perf); unless the command line chooses, run without it.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xdsfed::fuzz::AddDefaultFlag(argc, argv, "-entropic=", "0");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xdsfed::cache;  // NOLINT: a fuzzer's entry point
  Bytes in(data, size);
  const bool federation = in.Next() & 1;
  ResourceCache cache(federation);
  XDSFED_CHECK(cache.RegisterType(kTypes[0]) == 0);
  XDSFED_CHECK(cache.RegisterType(kTypes[1]) == 1);
  cache.SetOldStyleServer(kOldStyleServer);
  for (size_t a = 0; a < 3; ++a) {
    cache.AddAuthority(kAuthorities[a], kAuthorityServers[a]);
  }
  Model model;
  // Model entries per (server, type), for the incremental iteration check.
  std::map<std::pair<ServerId, TypeId>, size_t> per_server;
  int next_value = 1;
  absl::Time now = absl::FromUnixSeconds(1700000000);
  for (int steps = 0; !in.empty() && steps < 500; ++steps) {
    const uint8_t op = in.Next() % 8;
    const uint8_t arg = in.Next();
    Name name = MakeName(in, federation);
    now += absl::Milliseconds(1);
    auto it = name.outcome == Name::kOk ? model.find(name.id) : model.end();
    Entry* e = cache.Find(name.type, name.raw);
    XDSFED_CHECK((e != nullptr) == (it != model.end()));
    if (e != nullptr) CheckEntry(cache, e, it->second);
    switch (op) {
      case 0: {  // insert (a watch starting)
        auto r = cache.Insert(name.type, name.raw);
        if (name.outcome == Name::kBadName) {
          XDSFED_CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
        } else if (name.outcome == Name::kUnknownAuthority) {
          XDSFED_CHECK(r.status().code() == absl::StatusCode::kNotFound);
        } else {
          XDSFED_CHECK(r.ok());
          XDSFED_CHECK(r->inserted == (it == model.end()));
          if (it == model.end()) {
            ModelEntry m;
            m.canonical = name.canonical;
            m.server = name.server;
            model.emplace(name.id, m);
          }
        }
        break;
      }
      case 1:  // lookup: checked above
        break;
      case 2:  // ack
        if (e != nullptr) {
          bool with_value = arg & 1;
          absl::string_view version = kVersions[(arg >> 1) % 4];
          std::string bytes =
              (arg >> 3) & 1 ? absl::StrCat("b", next_value) : "";
          cache.SetAcked(e,
                         with_value
                             ? std::make_shared<const IntData>(next_value)
                             : nullptr,
                         bytes, version, now);
          ModelEntry& m = it->second;
          m.state = State::kAcked;
          m.value = with_value ? next_value : 0;
          m.version = std::string(version);
          m.bytes = bytes;
          m.error = false;
          ++next_value;
        }
        break;
      case 3:  // nack
        if (e != nullptr) {
          absl::string_view version = kVersions[(arg >> 1) % 4];
          cache.SetNacked(e, absl::InvalidArgumentError("bad"), version, now);
          ModelEntry& m = it->second;
          m.state = State::kNacked;
          m.error = true;
          m.error_version = std::string(version);
        }
        break;
      case 4:  // does not exist
        if (e != nullptr) {
          cache.SetDoesNotExist(e, now);
          ModelEntry& m = it->second;
          m.state = State::kDoesNotExist;
          m.value = 0;
          m.bytes.clear();
        }
        break;
      case 5:  // watch
        if (e != nullptr) {
          WatcherId w = arg % 4;
          bool first = cache.AddWatcher(e, w);
          XDSFED_CHECK(first == it->second.watchers.empty());
          it->second.watchers.push_back(w);
        }
        break;
      case 6:  // unwatch; the last watcher leaving erases
        if (e != nullptr) {
          WatcherId w = arg % 4;
          auto& ws = it->second.watchers;
          auto wit = std::find(ws.begin(), ws.end(), w);
          const bool found = wit != ws.end();
          XDSFED_CHECK(cache.RemoveWatcher(e, w) == found);
          if (found) ws.erase(wit);
          if (found && ws.empty()) {
            cache.Erase(e);
            model.erase(it);
          }
        }
        break;
      case 7:  // erase
        if (e != nullptr) {
          cache.Erase(e);
          model.erase(it);
        }
        break;
    }
    // Incremental: a step changes at most the entry it named, and the
    // iteration of its server and type only if it added or removed it.
    XDSFED_CHECK(cache.size() == model.size());
    if (name.outcome == Name::kOk) {
      auto after = model.find(name.id);
      const bool was_present = it != model.end();
      const bool present = after != model.end();
      if (present) {
        CheckModelEntry(cache, after->first, after->second);
      } else {
        XDSFED_CHECK(cache.Find(name.type, name.raw) == nullptr);
      }
      if (present != was_present) {
        size_t& count = per_server[{name.server, name.type}];
        count = present ? count + 1 : count - 1;
        CheckServerIterationCount(cache, name.server, name.type, count,
                                  name.canonical, present);
      }
    }
  }
  CheckAll(cache, model);
  return 0;
}
