// LoadReportStore and the stats objects: gRFC A47 §XdsClient Load Reporting
// APIs (data kept per LRS server; here one store = one server) and the
// counters and snapshot rules of C-core 1.51 (XdsClusterDropStats,
// XdsClusterLocalityStats, XdsClient::BuildLoadReportSnapshotLocked).
#include "lib/lrs/internal/load_report_store.h"

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "lib/base/mutex.h"

namespace xdsfed {
namespace lrs {
namespace {

const Locality kL1{"r1", "z1", "s1"};
const Locality kL2{"r2", "", ""};

// A clock the test moves by hand.
struct ManualClock {
  Mutex mu;
  absl::Time now ABSL_GUARDED_BY(mu) = absl::FromUnixSeconds(1700000000);
  LoadReportStore::Clock AsClock() {
    return [this] {
      MutexLock lock(&mu);
      return now;
    };
  }
  void Advance(absl::Duration d) {
    MutexLock lock(&mu);
    now += d;
  }
};

// C-core's counter semantics, one row per recording pattern.
TEST(LoadReportStoreTest, LocalityCounters) {
  using Stats = ClusterLocalityStats;
  struct Case {
    const char* name;
    std::function<void(Stats&)> record;
    LocalitySnapshot want;
  };
  const Case kCases[] = {
      {"nothing", [](Stats&) {}, {}},
      {"started only: issued and in progress",
       [](Stats& s) {
         s.AddCallStarted();
         s.AddCallStarted();
       },
       {0, 2, 0, 2, {}}},
      {"succeeded and failed",
       [](Stats& s) {
         for (int i = 0; i < 3; ++i) s.AddCallStarted();
         s.AddCallFinished(false);
         s.AddCallFinished(true);
       },
       {1, 1, 1, 3, {}}},
      {"named metrics: count and sum per name",
       [](Stats& s) {
         s.AddCallStarted();
         s.AddCallStarted();
         s.AddCallFinished(false, {{"cpu", 0.25}, {"mem", 10}});
         s.AddCallFinished(true, {{"cpu", 0.5}});
       },
       {1, 0, 1, 2, {{"cpu", {2, 0.75}}, {"mem", {1, 10}}}}},
      {"finish without start never wraps in_progress",
       [](Stats& s) { s.AddCallFinished(false); },
       {1, 0, 0, 0, {}}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto store = LoadReportStore::Create();
    auto stats = store->GetOrCreateLocalityStats("c", "e", kL1);
    c.record(*stats);
    std::vector<ClusterLoadReport> reports = store->TakeReports(true, {});
    ASSERT_EQ(reports.size(), 1u);
    ASSERT_EQ(reports[0].localities.count(kL1), 1u);
    EXPECT_EQ(reports[0].localities.at(kL1), c.want);
  }
}

// What makes a locality's snapshot non-zero, as C-core 1.51's
// XdsClusterLocalityStats::Snapshot::IsZero: any counter, in-progress calls
// included (issue 29 B(b): a locality whose calls are only in flight must
// still count, or the LRS client skips its report), or a backend metric.
TEST(LoadReportStoreTest, LocalitySnapshotIsZeroTable) {
  struct Case {
    const char* name;
    LocalitySnapshot snapshot;
    bool want_zero;
  };
  const Case kCases[] = {
      {"nothing", {}, true},
      {"successful", {1, 0, 0, 0, {}}, false},
      {"in progress only", {0, 3, 0, 0, {}}, false},
      {"errors", {0, 0, 1, 0, {}}, false},
      {"issued", {0, 0, 0, 1, {}}, false},
      {"a metric reported", {0, 0, 0, 0, {{"cpu", {1, 0}}}}, false},
      {"a metric entry with nothing in it", {0, 0, 0, 0, {{"cpu", {}}}}, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.snapshot.IsZero(), c.want_zero);
    ClusterLoadReport report;
    report.localities[kL1] = c.snapshot;
    EXPECT_EQ(report.IsZero(), c.want_zero);
  }
}

TEST(LoadReportStoreTest, DropCounters) {
  auto store = LoadReportStore::Create();
  auto drops = store->GetOrCreateDropStats("c", "e");
  drops->AddCallDropped("lb");
  drops->AddCallDropped("lb");
  drops->AddCallDropped("throttle");
  drops->AddUncategorizedDrops();
  std::vector<ClusterLoadReport> reports = store->TakeReports(true, {});
  ASSERT_EQ(reports.size(), 1u);
  DropSnapshot want;
  want.uncategorized_drops = 1;
  want.categorized_drops = {{"lb", 2}, {"throttle", 1}};
  EXPECT_EQ(reports[0].drops, want);
  EXPECT_EQ(reports[0].drops.Total(), 4u);  // total_dropped_requests
  EXPECT_TRUE(reports[0].localities.empty());
}

// Snapshot-and-reset: a report takes the counts; only in_progress stays.
TEST(LoadReportStoreTest, TakeReportsResets) {
  auto store = LoadReportStore::Create();
  auto stats = store->GetOrCreateLocalityStats("c", "", kL1);
  auto drops = store->GetOrCreateDropStats("c", "");
  stats->AddCallStarted();
  stats->AddCallStarted();
  stats->AddCallFinished(false, {{"cpu", 1}});
  drops->AddCallDropped("lb");
  std::vector<ClusterLoadReport> first = store->TakeReports(true, {});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].IsZero());
  std::vector<ClusterLoadReport> second = store->TakeReports(true, {});
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].localities.at(kL1),
            (LocalitySnapshot{0, 1, 0, 0, {}}));  // the call still running
  EXPECT_TRUE(second[0].drops.IsZero());
  stats->AddCallFinished(false);
  std::vector<ClusterLoadReport> third = store->TakeReports(true, {});
  EXPECT_EQ(third[0].localities.at(kL1), (LocalitySnapshot{1, 0, 0, 0, {}}));
  EXPECT_TRUE(store->TakeReports(true, {})[0].IsZero());
}

