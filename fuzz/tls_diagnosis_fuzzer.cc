// Fuzzer for ExplainServerCertificate (lib/transport/tls_diagnosis.h): the
// words added to a TLS error from a chain a control plane presented, which
// is hostile input (OpenSSL parses it; our code prints names and dates from
// it). Input: HOST \0 ROOTS-PEM \0 CHAIN-PEM (missing parts are empty), at a
// fixed time (2026-11-26T00:00:00Z) so that runs repeat.
// Invariants: no crash, leak or undefined behaviour; the clause is printable
// ASCII only (everything taken from a certificate is escaped) and bounded in
// length (names and problems are capped); the same input gives the same
// clause.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/base/check.h"
#include "lib/transport/tls_diagnosis.h"

namespace {

// Up to 8 problems of a few capped names each, and 8 capped subjectAltNames.
constexpr size_t kMaxClauseBytes = 32 << 10;

// The part of *input up to the next \0 (or all of it), consumed.
absl::string_view Next(absl::string_view* input) {
  const size_t end = input->find('\0');
  const absl::string_view part = input->substr(0, end);
  input->remove_prefix(end == absl::string_view::npos ? input->size()
                                                      : end + 1);
  return part;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  xdsfed::transport::ServerCertificateCheck check;
  check.host = std::string(Next(&input));
  check.roots_pem = std::string(Next(&input));
  check.chain_pem = std::string(Next(&input));
  // Empty roots would mean the system's: keep the run independent of them.
  if (check.roots_pem.empty()) check.roots_pem = "\n";
  check.roots_name = "ca_certificate_file \"/fuzz/ca.pem\"";
  check.now =
      absl::FromCivil(absl::CivilDay(2026, 11, 26), absl::UTCTimeZone());
  const std::string clause = xdsfed::transport::ExplainServerCertificate(check);
  XDSFED_CHECK(clause.size() <= kMaxClauseBytes);
  for (char c : clause) XDSFED_CHECK(c >= 0x20 && c <= 0x7e);
  XDSFED_CHECK(xdsfed::transport::ExplainServerCertificate(check) == clause);
  return 0;
}
