// ControlPlane: ADS state of the world and LRS over grpc++'s callback API.
//
// One mutex (Impl::mu_) guards everything: the snapshot, every stream's
// subscriptions and write queue, and the logs. A test server needs no more,
// and one lock makes "compute a response, queue it" atomic with respect to
// snapshot changes, so versions go out in order on every stream.
//
// grpc++ may run a reaction inline inside the Start*/Finish call that
// triggered it, so those calls are always made after the lock is released.
// A stream is kept alive across that gap by its own state: Finish() (after
// which grpc++ may delete the reactor) is called only when no write is in
// flight, and a write is marked in flight under the lock before StartWrite.
#include "tools/control_plane/control_plane.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <set>
#include <thread>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "envoy/service/discovery/v3/ads.grpc.pb.h"
#include "envoy/service/discovery/v3/discovery.pb.h"
#include "envoy/service/load_stats/v3/lrs.grpc.pb.h"
#include "envoy/service/load_stats/v3/lrs.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "lib/admin/csds_service.h"
#include "lib/base/file_reader.h"
#include "lib/json/json_reader.h"
#include "lib/name/resource_name.h"
#include "lib/transport/grpc_listen.h"
#include "tools/control_plane/client_status.h"

namespace xdsfed::control_plane {
namespace {

using envoy::service::discovery::v3::DiscoveryRequest;
using envoy::service::discovery::v3::DiscoveryResponse;
using envoy::service::load_stats::v3::LoadStatsRequest;
using envoy::service::load_stats::v3::LoadStatsResponse;

constexpr absl::Duration kPollInterval = absl::Milliseconds(200);

absl::string_view TypeNameOf(absl::string_view type_url) {
  size_t slash = type_url.rfind('/');
  return slash == absl::string_view::npos ? type_url
                                          : type_url.substr(slash + 1);
}

// Names are matched in canonical form, so a client may spell an xdstp name
// differently from the snapshot (param order, percent-encoding). Names that
// do not parse as xdstp are matched exactly.
std::string MatchKey(absl::string_view name) {
  absl::StatusOr<std::string> normalized =
      NormalizeResourceName(name, /*federation=*/true);
  return normalized.ok() ? *std::move(normalized) : std::string(name);
}

// LDS and CDS treat an empty name list as "all resources" (the legacy
// wildcard); any type treats "*" so.
bool EmptyMeansWildcard(absl::string_view type_name) {
  return type_name == "envoy.config.listener.v3.Listener" ||
         type_name == "envoy.config.cluster.v3.Cluster";
}

// The snapshot plus, per type, its resources by canonical name.
struct IndexedSnapshot {
  Snapshot snapshot;
  struct Entry {
    const std::string* name;  // the snapshot's key
    const SnapshotResource* resource;
  };
  std::map<std::string, std::map<std::string, Entry>, std::less<>> by_key;

  explicit IndexedSnapshot(Snapshot s) : snapshot(std::move(s)) {
    for (const auto& [type, resources] : snapshot.resources) {
      auto& index = by_key[type];
      for (const auto& [name, resource] : resources) {
        index.emplace(MatchKey(name), Entry{&name, &resource});
      }
    }
  }
};

struct FileState {
  bool exists = false;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  bool operator==(const FileState& o) const {
    return exists == o.exists && size == o.size && mtime_ns == o.mtime_ns &&
           inode == o.inode;
  }
};

FileState StatFile(const std::string& path) {
  struct stat st;
  FileState state;
  if (stat(path.c_str(), &st) != 0) return state;
  state.exists = true;
  state.size = st.st_size;
  state.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  state.inode = st.st_ino;
  return state;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  return ReadFileCapped(path, kMaxSnapshotFileBytes);
}

}  // namespace

class ControlPlane::Impl {
 public:
  explicit Impl(Options options) : options_(std::move(options)) {}
  ~Impl() { Shutdown(); }

  absl::StatusOr<int> Start();
  void Shutdown();
  void SetSnapshot(Snapshot snapshot);

  template <typename Request, typename Response, bool kRaw>
  class Stream;
  class AdsStream;
  class LrsStream;
  class AdsService;
  class LrsService;

