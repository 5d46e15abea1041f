// A loopback gRPC backend serving the standard grpc.health.v1.Health/Check,
// for tests, demos and `xdsfed serve`: every answer carries the initial
// metadata header `x-backend-id: <id>` so a client can tell which backend it
// reached, and a request whose `service` is "sleep:MS" is answered after MS
// milliseconds (capped at kMaxSleepMs) so a test can keep an RPC in flight,
// e.g. across a drain. Any other `service` answers SERVING at once.
//
//   HealthService service("b1");          // register on any server builder
//   builder.RegisterService(&service);
//
//   HealthBackend backend("b1");          // or run a server of its own
//   absl::StatusOr<int> port = backend.Start();  // 127.0.0.1:<port>
//   HealthCheckResult r = HealthCheckOnce(channel, "sleep:50",
//   absl::Seconds(5));
//   // r.status.ok(), r.backend_id == "b1"
#ifndef XDSFED_TOOLS_HEALTH_BACKEND_HEALTH_BACKEND_H_
#define XDSFED_TOOLS_HEALTH_BACKEND_HEALTH_BACKEND_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace xdsfed::health_backend {

inline constexpr char kBackendIdHeader[] = "x-backend-id";
inline constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";
inline constexpr int64_t kMaxSleepMs = 10 * 60 * 1000;

// "sleep:MS" -> MS (0..kMaxSleepMs); anything else (including a malformed or
// out-of-range MS) -> -1, meaning "answer at once".
int64_t ParseSleepMs(absl::string_view service);

// The callback service; answers on gRPC's callback threads, never blocks one
// while sleeping (a grpc::Alarm finishes the call).
class HealthService : public grpc::health::v1::Health::CallbackService {
 public:
  explicit HealthService(std::string backend_id);

  grpc::ServerUnaryReactor* Check(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request,
      grpc::health::v1::HealthCheckResponse* response) override;

  const std::string& backend_id() const { return backend_id_; }
  // Check calls answered (OK) so far.
  uint64_t checks_answered() const { return answered_.load(); }

 private:
  class SleepReactor;
  const std::string backend_id_;
  std::atomic<uint64_t> answered_{0};
};

// A HealthService on a plain grpc::Server of its own.
class HealthBackend {
 public:
  explicit HealthBackend(std::string backend_id);
  ~HealthBackend();  // shuts the server down (sleeping calls are cancelled)
  HealthBackend(const HealthBackend&) = delete;
  HealthBackend& operator=(const HealthBackend&) = delete;

  // Listens on `address` ("127.0.0.1:0" picks a free port) with insecure
  // credentials and returns the bound port. A port another socket holds is
  // an error (kUnavailable, "... address A is in use"), never shared.
  absl::StatusOr<int> Start(const std::string& address = "127.0.0.1:0");
  // Stops at once (in-flight calls are cancelled); Start may not be called
  // again.
  void Shutdown();

  HealthService& service() { return service_; }

 private:
  HealthService service_;
  std::unique_ptr<grpc::Server> server_;
};

struct HealthCheckResult {
  grpc::Status status;
  std::string backend_id;  // the x-backend-id header; empty if absent
  grpc::health::v1::HealthCheckResponse::ServingStatus serving =
      grpc::health::v1::HealthCheckResponse::UNKNOWN;
};

// One Check call with `service` as the request, deadline `timeout`;
// wait_for_ready when asked.
HealthCheckResult HealthCheckOnce(const std::shared_ptr<grpc::Channel>& channel,
                                  const std::string& service,
                                  absl::Duration timeout,
                                  bool wait_for_ready = false);

}  // namespace xdsfed::health_backend

#endif  // XDSFED_TOOLS_HEALTH_BACKEND_HEALTH_BACKEND_H_
