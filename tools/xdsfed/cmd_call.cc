// `xdsfed call --target xds:///... [--method PATH] [--count N]
// [--interval-ms MS] [--seconds S] [--deadline-ms MS]`: real RPCs through
// lib/channel's XdsChannel (../shared/CLI.md). One line per completed RPC:
//   {"valid":true,"event":"rpc","unix_us":...,"code":"OK","cluster":"...",
//    "priority":0,"locality":{...},"endpoint":"ip:port","backend":"b1"|null,
//    "latency_ms":0.41}
// then {"valid":true,"event":"summary","ok":N,"fail":M,"codes":{...},
// "backends":{...}}. The request is the empty message (a
// grpc.health.v1.HealthCheckRequest for the default method). Without
// --count or --seconds one RPC is sent. SIGINT / SIGTERM stop it after the
// RPC in flight, with the summary; a second signal ends it at once (exit
// 128 + signal, no summary). Exit 0 when every completed RPC was OK, else 1.
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

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/channel/generic_call.h"
#include "lib/channel/xds_channel.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

constexpr char kUsage[] =
    "usage: xdsfed call --target XDS_TARGET [--method PATH] [--count N] "
    "[--interval-ms MS] [--seconds S] [--deadline-ms MS]";

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

int RunCall(Context& context) {
  bool missing = false;
  auto target = TakeFlag(&context.args, "--target", &missing);
  auto method = TakeFlag(&context.args, "--method", &missing);
  auto count_flag = TakeFlag(&context.args, "--count", &missing);
  auto interval_flag = TakeFlag(&context.args, "--interval-ms", &missing);
  auto seconds_flag = TakeFlag(&context.args, "--seconds", &missing);
  auto deadline_flag = TakeFlag(&context.args, "--deadline-ms", &missing);
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
  double interval_ms = 0, seconds = -1, deadline_ms = 1000;
  if (!ParseNumber(interval_flag, &interval_ms) ||
      !ParseNumber(seconds_flag, &seconds) ||
      !ParseNumber(deadline_flag, &deadline_ms)) {
    return UsageError(
        "--interval-ms, --seconds and --deadline-ms take finite "
        "non-negative numbers");
  }
  if (!count_flag.has_value() && !seconds_flag.has_value()) count = 1;
  // Taken from here on, before any thread starts.
  StopSignals stop;
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());
  auto channel = channel::XdsChannel::Create(*bootstrap, *target, {});
  if (!channel.ok()) {
    Json::Value out = InvalidResult(channel.status().message());
    out["target"] = *target;
    PrintJson(out);
    return kExitInvalid;
  }
  const std::string path = method.value_or("/grpc.health.v1.Health/Check");
  const absl::Time start = absl::Now();
  const absl::Time end =
      seconds >= 0 ? start + absl::Seconds(seconds) : absl::InfiniteFuture();
  int ok = 0, fail = 0;
  std::map<std::string, int> codes, backends;
  for (int64_t i = 0; count < 0 || i < count; ++i) {
    const absl::Time sent = absl::Now();
    if (sent >= end || stop.stopped()) break;
    channel::GenericCallResult r = channel::GenericUnary(
        **channel, path, "", sent + absl::Milliseconds(deadline_ms));
    const absl::Time done = absl::Now();
    Json::Value line(Json::objectValue);
    line["valid"] = true;
    line["event"] = "rpc";
    line["unix_us"] = Json::Int64(absl::ToUnixMicros(done));
    // Added key: ms since the command started (as the peer harness's
    // clients print it).
    line["t_ms"] = absl::ToDoubleMilliseconds(done - start);
    const char* code = CodeName(r.status.error_code());
    line["code"] = code;
    if (!r.status.ok()) line["message"] = r.status.error_message();
    line["cluster"] = r.picked ? Json::Value(r.cluster) : Json::Value();
    // Added key: the A37 leaf cluster (differs from "cluster" for an
    // aggregate).
    line["leaf_cluster"] =
        r.picked ? Json::Value(r.leaf_cluster) : Json::Value();
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
    PrintJson(line);
    ++codes[code];
    if (r.status.ok()) {
      ++ok;
      if (backend) ++backends[*backend];
    } else {
      ++fail;
    }
    const absl::Time next = sent + absl::Milliseconds(interval_ms);
    if (count >= 0 && i + 1 >= count) break;
    if (next >= end) break;
    if (stop.SleepUntil(next)) break;
  }
  Json::Value summary(Json::objectValue);
  summary["valid"] = true;
  summary["event"] = "summary";
  summary["ok"] = ok;
  summary["fail"] = fail;
  summary["codes"] = Json::Value(Json::objectValue);
  for (const auto& [c, n] : codes) summary["codes"][c] = n;
  summary["backends"] = Json::Value(Json::objectValue);
  for (const auto& [b, n] : backends) summary["backends"][b] = n;
  // Added key: the signal that ended the loop early, if one did.
  if (const std::string signal = stop.signal_name(); !signal.empty()) {
    summary["signal"] = signal;
  }
  PrintJson(summary);
  return fail == 0 ? kExitValid : kExitInvalid;
}

XDSFED_REGISTER_COMMAND("call", RunCall,
                        "call --target T [--method PATH] [--count N] "
                        "[--interval-ms MS] [--seconds S] [--deadline-ms MS]"
                        "  real RPCs through XdsChannel");

}  // namespace
}  // namespace xdsfed::cli
