// The XdsClient uses the TSan-visible mutex of lib/base (see there for why
// not absl::Mutex); these names keep client code short.
#ifndef XDSFED_LIB_CLIENT_MUTEX_H_
#define XDSFED_LIB_CLIENT_MUTEX_H_

#include "lib/base/mutex.h"

namespace xdsfed {
namespace client {

using ::xdsfed::Mutex;
using ::xdsfed::MutexLock;

}  // namespace client
}  // namespace xdsfed

#endif  // XDSFED_LIB_CLIENT_MUTEX_H_