  const Options options_;
  mutable absl::Mutex mu_;
  mutable absl::CondVar changed_;  // a log grew or a stream ended
  absl::CondVar stop_;             // stopping_ was set
  std::shared_ptr<const IndexedSnapshot> snapshot_ ABSL_GUARDED_BY(mu_) =
      std::make_shared<IndexedSnapshot>(Snapshot());
  absl::flat_hash_set<AdsStream*> ads_streams_ ABSL_GUARDED_BY(mu_);
  std::vector<Json::Value> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<Json::Value> load_reports_ ABSL_GUARDED_BY(mu_);
  int64_t next_stream_id_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_nonce_ ABSL_GUARDED_BY(mu_) = 0;
  int responses_sent_ ABSL_GUARDED_BY(mu_) = 0;
  // The last options_.history_limit ADS responses built, oldest first.
  // Nonces are the numbers 1, 2, ... server-wide, so the timing of nonce n
  // is response_timings_[n - first_timing_nonce_].
  std::deque<AdsResponseTiming> response_timings_ ABSL_GUARDED_BY(mu_);
  int64_t first_timing_nonce_ ABSL_GUARDED_BY(mu_) = 1;
  FILE* log_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;

  std::unique_ptr<AdsService> ads_service_;
  std::unique_ptr<LrsService> lrs_service_;
  std::unique_ptr<grpc::Service> csds_service_;
  std::unique_ptr<grpc::Server> server_;
  std::thread poller_;

 private:
  void PollSnapshotFile(FileState last);

 public:
  // CSDS: one ClientConfig per open ADS stream, oldest first.
  std::vector<envoy::service::status::v3::ClientConfig> ClientConfigs() const;

 private:
  void WriteLogLineLocked(const Json::Value& line)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

 public:
  // Writes `entry` to the log file (complete) and keeps it in `log`
  // (bounded: when it holds twice the history limit, the older half goes,
  // so the cost per entry stays constant).
  void LogLocked(std::vector<Json::Value>* log, Json::Value entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    WriteLogLineLocked(entry);
    const size_t limit = options_.history_limit;
    if (limit > 0) {
      log->push_back(std::move(entry));
      if (log->size() >= 2 * limit) {
        log->erase(log->begin(), log->end() - limit);
      }
    }
    changed_.SignalAll();
  }

  // The timing record of the response with `nonce`, if still kept.
  AdsResponseTiming* FindTimingLocked(absl::string_view nonce)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(nonce, &n) || n < first_timing_nonce_ ||
        n - first_timing_nonce_ >=
            static_cast<int64_t>(response_timings_.size())) {
      return nullptr;
    }
    return &response_timings_[n - first_timing_nonce_];
  }

  void AddTimingLocked(AdsResponseTiming timing)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    response_timings_.push_back(std::move(timing));
    while (response_timings_.size() > options_.history_limit) {
      response_timings_.pop_front();
      ++first_timing_nonce_;
    }
  }
};

