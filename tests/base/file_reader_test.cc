// ReadFileCapped (issue 16 item 1): every kind of path a user can hand the
// library or the CLI gives a value or a status naming the path; nothing
// throws, and a source without an end stops at the cap.
#include "lib/base/file_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xdsfed {
namespace {

class FileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/file_reader_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }
  std::string Write(const std::string& name, const std::string& content) {
    std::string path = absl::StrCat(dir_, "/", name);
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
    return path;
  }
  std::string dir_;
};

TEST_F(FileReaderTest, Table) {
  const std::string small = Write("small", "{\"a\":1}");
  const std::string empty = Write("empty", "");
  const std::string at_cap = Write("at_cap", std::string(100, 'x'));
  const std::string over_cap = Write("over_cap", std::string(101, 'x'));
  struct Case {
    std::string path;
    size_t cap;
    absl::StatusCode code;
    std::string want;  // the content, or the error message
  };
  const Case kCases[] = {
      {small, 100, absl::StatusCode::kOk, "{\"a\":1}"},
      {empty, 100, absl::StatusCode::kOk, ""},
      {at_cap, 100, absl::StatusCode::kOk, std::string(100, 'x')},
      {over_cap, 100, absl::StatusCode::kResourceExhausted,
       absl::StrCat("cannot read ", over_cap,
                    ": larger than the limit of 100 bytes")},
      {dir_, 100, absl::StatusCode::kFailedPrecondition,
       absl::StrCat("cannot read ", dir_, ": is a directory")},
      {dir_ + "/none", 100, absl::StatusCode::kNotFound,
       absl::StrCat("cannot read ", dir_, "/none: No such file or directory")},
      {small + "/x", 100, absl::StatusCode::kNotFound,
       absl::StrCat("cannot read ", small, "/x: Not a directory")},
      {"", 100, absl::StatusCode::kNotFound,
       "cannot read a file: the path is empty"},
      // Character devices: one without an end stops at the cap.
      {"/dev/null", 100, absl::StatusCode::kOk, ""},
      {"/dev/zero", 1 << 20, absl::StatusCode::kResourceExhausted,
       "cannot read /dev/zero: larger than the limit of 1048576 bytes"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.path);
    absl::StatusOr<std::string> got = ReadFileCapped(c.path, c.cap);
    ASSERT_EQ(got.status().code(), c.code) << got.status();
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    } else {
      EXPECT_EQ(got.status().message(), c.want);
    }
  }
}

// A FIFO whose writer never stops: the read ends at the cap, not in
// bad_alloc.
TEST_F(FileReaderTest, EndlessFifoStopsAtTheCap) {
  const std::string fifo = absl::StrCat(dir_, "/fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    FILE* f = std::fopen(fifo.c_str(), "wb");
    if (f == nullptr) return;
    const std::string chunk(4096, 'y');
    // Stops when the reader closes its end (EPIPE; SIGPIPE is ignored).
    while (std::fwrite(chunk.data(), 1, chunk.size(), f) == chunk.size()) {
    }
    std::fclose(f);
  });
  signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<std::string> got = ReadFileCapped(fifo, 1 << 20);
  writer.join();
  EXPECT_EQ(got.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(got.status().message(),
            absl::StrCat("cannot read ", fifo,
                         ": larger than the limit of 1048576 bytes"));
}

TEST_F(FileReaderTest, FiniteFifoIsReadWhole) {
  const std::string fifo = absl::StrCat(dir_, "/fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    FILE* f = std::fopen(fifo.c_str(), "wb");
    std::fputs("{\"version\":\"1\"}", f);
    std::fclose(f);
  });
  absl::StatusOr<std::string> got = ReadFileCapped(fifo, 100);
  writer.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "{\"version\":\"1\"}");
}

}  // namespace
}  // namespace xdsfed
