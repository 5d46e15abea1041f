// TrackedStream's accounting over a fake stream (no real gRPC runs, so it
// is TSan-clean): issue 13 "CallTracker::Finish(status) exactly once;
// destroying an unfinished tracker counts an error" for streaming calls --
// the circuit breaker's in-flight count (A37 §Use Global Circuit Breaking
// Atomic) and the locality's load-report counters (A47 §XdsClient Load
// Reporting APIs) see each stream once, with its final status.
#include "lib/channel/streaming.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lib/lrs/call_counter.h"
#include "lib/lrs/internal/load_report_store.h"

namespace xdsfed {
namespace channel {
namespace {

// What the generated stream types offer, recording what was asked of it.
struct FakeStream {
  struct Log {
    std::atomic<int> reads{0};
    std::atomic<int> writes{0};
    std::atomic<int> finishes{0};
  };
  FakeStream(Log* log, int messages, grpc::Status final_status)
      : log(log), left(messages), status(std::move(final_status)) {}
  bool Read(int* m) {
    ++log->reads;
    if (left == 0) return false;
    *m = left--;
    return true;
  }
  bool Write(const int&) {
    ++log->writes;
    return true;
  }
  bool WritesDone() { return true; }
  void WaitForInitialMetadata() {}
  grpc::Status Finish() {
    ++log->finishes;
    return status;
  }
  Log* log;
  int left;
  grpc::Status status;
};

class StreamingAccountingTest : public ::testing::Test {
 protected:
  PickResult Pick() {
    EXPECT_TRUE(counter_->TryStartCall(1024));
    stats_->AddCallStarted();
    PickResult pick;
    pick.tracker = CallTracker(counter_, stats_);
    return pick;
  }
  lrs::LocalitySnapshot Report() {
    auto reports = store_->TakeReports(/*send_all_clusters=*/true, {});
    lrs::LocalitySnapshot total;
    for (const auto& r : reports) {
      for (const auto& [locality, snapshot] : r.localities) total += snapshot;
    }
    return total;
  }

  lrs::CallCounterRegistry counters_;
  std::shared_ptr<lrs::CallCounter> counter_ =
      counters_.GetOrCreate("c", "eds");
  std::shared_ptr<lrs::LoadReportStore> store_ = lrs::LoadReportStore::Create();
  std::shared_ptr<lrs::ClusterLocalityStats> stats_ =
      store_->GetOrCreateLocalityStats("c", "eds", {"r", "z", ""});
  FakeStream::Log log_;
};

enum class Ending { kFinish, kFinishTwice, kDestroyUnfinished, kMovedThenDone };

struct Case {
  const char* name;
  grpc::Status final_status;
  Ending ending;
  // Expected load report and Finish() calls on the underlying stream.
  uint64_t successful, errors;
  int stream_finishes;
};

TEST_F(StreamingAccountingTest, FinishedOnceWithTheFinalStatus) {
  const Case cases[] = {
      {"ok", grpc::Status::OK, Ending::kFinish, 1, 0, 1},
      {"error status", grpc::Status(grpc::StatusCode::INTERNAL, "x"),
       Ending::kFinish, 0, 1, 1},
      // Finish twice: one accounting, the same status both times.
      {"finish twice", grpc::Status::OK, Ending::kFinishTwice, 1, 0, 1},
      // Abandoned: the call is cancelled and its status collected (one
      // Finish on the stream), and it counts as an error even though the
      // stream would have ended OK.
      {"destroyed unfinished", grpc::Status::OK, Ending::kDestroyUnfinished, 0,
       1, 1},
      // Moving the stream moves the accounting: still exactly one.
      {"moved then finished", grpc::Status::OK, Ending::kMovedThenDone, 1, 0,
       1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    log_.finishes = 0;
    grpc::ClientContext ctx;
    {
      TrackedStream<FakeStream> s(
          &ctx, Pick(), std::make_unique<FakeStream>(&log_, 2, c.final_status));
      ASSERT_TRUE(s.ok());
      EXPECT_EQ(counter_->Load(), 1u);
      int m = 0;
      EXPECT_TRUE(s.Read(&m));
      EXPECT_TRUE(s.Write(m));
      switch (c.ending) {
        case Ending::kFinish:
          EXPECT_EQ(s.Finish().error_code(), c.final_status.error_code());
          break;
        case Ending::kFinishTwice:
          EXPECT_TRUE(s.Finish().ok());
          EXPECT_TRUE(s.Finish().ok());
          EXPECT_FALSE(s.Read(&m));  // nothing reaches a finished stream
          break;
        case Ending::kDestroyUnfinished:
          break;
        case Ending::kMovedThenDone: {
          TrackedStream<FakeStream> moved(std::move(s));
          EXPECT_TRUE(moved.Finish().ok());
          break;
        }
      }
    }
    EXPECT_EQ(counter_->Load(), 0u);
    EXPECT_EQ(log_.finishes.load(), c.stream_finishes);
    lrs::LocalitySnapshot r = Report();
    EXPECT_EQ(r.total_issued_requests, 1u);
    EXPECT_EQ(r.total_successful_requests, c.successful);
    EXPECT_EQ(r.total_error_requests, c.errors);
    EXPECT_EQ(r.total_requests_in_progress, 0u);
  }
}

// A failed pick: no stream, no accounting; Finish gives the pick's status.
TEST_F(StreamingAccountingTest, FailedPickReportsItsStatus) {
  grpc::ClientContext ctx;
  PickResult failed;
  failed.status = absl::UnavailableError("circuit breaker drop");
  TrackedStream<FakeStream> s(&ctx, std::move(failed), nullptr);
  EXPECT_FALSE(s.ok());
  int m = 0;
  EXPECT_FALSE(s.Read(&m));
  EXPECT_FALSE(s.Write(m));
  grpc::Status status = s.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(status.error_message(), "circuit breaker drop");
  EXPECT_EQ(counter_->Load(), 0u);
  EXPECT_EQ(Report().total_issued_requests, 0u);
}

// Streams started, finished and abandoned from 8 threads: every one is
// accounted once (TSan: the tracker's counters are the only shared state).
TEST_F(StreamingAccountingTest, ManyThreads) {
  constexpr int kThreads = 8, kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kPerThread; ++i) {
        grpc::ClientContext ctx;
        TrackedStream<FakeStream> s(
            &ctx, Pick(),
            std::make_unique<FakeStream>(&log_, 1, grpc::Status::OK));
        if ((t + i) % 2 == 0) s.Finish();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(counter_->Load(), 0u);
  lrs::LocalitySnapshot r = Report();
  EXPECT_EQ(r.total_issued_requests, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(r.total_successful_requests, uint64_t{kThreads * kPerThread / 2});
  EXPECT_EQ(r.total_error_requests, uint64_t{kThreads * kPerThread / 2});
}

}  // namespace
}  // namespace channel
}  // namespace xdsfed