// A server stream with an ordered write queue (one write in flight). The
// derived class handles each request under mu_ and queues responses. With
// kRaw the stream carries grpc::ByteBuffers and parses requests itself, so
// that a request that does not parse ends the stream with
// INVALID_ARGUMENT (grpc++ would report it as the end of the reads).
template <typename Request, typename Response, bool kRaw>
class ControlPlane::Impl::Stream
    : public grpc::ServerBidiReactor<
          std::conditional_t<kRaw, grpc::ByteBuffer, Request>,
          std::conditional_t<kRaw, grpc::ByteBuffer, Response>> {
 public:
  using WireRequest = std::conditional_t<kRaw, grpc::ByteBuffer, Request>;
  using WireResponse = std::conditional_t<kRaw, grpc::ByteBuffer, Response>;

  Stream(Impl* cp, grpc::CallbackServerContext* context)
      : cp_(cp), peer_(context->peer()) {}

  // Reads the first request. Called by the derived constructor, once the
  // object is complete, since reactions may start right away.
  void Begin() { this->StartRead(&wire_request_); }

  // Tells the lock analysis that this stream's server is the caller's (it
  // cannot see that cp_ is the Impl holding the lock).
  void AssertServerLockHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK(cp_->mu_) {
    cp_->mu_.AssertHeld();
  }

  // Starts `response` if the caller claimed the write slot for it.
  void Kick(const Response* response) {
    if (response == nullptr) return;
    OnWriteStarting(*response);
    if constexpr (kRaw) {
      // One write is in flight at a time, so one buffer serves them all.
      bool own_buffer = false;
      wire_response_.Clear();  // the previous write is done with it
      grpc::SerializationTraits<Response>::Serialize(*response, &wire_response_,
                                                     &own_buffer);
      this->StartWrite(&wire_response_);
    } else {
      this->StartWrite(response);
    }
  }

  // Queues a response (dropped if the stream is broken or over).
  void EnqueueLocked(Response response)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    if (broken_ || finished_) return;
    queue_.push_back(std::move(response));
  }

  // The write to start after unlocking, if the write slot was free: the
  // caller must then Kick() it.
  const Response* ClaimWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    if (writing_ || broken_ || finished_ || queue_.empty()) return nullptr;
    writing_ = true;
    return &queue_.front();
  }

 protected:
  virtual ~Stream() = default;
  virtual void HandleRequestLocked(const Request& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) = 0;
  // A request of `size` bytes that did not parse (raw streams only): logs
  // it; the stream then ends with `status`.
  virtual void HandleInvalidRequestLocked(const grpc::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {}
  virtual void OnStreamDoneLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {}
  // Runs (without the lock) just before `response` is handed to grpc++.
  virtual void OnWriteStarting(const Response& /*response*/) {}

  // When the request being handled was read (for the request log).
  absl::Time received_at_ ABSL_GUARDED_BY(cp_->mu_);

  Impl* const cp_;
  const std::string peer_;
  int64_t id_ ABSL_GUARDED_BY(cp_->mu_) = 0;

 private:
  // Finish once reads are over and no write is in flight: after Finish the
  // reactor may be deleted at any time.
  bool ClaimFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    if (!read_done_ || writing_ || finished_) return false;
    if (!queue_.empty() && !broken_) return false;
    finished_ = true;
    return true;
  }

  // The request just read, parsed; an error status if it does not parse.
  grpc::Status ParseRequest() {
    if constexpr (kRaw) {
      const size_t size = wire_request_.Length();
      request_.Clear();
      if (!grpc::SerializationTraits<Request>::Deserialize(&wire_request_,
                                                           &request_)
               .ok()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            absl::StrCat("request does not parse: ", size,
                                         " bytes that are not a serialized ",
                                         Request::descriptor()->full_name()));
      }
    } else {
      request_.Swap(&wire_request_);
    }
    return grpc::Status::OK;
  }

  void OnReadDone(bool ok) override {
    const absl::Time received = absl::Now();
    const grpc::Status parsed = ok ? ParseRequest() : grpc::Status::OK;
    const Response* write = nullptr;
    bool finish = false;
    {
      absl::MutexLock lock(&cp_->mu_);
      received_at_ = received;
      if (ok && parsed.ok()) {
        HandleRequestLocked(request_);
        write = ClaimWriteLocked();
      } else {
        if (!parsed.ok()) {
          HandleInvalidRequestLocked(parsed);
          finish_status_ = parsed;
          // Nothing more goes out on a stream that is being rejected.
          broken_ = true;
          if (!writing_) queue_.clear();
        }
        read_done_ = true;
        finish = ClaimFinishLocked();
      }
    }
    Kick(write);
    if (ok && parsed.ok()) this->StartRead(&wire_request_);
    if (finish) FinishStream();
  }

  // Called once, after ClaimFinishLocked() returned true.
  void FinishStream() {
    grpc::Status status;
    {
      absl::MutexLock lock(&cp_->mu_);
      status = finish_status_;
    }
    this->Finish(status);
  }

  void OnWriteDone(bool ok) override {
    const Response* write = nullptr;
    bool finish = false;
    {
      absl::MutexLock lock(&cp_->mu_);
      writing_ = false;
      queue_.pop_front();
      if (!ok) {
        broken_ = true;
        queue_.clear();
      }
      write = ClaimWriteLocked();
      finish = write == nullptr && ClaimFinishLocked();
    }
    Kick(write);
    if (finish) FinishStream();
  }

  void OnDone() override {
    {
      absl::MutexLock lock(&cp_->mu_);
      OnStreamDoneLocked();
      cp_->changed_.SignalAll();
    }
    delete this;
  }

  WireRequest wire_request_;    // read buffer, reused
  Request request_;             // the request read, parsed
  WireResponse wire_response_;  // the write in flight (raw streams)
  std::deque<Response> queue_ ABSL_GUARDED_BY(cp_->mu_);  // front: in flight
  grpc::Status finish_status_ ABSL_GUARDED_BY(cp_->mu_);
  bool writing_ ABSL_GUARDED_BY(cp_->mu_) = false;
  bool read_done_ ABSL_GUARDED_BY(cp_->mu_) = false;
  bool broken_ ABSL_GUARDED_BY(cp_->mu_) = false;
  bool finished_ ABSL_GUARDED_BY(cp_->mu_) = false;
};

