#include "lib/client/backoff.h"

#include <algorithm>

namespace xdsfed {
namespace client {

uint64_t RandomJitterSeed() {
  std::random_device device;
  // random_device yields 32 bits per call.
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

Backoff::Backoff(const BackoffOptions& options, uint64_t seed)
    : options_(options), rng_(seed), current_(options.initial) {}

absl::Duration Backoff::NextDelay() {
  if (initial_) {
    initial_ = false;
    return current_;
  }
  current_ = std::min(current_ * options_.multiplier, options_.max);
  const double spread = options_.jitter * absl::ToDoubleSeconds(current_);
  if (!(spread > 0)) return current_;
  std::uniform_real_distribution<double> dist(-spread, spread);
  return std::max(current_ + absl::Seconds(dist(rng_)), absl::ZeroDuration());
}

void Backoff::Reset() {
  initial_ = true;
  current_ = options_.initial;
}

}  // namespace client
}  // namespace xdsfed
