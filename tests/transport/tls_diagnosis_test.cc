// ExplainServerCertificate: what OpenSSL finds wrong with a server's chain,
// for issue 16 "Security: TLS to the control plane": "a wrong CA, an expired
// certificate and a server name mismatch each fail the stream with an error
// that says so". Certificates are made here with OpenSSL, at fixed dates, so
// every message is checked whole. The diagnostic handshake that fetches the
// chain runs end to end in tests/cli/tls_test.sh.
#include "lib/transport/tls_diagnosis.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xdsfed::transport {
namespace {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* x) const { X509_free(x); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

absl::Time Utc(int y, int mo, int d) {
  return absl::FromCivil(absl::CivilDay(y, mo, d), absl::UTCTimeZone());
}

Key NewKey() { return Key(EVP_EC_gen("P-256")); }

void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  ASSERT_NE(ext, nullptr) << value;
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `cn` with `key`, signed by issuer/issuer_key (itself when
// null), valid [from, until], a CA when `ca`, with subjectAltName `san`.
Cert Make(const std::string& cn, EVP_PKEY* key, X509* issuer,
          EVP_PKEY* issuer_key, absl::Time from, absl::Time until, bool ca,
          const std::string& san = "") {
  static long serial = 1;
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial++);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), absl::ToTimeT(from));
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), absl::ToTimeT(until));
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()),
                             -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (ca) {
    AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(cert.get(), signer, NID_key_usage,
                 "critical,keyCertSign,cRLSign");
  }
  if (!san.empty()) {
    AddExtension(cert.get(), signer, NID_subject_alt_name, san.c_str());
  }
  X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256());
  return cert;
}

std::string Pem(const std::vector<X509*>& certs) {
  BIO* bio = BIO_new(BIO_s_mem());
  for (X509* c : certs) PEM_write_bio_X509(bio, c);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string out(data, size);
  BIO_free(bio);
  return out;
}

// The PKI of the cases: two CAs, an intermediate of `ca`, and leaves.
struct Pki {
  Key ca_key = NewKey(), other_key = NewKey(), mid_key = NewKey(),
      leaf_key = NewKey();
  const absl::Time from = Utc(2029, 1, 1), until = Utc(2031, 1, 1);
  Cert ca = Make("ca", ca_key.get(), nullptr, nullptr, from, until, true);
  Cert other_ca =
      Make("other-ca", other_key.get(), nullptr, nullptr, from, until, true);
  Cert mid = Make("intermediate", mid_key.get(), ca.get(), ca_key.get(), from,
                  until, true);
  Cert expired_mid = Make("old-intermediate", mid_key.get(), ca.get(),
                          ca_key.get(), from, Utc(2029, 6, 1), true);

  Cert Leaf(const std::string& cn, absl::Time not_before, absl::Time not_after,
            const std::string& san, X509* issuer = nullptr,
            EVP_PKEY* issuer_key = nullptr) {
    return Make(cn, leaf_key.get(), issuer ? issuer : ca.get(),
                issuer_key ? issuer_key : ca_key.get(), not_before, not_after,
                false, san);
  }
};

constexpr char kRoots[] = "ca_certificate_file \"/etc/xds/ca.pem\"";
const absl::Time kNow = Utc(2030, 1, 1);