class ControlPlane::Impl::AdsStream
    : public Stream<DiscoveryRequest, DiscoveryResponse, /*kRaw=*/true> {
 public:
  AdsStream(Impl* cp, grpc::CallbackServerContext* context)
      : Stream(cp, context) {
    {
      absl::MutexLock lock(&cp_->mu_);
      id_ = ++cp_->next_stream_id_;
      cp_->ads_streams_.insert(this);
    }
    Begin();
  }

  // Queues a response for every type this stream subscribes to (with
  // Options::push_unchanged false, only those whose answer differs from
  // the one `previous` gave); returns the write to start after unlocking.
  const DiscoveryResponse* PushSnapshotLocked(const IndexedSnapshot& previous)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    for (auto& [type_url, subscription] : subscriptions_) {
      if (!subscription.wildcard && subscription.keys.empty()) continue;
      if (!cp_->options_.push_unchanged &&
          SameAnswer(previous, *cp_->snapshot_, type_url, subscription)) {
        continue;
      }
      EnqueueLocked(BuildResponseLocked(type_url, &subscription));
    }
    return ClaimWriteLocked();
  }

 private:
  struct Subscription {
    bool wildcard = false;
    std::set<std::string> keys;  // canonical names
    std::string last_nonce;
  };

  void HandleRequestLocked(const DiscoveryRequest& request) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    if (node_id_.empty() && request.has_node()) node_id_ = request.node().id();
    cp_->LogLocked(&cp_->requests_, ToJsonLocked(request));
    client_status_.OnRequest(request, received_at_);
    if (!request.response_nonce().empty()) {
      AdsResponseTiming* t = cp_->FindTimingLocked(request.response_nonce());
      if (t != nullptr && !t->answered.has_value()) {
        t->answered = received_at_;
        t->nacked = request.has_error_detail();
      }
    }

    Subscription next;
    for (const std::string& name : request.resource_names()) {
      if (name == "*") {
        next.wildcard = true;
      } else {
        next.keys.insert(MatchKey(name));
      }
    }
    if (request.resource_names().empty() &&
        EmptyMeansWildcard(TypeNameOf(request.type_url()))) {
      next.wildcard = true;
    }
    auto [it, inserted] = subscriptions_.try_emplace(request.type_url());
    Subscription& current = it->second;
    bool changed = inserted || next.wildcard != current.wildcard ||
                   next.keys != current.keys;
    current.wildcard = next.wildcard;
    current.keys = std::move(next.keys);
    // An ACK or NACK (a nonce) with the same names asks for nothing new; an
    // empty nonce is a fresh request and gets the current state.
    if (!changed && !request.response_nonce().empty()) return;
    if (!current.wildcard && current.keys.empty()) return;
    EnqueueLocked(BuildResponseLocked(request.type_url(), &current));
  }

  bool AnswersAll(const std::string& type_url,
                  const Subscription& subscription) const {
    const auto& all = cp_->options_.answer_all_of_types;
    return subscription.wildcard ||
           std::find(all.begin(), all.end(), TypeNameOf(type_url)) != all.end();
  }

  // Whether the two snapshots give this subscription the same resources.
  bool SameAnswer(const IndexedSnapshot& a, const IndexedSnapshot& b,
                  const std::string& type_url,
                  const Subscription& subscription) const {
    static const std::map<std::string, IndexedSnapshot::Entry> kNone;
    auto resources = [&](const IndexedSnapshot& s) -> const auto& {
      auto it = s.by_key.find(TypeNameOf(type_url));
      return it == s.by_key.end() ? kNone : it->second;
    };
    const auto& in_a = resources(a);
    const auto& in_b = resources(b);
    auto same = [](const IndexedSnapshot::Entry* x,
                   const IndexedSnapshot::Entry* y) {
      if (x == nullptr || y == nullptr) return x == y;
      return *x->name == *y->name && *x->resource == *y->resource;
    };
    auto find = [](const auto& map, const std::string& key) {
      auto it = map.find(key);
      return it == map.end() ? nullptr : &it->second;
    };
    if (AnswersAll(type_url, subscription)) {
      if (in_a.size() != in_b.size()) return false;
      for (const auto& [key, entry] : in_a) {
        if (!same(&entry, find(in_b, key))) return false;
      }
      return true;
    }
    for (const std::string& key : subscription.keys) {
      if (!same(find(in_a, key), find(in_b, key))) return false;
    }
    return true;
  }

  DiscoveryResponse BuildResponseLocked(const std::string& type_url,
                                        Subscription* subscription)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    std::vector<std::string> names;
    DiscoveryResponse response =
        BuildResponseLocked(type_url, subscription, &names);
    client_status_.OnResponse(type_url, response.nonce(),
                              response.version_info(), names);
    return response;
  }

  DiscoveryResponse BuildResponseLocked(const std::string& type_url,
                                        Subscription* subscription,
                                        std::vector<std::string>* names)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    const IndexedSnapshot& snapshot = *cp_->snapshot_;
    DiscoveryResponse response;
    response.set_version_info(snapshot.snapshot.version);
    response.set_type_url(type_url);
    response.set_nonce(absl::StrCat(++cp_->next_nonce_));
    ++cp_->responses_sent_;
    AdsResponseTiming timing;
    timing.stream_id = id_;
    timing.type_url = type_url;
    timing.version = snapshot.snapshot.version;
    timing.nonce = response.nonce();
    cp_->AddTimingLocked(std::move(timing));
    subscription->last_nonce = response.nonce();
    auto type_it = snapshot.by_key.find(TypeNameOf(type_url));
    if (type_it == snapshot.by_key.end()) return response;
    auto add = [&](const IndexedSnapshot::Entry& entry) {
      names->push_back(*entry.name);
      google::protobuf::Any* any = response.add_resources();
      if (!cp_->options_.wrap_resources) {
        any->set_type_url(entry.resource->type_url);
        any->set_value(entry.resource->bytes);
        return;
      }
      envoy::service::discovery::v3::Resource wrapper;
      wrapper.set_name(*entry.name);
      wrapper.set_version(snapshot.snapshot.version);
      wrapper.mutable_resource()->set_type_url(entry.resource->type_url);
      wrapper.mutable_resource()->set_value(entry.resource->bytes);
      any->PackFrom(wrapper);
    };
    if (AnswersAll(type_url, *subscription)) {
      for (const auto& [key, entry] : type_it->second) add(entry);
    } else {
      for (const std::string& key : subscription->keys) {
        auto entry = type_it->second.find(key);
        if (entry != type_it->second.end()) add(entry->second);
      }
    }
    return response;
  }

  Json::Value ToJsonLocked(const DiscoveryRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    Json::Value entry(Json::objectValue);
    entry["service"] = "ads";
    entry["stream_id"] = Json::Int64(id_);
    entry["peer"] = peer_;
    entry["node_id"] = node_id_;
    entry["type_url"] = request.type_url();
    Json::Value names(Json::arrayValue);
    for (const std::string& name : request.resource_names()) {
      names.append(name);
    }
    entry["resource_names"] = std::move(names);
    entry["version_info"] = request.version_info();
    entry["response_nonce"] = request.response_nonce();
    if (request.has_error_detail()) {
      Json::Value error(Json::objectValue);
      error["code"] = request.error_detail().code();
      error["message"] = request.error_detail().message();
      entry["error_detail"] = std::move(error);
    } else {
      entry["error_detail"] = Json::Value();
    }
    entry["received_unix_nanos"] = Json::Int64(absl::ToUnixNanos(received_at_));
    return entry;
  }

  void HandleInvalidRequestLocked(const grpc::Status& status) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    Json::Value entry = ToJsonLocked(DiscoveryRequest());
    entry["invalid_request"] = status.error_message();
    std::fprintf(stderr, "control-plane: ADS stream %lld from %s: %s\n",
                 static_cast<long long>(id_), peer_.c_str(),
                 status.error_message().c_str());
    cp_->LogLocked(&cp_->requests_, std::move(entry));
  }

  void OnStreamDoneLocked() override ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    cp_->ads_streams_.erase(this);
  }

  void OnWriteStarting(const DiscoveryResponse& response) override {
    const absl::Time now = absl::Now();
    absl::MutexLock lock(&cp_->mu_);
    AdsResponseTiming* timing = cp_->FindTimingLocked(response.nonce());
    if (timing != nullptr) timing->write_started = now;
  }

  std::string node_id_ ABSL_GUARDED_BY(cp_->mu_);
  std::map<std::string, Subscription> subscriptions_ ABSL_GUARDED_BY(cp_->mu_);
  AdsClientStatus client_status_ ABSL_GUARDED_BY(cp_->mu_){
      [](const std::string& name) { return MatchKey(name); }};

 public:
  int64_t IdLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    return id_;
  }
  envoy::service::status::v3::ClientConfig ClientConfigLocked() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    const IndexedSnapshot& snapshot = *cp_->snapshot_;
    return client_status_.ToClientConfig(
        [&](const std::string& type_url, const std::string& name) {
          auto type = snapshot.by_key.find(TypeNameOf(type_url));
          return type != snapshot.by_key.end() &&
                 type->second.count(MatchKey(name)) > 0;
        });
  }
};

