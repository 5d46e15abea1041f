// One A37 ClusterResolution per root cluster of a followed chain: what the
// cds policies of a channel would run. ChainWatch says which roots exist
// (its RootsSink); this starts and stops the resolutions to match.
//
//   ClusterTreeWatch trees(source, options, [](const std::string& root,
//       const cluster::ClusterResolution::Update& update) { Print(...); });
//   ChainWatch chain(client, sink, [&](const std::set<std::string>& roots) {
//     trees.SetRoots(roots);
//   });
//   ...
//   chain.Stop();
//   trees.Stop();
#ifndef XDSFED_TOOLS_XDSFED_CLUSTER_TREE_WATCH_H_
#define XDSFED_TOOLS_XDSFED_CLUSTER_TREE_WATCH_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "lib/base/mutex.h"
#include "lib/cluster/cluster_resolution.h"

namespace xdsfed::cli {

class ClusterTreeWatch {
 public:
  // Runs on a client or DNS thread, one update of a root at a time.
  using Sink = std::function<void(const std::string& root,
                                  const cluster::ClusterResolution::Update&)>;

  ClusterTreeWatch(std::shared_ptr<cluster::ClusterDataSource> source,
                   cluster::ClusterResolution::Options options, Sink sink);
  ~ClusterTreeWatch();  // Stop()
  ClusterTreeWatch(const ClusterTreeWatch&) = delete;
  ClusterTreeWatch& operator=(const ClusterTreeWatch&) = delete;

  // Starts a resolution for each new root, stops those no longer listed.
  void SetRoots(const std::set<std::string>& roots);
  // Stops every resolution; no sink call starts after it returns.
  void Stop();

 private:
  const std::shared_ptr<cluster::ClusterDataSource> source_;
  const cluster::ClusterResolution::Options options_;
  const Sink sink_;
  Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::shared_ptr<cluster::ClusterResolution>> trees_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace xdsfed::cli

#endif  // XDSFED_TOOLS_XDSFED_CLUSTER_TREE_WATCH_H_
