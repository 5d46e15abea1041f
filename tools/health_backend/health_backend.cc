#include "tools/health_backend/health_backend.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/alarm.h"
#include "lib/transport/grpc_listen.h"

namespace xdsfed::health_backend {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

int64_t ParseSleepMs(absl::string_view service) {
  constexpr absl::string_view kPrefix = "sleep:";
  if (!absl::StartsWith(service, kPrefix)) return -1;
  absl::string_view digits = service.substr(kPrefix.size());
  int64_t ms = 0;
  // SimpleAtoi accepts a sign and spaces; the format is digits only.
  if (digits.empty() || digits.size() > 12) return -1;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
  }
  if (!absl::SimpleAtoi(digits, &ms) || ms > kMaxSleepMs) return -1;
  return ms;
}

// Finishes the call when its alarm fires; a cancelled call cancels the alarm
// so a shutting-down server does not wait out the sleep.
class HealthService::SleepReactor : public grpc::ServerUnaryReactor {
 public:
  SleepReactor(HealthService* service, HealthCheckResponse* response,
               int64_t sleep_ms)
      : service_(service), response_(response) {
    alarm_.Set(absl::ToChronoTime(absl::Now() + absl::Milliseconds(sleep_ms)),
               [this](bool fired) { OnAlarm(fired); });
  }

  void OnCancel() override { alarm_.Cancel(); }
  void OnDone() override { delete this; }

 private:
  void OnAlarm(bool fired) {
    if (!fired) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED,
                          "cancelled while sleeping"));
      return;
    }
    response_->set_status(HealthCheckResponse::SERVING);
    service_->answered_.fetch_add(1, std::memory_order_relaxed);
    Finish(grpc::Status::OK);
  }

  HealthService* const service_;
  HealthCheckResponse* const response_;
  grpc::Alarm alarm_;
};

HealthService::HealthService(std::string backend_id)
    : backend_id_(std::move(backend_id)) {}

grpc::ServerUnaryReactor* HealthService::Check(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request,
    HealthCheckResponse* response) {
  context->AddInitialMetadata(kBackendIdHeader, backend_id_);
  int64_t sleep_ms = ParseSleepMs(request->service());
  if (sleep_ms > 0) return new SleepReactor(this, response, sleep_ms);
  response->set_status(HealthCheckResponse::SERVING);
  answered_.fetch_add(1, std::memory_order_relaxed);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

HealthBackend::HealthBackend(std::string backend_id)
    : service_(std::move(backend_id)) {}

HealthBackend::~HealthBackend() { Shutdown(); }

void HealthBackend::Shutdown() {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now());
  server_->Wait();
}

absl::StatusOr<int> HealthBackend::Start(const std::string& address) {
  if (server_ != nullptr) return absl::FailedPreconditionError("started");
  int port = 0;
  grpc::ServerBuilder builder;
  builder.RegisterService(&service_);
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      transport::BuildAndStartListening(builder, address,
                                        grpc::InsecureServerCredentials(),
                                        transport::ListenOptions(), &port);
  if (!server.ok()) {
    return absl::Status(
        server.status().code(),
        absl::StrCat("health backend: ", server.status().message()));
  }
  server_ = *std::move(server);
  return port;
}

HealthCheckResult HealthCheckOnce(const std::shared_ptr<grpc::Channel>& channel,
                                  const std::string& service,
                                  absl::Duration timeout, bool wait_for_ready) {
  grpc::health::v1::Health::Stub stub(channel);
  grpc::ClientContext context;
  context.set_wait_for_ready(wait_for_ready);
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  HealthCheckRequest request;
  request.set_service(service);
  HealthCheckResponse response;
  HealthCheckResult result;
  result.status = stub.Check(&context, request, &response);
  result.serving = response.status();
  const auto& headers = context.GetServerInitialMetadata();
  auto it = headers.find(kBackendIdHeader);
  if (it != headers.end()) {
    result.backend_id.assign(it->second.data(), it->second.size());
  }
  return result;
}

}  // namespace xdsfed::health_backend