class ControlPlane::Impl::LrsStream
    : public Stream<LoadStatsRequest, LoadStatsResponse, /*kRaw=*/false> {
 public:
  LrsStream(Impl* cp, grpc::CallbackServerContext* context)
      : Stream(cp, context) {
    {
      absl::MutexLock lock(&cp_->mu_);
      id_ = ++cp_->next_stream_id_;
    }
    Begin();
  }

 private:
  void HandleRequestLocked(const LoadStatsRequest& request) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cp_->mu_) {
    Json::Value entry(Json::objectValue);
    entry["service"] = "lrs";
    entry["stream_id"] = Json::Int64(id_);
    entry["peer"] = peer_;
    std::string json;
    google::protobuf::util::JsonPrintOptions print;
    print.preserve_proto_field_names = true;
    if (google::protobuf::util::MessageToJsonString(request, &json, print)
            .ok()) {
      absl::StatusOr<Json::Value> parsed = ParseJsonText(json);
      if (parsed.ok()) entry["request"] = *std::move(parsed);
    }
    cp_->LogLocked(&cp_->load_reports_, std::move(entry));
    if (responded_) return;
    // The server's only message: report every cluster at this interval.
    responded_ = true;
    LoadStatsResponse response;
    response.set_send_all_clusters(cp_->options_.lrs_send_all_clusters);
    for (const std::string& cluster : cp_->options_.lrs_clusters) {
      response.add_clusters(cluster);
    }
    absl::Duration interval = cp_->options_.lrs_interval;
    int64_t seconds = absl::IDivDuration(interval, absl::Seconds(1), &interval);
    response.mutable_load_reporting_interval()->set_seconds(seconds);
    response.mutable_load_reporting_interval()->set_nanos(
        static_cast<int32_t>(absl::ToInt64Nanoseconds(interval)));
    EnqueueLocked(std::move(response));
  }

  bool responded_ ABSL_GUARDED_BY(cp_->mu_) = false;
};

