// `xdsfed control-plane --listen HOST:PORT --snapshot FILE [--log FILE]
// [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]`: the embedded
// management server (tools/control_plane) serving a snapshot file until
// SIGINT or SIGTERM (../shared/CLI.md), over TLS (mutual TLS with
// --tls-client-ca) when given a certificate; certificate files are re-read
// every second. --health-backends ID@HOST:PORT,... also runs one
// grpc.health.v1 backend per entry in the process (tools/health_backend:
// x-backend-id ID) for data-plane checks; the first line lists where they
// listen ("health_backends":{"ID":"HOST:PORT"}).
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/control_plane/control_plane.h"
#include "tools/health_backend/health_backend.h"
#include "tools/xdsfed/cli.h"

namespace xdsfed::cli {
namespace {

constexpr absl::string_view kUsage =
    "usage: xdsfed control-plane --listen HOST:PORT --snapshot FILE "
    "[--log FILE] [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] "
    "[--health-backends ID@HOST:PORT,...]";

int RunControlPlane(Context& context) {
  bool missing = false;
  std::optional<std::string> listen =
      TakeFlag(&context.args, "--listen", &missing);
  std::optional<std::string> snapshot_file =
      TakeFlag(&context.args, "--snapshot", &missing);
  std::optional<std::string> log_file =
      TakeFlag(&context.args, "--log", &missing);
  std::optional<std::string> tls_cert =
      TakeFlag(&context.args, "--tls-cert", &missing);
  std::optional<std::string> tls_key =
      TakeFlag(&context.args, "--tls-key", &missing);
  std::optional<std::string> tls_client_ca =
      TakeFlag(&context.args, "--tls-client-ca", &missing);
  std::vector<std::pair<std::string, std::string>> backend_flags;
  if (auto list = TakeFlag(&context.args, "--health-backends", &missing)) {
    for (absl::string_view b : absl::StrSplit(*list, ',')) {
      const size_t at = b.find('@');
      if (at == absl::string_view::npos || at == 0) return UsageError(kUsage);
      backend_flags.emplace_back(std::string(b.substr(0, at)),
                                 std::string(b.substr(at + 1)));
    }
  }
  if (missing || !listen.has_value() || !snapshot_file.has_value() ||
      !context.args.empty() || tls_cert.has_value() != tls_key.has_value() ||
      (tls_client_ca.has_value() && !tls_cert.has_value())) {
    return UsageError(kUsage);
  }
  // I/O problems are usage errors (exit 2); a snapshot that reads but does
  // not parse is invalid input (exit 1).
  std::string version;
  {
    // Parsed here for the exit status and the version, then freed: the
    // server reads the file again (memory peaks once, not twice).
    absl::StatusOr<std::string> text =
        ReadFile(*snapshot_file, kMaxSnapshotFileBytes);
    if (!text.ok()) {
      Json::Value out(Json::objectValue);
      out["snapshot"] = *snapshot_file;
      return ReportIoError(text.status().message(), std::move(out));
    }
    absl::StatusOr<control_plane::Snapshot> snapshot =
        control_plane::ParseSnapshot(*text);
    if (!snapshot.ok()) {
      Json::Value out = InvalidResult(snapshot.status().message());
      out["snapshot"] = *snapshot_file;
      PrintJson(out);
      return kExitInvalid;
    }
    version = snapshot->version;
  }

  // Block the stop signals before grpc++ starts its threads, so that they
  // all inherit the mask and sigwait() below is the one place that sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  control_plane::ControlPlane::Options options;
  options.listen = *listen;
  options.snapshot_file = *snapshot_file;
  if (log_file.has_value()) options.log_file = *log_file;
  // Nothing here reads the in-memory histories: keep them small, so a
  // long-running server's memory stays flat (the --log file is complete).
  options.history_limit = 1000;
  options.tls.cert_file = tls_cert.value_or("");
  options.tls.key_file = tls_key.value_or("");
  options.tls.client_ca_file = tls_client_ca.value_or("");
  control_plane::ControlPlane server(options);
  absl::StatusOr<int> port = server.Start();
  if (!port.ok()) {
    // The file was valid a moment ago, so this is a listen or log-file
    // problem (or the file changed under us): an I/O error, exit 2.
    Json::Value out(Json::objectValue);
    out["listen"] = *listen;
    return ReportIoError(port.status().message(), std::move(out));
  }
  std::vector<std::unique_ptr<health_backend::HealthBackend>> backends;
  Json::Value backend_addresses(Json::objectValue);
  for (const auto& [id, address] : backend_flags) {
    auto backend = std::make_unique<health_backend::HealthBackend>(id);
    absl::StatusOr<int> backend_port = backend->Start(address);
    if (!backend_port.ok()) {
      return ReportIoError(absl::StrCat("--health-backends ", id, "@", address,
                                        ": ", backend_port.status().message()));
    }
    backend_addresses[id] =
        absl::StrCat(address.substr(0, address.rfind(':')), ":", *backend_port);
    backends.push_back(std::move(backend));
  }
  const size_t colon = listen->rfind(':');
  const std::string host =
      colon == std::string::npos ? *listen : listen->substr(0, colon);
  Json::Value out(Json::objectValue);
  out["valid"] = true;
  out["listening"] = absl::StrCat(host, ":", *port);
  out["port"] = *port;
  out["version"] = version;
  // An added key (CLI.md: add, never rename): how clients must connect.
  out["tls"] = !options.tls.cert_file.empty()
                   ? (options.tls.client_ca_file.empty() ? "tls" : "mtls")
                   : "none";
  if (!backends.empty()) out["health_backends"] = backend_addresses;
  PrintJson(out);
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server.Shutdown();
  for (auto& b : backends) b->Shutdown();
  return kExitValid;
}

XDSFED_REGISTER_COMMAND("control-plane", RunControlPlane,
                        "control-plane --listen HOST:PORT --snapshot FILE "
                        "[--log FILE] [--tls-cert FILE --tls-key FILE "
                        "[--tls-client-ca FILE]] [--health-backends "
                        "ID@HOST:PORT,...]  serve a snapshot over ADS and LRS");

}  // namespace
}  // namespace xdsfed::cli
