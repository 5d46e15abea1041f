#include "lib/xds_config/cluster_map.h"

#include <utility>

#include "lib/xds_config/xds_config.h"

namespace xdsfed {
namespace xds_config {

ClusterMap::ClusterMap(std::vector<std::string> names) {
  auto index = std::make_shared<Index>();
  index->names = std::move(names);
  index->slots.reserve(index->names.size());
  for (size_t i = 0; i < index->names.size(); ++i) {
    index->slots.emplace(index->names[i], i);
  }
  const size_t blocks = (index->names.size() + kBlockSize - 1) / kBlockSize;
  blocks_.reserve(blocks);
  for (size_t i = 0; i < blocks; ++i) {
    blocks_.push_back(std::make_shared<Block>());
  }
  index_ = std::move(index);
}

size_t ClusterMap::SlotOf(absl::string_view name) const {
  if (index_ == nullptr) return 0;
  auto it = index_->slots.find(name);
  return it == index_->slots.end() ? size() : it->second;
}

const ClusterConfig* ClusterMap::Find(absl::string_view name) const {
  size_t slot = SlotOf(name);
  return slot < size() ? ValueAt(slot).get() : nullptr;
}

std::shared_ptr<const ClusterConfig> ClusterMap::Get(
    absl::string_view name) const {
  size_t slot = SlotOf(name);
  return slot < size() ? ValueAt(slot) : nullptr;
}

ClusterMap ClusterMap::With(size_t slot,
                            std::shared_ptr<const ClusterConfig> value) const {
  ClusterMap out = *this;
  out.Set(slot, std::move(value));
  return out;
}

void ClusterMap::Set(size_t slot, std::shared_ptr<const ClusterConfig> value) {
  std::shared_ptr<const Block>& block = blocks_[slot / kBlockSize];
  if (block.use_count() == 1) {
    // Ours alone (every block is created non-const): no copy needed.
    (*const_cast<Block*>(block.get()))[slot % kBlockSize] = std::move(value);
    return;
  }
  // Copy on write: other maps share this block.
  auto copy = std::make_shared<Block>(*block);
  (*copy)[slot % kBlockSize] = std::move(value);
  block = std::move(copy);
}

bool ClusterMap::SameNames(const ClusterMap& other) const {
  if (index_ == other.index_) return true;
  if (index_ == nullptr || other.index_ == nullptr)
    return empty() && other.empty();
  return index_->names == other.index_->names;
}

}  // namespace xds_config
}  // namespace xdsfed
