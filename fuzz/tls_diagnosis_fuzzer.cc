// Fuzzer for ExplainServerCertificate (lib/transport/tls_diagnosis.h): the
// words added to a TLS error from a chain a control plane presented, which
// is hostile input (OpenSSL parses it; our code prints names and dates from
// it). At a fixed time (2026-11-26T00:00:00Z) so that runs repeat.
// Input: FLAGS (1 byte), HOST_LENGTH (1 byte), ROOTS_LENGTH (2 bytes, big
// endian), HOST, ROOTS, and the rest is CHAIN; lengths are cut to what is
// there. Flag bit 0: CHAIN is one DER certificate (wrapped in PEM here), so
// mutations reach the certificate's fields and not only its base64; bit 1:
// the same for ROOTS. Otherwise both are PEM text.
// Invariants: no crash, leak or undefined behaviour; the clause is printable
// ASCII only (everything taken from a certificate is escaped) and bounded in
// length (names and problems are capped); the same input gives the same
// clause.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/base/check.h"
#include "lib/transport/tls_diagnosis.h"

namespace {

// Up to 8 problems of a few capped names each, and 8 capped subjectAltNames.
constexpr size_t kMaxClauseBytes = 32 << 10;

std::string DerAsPem(const std::string& der) {
  const std::string base64 = absl::Base64Escape(der);
  std::string pem = "-----BEGIN CERTIFICATE-----\n";
  for (size_t i = 0; i < base64.size(); i += 64) {
    absl::StrAppend(&pem, base64.substr(i, 64), "\n");
  }
  return pem + "-----END CERTIFICATE-----\n";
}

// The next `length` bytes of *input (fewer if it is shorter), consumed.
std::string Take(absl::string_view* input, size_t length) {
  const absl::string_view part = input->substr(0, length);
  input->remove_prefix(part.size());
  return std::string(part);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint8_t flags = data[0];
  const size_t host_length = data[1];
  const size_t roots_length = (size_t{data[2]} << 8) | data[3];
  absl::string_view input(reinterpret_cast<const char*>(data) + 4, size - 4);
  xdsfed::transport::ServerCertificateCheck check;
  check.host = Take(&input, host_length);
  check.roots_pem = Take(&input, roots_length);
  check.chain_pem = std::string(input);
  if (flags & 1) check.chain_pem = DerAsPem(check.chain_pem);
  if (flags & 2) check.roots_pem = DerAsPem(check.roots_pem);
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
