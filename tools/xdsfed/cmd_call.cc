// `xdsfed call --target xds:///... [--method PATH] [--request JSON]
// [--metadata KEY:VALUE]... [--count N] [--seconds S] [--interval-ms MS |
// --qps Q] [--concurrency N] [--deadline-ms MS]`: real RPCs through
// lib/channel's XdsChannel (docs/cli.md#call). One line per completed RPC:
//   {"valid":true,"event":"rpc","unix_us":...,"code":"OK","cluster":"...",
//    "priority":0,"locality":{...},"endpoint":"ip:port","backend":"b1"|null,
//    "latency_ms":0.41}
// then {"valid":true,"event":"summary","ok":N,"fail":M,"codes":{...},
// "backends":{...},"rpc_latency_ms":{"p50":...,"p90":...,"p99":...,
// "max":...}}.
// The request is the empty message, or --request's proto3 JSON for the
// default method (a grpc.health.v1.HealthCheckRequest: {"service":
// "sleep:200"} makes a health backend answer after 200 ms). --metadata
// headers are sent and seen by route matchers; a "-bin" key's value is
// base64. --concurrency N runs N RPCs at a time; --qps Q starts them on one
// schedule of Q per second. Without --count or --seconds one RPC is sent.
// SIGINT / SIGTERM stop it after the RPCs in flight, with the summary; a
// second signal ends it at once (exit 128 + signal, no summary). Exit 0
// when every completed RPC was OK, else 1.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/xds_channel.h"
#include "lib/resources/proto_json.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/metrics_listen.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed call --target XDS_TARGET [--method PATH] [--request JSON] "
    "[--metadata KEY:VALUE]... [--count N] [--seconds S] "
    "[--interval-ms MS | --qps Q] [--concurrency N] [--deadline-ms MS] "
    "[--metrics-listen HOST:PORT]";
constexpr char kHealthCheck[] = "/grpc.health.v1.Health/Check";
constexpr char kHealthRequestType[] = "grpc.health.v1.HealthCheckRequest";
// Threads of RPCs at once: more would only measure this process.
constexpr int64_t kMaxConcurrency = 1000;

const char* CodeName(grpc::StatusCode code) {
  static const char* const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  int c = static_cast<int>(code);
  return c >= 0 && c <= 16 ? kNames[c] : "UNKNOWN";
}

// A finite, non-negative number ("inf", "nan" and negatives are refused).
bool ParseNumber(const std::optional<std::string>& flag, double* out) {
  return !flag.has_value() ||
         (absl::SimpleAtod(*flag, out) && std::isfinite(*out) && *out >= 0);
}

// One --metadata KEY:VALUE, as gRPC accepts request headers: a key of
// lowercase letters, digits, '-', '_' and '.', not "grpc-" (reserved); a
// "-bin" key's value is base64 (sent as its bytes), any other value
// printable ASCII. The error says which rule was broken.
absl::Status ParseMetadata(
    const std::string& flag,
    std::vector<std::pair<std::string, std::string>>* out) {
  const size_t colon = flag.find(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metadata \"", flag, "\": expected KEY:VALUE"));
  }
  std::string key = flag.substr(0, colon);
  std::string value = flag.substr(colon + 1);
  for (char c : key) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-' &&
        c != '_' && c != '.') {
      return absl::InvalidArgumentError(
          absl::StrCat("--metadata key \"", key,
                       "\": only lowercase letters, digits, '-', '_' and '.'"));
    }
  }
  if (absl::StartsWith(key, "grpc-")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metadata key \"", key, "\": grpc- keys are reserved"));
  }
  if (absl::EndsWith(key, "-bin")) {
    std::string bytes;
    if (!absl::Base64Unescape(value, &bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--metadata ", key, ": the value of a -bin key must be base64"));
    }
    value = std::move(bytes);
  } else {
    for (char c : value) {
      if (c < 0x20 || c > 0x7e) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--metadata ", key,
            ": the value must be printable ASCII (use a -bin key for bytes)"));
      }
    }
  }
  out->emplace_back(std::move(key), std::move(value));
  return absl::OkStatus();
}

// The nearest-rank percentile of sorted values.
double Percentile(const std::vector<double>& sorted, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p / 100 * sorted.size()));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