TEST(TlsDiagnosisTest, SaysWhatIsWrongWithTheServersChain) {
  Pki pki;
  const std::string san = "DNS:localhost,IP:127.0.0.1";
  Cert good = pki.Leaf("cp", pki.from, pki.until, san);
  Cert expired = pki.Leaf("cp", pki.from, Utc(2029, 6, 1), san);
  Cert future = pki.Leaf("cp", Utc(2030, 6, 1), pki.until, san);
  Cert wrong_name = pki.Leaf("cp", pki.from, pki.until,
                             "DNS:wrong.example.com,DNS:*.example.org");
  Cert wildcard = pki.Leaf("cp", pki.from, pki.until, "DNS:*.example.com");
  Cert no_san = pki.Leaf("cp.example.com", pki.from, pki.until, "");
  Cert hostile_san =
      pki.Leaf("cp", pki.from, pki.until, "DNS:evil\x01\xff.example.com");
  Cert via_mid = pki.Leaf("cp", pki.from, pki.until, san, pki.mid.get(),
                          pki.mid_key.get());
  Cert via_expired_mid = pki.Leaf("cp", pki.from, pki.until, san,
                                  pki.expired_mid.get(), pki.mid_key.get());
  Cert expired_other = pki.Leaf("cp", pki.from, Utc(2029, 6, 1), san,
                                pki.other_ca.get(), pki.other_key.get());
  const std::string roots = Pem({pki.ca.get()});
  const std::string other_roots = Pem({pki.other_ca.get()});

  struct Case {
    const char* what;  // which case of issue 16's "Security" it covers
    std::string chain;
    std::string roots;
    std::string host;
    std::string want;
  };
  const Case kCases[] = {
      {"a good chain, IP name: nothing to say", Pem({good.get()}), roots,
       "127.0.0.1", ""},
      {"a good chain, DNS name: nothing to say", Pem({good.get()}), roots,
       "localhost", ""},
      {"a wildcard name covers one label", Pem({wildcard.get()}), roots,
       "xds.example.com", ""},
      {"no subjectAltName: OpenSSL checks the CN", Pem({no_san.get()}), roots,
       "cp.example.com", ""},
      {"a good chain through an intermediate",
       Pem({via_mid.get(), pki.mid.get()}), roots, "127.0.0.1", ""},
      {"expired certificate: says expired, and when", Pem({expired.get()}),
       roots, "127.0.0.1",
       "the server's certificate \"CN=cp\" expired at 2029-06-01T00:00:00Z "
       "(OpenSSL: certificate has expired)"},
      {"certificate not yet valid: says from when", Pem({future.get()}), roots,
       "127.0.0.1",
       "the server's certificate \"CN=cp\" is not valid before "
       "2030-06-01T00:00:00Z (OpenSSL: certificate is not yet valid)"},
      {"expired intermediate CA: names it and its depth",
       Pem({via_expired_mid.get(), pki.expired_mid.get()}), roots, "127.0.0.1",
       "the CA certificate \"CN=old-intermediate\" (depth 1 of the server's "
       "chain) expired at 2029-06-01T00:00:00Z (OpenSSL: certificate has "
       "expired)"},
      {"wrong CA: says it does not chain to the configured CAs",
       Pem({good.get()}), other_roots, "127.0.0.1",
       "the server's certificate \"CN=cp\", issued by \"CN=ca\", does not "
       "chain to a CA in ca_certificate_file \"/etc/xds/ca.pem\" (OpenSSL: "
       "unable to get local issuer certificate)"},
      {"wrong CA, intermediate missing from the chain", Pem({via_mid.get()}),
       roots, "127.0.0.1",
       "the server's certificate \"CN=cp\", issued by \"CN=intermediate\", "
       "does not chain to a CA in ca_certificate_file \"/etc/xds/ca.pem\" "
       "(OpenSSL: unable to get local issuer certificate)"},
      {"wrong CA and expired: both said", Pem({expired_other.get()}), roots,
       "127.0.0.1",
       "the server's certificate \"CN=cp\", issued by \"CN=other-ca\", does "
       "not chain to a CA in ca_certificate_file \"/etc/xds/ca.pem\" (OpenSSL: "
       "unable to get local issuer certificate); the server's certificate "
       "\"CN=cp\" expired at 2029-06-01T00:00:00Z (OpenSSL: certificate has "
       "expired)"},
      {"a roots file with no certificate in it", Pem({good.get()}),
       "not a certificate\n", "127.0.0.1",
       "the server's certificate \"CN=cp\", issued by \"CN=ca\", does not "
       "chain to a CA in ca_certificate_file \"/etc/xds/ca.pem\" (OpenSSL: "
       "unable to get local issuer certificate)"},
      {"server name mismatch (IP): says which names it has",
       Pem({wrong_name.get()}), roots, "127.0.0.1",
       "the server's certificate \"CN=cp\" is not valid for the name "
       "\"127.0.0.1\" (it names DNS:\"wrong.example.com\", "
       "DNS:\"*.example.org\")"},
      {"server name mismatch (DNS)", Pem({good.get()}), roots,
       "xds.example.com",
       "the server's certificate \"CN=cp\" is not valid for the name "
       "\"xds.example.com\" (it names DNS:\"localhost\", IP:127.0.0.1)"},
      {"a wildcard covers one label only", Pem({wildcard.get()}), roots,
       "a.b.example.com",
       "the server's certificate \"CN=cp\" is not valid for the name "
       "\"a.b.example.com\" (it names DNS:\"*.example.com\")"},
      {"no subjectAltName, CN mismatch: names the subject", Pem({no_san.get()}),
       roots, "127.0.0.2",
       "the server's certificate \"CN=cp.example.com\" is not valid for the "
       "name \"127.0.0.2\" (it names no subjectAltName; subject "
       "\"CN=cp.example.com\")"},
      {"expired and name mismatch: both said", Pem({expired.get()}), roots,
       "xds.example.com",
       "the server's certificate \"CN=cp\" expired at 2029-06-01T00:00:00Z "
       "(OpenSSL: certificate has expired); the server's certificate "
       "\"CN=cp\" is not valid for the name \"xds.example.com\" (it names "
       "DNS:\"localhost\", IP:127.0.0.1)"},
      {"hostile names from the server are quoted escaped",
       Pem({hostile_san.get()}), roots, "127.0.0.1",
       "the server's certificate \"CN=cp\" is not valid for the name "
       "\"127.0.0.1\" (it names DNS:\"evil\\x01\\xff.example.com\")"},
      {"no certificate in the chain", "garbage", roots, "127.0.0.1",
       "the server presented no certificate that could be read"},
      {"an empty chain", "", roots, "127.0.0.1",
       "the server presented no certificate that could be read"},
      {"a chain cut short",
       Pem({good.get()}).substr(0, Pem({good.get()}).size() / 2), roots,
       "127.0.0.1", "the server presented no certificate that could be read"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    ServerCertificateCheck check;
    check.chain_pem = c.chain;
    check.roots_pem = c.roots;
    check.roots_name = kRoots;
    check.host = c.host;
    check.now = kNow;
    EXPECT_EQ(ExplainServerCertificate(check), c.want);
  }
}

TEST(TlsDiagnosisTest, HostOfTargetName) {
  struct Case {
    const char* target;
    const char* host;
  };
  const Case kCases[] = {
      {"127.0.0.1:5000", "127.0.0.1"},
      {"xds.example.com:443", "xds.example.com"},
      {"xds.example.com", "xds.example.com"},
      {"[::1]:443", "::1"},
      {"::1", "::1"},
      {"[::1", "[::1"},
      {"", ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.target);
    EXPECT_EQ(HostOfTargetName(c.target), c.host);
  }
}

}  // namespace
}  // namespace xdsfed::transport
