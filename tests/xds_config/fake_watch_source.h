// A WatchSource whose events the test delivers by hand, in a chosen order,
// on the test thread (lib/xds_config unit tests and bench/xds_config_bench).
#ifndef XDSFED_TESTS_XDS_CONFIG_FAKE_WATCH_SOURCE_H_
#define XDSFED_TESTS_XDS_CONFIG_FAKE_WATCH_SOURCE_H_

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "lib/base/mutex.h"
#include "lib/cluster/dns_resolver.h"
#include "lib/xds_config/watch_source.h"

namespace xdsfed {
namespace xds_config {

class FakeWatchSource : public WatchSource {
 public:
  template <typename T>
  struct Watches {
    std::map<WatchHandle,
             std::pair<std::string, std::shared_ptr<ResourceWatcher<T>>>>
        by_handle;
    std::map<std::string, std::set<WatchHandle>> by_name;
    std::vector<std::shared_ptr<ResourceWatcher<T>>> Of(
        const std::string& name) const {
      std::vector<std::shared_ptr<ResourceWatcher<T>>> out;
      auto it = by_name.find(name);
      if (it == by_name.end()) return out;
      for (WatchHandle h : it->second) out.push_back(by_handle.at(h).second);
      return out;
    }
    void Remove(WatchHandle h) {
      auto it = by_handle.find(h);
      if (it == by_handle.end()) return;
      auto n = by_name.find(it->second.first);
      n->second.erase(h);
      if (n->second.empty()) by_name.erase(n);
      by_handle.erase(it);
    }
    // "a,b": the watched names, sorted, once per watch.
    std::string Names() const {
      std::vector<std::string> names;
      for (const auto& [h, w] : by_handle) names.push_back(w.first);
      std::sort(names.begin(), names.end());
      return absl::StrJoin(names, ",");
    }
  };

  WatchHandle WatchListener(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::Listener>> w) override {
    return Add(&lds, name, std::move(w));
  }
  WatchHandle WatchRouteConfig(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::RouteConfig>> w) override {
    return Add(&rds, name, std::move(w));
  }
  WatchHandle WatchCluster(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::ClusterResource>> w) override {
    return Add(&cds, name, std::move(w));
  }
  WatchHandle WatchEndpoints(
      const std::string& name,
      std::shared_ptr<ResourceWatcher<resources::EndpointResource>> w)
      override {
    return Add(&eds, name, std::move(w));
  }
  void CancelWatch(WatchHandle handle) override {
    lds.Remove(handle);
    rds.Remove(handle);
    cds.Remove(handle);
    eds.Remove(handle);
  }

  template <typename T>
  static void Deliver(const Watches<T>& watches, const std::string& name,
                      std::shared_ptr<const T> value) {
    for (const auto& w : watches.Of(name)) w->OnChanged(value);
  }
  template <typename T>
  static void Error(const Watches<T>& watches, const std::string& name,
                    absl::Status status) {
    for (const auto& w : watches.Of(name)) w->OnError(status);
  }
  template <typename T>
  static void DoesNotExist(const Watches<T>& watches, const std::string& name) {
    for (const auto& w : watches.Of(name)) w->OnDoesNotExist();
  }

  Watches<resources::Listener> lds;
  Watches<resources::RouteConfig> rds;
  Watches<resources::ClusterResource> cds;
  Watches<resources::EndpointResource> eds;

 private:
  template <typename T>
  WatchHandle Add(Watches<T>* watches, const std::string& name,
                  std::shared_ptr<ResourceWatcher<T>> w) {
    WatchHandle h = next_++;
    watches->by_handle[h] = {name, std::move(w)};
    watches->by_name[name].insert(h);
    return h;
  }
  WatchHandle next_ = 1;
};

// DNS queries held until the test answers them.
class FakeDnsResolver : public cluster::DnsResolver {
 public:
  Handle Resolve(std::string host_port, Callback done) override {
    pending[next_] = {std::move(host_port), std::move(done)};
    return next_++;
  }
  void Cancel(Handle handle) override {
    if (pending.erase(handle) != 0) ++cancelled;
  }
  void AnswerAll(absl::StatusOr<std::vector<std::string>> result) {
    auto queries = std::move(pending);
    pending.clear();
    for (auto& [h, q] : queries) q.second(result);
  }
  std::map<Handle, std::pair<std::string, Callback>> pending;
  int cancelled = 0;

 private:
  Handle next_ = 1;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_TESTS_XDS_CONFIG_FAKE_WATCH_SOURCE_H_
