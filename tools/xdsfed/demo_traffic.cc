#include "tools/xdsfed/demo_traffic.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "lib/channel/generic_call.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

constexpr char kCheck[] = "/grpc.health.v1.Health/Check";
constexpr int kRpcs = 40;

// HealthCheckRequest{service: "sleep:MS"} (the backend answers after MS).
std::string SleepRequest(int ms) {
  const std::string service = absl::StrCat("sleep:", ms);
  return absl::StrCat(std::string(1, '\x0a'),
                      std::string(1, static_cast<char>(service.size())),
                      service);
}

Json::Value CountsJson(const std::map<std::string, int>& counts) {
  Json::Value out(Json::objectValue);
  for (const auto& [k, n] : counts) out[k] = n;
  return out;
}

// One RPC every 5 ms on its own thread, counting codes and backends and
// when each backend first answered after a mark.
class RpcLoop {
 public:
  explicit RpcLoop(channel::XdsChannel* ch) : ch_(ch) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        channel::GenericCallResult r = channel::GenericUnary(
            *ch_, kCheck, "", absl::Now() + absl::Seconds(5));
        const std::string backend = r.header("x-backend-id").value_or("");
        {
          absl::MutexLock lock(&mu_);
          ++sent_;
          if (r.status.ok()) {
            ++backends_[backend];
            if (first_seen_.count(backend) == 0) {
              first_seen_[backend] = absl::Now();
            }
          } else {
            ++fail_;
          }
        }
        absl::SleepFor(absl::Milliseconds(5));
      }
    });
  }
  ~RpcLoop() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Forget first sightings (before a push).
  void Mark() {
    absl::MutexLock lock(&mu_);
    first_seen_.clear();
  }
  // When the first RPC after Mark() served by a backend accepted by `want`.
  std::optional<absl::Time> WaitFor(
      const std::function<bool(const std::string&)>& want,
      absl::Duration timeout) {
    const absl::Time end = absl::Now() + timeout;
    while (absl::Now() < end) {
      {
        absl::MutexLock lock(&mu_);
        for (const auto& [b, t] : first_seen_) {
          if (want(b)) return t;
        }
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
    return std::nullopt;
  }
  Json::Value Summary() {
    absl::MutexLock lock(&mu_);
    Json::Value line(Json::objectValue);
    line["valid"] = fail_ == 0;
    line["step"] = "rpc_loop";
    line["sent"] = sent_;
    line["ok"] = sent_ - fail_;
    line["fail"] = fail_;
    line["backends"] = CountsJson(backends_);
    return line;
  }
  int failures() {
    absl::MutexLock lock(&mu_);
    return fail_;
  }

 private:
  channel::XdsChannel* const ch_;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  int sent_ ABSL_GUARDED_BY(mu_) = 0;
  int fail_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> backends_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Time> first_seen_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// The counts the LRS server received for a cluster, summed over reports.
struct Reported {
  uint64_t ok = 0, errors = 0, issued = 0, dropped = 0;
  int reports = 0;
};

uint64_t Num(const Json::Value& v) {
  if (v.isString()) return std::stoull(v.asString());
  return v.isNumeric() ? v.asUInt64() : 0;
}

Reported SumReports(const std::vector<Json::Value>& log,
                    const std::string& cluster) {
  Reported r;
  for (const Json::Value& entry : log) {
    const Json::Value& stats = entry["request"]["cluster_stats"];
    if (!stats.isArray()) continue;
    for (const Json::Value& s : stats) {
      if (s["cluster_name"].asString() != cluster) continue;
      ++r.reports;
      r.dropped += Num(s["total_dropped_requests"]);
      for (const Json::Value& l : s["upstream_locality_stats"]) {
        r.ok += Num(l["total_successful_requests"]);
        r.errors += Num(l["total_error_requests"]);
        r.issued += Num(l["total_issued_requests"]);
      }
    }
  }
  return r;
}

}  // namespace

absl::Status RunDemoTraffic(const DemoTraffic& demo) {
  const cluster::DiscoveryMechanism& m = demo.eds.mechanism;
  uint64_t eds_ok = 0;
  // 1. Plain RPCs: localities by weight, round robin inside each.
  {
    std::map<std::string, int> backends, clusters, codes;
    int ok = 0;
    for (int i = 0; i < kRpcs; ++i) {
      channel::GenericCallResult r = channel::GenericUnary(
          *demo.channel, kCheck, "", absl::Now() + absl::Seconds(10));
      ++codes[r.status.ok() ? "OK" : std::to_string(r.status.error_code())];
      if (!r.status.ok()) continue;
      ++ok;
      ++backends[r.header("x-backend-id").value_or("")];
      ++clusters[r.leaf_cluster];
      if (r.leaf_cluster == m.cluster) ++eds_ok;
    }
    Json::Value line(Json::objectValue);
    line["valid"] = ok == kRpcs;
    line["step"] = "rpcs";
    line["target"] = "xds:///server.example.com";
    line["authority"] = demo.channel->data_plane_authority();
    line["sent"] = kRpcs;
    line["ok"] = ok;
    line["fail"] = kRpcs - ok;
    line["codes"] = CountsJson(codes);
    line["backends"] = CountsJson(backends);
    line["clusters"] = CountsJson(clusters);
    PrintJson(line);
    if (ok != kRpcs) return absl::UnavailableError("plain RPCs failed");
  }
  // 2. The circuit breaker: max_concurrent_requests + 2 RPCs in flight at
  // once (each kept 1.5 s by the backend); the first one's deadline (0.6 s)
  // is shorter than its sleep, so it ends DEADLINE_EXCEEDED: an error in the
  // load report.
  const int attempts = static_cast<int>(m.max_concurrent_requests) + 2;
  std::atomic<int> started{0}, dropped{0}, failed{0}, succeeded{0};
  {
    std::vector<std::thread> threads;
    for (int i = 0; i < attempts; ++i) {
      threads.emplace_back([&, i] {
        channel::GenericCallResult r = channel::GenericUnary(
            *demo.channel, kCheck, SleepRequest(1500),
            absl::Now() +
                (i == 0 ? absl::Milliseconds(600) : absl::Seconds(10)));
        if (!r.picked) {
          if (r.status.error_message().find("circuit breaker") !=
              std::string::npos) {
            ++dropped;
          }
          return;
        }
        ++started;
        if (r.status.ok()) {
          if (r.leaf_cluster == m.cluster) ++succeeded;
        } else {
          ++failed;
        }
      });
      absl::SleepFor(absl::Milliseconds(30));  // all start before any ends
    }
    for (auto& t : threads) t.join();
    eds_ok += succeeded.load();
    Json::Value line(Json::objectValue);
    line["valid"] =
        started.load() == static_cast<int>(m.max_concurrent_requests) &&
        dropped.load() == 2;
    line["step"] = "calls";
    line["cluster"] = m.cluster;
    line["eds_service_name"] = m.eds_service_name;
    line["max_concurrent_requests"] = m.max_concurrent_requests;
    line["attempted"] = attempts;
    line["started"] = started.load();
    line["dropped_by_circuit_breaker"] = dropped.load();
    line["succeeded"] = succeeded.load();
    line["failed"] = failed.load();
    line["lrs_server"] =
        demo.eds.lrs_server ? demo.eds.lrs_server->server_uri() : "";
    PrintJson(line);
    if (!line["valid"].asBool()) {
      return absl::UnavailableError(
          "the circuit breaker step did not admit "
          "max_concurrent_requests calls");
    }
  }
  // 3. The load report: what the LRS server received for the EDS cluster,
  // summed over its reports, equals what the RPCs did.
  {
    Reported reported;
    const bool match = demo.lrs_server->WaitForLoadReports(
        [&](const std::vector<Json::Value>& log) {
          reported = SumReports(log, m.cluster);
          return reported.ok == eds_ok &&
                 reported.errors == static_cast<uint64_t>(failed.load()) &&
                 reported.dropped == static_cast<uint64_t>(dropped.load());
        },
        absl::Seconds(10));
    Json::Value line(Json::objectValue);
    line["valid"] = match;
    line["step"] = "load_report";
    line["lrs_server"] =
        demo.eds.lrs_server ? demo.eds.lrs_server->server_uri() : "";
    line["cluster"] = m.cluster;
    line["reports"] = reported.reports;
    // Strings, as proto3 JSON writes uint64.
    line["total_successful_requests"] = std::to_string(reported.ok);
    line["total_error_requests"] = std::to_string(reported.errors);
    line["total_issued_requests"] = std::to_string(reported.issued);
    line["total_dropped_requests"] = std::to_string(reported.dropped);
    line["rpcs_ok"] = Json::UInt64(eds_ok);
    PrintJson(line);
    if (!match) {
      return absl::DeadlineExceededError(
          "the load report did not reach the LRS server within 10 s");
    }
  }
  // 4. Failover to the LOGICAL_DNS fallback and back, under an RPC loop.
  RpcLoop loop(demo.channel);
  if (!loop.WaitFor([](const std::string& b) { return !b.empty(); },
                    absl::Seconds(10))) {
    return absl::UnavailableError("the RPC loop got no answer");
  }
  const std::string fallback = demo.fallback_backend;
  for (bool failover : {true, false}) {
    loop.Mark();
    const absl::Time pushed = absl::Now();
    (failover ? demo.empty_eds : demo.restore_eds)();
    auto first = loop.WaitFor(
        [&](const std::string& b) {
          return failover ? b == fallback : (!b.empty() && b != fallback);
        },
        absl::Seconds(10));
    Json::Value line(Json::objectValue);
    line["valid"] = first.has_value();
    line["step"] = failover ? "failover" : "failback";
    line["push"] = failover ? "EDS cluster emptied" : "EDS endpoints restored";
    line["first_rpc_served_by"] =
        failover ? fallback : std::string("an EDS backend");
    if (first) {
      line["push_to_first_rpc_ms"] =
          absl::ToDoubleMilliseconds(*first - pushed);
    }
    PrintJson(line);
    if (!first)
      return absl::UnavailableError("no RPC reached the new priority");
    absl::SleepFor(absl::Milliseconds(300));
  }
  loop.Stop();
  PrintJson(loop.Summary());
  if (loop.failures() != 0) {
    return absl::UnavailableError("RPCs failed during failover / failback");
  }
  return absl::OkStatus();
}

}  // namespace xdsfed::cli
