// Reads whole files for the library and the CLI, never throwing and never
// growing without bound: every file read in lib/ and tools/ goes through here.
//
//   absl::StatusOr<std::string> text =
//       ReadFileCapped("/etc/xds/bootstrap.json", kMaxBootstrapFileBytes);
//   // a directory: kFailedPrecondition "cannot read /etc: is a directory"
//   // /dev/zero:   kResourceExhausted "cannot read /dev/zero: larger than
//   //              the limit of 134217728 bytes"
//
// A regular file is sized with fstat() and read in one pass; anything else
// that can be read (a pipe, a FIFO, a character device such as /dev/stdin)
// is read until end of file or until it passes the cap, so a source without
// an end fails instead of exhausting memory. Every error names the path.
#ifndef XDSFED_LIB_BASE_FILE_READER_H_
#define XDSFED_LIB_BASE_FILE_READER_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xdsfed {

// Caps, far above any real file of each kind (a bootstrap is a few KB; the
// largest resource and snapshot files we have seen are tens of MB), low
// enough that reading one never risks the process.
inline constexpr size_t kMaxBootstrapFileBytes = size_t{128} << 20;  // 128 MiB
inline constexpr size_t kMaxResourceFileBytes = size_t{512} << 20;   // 512 MiB
inline constexpr size_t kMaxSnapshotFileBytes = size_t{512} << 20;   // 512 MiB

// Reads the whole file at `path`, at most `max_bytes` bytes. Errors:
//   kNotFound            the path does not exist
//   kPermissionDenied    it cannot be opened for reading
//   kFailedPrecondition  it is a directory (or another unreadable kind)
//   kResourceExhausted   it holds more than max_bytes bytes
//   kDataLoss            a read failed part way
// Each message is "cannot read <path>: <reason>".
absl::StatusOr<std::string> ReadFileCapped(const std::string& path,
                                           size_t max_bytes);

}  // namespace xdsfed

#endif  // XDSFED_LIB_BASE_FILE_READER_H_
