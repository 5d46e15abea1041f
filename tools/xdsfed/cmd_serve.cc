// `xdsfed serve --listen HOST:PORT [--drain-grace-ms MS]
// [--max-connection-age-ms MS] [--id ID] [--seconds S]`: an xDS-enabled
// server (lib/server, A36) hosting grpc.health.v1.Health/Check
// (tools/health_backend: "sleep:MS" answers after MS ms; responses carry
// x-backend-id: ID, default "xdsfed-serve") and CSDS of its own XdsClient.
// HOST is an IP literal or localhost (= 127.0.0.1). One JSON line per
// serving change (docs/cli.md):
//   {"valid":true,"event":"serving","unix_us":...,
//    "address":"127.0.0.1:50051","serving":false,"code":"UNAVAILABLE",
//    "message":"..."}
// Exits after S seconds (default: never) or on SIGINT / SIGTERM, gracefully:
// a last serving:false line, new connections refused at once, running RPCs
// given the drain grace (default 10 minutes, A36's), exit 0. A second signal
// ends it at once (exit 128 + signal).
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/metrics/instruments.h"
#include "lib/server/xds_server.h"
#include "tools/health_backend/health_backend.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"
#include "tools/xdsfed/metrics_listen.h"

namespace xdsfed::cli {
namespace {

constexpr absl::string_view kUsage =
    "usage: xdsfed serve --listen HOST:PORT [--drain-grace-ms MS] "
    "[--max-connection-age-ms MS] [--id ID] [--seconds S] "
    "[--metrics-listen HOST:PORT]";

// A36's default drain grace time (10 minutes), also the time running RPCs
// have on SIGTERM.
constexpr int64_t kDefaultDrainGraceMs = 600000;

bool ParseMs(const std::optional<std::string>& flag, int64_t* out) {
  if (!flag.has_value()) return true;
  return absl::SimpleAtoi(*flag, out) && *out >= 0;
}

// "localhost:P" -> "127.0.0.1:P": the server listens on one address and
// takes IP literals only; localhost is loopback (issue 29 item 6).
std::string LoopbackForLocalhost(const std::string& listen) {
  constexpr absl::string_view kLocalhost = "localhost:";
  if (absl::StartsWithIgnoreCase(listen, kLocalhost)) {
    return absl::StrCat("127.0.0.1:", listen.substr(kLocalhost.size()));
  }
  return listen;
}

// The serving-state line (docs/cli.md).
void PrintServing(const std::string& address, const absl::Status& status) {
  Json::Value line(Json::objectValue);
  line["valid"] = true;
  line["event"] = "serving";
  line["unix_us"] = Json::Int64(absl::ToUnixMicros(absl::Now()));
  line["address"] = address;
  line["serving"] = status.ok();
  if (!status.ok()) {
    line["code"] = absl::StatusCodeToString(status.code());
    line["message"] = std::string(status.message());
  }
  PrintJson(line);
}

int RunServe(Context& context) {
  bool missing = false;
  std::optional<std::string> listen =
      TakeFlag(&context.args, "--listen", &missing);
  std::optional<std::string> grace_flag =
      TakeFlag(&context.args, "--drain-grace-ms", &missing);
  std::optional<std::string> age_flag =
      TakeFlag(&context.args, "--max-connection-age-ms", &missing);
  std::optional<std::string> id = TakeFlag(&context.args, "--id", &missing);
  std::optional<std::string> seconds_flag =
      TakeFlag(&context.args, "--seconds", &missing);
  std::optional<std::string> metrics_listen =
      TakeFlag(&context.args, "--metrics-listen", &missing);
  if (missing || !listen.has_value() || !context.args.empty()) {
    return UsageError(kUsage);
  }
  int64_t grace_ms = kDefaultDrainGraceMs;
  int64_t age_ms = -1;
  double seconds = -1;
  if (!ParseMs(grace_flag, &grace_ms) || !ParseMs(age_flag, &age_ms) ||
      (age_flag.has_value() && age_ms == 0) ||
      (seconds_flag.has_value() &&
       (!absl::SimpleAtod(*seconds_flag, &seconds) || seconds < 0 ||
        !std::isfinite(seconds)))) {
    return UsageError(kUsage);
  }
  const std::string address = LoopbackForLocalhost(*listen);
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());