// SIGINT / SIGTERM, taken synchronously by a thread of their own (the
// signals are blocked everywhere else): the first asks the RPC loop to stop
// after the RPC in flight, so the summary is printed; a second ends the
// process at once with 128 + its number.
class StopSignals {
 public:
  // Before any other thread starts (threads inherit the mask).
  StopSignals() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    thread_ = std::thread([this] { Run(); });
  }
  ~StopSignals() {
    done_ = true;
    thread_.join();
  }

  bool stopped() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopped_;
  }
  // The first signal's name, "" if none came.
  std::string signal_name() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) return "";
    return signal_ == SIGINT ? "SIGINT" : "SIGTERM";
  }
  // Sleeps until `until` or the first signal; true if stopped.
  bool SleepUntil(absl::Time until) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopped_) {
      const absl::Duration left = until - absl::Now();
      if (left <= absl::ZeroDuration()) break;
      cv_.wait_for(lock, absl::ToChronoNanoseconds(
                             std::min(left, absl::Milliseconds(100))));
    }
    return stopped_;
  }

 private:
  void Run() {
    int received = 0;
    while (!done_) {
      timespec poll = {0, 100 * 1000 * 1000};
      const int signal = sigtimedwait(&signals_, nullptr, &poll);
      if (signal <= 0) continue;
      if (++received >= 2) _exit(128 + signal);
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
      signal_ = signal;
      cv_.notify_all();
    }
  }

  sigset_t signals_;
  std::atomic<bool> done_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  int signal_ = 0;
  std::thread thread_;
};

// What every RPC of one run shares: the channel, the request, the limits,
// and the counts the summary reports.
struct CallRun {
  channel::XdsChannel* channel;
  std::string path;
  std::string request;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<channel::MetadataEntry> metadata_view;
  int64_t count;  // -1: no limit
  double interval_ms, qps, deadline_ms;
  absl::Time start, end;
  StopSignals* stop;

  std::atomic<int64_t> next_index{0};
  std::mutex mu;  // the output and the counts below
  int ok = 0, fail = 0;
  std::map<std::string, int> codes, backends;
  std::vector<double> latencies_ms;
};

Json::Value RpcLine(const CallRun& run, const channel::GenericCallResult& r,
                    absl::Time sent, absl::Time done) {
  Json::Value line(Json::objectValue);
  line["valid"] = true;
  line["event"] = "rpc";
  line["unix_us"] = Json::Int64(absl::ToUnixMicros(done));
  // Added key: ms since the command started (as the peer harness's
  // clients print it).
  line["t_ms"] = absl::ToDoubleMilliseconds(done - run.start);
  line["code"] = CodeName(r.status.error_code());
  if (!r.status.ok()) line["message"] = r.status.error_message();
  line["cluster"] = r.picked ? Json::Value(r.cluster) : Json::Value();
  // Added key: the A37 leaf cluster (differs from "cluster" for an
  // aggregate).
  line["leaf_cluster"] = r.picked ? Json::Value(r.leaf_cluster) : Json::Value();
  line["priority"] =
      r.picked ? Json::Value(Json::UInt64(r.priority)) : Json::Value();
  if (r.picked) {
    Json::Value locality(Json::objectValue);
    locality["region"] = r.locality.region;
    locality["zone"] = r.locality.zone;
    locality["sub_zone"] = r.locality.sub_zone;
    line["locality"] = locality;
  } else {
    line["locality"] = Json::Value();
  }
  line["endpoint"] = r.picked ? Json::Value(r.endpoint) : Json::Value();
  auto backend = r.header("x-backend-id");
  line["backend"] = backend ? Json::Value(*backend) : Json::Value();
  line["latency_ms"] = absl::ToDoubleMilliseconds(done - sent);
  return line;
}

