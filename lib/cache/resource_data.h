// What a cache entry holds for an accepted resource: a decoded value whose
// type the cache never needs to know. lib/resources derives one concrete
// holder per resource type (resources::XdsResourceType<T>), and only that
// type reads the value back, after checking the holder's dynamic type: a
// polymorphic base instead of a void pointer, so no cast in the library is
// unchecked.
#ifndef XDSFED_LIB_CACHE_RESOURCE_DATA_H_
#define XDSFED_LIB_CACHE_RESOURCE_DATA_H_

namespace xdsfed {
namespace cache {

class ResourceData {
 public:
  virtual ~ResourceData() = default;

 protected:
  ResourceData() = default;
  ResourceData(const ResourceData&) = default;
  ResourceData& operator=(const ResourceData&) = default;
};

}  // namespace cache
}  // namespace xdsfed

#endif  // XDSFED_LIB_CACHE_RESOURCE_DATA_H_