  // Signals are taken synchronously by this thread: block them before any
  // thread starts (threads inherit the mask).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Before the server's XdsClient, which records into it.
  std::unique_ptr<prometheus_exporter::PrometheusExporter> exporter;
  if (int code = StartMetricsListen(metrics_listen, &exporter); code != 0) {
    return code;
  }
  client::XdsClient::Options client_options;
  client_options.metrics = exporter.get();
  client_options.metrics_target = std::string(metrics::kServerTarget);
  health_backend::HealthService health(id.value_or("xdsfed-serve"));
  server::XdsServerBuilder builder;
  builder.set_xds_client_options(std::move(client_options));
  builder.AddListeningPort(address, grpc::InsecureServerCredentials())
      .RegisterService(&health)
      .set_csds_service(true)
      .set_bootstrap(*bootstrap)
      .set_drain_grace_time(absl::Milliseconds(grace_ms))
      .set_status_notifier(PrintServing);
  if (age_ms > 0) builder.set_max_connection_age(absl::Milliseconds(age_ms));
  absl::StatusOr<std::unique_ptr<server::XdsServer>> server =
      builder.BuildAndStart();
  if (!server.ok()) {
    Json::Value out(Json::objectValue);
    out["address"] = *listen;
    // kUnavailable: the address cannot be listened on (in use, say), an I/O
    // error (exit 2); anything else is a bad configuration (exit 1).
    if (server.status().code() == absl::StatusCode::kUnavailable) {
      return ReportIoError(server.status().message(), std::move(out));
    }
    out = InvalidResult(server.status().message());
    out["address"] = *listen;
    PrintJson(out);
    return kExitInvalid;
  }
  int signal = 0;
  if (seconds < 0) {
    sigwait(&signals, &signal);
  } else {
    timespec timeout;
    timeout.tv_sec = static_cast<time_t>(seconds);
    timeout.tv_nsec = static_cast<long>(
        (seconds - static_cast<double>(timeout.tv_sec)) * 1e9);
    while ((signal = sigtimedwait(&signals, nullptr, &timeout)) < 0 &&
           errno == EINTR) {
    }
  }
  // Graceful: new connections are refused at once, running RPCs get the
  // drain grace, then the process exits 0. A second signal ends the wait
  // at once (exit 128 + signal).
  PrintServing((*server)->listening_address(),
               absl::UnavailableError(absl::StrCat(
                   "shutting down",
                   signal == SIGINT    ? " on SIGINT"
                   : signal == SIGTERM ? " on SIGTERM"
                                       : "",
                   ": new connections are refused, running RPCs have up to ",
                   grace_ms, " ms")));
  std::atomic<bool> drained{false};
  std::thread second_signal([&] {
    while (!drained) {
      timespec poll = {0, 100 * 1000 * 1000};
      const int again = sigtimedwait(&signals, nullptr, &poll);
      if (again > 0) _exit(128 + again);
    }
  });
  (*server)->Shutdown(absl::Milliseconds(grace_ms));
  drained = true;
  second_signal.join();
  return kExitValid;
}

XDSFED_REGISTER_COMMAND("serve", RunServe,
                        "serve --listen HOST:PORT [--drain-grace-ms MS] "
                        "[--max-connection-age-ms MS] [--id ID] [--seconds S] "
                        "[--metrics-listen A]"
                        "  an xDS-enabled server (A36) hosting "
                        "grpc.health.v1.Health/Check");

}  // namespace
}  // namespace xdsfed::cli
