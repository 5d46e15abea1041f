// The cluster driver's DNS retry timer (cluster::RetryTimer) on a
// client::Timers: the XdsClient's Options::timers when it was given some
// (tests' fake clocks then drive DNS retries too), else DefaultTimers().
#ifndef XDSFED_LIB_XDS_CONFIG_INTERNAL_RETRY_TIMER_ADAPTER_H_
#define XDSFED_LIB_XDS_CONFIG_INTERNAL_RETRY_TIMER_ADAPTER_H_

#include <memory>

#include "lib/client/timer.h"
#include "lib/cluster/dns_resolver.h"

namespace xdsfed {
namespace xds_config {

// `timers` null: client::DefaultTimers().
std::shared_ptr<cluster::RetryTimer> RetryTimerOn(
    std::shared_ptr<client::Timers> timers);

}  // namespace xds_config
}  // namespace xdsfed

#endif  // XDSFED_LIB_XDS_CONFIG_INTERNAL_RETRY_TIMER_ADAPTER_H_
