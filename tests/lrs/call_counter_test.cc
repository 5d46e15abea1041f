// Circuit-breaking call counters: gRFC A37 §Use Global Circuit Breaking
// Atomic (one counter per {cluster, EDS service name}, shared across LB
// policy instances and channels) and the threshold check of C-core's
// xds_cluster_impl picker (max_concurrent_requests, default 1024).
#include "lib/lrs/call_counter.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "lib/lrs/internal/load_report_store.h"

namespace xdsfed {
namespace lrs {
namespace {

// A37 §Use Global Circuit Breaking Atomic: same key -> same counter.
TEST(CallCounterTest, KeyedByClusterAndEdsServiceName) {
  struct Case {
    absl::string_view cluster_a, eds_a, cluster_b, eds_b;
    bool same;
  };
  const Case kCases[] = {
      {"c1", "eds1", "c1", "eds1", true},  // direct + via aggregate cluster
      {"c1", "", "c1", "", true},          // no EDS service name
      {"c1", "eds1", "c1", "eds2", false}, {"c1", "eds1", "c2", "eds1", false},
      {"c1", "", "c1", "c1", false},  // "" is not the cluster's own name
      {"a", "bc", "ab", "c", false},  // no ambiguous concatenation
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << c.cluster_a << "/" << c.eds_a << " vs "
                                      << c.cluster_b << "/" << c.eds_b);
    CallCounterRegistry registry;
    std::shared_ptr<CallCounter> a = registry.GetOrCreate(c.cluster_a, c.eds_a);
    std::shared_ptr<CallCounter> b = registry.GetOrCreate(c.cluster_b, c.eds_b);
    EXPECT_EQ(a == b, c.same);
    EXPECT_EQ(registry.size(), c.same ? 1u : 2u);
    a->StartCall();
    EXPECT_EQ(b->Load(), c.same ? 1u : 0u);
    a->FinishCall();
  }
}

// Two "trees" (say the cluster alone and under an aggregate cluster, two
// channels) each hold the global counter; two threads hammer it through
// their own handle: every start and finish lands on the one atomic.
TEST(CallCounterTest, SharedByTwoHoldersAcrossThreads) {
  std::shared_ptr<CallCounter> tree1 =
      CallCounterRegistry::Global().GetOrCreate("shared", "eds");
  std::shared_ptr<CallCounter> tree2 =
      CallCounterRegistry::Global().GetOrCreate("shared", "eds");
  ASSERT_EQ(tree1, tree2);
  constexpr int kCalls = 200000;
  std::atomic<bool> go{false};
  auto hammer = [&](CallCounter* counter) {
    while (!go.load()) {
    }
    for (int i = 0; i < kCalls; ++i) {
      counter->StartCall();
      counter->FinishCall();
    }
    for (int i = 0; i < 1000; ++i) counter->StartCall();  // left in flight
  };
  std::thread t1(hammer, tree1.get());
  std::thread t2(hammer, tree2.get());
  go = true;
  t1.join();
  t2.join();
  EXPECT_EQ(tree1->Load(), 2000u);
  EXPECT_EQ(tree2->Load(), 2000u);
}

// C-core picker: a call is admitted while fewer than max_concurrent_requests
// are in flight.
TEST(CallCounterTest, ThresholdRespected) {
  struct Case {
    uint32_t max;
    uint32_t in_flight;
    bool admitted;
  };
  const Case kCases[] = {
      {0, 0, false},  // max 0: nothing goes through
      {1, 0, true},
      {1, 1, false},
      {kDefaultMaxConcurrentRequests, 1023, true},  // the A37 default, 1024
      {kDefaultMaxConcurrentRequests, 1024, false},
      {kDefaultMaxConcurrentRequests, 5000, false},  // already over (lowered)
      {UINT32_MAX, 7, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message()
                 << "max " << c.max << " in flight " << c.in_flight);
    CallCounterRegistry registry;
    std::shared_ptr<CallCounter> counter = registry.GetOrCreate("c", "");
    for (uint32_t i = 0; i < c.in_flight; ++i) counter->StartCall();
    EXPECT_EQ(counter->TryStartCall(c.max), c.admitted);
    EXPECT_EQ(counter->Load(), c.in_flight + (c.admitted ? 1 : 0));
  }
}

// Racing admissions never overshoot (C-core's load-then-increment may; the
// compare-and-swap here does not).
TEST(CallCounterTest, ThresholdExactUnderContention) {
  CallCounterRegistry registry;
  std::shared_ptr<CallCounter> a = registry.GetOrCreate("c", "e");
  std::shared_ptr<CallCounter> b = registry.GetOrCreate("c", "e");
  constexpr uint32_t kMax = 100;
  std::atomic<uint32_t> admitted{0};
  std::atomic<uint32_t> max_seen{0};
  std::atomic<bool> go{false};
  auto run = [&](CallCounter* counter) {
    while (!go.load()) {
    }
    for (int i = 0; i < 50000; ++i) {
      if (counter->TryStartCall(kMax)) {
        admitted.fetch_add(1);
        uint32_t now = counter->Load();
        uint32_t seen = max_seen.load();
        while (now > seen && !max_seen.compare_exchange_weak(seen, now)) {
        }
        if (i % 2 == 0) counter->FinishCall();  // some stay in flight
      }
    }
  };
  std::thread t1(run, a.get());
  std::thread t2(run, b.get());
  go = true;
  t1.join();
  t2.join();
  EXPECT_LE(max_seen.load(), kMax);
  EXPECT_EQ(a->Load(), kMax);  // the budget fills up and stays full
  EXPECT_GE(admitted.load(), kMax);
}

// Handles are ref-counted: the registry entry goes with the last one, and a
// new handle starts from 0.
TEST(CallCounterTest, EntryReleasedWithLastHandle) {
  CallCounterRegistry registry;
  std::shared_ptr<CallCounter> a = registry.GetOrCreate("c", "e");
  std::shared_ptr<CallCounter> b = registry.GetOrCreate("c", "e");
  a->StartCall();
  EXPECT_EQ(registry.size(), 1u);
  a.reset();
  EXPECT_EQ(registry.size(), 1u);  // b still holds it
  EXPECT_EQ(b->Load(), 1u);
  b.reset();
  EXPECT_EQ(registry.size(), 0u);
  std::shared_ptr<CallCounter> c = registry.GetOrCreate("c", "e");
  EXPECT_EQ(c->Load(), 0u);
  EXPECT_EQ(registry.size(), 1u);
}

// Handles taken and dropped from many threads at once: no key is lost or
// leaked.
TEST(CallCounterTest, ConcurrentGetAndRelease) {
  CallCounterRegistry registry;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&registry, t] {
      for (int i = 0; i < 5000; ++i) {
        std::shared_ptr<CallCounter> counter =
            registry.GetOrCreate(i % 2 == 0 ? "even" : "odd", "");
        counter->StartCall();
        counter->FinishCall();
        (void)t;
      }
    });
  }
  std::shared_ptr<CallCounter> held = registry.GetOrCreate("even", "");
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(held->Load(), 0u);
  EXPECT_EQ(registry.size(), 1u);  // "odd" went with its last handle
}

// C-core: a circuit-breaker drop is an uncategorized drop in the load report.
TEST(CallCounterTest, CircuitBreakerDropIsRecorded) {
  CallCounterRegistry registry;
  std::shared_ptr<LoadReportStore> store = LoadReportStore::Create();
  std::shared_ptr<ClusterDropStats> drops =
      store->GetOrCreateDropStats("c", "e");
  std::shared_ptr<CallCounter> counter = registry.GetOrCreate("c", "e");
  EXPECT_TRUE(StartCallOrRecordDrop(*counter, 2, drops.get()));
  EXPECT_TRUE(StartCallOrRecordDrop(*counter, 2, drops.get()));
  EXPECT_FALSE(StartCallOrRecordDrop(*counter, 2, drops.get()));
  EXPECT_FALSE(StartCallOrRecordDrop(*counter, 2, nullptr));  // no LRS
  counter->FinishCall();
  EXPECT_TRUE(StartCallOrRecordDrop(*counter, 2, drops.get()));
  std::vector<ClusterLoadReport> reports = store->TakeReports(true, {});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].drops.uncategorized_drops, 1u);
  EXPECT_EQ(reports[0].drops.Total(), 1u);
}

}  // namespace
}  // namespace lrs
}  // namespace xdsfed
