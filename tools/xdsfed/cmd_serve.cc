// `xdsfed serve --listen HOST:PORT [--drain-grace-ms MS]
// [--max-connection-age-ms MS] [--id ID] [--seconds S]`: an xDS-enabled
// server (lib/server, A36) hosting grpc.health.v1.Health/Check
// (tools/health_backend: "sleep:MS" answers after MS ms; responses carry
// x-backend-id: ID, default "xdsfed-serve"). One JSON line per serving
// change (../shared/CLI.md):
//   {"event":"serving","unix_us":...,"address":"127.0.0.1:50051",
//    "serving":false,"code":"UNAVAILABLE","message":"..."}
// Exits after S seconds (default: never) or on SIGINT / SIGTERM.
#include <errno.h>
#include <signal.h>

#include <string>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "lib/server/xds_server.h"
#include "tools/health_backend/health_backend.h"
#include "tools/xdsfed/bootstrap_source.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

constexpr absl::string_view kUsage =
    "usage: xdsfed serve --listen HOST:PORT [--drain-grace-ms MS] "
    "[--max-connection-age-ms MS] [--id ID] [--seconds S]";

bool ParseMs(const std::optional<std::string>& flag, int64_t* out) {
  if (!flag.has_value()) return true;
  return absl::SimpleAtoi(*flag, out) && *out >= 0;
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
  if (missing || !listen.has_value() || !context.args.empty()) {
    return UsageError(kUsage);
  }
  int64_t grace_ms = -1;
  int64_t age_ms = -1;
  double seconds = -1;
  if (!ParseMs(grace_flag, &grace_ms) || !ParseMs(age_flag, &age_ms) ||
      (age_flag.has_value() && age_ms == 0) ||
      (seconds_flag.has_value() &&
       (!absl::SimpleAtod(*seconds_flag, &seconds) || seconds < 0))) {
    return UsageError(kUsage);
  }
  auto bootstrap = LoadBootstrap(context);
  if (!bootstrap.ok()) return ReportBootstrapError(bootstrap.status());

  // Signals are taken synchronously by this thread: block them before any
  // thread starts (threads inherit the mask).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  health_backend::HealthService health(id.value_or("xdsfed-serve"));
  server::XdsServerBuilder builder;
  builder.AddListeningPort(*listen, grpc::InsecureServerCredentials())
      .RegisterService(&health)
      .set_bootstrap(*bootstrap)
      .set_status_notifier(
          [](const std::string& address, const absl::Status& status) {
            Json::Value line(Json::objectValue);
            line["event"] = "serving";
            line["unix_us"] = Json::Int64(absl::ToUnixMicros(absl::Now()));
            line["address"] = address;
            line["serving"] = status.ok();
            if (!status.ok()) {
              line["code"] = absl::StatusCodeToString(status.code());
              line["message"] = std::string(status.message());
            }
            PrintJson(line);
          });
  if (grace_ms >= 0) builder.set_drain_grace_time(absl::Milliseconds(grace_ms));
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
  if (seconds < 0) {
    int signal = 0;
    sigwait(&signals, &signal);
  } else {
    timespec timeout;
    timeout.tv_sec = static_cast<time_t>(seconds);
    timeout.tv_nsec = static_cast<long>(
        (seconds - static_cast<double>(timeout.tv_sec)) * 1e9);
    while (sigtimedwait(&signals, nullptr, &timeout) < 0 && errno == EINTR) {
    }
  }
  (*server)->Shutdown(absl::Seconds(1));
  return kExitValid;
}

XDSFED_REGISTER_COMMAND("serve", RunServe,
                        "serve --listen HOST:PORT [--drain-grace-ms MS] "
                        "[--max-connection-age-ms MS] [--id ID] [--seconds S]"
                        "  an xDS-enabled server (A36) hosting "
                        "grpc.health.v1.Health/Check");

}  // namespace
}  // namespace xdsfed::cli
