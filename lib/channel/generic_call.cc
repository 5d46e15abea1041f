#include "lib/channel/generic_call.h"

#include <condition_variable>
#include <utility>

#include "absl/time/clock.h"
#include "grpcpp/generic/generic_stub.h"
#include "lib/base/mutex.h"
#include "lib/channel/unary.h"

namespace xdsfed {
namespace channel {

std::optional<std::string> GenericCallResult::header(
    absl::string_view name) const {
  auto it = initial_metadata.find(std::string(name));
  if (it == initial_metadata.end()) return std::nullopt;
  return it->second;
}

GenericCallResult GenericUnary(XdsChannel& channel, absl::string_view method,
                               const std::string& request, absl::Time deadline,
                               absl::Span<const MetadataEntry> metadata) {
  GenericCallResult result;
  const absl::Time start = absl::Now();
  PickResult pick = channel.Pick(PickArgs{method, metadata}, deadline);
  if (!pick.status.ok()) {
    result.status = ToGrpcStatus(pick.status);
    return result;
  }
  result.picked = true;
  result.cluster = std::string(pick.cluster);
  result.leaf_cluster = std::string(pick.leaf_cluster);
  result.priority = pick.priority;
  if (pick.locality != nullptr) result.locality = *pick.locality;
  result.endpoint = pick.endpoint->address();

  grpc::ClientContext ctx;
  if (deadline != absl::InfiniteFuture())
    ctx.set_deadline(absl::ToChronoTime(deadline));
  CapDeadline(&ctx, start, pick);
  for (const auto& [k, v] : metadata)
    ctx.AddMetadata(std::string(k), std::string(v));
  grpc::Slice slice(request);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;
  Mutex mu;
  std::condition_variable_any cv;
  bool done = false;
  grpc::Status status;
  StubFor<grpc::GenericStub>(pick).UnaryCall(
      &ctx, std::string(method), grpc::StubOptions(), &request_buffer,
      &response_buffer, [&](grpc::Status s) {
        MutexLock lock(&mu);
        status = std::move(s);
        done = true;
        cv.notify_all();
      });
  {
    MutexLock lock(&mu);
    while (!done) cv.wait(mu);
  }
  pick.tracker.Finish(status.ok());
  result.status = status;
  for (const auto& [k, v] : ctx.GetServerInitialMetadata()) {
    result.initial_metadata.emplace(std::string(k.data(), k.size()),
                                    std::string(v.data(), v.size()));
  }
  if (status.ok()) {
    std::vector<grpc::Slice> slices;
    if (response_buffer.Dump(&slices).ok()) {
      for (const auto& s : slices) {
        result.response.append(reinterpret_cast<const char*>(s.begin()),
                               s.size());
      }
    }
  }
  return result;
}

}  // namespace channel
}  // namespace xdsfed
