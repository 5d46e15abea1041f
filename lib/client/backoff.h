// Reconnect backoff of the ADS stream, as gRPC C-core 1.51 computes it
// (src/core/lib/backoff/backoff.cc, xds_client.cc): the first retry waits
// `initial` exactly; each later one multiplies the previous delay by
// `multiplier` (capped at `max`) and adds a uniform jitter of +-`jitter` times
// that delay. Reset() after a stream that got a response.
//
//   Backoff b(BackoffOptions{}, /*seed=*/42);
//   b.NextDelay();  // 1 s
//   b.NextDelay();  // 1.6 s +- 0.32 s
//   b.Reset();      // next: 1 s again
#ifndef XDSFED_LIB_CLIENT_BACKOFF_H_
#define XDSFED_LIB_CLIENT_BACKOFF_H_

#include <cstdint>
#include <random>

#include "absl/time/time.h"

namespace xdsfed {
namespace client {

struct BackoffOptions {
  absl::Duration initial = absl::Seconds(1);
  double multiplier = 1.6;
  double jitter = 0.2;
  absl::Duration max = absl::Seconds(120);
};

// A seed for Backoff's jitter from the OS's random source (std::random_device),
// for clients whose options give none: every process then computes its own
// retry delays, so a fleet that lost its control plane does not come back
// in lockstep (issue 16 item 3).
uint64_t RandomJitterSeed();

class Backoff {
 public:
  Backoff(const BackoffOptions& options, uint64_t seed);

  absl::Duration NextDelay();
  void Reset();

 private:
  BackoffOptions options_;
  std::mt19937_64 rng_;
  bool initial_ = true;
  absl::Duration current_;
};

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_BACKOFF_H_
