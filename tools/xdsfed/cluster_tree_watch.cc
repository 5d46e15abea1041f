#include "tools/xdsfed/cluster_tree_watch.h"

#include <utility>
#include <vector>

namespace xdsfed::cli {

ClusterTreeWatch::ClusterTreeWatch(
    std::shared_ptr<cluster::ClusterDataSource> source,
    cluster::ClusterResolution::Options options, Sink sink)
    : source_(std::move(source)),
      options_(std::move(options)),
      sink_(std::move(sink)) {}

ClusterTreeWatch::~ClusterTreeWatch() { Stop(); }

void ClusterTreeWatch::SetRoots(const std::set<std::string>& roots) {
  std::vector<std::shared_ptr<cluster::ClusterResolution>> stop;
  std::vector<std::string> start;
  {
    MutexLock lock(&mu_);
    if (stopped_) return;
    for (auto it = trees_.begin(); it != trees_.end();) {
      if (roots.count(it->first) == 0) {
        stop.push_back(std::move(it->second));
        it = trees_.erase(it);
      } else {
        ++it;
      }
    }
    for (const std::string& root : roots) {
      if (trees_.count(root) == 0) start.push_back(root);
    }
  }
  // Outside the lock: Stop() waits for a running sink call, and Start()
  // may deliver cached resources at once.
  for (const auto& tree : stop) tree->Stop();
  for (const std::string& root : start) {
    auto tree = cluster::ClusterResolution::Start(
        source_, root, options_,
        [sink = sink_, root](const cluster::ClusterResolution::Update& u) {
          sink(root, u);
        });
    bool keep;
    {
      MutexLock lock(&mu_);
      // Not if stopped (or started by a racing call) meanwhile.
      keep = !stopped_ && trees_.count(root) == 0;
      if (keep) trees_[root] = tree;
    }
    if (!keep) tree->Stop();
  }
}

void ClusterTreeWatch::Stop() {
  std::map<std::string, std::shared_ptr<cluster::ClusterResolution>> trees;
  {
    MutexLock lock(&mu_);
    stopped_ = true;
    trees.swap(trees_);
  }
  for (const auto& [root, tree] : trees) tree->Stop();
}

}  // namespace xdsfed::cli
