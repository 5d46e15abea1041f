#include "tools/prometheus_exporter/prometheus_exporter.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "lib/routing/socket_address.h"
#include "lib/transport/grpc_listen.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace xdsfed::prometheus_exporter {

namespace {

// Set while this thread runs a scrape's collect callbacks.
thread_local bool in_collect = false;

// Why civetweb could not listen: bind a socket as civetweb does
// (SO_REUSEADDR, never SO_REUSEPORT) and report bind()'s errno.
absl::Status BindError(const std::string& address,
                       const routing::SocketAddress& a) {
  sockaddr_storage storage;
  const socklen_t len = a.ToSockaddr(&storage);
  const int fd = socket(storage.ss_family, SOCK_STREAM, 0);
  if (fd < 0) return transport::ListenError(address, errno);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  const int rc = bind(fd, reinterpret_cast<const sockaddr*>(&storage), len);
  const int err = errno;
  close(fd);
  if (rc != 0) return transport::ListenError(address, err);
  return absl::UnavailableError(absl::StrCat(
      "cannot listen on ", address, ": the HTTP server did not start"));
}

}  // namespace

class PrometheusExporter::State {
 public:
  State() : registry_(std::make_shared<prometheus::Registry>()) {}

  void AddCounter(const metrics::Instrument& instrument,
                  absl::Span<const absl::string_view> label_values,
                  uint64_t delta) {
    std::lock_guard<std::mutex> lock(mu_);
    prometheus::Family<prometheus::Counter>*& family =
        counters_[instrument.name];
    if (family == nullptr) {
      family = &prometheus::BuildCounter()
                    .Name(PrometheusName(instrument.name))
                    .Help(std::string(instrument.description))
                    .Register(*registry_);
    }
    family->Add(Labels(instrument, label_values))
        .Increment(static_cast<double>(delta));
  }

  void SetGauge(const metrics::Instrument& instrument,
                absl::Span<const absl::string_view> label_values,
                int64_t value) {
    std::lock_guard<std::mutex> lock(mu_);
    GaugeFamily& g = gauges_[instrument.name];
    if (g.family == nullptr) {
      g.family = &prometheus::BuildGauge()
                      .Name(PrometheusName(instrument.name))
                      .Help(std::string(instrument.description))
                      .Register(*registry_);
    }
    const std::string key = absl::StrJoin(label_values, "\x1f");
    prometheus::Gauge*& gauge = g.by_labels[key];
    if (gauge == nullptr) {
      gauge = &g.family->Add(Labels(instrument, label_values));
    }
    gauge->Set(static_cast<double>(value));
    if (in_collect) {
      g.from_callbacks = true;
      touched_.insert({std::string(instrument.name), key});
    }
  }

  void AddCollectCallback(std::function<void(metrics::MetricsRecorder&)> cb) {
    std::lock_guard<std::mutex> lock(mu_);
    callbacks_.push_back(std::move(cb));
  }

  // One scrape: callbacks, then the registry's families.
  std::vector<prometheus::MetricFamily> Collect(
      metrics::MetricsRecorder& self) {
    std::lock_guard<std::mutex> scrape(collect_mu_);
    std::vector<std::function<void(metrics::MetricsRecorder&)>> callbacks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      callbacks = callbacks_;
      touched_.clear();
    }
    in_collect = true;
    for (auto& cb : callbacks) cb(self);
    in_collect = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [name, g] : gauges_) {
        if (!g.from_callbacks) continue;
        for (auto it = g.by_labels.begin(); it != g.by_labels.end();) {
          if (touched_.count(std::make_pair(std::string(name), it->first)) !=
              0) {
            ++it;
            continue;
          }
          g.family->Remove(it->second);
          it = g.by_labels.erase(it);
        }
      }
    }
    return registry_->Collect();
  }

 private:
  struct GaugeFamily {
    prometheus::Family<prometheus::Gauge>* family = nullptr;
    std::map<std::string, prometheus::Gauge*> by_labels;
    bool from_callbacks = false;
  };

  static prometheus::Labels Labels(
      const metrics::Instrument& instrument,
      absl::Span<const absl::string_view> label_values) {
    prometheus::Labels labels;
    for (size_t i = 0; i < instrument.labels.size() && i < label_values.size();
         ++i) {
      labels.emplace(PrometheusName(instrument.labels[i]),
                     std::string(label_values[i]));
    }
    return labels;
  }

  const std::shared_ptr<prometheus::Registry> registry_;
  std::mutex collect_mu_;  // one scrape at a time
  std::mutex mu_;
  std::map<absl::string_view, prometheus::Family<prometheus::Counter>*>
      counters_;
  std::map<absl::string_view, GaugeFamily> gauges_;
  std::vector<std::function<void(metrics::MetricsRecorder&)>> callbacks_;
  std::set<std::pair<std::string, std::string>> touched_;
};

namespace {

class Collector final : public prometheus::Collectable {
 public:
  Collector(PrometheusExporter::State* state, metrics::MetricsRecorder* self)
      : state_(state), self_(self) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return state_->Collect(*self_);
  }

 private:
  PrometheusExporter::State* const state_;
  metrics::MetricsRecorder* const self_;
};

struct Server {
  std::unique_ptr<prometheus::Exposer> exposer;
  std::shared_ptr<Collector> collector;
};

}  // namespace

std::string PrometheusExporter::PrometheusName(absl::string_view name) {
  return absl::StrReplaceAll(name, {{".", "_"}});
}

absl::StatusOr<std::unique_ptr<PrometheusExporter>> PrometheusExporter::Start(
    const std::string& address) {
  std::optional<routing::SocketAddress> parsed =
      routing::SocketAddress::Parse(address);
  if (!parsed.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics address \"", address, "\" is not IP:PORT or [IPv6]:PORT"));
  }
  std::unique_ptr<PrometheusExporter> exporter(
      new PrometheusExporter(std::make_shared<State>()));
  auto server = std::make_shared<Server>();
  server->collector =
      std::make_shared<Collector>(exporter->state_.get(), exporter.get());
  try {
    // civetweb's listening_ports form: "127.0.0.1:9464", "[::1]:9464".
    server->exposer =
        std::make_unique<prometheus::Exposer>(parsed->ToString(), 1);
  } catch (const std::exception&) {
    // civetweb says only that it failed; bind() says why.
    return BindError(address, *parsed);
  }
  server->exposer->RegisterCollectable(server->collector);
  const std::vector<int> ports = server->exposer->GetListeningPorts();
  exporter->port_ = ports.empty() ? parsed->port : ports.front();
  exporter->server_ = std::move(server);
  return exporter;
}

PrometheusExporter::PrometheusExporter(std::shared_ptr<State> state)
    : state_(std::move(state)) {}

PrometheusExporter::~PrometheusExporter() {
  // The HTTP server (and any scrape in progress) stops first.
  server_.reset();
}

void PrometheusExporter::AddCollectCallback(
    std::function<void(metrics::MetricsRecorder&)> cb) {
  state_->AddCollectCallback(std::move(cb));
}

void PrometheusExporter::AddCounter(
    const metrics::Instrument& instrument,
    absl::Span<const absl::string_view> label_values, uint64_t delta) {
  state_->AddCounter(instrument, label_values, delta);
}

void PrometheusExporter::SetGauge(
    const metrics::Instrument& instrument,
    absl::Span<const absl::string_view> label_values, int64_t value) {
  state_->SetGauge(instrument, label_values, value);
}

}  // namespace xdsfed::prometheus_exporter
