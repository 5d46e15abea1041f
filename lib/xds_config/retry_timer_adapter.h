// The cluster driver's DNS retry timer (cluster::RetryTimer) on the
// XdsClient's timers (client::Timers), so DNS retries run on the same
// timer thread as the client's does-not-exist timers.
#ifndef XDSFED_LIB_XDS_CONFIG_RETRY_TIMER_ADAPTER_H_
#define XDSFED_LIB_XDS_CONFIG_RETRY_TIMER_ADAPTER_H_

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

#endif  // XDSFED_LIB_XDS_CONFIG_RETRY_TIMER_ADAPTER_H_
