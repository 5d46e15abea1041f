// The narrow interface through which the library records metrics (issue 28
// item 4, gRFC A78). Core modules hold a `MetricsRecorder*` and call it at a
// few points; null means recording is off and costs one pointer test. An
// exporter (tools/prometheus_exporter, on prometheus-cpp) implements it; no
// core module depends on an exporter.
//
//   metrics::MetricsRecorder* recorder = options.metrics;  // may be null
//   if (recorder != nullptr) {
//     const absl::string_view labels[] = {target, server_uri};
//     recorder->AddCounter(metrics::kXdsClientServerFailure, labels, 1);
//   }
//
// Label values are given in the order of the instrument's `labels`.
// Implementations are thread-safe, never block for long (calls may come
// under a module's lock) and never call back into the library.
#ifndef XDSFED_LIB_METRICS_RECORDER_H_
#define XDSFED_LIB_METRICS_RECORDER_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/metrics/instruments.h"

namespace xdsfed::metrics {

class MetricsRecorder {
 public:
  virtual ~MetricsRecorder() = default;
  // A counter (kind kCounter) grows by `delta`.
  virtual void AddCounter(const Instrument& instrument,
                          absl::Span<const absl::string_view> label_values,
                          uint64_t delta) = 0;
  // A gauge (kind kGauge) is set to `value`.
  virtual void SetGauge(const Instrument& instrument,
                        absl::Span<const absl::string_view> label_values,
                        int64_t value) = 0;
};

}  // namespace xdsfed::metrics

#endif  // XDSFED_LIB_METRICS_RECORDER_H_
