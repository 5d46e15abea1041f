// Issue 29 item 4: `xdsfed serve` on SIGTERM / SIGINT (docs/cli.md#serve).
// The binary (build/bin/xdsfed) runs as a child process against an
// embedded control plane; three 3 s RPCs (health "sleep:3000") run on it
// when the signal comes. Wanted: new connections refused at once, running
// RPCs given --drain-grace-ms (no fixed 1 s), exit 0; a second signal ends
// the wait at once (exit 128 + signal).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "tests/server/server_test_support.h"
#include "tools/health_backend/health_backend.h"

#ifndef XDSFED_CLI_PATH
#error "XDSFED_CLI_PATH must name the built xdsfed binary"
#endif

namespace xdsfed {
namespace {

using health_backend::HealthCheckOnce;
using health_backend::HealthCheckResult;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Case {
  const char* name;
  int grace_ms;
  int second_signal;  // 0: none; else sent 300 ms after SIGTERM
  bool rpcs_ok;       // the three running RPCs finish OK
  int want_exit;
  absl::Duration max_time;  // SIGTERM -> exit
};

class ServeSignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    control_plane::ControlPlane::Options options;
    options.listen = "127.0.0.1:0";
    cp_ = std::make_unique<control_plane::ControlPlane>(options);
    absl::StatusOr<int> port = cp_->Start();
    ASSERT_TRUE(port.ok()) << port.status();
    cp_port_ = *port;
  }
  void TearDown() override { cp_->Shutdown(); }

  void Run(const Case& c) {
    SCOPED_TRACE(c.name);
    const int port = server::testing::FreePort();
    auto snapshot = server::testing::MakeSnapshot(
        1, server::testing::ServerListenerJson(port, "r"),
        server::testing::ServerRouteJson("r"));
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    cp_->SetSnapshot(*std::move(snapshot));
    const std::string bootstrap = absl::StrCat(
        R"({"xds_servers":[{"server_uri":"127.0.0.1:)", cp_port_,
        R"(","channel_creds":[{"type":"insecure"}]}],"node":{"id":"serve"},)",
        R"("server_listener_resource_name_template":")",
        server::testing::kServerTemplate, R"("})");
    char dir_template[] = "/tmp/serve_signal_XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    const std::string out_path = absl::StrCat(dir_template, "/out");
    const std::string listen = absl::StrCat("127.0.0.1:", port);
    const std::string grace = absl::StrCat(c.grace_ms);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      execl(XDSFED_CLI_PATH, XDSFED_CLI_PATH, "--bootstrap-json",
            bootstrap.c_str(), "serve", "--listen", listen.c_str(),
            "--drain-grace-ms", grace.c_str(), "--id", "s1",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0;
         i < 200 && !absl::StrContains(ReadAll(out_path), R"("serving":true)");
         ++i) {
      absl::SleepFor(absl::Milliseconds(50));
    }
    ASSERT_TRUE(absl::StrContains(ReadAll(out_path), R"("serving":true)"))
        << ReadAll(out_path);

    auto channel =
        grpc::CreateChannel(listen, grpc::InsecureChannelCredentials());
    std::vector<HealthCheckResult> results(3);
    std::vector<std::thread> rpcs;
    for (HealthCheckResult& r : results) {
      rpcs.emplace_back([&r, channel] {
        r = HealthCheckOnce(channel, "sleep:3000", absl::Seconds(20), true);
      });
    }
    absl::SleepFor(absl::Milliseconds(500));  // the three are running
    const absl::Time signalled = absl::Now();
    ASSERT_EQ(kill(pid, SIGTERM), 0);
    absl::SleepFor(absl::Milliseconds(200));
    // New connections are refused at once.
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    const int connected =
        connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    const int connect_errno = errno;
    close(fd);
    EXPECT_NE(connected, 0);
    EXPECT_EQ(connect_errno, ECONNREFUSED);
    if (c.second_signal != 0) {
      absl::SleepFor(absl::Milliseconds(100));
      ASSERT_EQ(kill(pid, c.second_signal), 0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    const absl::Duration took = absl::Now() - signalled;
    for (std::thread& t : rpcs) t.join();
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), c.want_exit);
    EXPECT_LE(took, c.max_time);
    int ok = 0;
    for (const HealthCheckResult& r : results) {
      if (r.status.ok()) ++ok;
      if (c.rpcs_ok) {
        EXPECT_TRUE(r.status.ok()) << r.status.error_message();
      }
    }
    if (!c.rpcs_ok) {
      EXPECT_EQ(ok, 0);
    }
    // Every line is JSON with "valid" (item 6); the last says why it stops.
    const std::string out = ReadAll(out_path);
    for (absl::string_view line : absl::StrSplit(out, '\n')) {
      if (line.empty()) continue;
      EXPECT_TRUE(absl::StrContains(line, R"("valid":true)")) << line;
    }
    EXPECT_TRUE(absl::StrContains(
        out, absl::StrCat(R"("message":"shutting down on SIGTERM: new )",
                          R"(connections are refused, running RPCs have )",
                          R"(up to )", c.grace_ms, R"( ms","serving":false)")))
        << out;
    std::printf(
        "%s: SIGTERM with three running 3 s RPCs, --drain-grace-ms %d: "
        "%d/3 OK, exit %d after %s\n",
        c.name, c.grace_ms, ok, WEXITSTATUS(status),
        absl::FormatDuration(took).c_str());
    std::remove(out_path.c_str());
    rmdir(dir_template);
  }

  std::unique_ptr<control_plane::ControlPlane> cp_;
  int cp_port_ = 0;
};

TEST_F(ServeSignalTest, RunningRpcsGetTheDrainGrace) {
  // Before issue 29 the grace was a fixed 1 s: the three were cancelled
  // ("Cancelling all calls") after 1 s.
  Run({"grace 5000 ms", 5000, 0, true, 0, absl::Milliseconds(4500)});
}

TEST_F(ServeSignalTest, RpcsPastTheGraceAreCancelled) {
  Run({"grace 500 ms", 500, 0, false, 0, absl::Milliseconds(2000)});
}

TEST_F(ServeSignalTest, SecondSignalEndsTheDrainAtOnce) {
  Run({"grace 60000 ms, then SIGINT", 60000, SIGINT, false, 128 + SIGINT,
       absl::Milliseconds(2000)});
}

}  // namespace
}  // namespace xdsfed