// C-core: one object per key, shared by every caller.
TEST(LoadReportStoreTest, SameKeySameObject) {
  auto store = LoadReportStore::Create();
  EXPECT_EQ(store->GetOrCreateDropStats("c", "e"),
            store->GetOrCreateDropStats("c", "e"));
  EXPECT_NE(store->GetOrCreateDropStats("c", "e"),
            store->GetOrCreateDropStats("c", ""));
  auto a = store->GetOrCreateLocalityStats("c", "e", kL1);
  EXPECT_EQ(a, store->GetOrCreateLocalityStats("c", "e", kL1));
  EXPECT_NE(a, store->GetOrCreateLocalityStats("c", "e", kL2));
  EXPECT_NE(a, store->GetOrCreateLocalityStats("c", "x", kL1));
}

// Per cluster: ClusterStats.load_report_interval is the time since that
// cluster's previous report, or since its first stats object.
TEST(LoadReportStoreTest, IntervalMeasuredPerCluster) {
  ManualClock clock;
  auto store = LoadReportStore::Create(clock.AsClock());
  auto a = store->GetOrCreateDropStats("a", "");
  clock.Advance(absl::Seconds(3));
  auto b = store->GetOrCreateLocalityStats("b", "", kL1);
  clock.Advance(absl::Seconds(2));
  std::vector<ClusterLoadReport> first = store->TakeReports(true, {});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].cluster_name, "a");
  EXPECT_EQ(first[0].load_report_interval, absl::Seconds(5));
  EXPECT_EQ(first[1].cluster_name, "b");
  EXPECT_EQ(first[1].load_report_interval, absl::Seconds(2));
  clock.Advance(absl::Milliseconds(1500));
  std::vector<ClusterLoadReport> second = store->TakeReports(true, {});
  EXPECT_EQ(second[0].load_report_interval, absl::Milliseconds(1500));
  EXPECT_EQ(second[1].load_report_interval, absl::Milliseconds(1500));
  // A wall clock stepping back gives 0, never a negative interval.
  clock.Advance(absl::Seconds(-10));
  EXPECT_EQ(store->TakeReports(true, {})[0].load_report_interval,
            absl::ZeroDuration());
}

// LoadStatsResponse.send_all_clusters / clusters: unlisted clusters are not
// reported, and (C-core) their counts are reset all the same.
TEST(LoadReportStoreTest, ClusterSelection) {
  struct Case {
    bool send_all;
    std::set<std::string> clusters;
    std::vector<std::string> want;
  };
  const Case kCases[] = {
      {true, {}, {"a", "b"}}, {true, {"a"}, {"a", "b"}},  // send_all wins
      {false, {"a"}, {"a"}},  {false, {"b", "zzz"}, {"b"}}, {false, {}, {}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "send_all " << c.send_all);
    auto store = LoadReportStore::Create();
    auto a = store->GetOrCreateDropStats("a", "");
    auto b = store->GetOrCreateDropStats("b", "eds");
    a->AddUncategorizedDrops();
    b->AddUncategorizedDrops();
    std::vector<std::string> got;
    for (const auto& r : store->TakeReports(c.send_all, c.clusters)) {
      EXPECT_EQ(r.drops.uncategorized_drops, 1u);
      got.push_back(r.cluster_name);
    }
    EXPECT_EQ(got, c.want);
    for (const auto& r : store->TakeReports(true, {})) {
      EXPECT_TRUE(r.IsZero()) << r.cluster_name;  // reset either way
    }
  }
}

