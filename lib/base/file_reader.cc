#include "lib/base/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace xdsfed {
namespace {

absl::Status Error(absl::StatusCode code, const std::string& path,
                   absl::string_view reason) {
  return absl::Status(code, absl::StrCat("cannot read ", path, ": ", reason));
}

absl::Status ErrnoError(const std::string& path, int error) {
  absl::StatusCode code = absl::StatusCode::kDataLoss;
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      code = absl::StatusCode::kNotFound;
      break;
    case EACCES:
    case EPERM:
      code = absl::StatusCode::kPermissionDenied;
      break;
    case EISDIR:
      code = absl::StatusCode::kFailedPrecondition;
      break;
    default:
      break;
  }
  return Error(code, path, std::strerror(error));
}

absl::Status TooLarge(const std::string& path, size_t max_bytes) {
  return Error(absl::StatusCode::kResourceExhausted, path,
               absl::StrCat("larger than the limit of ", max_bytes, " bytes"));
}

// Closes the descriptor on every return path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  const int fd_;
};

}  // namespace

absl::StatusOr<std::string> ReadFileCapped(const std::string& path,
                                           size_t max_bytes) {
  if (path.empty()) {
    return absl::NotFoundError("cannot read a file: the path is empty");
  }
  if (path.find('\0') != std::string::npos) {
    return absl::NotFoundError("cannot read a file: the path contains NUL");
  }
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError(path, errno);
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return ErrnoError(path, errno);
  if (S_ISDIR(st.st_mode)) {
    return Error(absl::StatusCode::kFailedPrecondition, path, "is a directory");
  }
  std::string content;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
      return TooLarge(path, max_bytes);
    }
    // The size is a hint: the file may change while it is read.
    content.reserve(static_cast<size_t>(st.st_size));
  }
  char buffer[64 * 1024];
  while (true) {
    const ssize_t n = read(fd.get(), buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path, errno);
    }
    if (content.size() + static_cast<size_t>(n) > max_bytes) {
      return TooLarge(path, max_bytes);
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  return content;
}

}  // namespace xdsfed