// ADS is served raw (ByteBuffers): the stream parses each request itself.
class ControlPlane::Impl::AdsService
    : public envoy::service::discovery::v3::AggregatedDiscoveryService::
          WithRawCallbackMethod_StreamAggregatedResources<
              envoy::service::discovery::v3::AggregatedDiscoveryService::
                  WithCallbackMethod_DeltaAggregatedResources<
                      envoy::service::discovery::v3::
                          AggregatedDiscoveryService::Service>> {
 public:
  explicit AdsService(Impl* cp) : cp_(cp) {}
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
  StreamAggregatedResources(grpc::CallbackServerContext* context) override {
    return new AdsStream(cp_, context);
  }

 private:
  Impl* const cp_;
};

class ControlPlane::Impl::LrsService
    : public envoy::service::load_stats::v3::LoadReportingService::
          CallbackService {
 public:
  explicit LrsService(Impl* cp) : cp_(cp) {}
  grpc::ServerBidiReactor<LoadStatsRequest, LoadStatsResponse>* StreamLoadStats(
      grpc::CallbackServerContext* context) override {
    return new LrsStream(cp_, context);
  }

 private:
  Impl* const cp_;
};

void ControlPlane::Impl::WriteLogLineLocked(const Json::Value& line) {
  if (log_ == nullptr) return;
  std::string text = JsonToString(line);
  text.push_back('\n');
  std::fwrite(text.data(), 1, text.size(), log_);
  std::fflush(log_);
}

