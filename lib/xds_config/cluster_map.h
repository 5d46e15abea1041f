// The clusters of an XdsConfig: name -> ClusterConfig, immutable, and cheap
// to derive from the previous snapshot when one cluster changes (an EDS
// update must not rebuild the whole config, issue 11 item 7). The names
// and their slots (the index) are shared by every snapshot with the same
// cluster set; the values sit in blocks of kBlockSize, so replacing one
// value copies one block and the block list (N / 64 pointers), not N.
//
//   const ClusterConfig* c = map.Find("backend");
//   map.ForEach([](const ClusterConfig& c) { ... });   // in name order
#ifndef XDSFED_LIB_XDS_CONFIG_CLUSTER_MAP_H_
#define XDSFED_LIB_XDS_CONFIG_CLUSTER_MAP_H_

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace xdsfed {
namespace xds_config {

struct ClusterConfig;

class ClusterMap {
 public:
  static constexpr size_t kBlockSize = 64;

  // An empty map.
  ClusterMap() = default;
  // `names` must be sorted and distinct; every value starts null.
  explicit ClusterMap(std::vector<std::string> names);

  size_t size() const { return index_ == nullptr ? 0 : index_->names.size(); }
  bool empty() const { return size() == 0; }
  // Null if the name is not a cluster of the map (or has no value yet).
  const ClusterConfig* Find(absl::string_view name) const;
  std::shared_ptr<const ClusterConfig> Get(absl::string_view name) const;
  // The slot of a name (for Set), or size() if none.
  size_t SlotOf(absl::string_view name) const;
  const std::string& NameAt(size_t slot) const { return index_->names[slot]; }
  const std::shared_ptr<const ClusterConfig>& ValueAt(size_t slot) const {
    return (*blocks_[slot / kBlockSize])[slot % kBlockSize];
  }
  // This map with the value at `slot` replaced: shares the index and every
  // other block.
  ClusterMap With(size_t slot,
                  std::shared_ptr<const ClusterConfig> value) const;
  // Sets a value in place (building a map before it is published).
  void Set(size_t slot, std::shared_ptr<const ClusterConfig> value);
  // In name order; skips names without a value.
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t i = 0; i < size(); ++i) {
      if (const auto& v = ValueAt(i)) f(*v);
    }
  }
  // Same names (the same index object or equal name lists).
  bool SameNames(const ClusterMap& other) const;

 private:
  struct Index {
    std::vector<std::string> names;
    absl::flat_hash_map<absl::string_view, size_t> slots;  // into names
  };
  using Block = std::array<std::shared_ptr<const ClusterConfig>, kBlockSize>;

  std::shared_ptr<const Index> index_;
  std::vector<std::shared_ptr<const Block>> blocks_;
};

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_CLUSTER_MAP_H_