// One of --concurrency workers: takes the next RPC's index until --count is
// reached, --seconds have passed or a signal came. With --qps, RPC i starts
// at start + i / Q (one schedule for all workers); with --interval-ms, a
// worker's next RPC starts that long after its last one started.
void RunWorker(CallRun& run) {
  absl::Time next = run.start;
  for (;;) {
    const int64_t i = run.next_index.fetch_add(1);
    if (run.count >= 0 && i >= run.count) return;
    if (run.qps > 0) next = run.start + absl::Seconds(i / run.qps);
    if (next >= run.end) return;
    if (next > absl::Now() && run.stop->SleepUntil(next)) return;
    const absl::Time sent = absl::Now();
    if (sent >= run.end || run.stop->stopped()) return;
    channel::GenericCallResult r = channel::GenericUnary(
        *run.channel, run.path, run.request,
        sent + absl::Milliseconds(run.deadline_ms), run.metadata_view);
    const absl::Time done = absl::Now();
    Json::Value line = RpcLine(run, r, sent, done);
    {
      std::lock_guard<std::mutex> lock(run.mu);
      PrintJson(line);
      ++run.codes[line["code"].asString()];
      run.latencies_ms.push_back(absl::ToDoubleMilliseconds(done - sent));
      if (r.status.ok()) {
        ++run.ok;
        if (line["backend"].isString())
          ++run.backends[line["backend"].asString()];
      } else {
        ++run.fail;
      }
    }
    next = sent + absl::Milliseconds(run.interval_ms);
  }
}