absl::StatusOr<int> ControlPlane::Impl::Start() {
  {
    absl::MutexLock lock(&mu_);
    if (started_) return absl::FailedPreconditionError("already started");
    started_ = true;
  }
  FileState file_state;
  if (!options_.snapshot_file.empty()) {
    file_state = StatFile(options_.snapshot_file);
    absl::StatusOr<std::string> text = ReadWholeFile(options_.snapshot_file);
    if (!text.ok()) return text.status();
    absl::StatusOr<Snapshot> snapshot = ParseSnapshot(*text);
    if (!snapshot.ok()) return snapshot.status();
    SetSnapshot(*std::move(snapshot));
  }
  if (!options_.log_file.empty()) {
    FILE* log = std::fopen(options_.log_file.c_str(), "a");
    if (log == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("cannot open log file ", options_.log_file));
    }
    absl::MutexLock lock(&mu_);
    log_ = log;
  }
  ads_service_ = std::make_unique<AdsService>(this);
  lrs_service_ = std::make_unique<LrsService>(this);
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds =
      MakeServerCredentials(options_.tls);
  if (!creds.ok()) return creds.status();
  grpc::ServerBuilder builder;
  builder.RegisterService(ads_service_.get());
  builder.RegisterService(lrs_service_.get());
  csds_service_ =
      admin::AddCsdsService(builder, [this] { return ClientConfigs(); });
  transport::ListenOptions listen_options;
  listen_options.allow_reuse_port = options_.allow_reuse_port;
  int port = 0;
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      transport::BuildAndStartListening(builder, options_.listen, *creds,
                                        listen_options, &port);
  if (!server.ok()) return server.status();
  server_ = *std::move(server);
  if (!options_.snapshot_file.empty()) {
    poller_ = std::thread([this, file_state] { PollSnapshotFile(file_state); });
  }
  return port;
}

std::vector<envoy::service::status::v3::ClientConfig>
ControlPlane::Impl::ClientConfigs() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<int64_t, const AdsStream*>> streams;
  for (const AdsStream* stream : ads_streams_) {
    stream->AssertServerLockHeld();
    streams.emplace_back(stream->IdLocked(), stream);
  }
  std::sort(streams.begin(), streams.end());
  std::vector<envoy::service::status::v3::ClientConfig> out;
  for (const auto& [id, stream] : streams) {
    stream->AssertServerLockHeld();
    out.push_back(stream->ClientConfigLocked());
  }
  return out;
}

std::vector<envoy::service::status::v3::ClientConfig>
ControlPlane::ClientConfigs() const {
  return impl_->ClientConfigs();
}

