// The XdsClient runs watcher notifications on lib/base's WorkSerializer.
#ifndef XDSFED_LIB_CLIENT_WORK_SERIALIZER_H_
#define XDSFED_LIB_CLIENT_WORK_SERIALIZER_H_

#include "lib/base/work_serializer.h"

namespace xdsfed {
namespace client {

using ::xdsfed::WorkSerializer;

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_WORK_SERIALIZER_H_