// A released object's last counts go into the next report (C-core's
// deleted_drop_stats / deleted_locality_stats); then the key is forgotten.
TEST(LoadReportStoreTest, ReleasedStatsReportedOnceThenForgotten) {
  int idle_calls = 0;
  auto store = LoadReportStore::Create(nullptr, [&] { ++idle_calls; });
  auto stats = store->GetOrCreateLocalityStats("c", "e", kL1);
  auto drops = store->GetOrCreateDropStats("c", "e");
  stats->AddCallStarted();
  stats->AddCallFinished(true);
  drops->AddCallDropped("lb");
  EXPECT_TRUE(store->HasLiveStats());
  stats.reset();
  EXPECT_EQ(idle_calls, 0);  // drops still held
  drops.reset();
  EXPECT_EQ(idle_calls, 1);
  EXPECT_FALSE(store->HasLiveStats());
  EXPECT_FALSE(store->empty());  // counts still to report
  std::vector<ClusterLoadReport> reports = store->TakeReports(true, {});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].localities.at(kL1), (LocalitySnapshot{0, 0, 1, 1, {}}));
  EXPECT_EQ(reports[0].drops.categorized_drops.at("lb"), 1u);
  EXPECT_TRUE(store->empty());
  EXPECT_TRUE(store->TakeReports(true, {}).empty());
}

// Counts of an object released while a new one for the same key is in use
// add up in the next report.
TEST(LoadReportStoreTest, ReleasedAndNewObjectAddUp) {
  auto store = LoadReportStore::Create();
  auto old_stats = store->GetOrCreateLocalityStats("c", "", kL1);
  old_stats->AddCallStarted();
  old_stats->AddCallFinished(false);
  old_stats.reset();
  auto new_stats = store->GetOrCreateLocalityStats("c", "", kL1);
  new_stats->AddCallStarted();
  std::vector<ClusterLoadReport> reports = store->TakeReports(true, {});
  EXPECT_EQ(reports[0].localities.at(kL1), (LocalitySnapshot{1, 1, 0, 2, {}}));
  // The locality stays while new_stats lives; another one left is dropped.
  auto other = store->GetOrCreateLocalityStats("c", "", kL2);
  other.reset();
  reports = store->TakeReports(true, {});
  EXPECT_EQ(reports[0].localities.size(), 2u);
  reports = store->TakeReports(true, {});
  EXPECT_EQ(reports[0].localities.size(), 1u);
}

// Stats objects may outlive the store's owner and be used after it: the
// objects keep the store alive.
TEST(LoadReportStoreTest, StatsOutliveStoreHandle) {
  std::shared_ptr<ClusterLocalityStats> stats;
  {
    auto store = LoadReportStore::Create();
    stats = store->GetOrCreateLocalityStats("c", "", kL1);
  }
  stats->AddCallStarted();
  stats->AddCallFinished(false, {{"m", 1}});
  stats.reset();
}

// Recording from several threads while reports are taken: nothing is lost
// or counted twice.
TEST(LoadReportStoreTest, ConcurrentRecordingAndReports) {
  auto store = LoadReportStore::Create();
  constexpr int kThreads = 3;
  constexpr int kCalls = 20000;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store, &done, t] {
      for (int i = 0; i < kCalls; ++i) {
        // Taken and dropped per call: objects come and go concurrently.
        auto stats = store->GetOrCreateLocalityStats("c", "", kL1);
        auto drops = store->GetOrCreateDropStats("c", "");
        stats->AddCallStarted();
        stats->AddCallFinished(i % 3 == 0, {{"m", 1}});
        if (i % 5 == 0) drops->AddCallDropped(t % 2 == 0 ? "a" : "b");
        if (i % 7 == 0) drops->AddUncategorizedDrops();
      }
      done.fetch_add(1);
    });
  }
  LocalitySnapshot total;
  DropSnapshot total_drops;
  auto take = [&] {
    for (const auto& r : store->TakeReports(true, {})) {
      total_drops += r.drops;
      for (const auto& l : r.localities) total += l.second;
    }
  };
  while (done.load() < kThreads) take();
  for (auto& thread : threads) thread.join();
  take();
  constexpr uint64_t kAll = uint64_t{kThreads} * kCalls;
  EXPECT_EQ(total.total_issued_requests, kAll);
  EXPECT_EQ(total.total_successful_requests + total.total_error_requests, kAll);
  EXPECT_EQ(total.backend_metrics["m"].num_requests_finished_with_metric, kAll);
  EXPECT_EQ(total_drops.Total(), uint64_t{kThreads} * (4000 + 2858));
  EXPECT_TRUE(store->empty());
}

}  // namespace
}  // namespace lrs
}  // namespace xdsfed