void ControlPlane::Impl::PollSnapshotFile(FileState last) {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      absl::Time deadline = absl::Now() + kPollInterval;
      while (!stopping_ && !stop_.WaitWithDeadline(&mu_, deadline)) {
      }
      if (stopping_) return;
    }
    FileState now = StatFile(options_.snapshot_file);
    if (now == last) continue;
    last = now;
    absl::StatusOr<std::string> text = ReadWholeFile(options_.snapshot_file);
    absl::StatusOr<Snapshot> snapshot =
        text.ok() ? ParseSnapshot(*text) : text.status();
    if (!snapshot.ok()) {
      // Keep serving the old snapshot; the file may be mid-edit.
      std::fprintf(stderr, "control-plane: keeping the old snapshot: %s\n",
                   std::string(snapshot.status().message()).c_str());
      continue;
    }
    SetSnapshot(*std::move(snapshot));
  }
}

void ControlPlane::Impl::SetSnapshot(Snapshot snapshot) {
  auto indexed = std::make_shared<const IndexedSnapshot>(std::move(snapshot));
  std::vector<std::pair<AdsStream*, const DiscoveryResponse*>> writes;
  {
    absl::MutexLock lock(&mu_);
    const std::shared_ptr<const IndexedSnapshot> previous =
        std::move(snapshot_);
    snapshot_ = std::move(indexed);
    for (AdsStream* stream : ads_streams_) {
      stream->AssertServerLockHeld();
      if (const DiscoveryResponse* w = stream->PushSnapshotLocked(*previous)) {
        writes.emplace_back(stream, w);
      }
    }
  }
  for (auto& [stream, write] : writes) stream->Kick(write);
}

void ControlPlane::Impl::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    stop_.SignalAll();
  }
  if (poller_.joinable()) poller_.join();
  if (server_ != nullptr) {
    // Cancels every stream now; returns once every reactor is done.
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
  }
  absl::MutexLock lock(&mu_);
  if (log_ != nullptr) {
    std::fclose(log_);
    log_ = nullptr;
  }
}

ControlPlane::ControlPlane(Options options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

ControlPlane::~ControlPlane() = default;

absl::StatusOr<int> ControlPlane::Start() { return impl_->Start(); }

void ControlPlane::SetSnapshot(Snapshot snapshot) {
  impl_->SetSnapshot(std::move(snapshot));
}

Snapshot ControlPlane::GetSnapshot() const {
  absl::MutexLock lock(&impl_->mu_);
  return impl_->snapshot_->snapshot;
}

void ControlPlane::Shutdown() { impl_->Shutdown(); }

std::vector<Json::Value> ControlPlane::RequestLog() const {
  absl::MutexLock lock(&impl_->mu_);
  return impl_->requests_;
}

std::vector<Json::Value> ControlPlane::LoadReports() const {
  absl::MutexLock lock(&impl_->mu_);
  return impl_->load_reports_;
}

int ControlPlane::AdsResponsesSent() const {
  absl::MutexLock lock(&impl_->mu_);
  return impl_->responses_sent_;
}

std::vector<ControlPlane::AdsResponseTiming> ControlPlane::AdsResponseTimings()
    const {
  absl::MutexLock lock(&impl_->mu_);
  return std::vector<AdsResponseTiming>(impl_->response_timings_.begin(),
                                        impl_->response_timings_.end());
}

int ControlPlane::ActiveAdsStreams() const {
  absl::MutexLock lock(&impl_->mu_);
  return static_cast<int>(impl_->ads_streams_.size());
}

namespace {

bool WaitFor(absl::Mutex* mu, absl::CondVar* cv,
             const std::vector<Json::Value>* log,
             const ControlPlane::LogPredicate& done, absl::Duration timeout)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
  absl::Time deadline = absl::Now() + timeout;
  while (!done(*log)) {
    if (cv->WaitWithDeadline(mu, deadline)) return done(*log);
  }
  return true;
}

}  // namespace

bool ControlPlane::WaitForRequests(const LogPredicate& done,
                                   absl::Duration timeout) const {
  absl::MutexLock lock(&impl_->mu_);
  return WaitFor(&impl_->mu_, &impl_->changed_, &impl_->requests_, done,
                 timeout);
}

bool ControlPlane::WaitForLoadReports(const LogPredicate& done,
                                      absl::Duration timeout) const {
  absl::MutexLock lock(&impl_->mu_);
  return WaitFor(&impl_->mu_, &impl_->changed_, &impl_->load_reports_, done,
                 timeout);
}

}  // namespace xdsfed::control_plane