int RunCall(Context& context) {
  bool missing = false;
  auto target = TakeFlag(&context.args, "--target", &missing);
  auto method = TakeFlag(&context.args, "--method", &missing);
  auto request_flag = TakeFlag(&context.args, "--request", &missing);
  std::vector<std::string> metadata_flags =
      TakeFlagValues(&context.args, "--metadata", &missing);
  auto count_flag = TakeFlag(&context.args, "--count", &missing);
  auto interval_flag = TakeFlag(&context.args, "--interval-ms", &missing);
  auto qps_flag = TakeFlag(&context.args, "--qps", &missing);
  auto concurrency_flag = TakeFlag(&context.args, "--concurrency", &missing);
  auto seconds_flag = TakeFlag(&context.args, "--seconds", &missing);
  auto deadline_flag = TakeFlag(&context.args, "--deadline-ms", &missing);
  auto metrics_listen = TakeFlag(&context.args, "--metrics-listen", &missing);
  if (missing || !target.has_value() || !context.args.empty()) {
    return UsageError(kUsage);
  }
  // -1: no limit.
  int64_t count = -1;
  if (count_flag.has_value() &&
      (!absl::SimpleAtoi(*count_flag, &count) || count <= 0)) {
    return UsageError("--count takes a positive integer, got \"" + *count_flag +
                      "\"");
  }
  int64_t concurrency = 1;
  if (concurrency_flag.has_value() &&
      (!absl::SimpleAtoi(*concurrency_flag, &concurrency) || concurrency < 1 ||
       concurrency > kMaxConcurrency)) {
    return UsageError(absl::StrCat("--concurrency takes an integer from 1 to ",
                                   kMaxConcurrency, ", got \"",
                                   *concurrency_flag, "\""));
  }
  double interval_ms = 0, seconds = -1, deadline_ms = 1000, qps = 0;
  if (!ParseNumber(interval_flag, &interval_ms) ||
      !ParseNumber(seconds_flag, &seconds) ||
      !ParseNumber(deadline_flag, &deadline_ms)) {
    return UsageError(
        "--interval-ms, --seconds and --deadline-ms take finite "
        "non-negative numbers");
  }
  if (!ParseNumber(qps_flag, &qps) || (qps_flag.has_value() && qps <= 0)) {
    return UsageError("--qps takes a finite positive number, got \"" +
                      qps_flag.value_or("") + "\"");
  }
  if (qps_flag.has_value() && interval_flag.has_value()) {
    return UsageError("--qps and --interval-ms are alternatives; " +
                      std::string(kUsage));
  }
  const std::string path = method.value_or(kHealthCheck);
  std::string request;
  if (request_flag.has_value()) {
    if (path != kHealthCheck) {
      return UsageError(absl::StrCat(
          "--request is a ", kHealthRequestType, " for --method ", kHealthCheck,
          " only; other methods send the empty message"));
    }
    absl::StatusOr<resources::SerializedMessage> message =
        resources::ProtoJsonToSerialized(*request_flag, kHealthRequestType);
    if (!message.ok()) {
      return UsageError(
          absl::StrCat("--request: ", message.status().message()));
    }
    if (message->type_name != kHealthRequestType) {
      return UsageError(absl::StrCat("--request: expected a ",
                                     kHealthRequestType, ", got \"@type\" ",
                                     message->type_name));
    }
    request = std::move(message->bytes);
  }
  std::vector<std::pair<std::string, std::string>> metadata;
  for (const std::string& flag : metadata_flags) {
    if (absl::Status s = ParseMetadata(flag, &metadata); !s.ok()) {
      return UsageError(std::string(s.message()));
    }
  }
  if (!count_flag.has_value() && !seconds_flag.has_value()) count = 1;
  // Taken from here on, before any thread starts.
  StopSignals stop;
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());
  // Before the channel's XdsClient, which records into it.
  std::unique_ptr<prometheus_exporter::PrometheusExporter> exporter;
  if (int code = StartMetricsListen(metrics_listen, &exporter); code != 0) {
    return code;
  }
  channel::XdsChannel::Options channel_options;
  channel_options.xds_client.metrics = exporter.get();
  channel_options.xds_client.metrics_target = *target;  // A78 grpc.target
  auto channel =
      channel::XdsChannel::Create(*bootstrap, *target, channel_options);
  if (!channel.ok()) {
    Json::Value out = InvalidResult(channel.status().message());
    out["target"] = *target;
    PrintJson(out);
    return kExitInvalid;
  }
  ExportResourceGauges(exporter.get(), (*channel)->xds_client(), *target);
  CallRun run;
  run.channel = channel->get();
  run.path = path;
  run.request = std::move(request);
  run.metadata = std::move(metadata);
  for (const auto& [k, v] : run.metadata) run.metadata_view.emplace_back(k, v);
  run.count = count;
  run.interval_ms = interval_ms;
  run.qps = qps;
  run.deadline_ms = deadline_ms;
  run.start = absl::Now();
  run.end = seconds >= 0 ? run.start + absl::Seconds(seconds)
                         : absl::InfiniteFuture();
  run.stop = &stop;
  std::vector<std::thread> workers;
  for (int64_t w = 1; w < concurrency; ++w) {
    workers.emplace_back([&run] { RunWorker(run); });
  }
  RunWorker(run);
  for (std::thread& t : workers) t.join();

  Json::Value summary(Json::objectValue);
  summary["valid"] = true;
  summary["event"] = "summary";
  summary["ok"] = run.ok;
  summary["fail"] = run.fail;
  summary["codes"] = Json::Value(Json::objectValue);
  for (const auto& [c, n] : run.codes) summary["codes"][c] = n;
  summary["backends"] = Json::Value(Json::objectValue);
  for (const auto& [b, n] : run.backends) summary["backends"][b] = n;
  // Added key: latency percentiles of the completed RPCs (nearest rank),
  // null when none completed. (Named to sort after "ok": the summary's
  // "fail":F,"ok":N stays one run of text.)
  if (run.latencies_ms.empty()) {
    summary["rpc_latency_ms"] = Json::Value();
  } else {
    std::sort(run.latencies_ms.begin(), run.latencies_ms.end());
    Json::Value latency(Json::objectValue);
    latency["p50"] = Percentile(run.latencies_ms, 50);
    latency["p90"] = Percentile(run.latencies_ms, 90);
    latency["p99"] = Percentile(run.latencies_ms, 99);
    latency["max"] = run.latencies_ms.back();
    summary["rpc_latency_ms"] = latency;
  }
  // Added key: the signal that ended the loop early, if one did.
  if (const std::string signal = stop.signal_name(); !signal.empty()) {
    summary["signal"] = signal;
  }
  PrintJson(summary);
  return run.fail == 0 ? kExitValid : kExitInvalid;
}

XDSFED_REGISTER_COMMAND("call", RunCall,
                        "call --target T [--method PATH] [--request JSON] "
                        "[--metadata K:V]... [--count N] [--seconds S] "
                        "[--interval-ms MS | --qps Q] [--concurrency N] "
                        "[--deadline-ms MS] [--metrics-listen A]  real RPCs "
                        "through XdsChannel");

}  // namespace
}  // namespace xdsfed::cli
