#include "lib/transport/tls_diagnosis.h"

#include <arpa/inet.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "lib/base/file_reader.h"
#include "lib/base/mutex.h"

namespace xdsfed::transport {
namespace {

// Bounds on what the server's chain can make us read or print. A TLS
// handshake carries at most OpenSSL's 100 KB certificate list; a roots file
// is a few hundred KB even for a whole system bundle.
constexpr size_t kMaxChainBytes = size_t{1} << 20;
constexpr size_t kMaxRootsFileBytes = size_t{16} << 20;
constexpr int kMaxChainCertificates = 16;
constexpr size_t kMaxQuotedChars = 200;
constexpr size_t kMaxListedNames = 8;
constexpr size_t kMaxProblems = 8;

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct StoreCtxFree {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct StackFree {  // frees the stack only: its certificates are owned apart
  void operator()(STACK_OF(X509) * s) const { sk_X509_free(s); }
};
struct NamesFree {
  void operator()(GENERAL_NAMES* n) const { GENERAL_NAMES_free(n); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

// Text from a certificate, quoted: printable ASCII only, capped.
std::string Quote(absl::string_view text) {
  std::string escaped = absl::CHexEscape(text.substr(0, kMaxQuotedChars));
  if (text.size() > kMaxQuotedChars) escaped += "...";
  return absl::StrCat("\"", escaped, "\"");
}

// Every certificate of a PEM text, at most kMaxChainCertificates; other
// PEM blocks and text between them are skipped, as OpenSSL's loaders do.
std::vector<X509Ptr> ReadCertificates(absl::string_view pem) {
  std::vector<X509Ptr> out;
  if (pem.empty() ||
      pem.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return out;
  }
  std::unique_ptr<BIO, BioFree> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return out;
  while (out.size() < kMaxChainCertificates) {
    X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (cert == nullptr) break;
    out.emplace_back(cert);
  }
  return out;
}

// "CN=cp,O=Example" (RFC 2253, non-ASCII escaped by OpenSSL), quoted.
std::string NameText(const X509_NAME* name) {
  if (name == nullptr) return "\"\"";
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr) return "\"\"";
  if (X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0) {
    return "\"\"";
  }
  const char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return Quote(absl::string_view(data, size > 0 ? size : 0));
}

std::string TimeText(const ASN1_TIME* time) {
  std::tm tm{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &tm) != 1) return "(unknown)";
  const absl::Time t = absl::FromCivil(
      absl::CivilSecond(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                        tm.tm_hour, tm.tm_min, tm.tm_sec),
      absl::UTCTimeZone());
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// "DNS:\"a.example.com\", IP:127.0.0.1" from the subjectAltName, or the
// subject when there is none (OpenSSL then checks the CN).
std::string NamesText(X509* cert) {
  std::unique_ptr<GENERAL_NAMES, NamesFree> names(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  if (names == nullptr || sk_GENERAL_NAME_num(names.get()) <= 0) {
    return absl::StrCat("no subjectAltName; subject ",
                        NameText(X509_get_subject_name(cert)));
  }
  std::vector<std::string> out;
  const int count = sk_GENERAL_NAME_num(names.get());
  for (int i = 0; i < count && out.size() < kMaxListedNames; ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    int type = 0;
    const ASN1_STRING* value =
        static_cast<const ASN1_STRING*>(GENERAL_NAME_get0_value(name, &type));
    if (value == nullptr) continue;
    const absl::string_view bytes(
        reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
        static_cast<size_t>(std::max(0, ASN1_STRING_length(value))));
    if (type == GEN_DNS) {
      out.push_back(absl::StrCat("DNS:", Quote(bytes)));
    } else if (type == GEN_IPADD && (bytes.size() == 4 || bytes.size() == 16)) {
      char text[INET6_ADDRSTRLEN] = {};
      inet_ntop(bytes.size() == 4 ? AF_INET : AF_INET6, bytes.data(), text,
                sizeof(text));
      out.push_back(absl::StrCat("IP:", text));
    } else if (type == GEN_URI) {
      out.push_back(absl::StrCat("URI:", Quote(bytes)));
    }
  }
  if (count > static_cast<int>(out.size())) {
    out.push_back(absl::StrCat("and ", count - out.size(), " more"));
  }
  return absl::StrJoin(out, ", ");
}

// One verification error OpenSSL met, worded when it is met (the current
// certificate is only valid inside the callback).
struct Problem {
  int kind;  // the error, or -1 for every IsUntrusted one (said once)
  int depth;
  std::string text;
};

struct VerifyState {
  const ServerCertificateCheck* check;
  std::vector<Problem> problems;
};

// The X509_STORE_CTX ex_data slot that holds a VerifyState.
int StateIndex() {
  static const int index =
      X509_STORE_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// Errors that all mean "no CA among the roots vouches for this".
bool IsUntrusted(int error) {
  switch (error) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
    case X509_V_ERR_CERT_UNTRUSTED:
      return true;
    default:
      return false;
  }
}

std::string Explain(int error, int depth, X509* cert,
                    const ServerCertificateCheck& check) {
  const std::string who =
      cert == nullptr ? absl::StrCat("a certificate at depth ", depth,
                                     " of the server's chain")
      : depth == 0    ? absl::StrCat("the server's certificate ",
                                     NameText(X509_get_subject_name(cert)))
                      : absl::StrCat("the CA certificate ",
                                     NameText(X509_get_subject_name(cert)),
                                     " (depth ", depth, " of the server's chain)");
  const std::string openssl =
      absl::StrCat(" (OpenSSL: ", X509_verify_cert_error_string(error), ")");
  if (error == X509_V_ERR_CERT_HAS_EXPIRED) {
    return absl::StrCat(who, " expired at ",
                        TimeText(cert ? X509_get0_notAfter(cert) : nullptr),
                        openssl);
  }
  if (error == X509_V_ERR_CERT_NOT_YET_VALID) {
    return absl::StrCat(who, " is not valid before ",
                        TimeText(cert ? X509_get0_notBefore(cert) : nullptr),
                        openssl);
  }
  if (IsUntrusted(error)) {
    return absl::StrCat(
        who, ", issued by ",
        cert ? NameText(X509_get_issuer_name(cert)) : "(unknown)",
        ", does not chain to a CA in ", check.roots_name, openssl);
  }
  return absl::StrCat(who, " failed verification", openssl);
}

// Records each error and carries on, so that every problem of the chain is
// listed (an expired certificate from an unknown CA has both).
int RecordAndContinue(int ok, X509_STORE_CTX* ctx) {
  if (ok == 1) return 1;
  auto* state =
      static_cast<VerifyState*>(X509_STORE_CTX_get_ex_data(ctx, StateIndex()));
  if (state == nullptr) return 0;
  const int error = X509_STORE_CTX_get_error(ctx);
  const int depth = X509_STORE_CTX_get_error_depth(ctx);
  const int kind = IsUntrusted(error) ? -1 : error;
  const bool seen = std::any_of(
      state->problems.begin(), state->problems.end(),
      [&](const Problem& p) { return p.kind == kind && p.depth == depth; });
  if (!seen && state->problems.size() < kMaxProblems) {
    state->problems.push_back(
        {kind, depth,
         Explain(error, depth, X509_STORE_CTX_get_current_cert(ctx),
                 *state->check)});
  }
  return 1;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::vector<std::string> Problems(const ServerCertificateCheck& check) {
  if (check.chain_pem.size() > kMaxChainBytes) {
    return {"the server's certificate chain is larger than 1 MiB"};
  }
  std::vector<X509Ptr> chain = ReadCertificates(check.chain_pem);
  if (chain.empty()) {
    return {"the server presented no certificate that could be read"};
  }
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  std::unique_ptr<STACK_OF(X509), StackFree> untrusted(sk_X509_new_null());
  std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
  if (store == nullptr || untrusted == nullptr || ctx == nullptr) return {};
  if (check.roots_pem.empty()) {
    X509_STORE_set_default_paths(store.get());
  } else {
    for (const X509Ptr& root : ReadCertificates(check.roots_pem)) {
      X509_STORE_add_cert(store.get(), root.get());  // takes a reference
    }
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    sk_X509_push(untrusted.get(), chain[i].get());
  }
  VerifyState state{&check, {}};
  if (X509_STORE_CTX_init(ctx.get(), store.get(), chain[0].get(),
                          untrusted.get()) != 1) {
    return {};
  }
  // As the TLS client's own check: the server purpose, and `now`.
  X509_STORE_CTX_set_default(ctx.get(), "ssl_server");
  X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx.get()),
                             absl::ToTimeT(check.now));
  if (StateIndex() < 0 ||
      X509_STORE_CTX_set_ex_data(ctx.get(), StateIndex(), &state) != 1) {
    return {};
  }
  X509_STORE_CTX_set_verify_cb(ctx.get(), RecordAndContinue);
  X509_verify_cert(ctx.get());
  std::vector<std::string> out;
  for (Problem& p : state.problems) out.push_back(std::move(p.text));

  X509* leaf = chain[0].get();
  const bool name_ok =
      check.host.empty() ||
      (IsIpLiteral(check.host)
           ? X509_check_ip_asc(leaf, check.host.c_str(), 0) == 1
           : X509_check_host(leaf, check.host.data(), check.host.size(), 0,
                             nullptr) == 1);
  if (!name_ok) {
    out.push_back(absl::StrCat("the server's certificate ",
                               NameText(X509_get_subject_name(leaf)),
                               " is not valid for the name ", Quote(check.host),
                               " (it names ", NamesText(leaf), ")"));
  }
  return out;
}

// What the diagnostic handshake saw; shared with its verifier, which grpc++
// owns and may outlive the diagnosis.
struct Fetched {
  Mutex mu;
  bool recorded ABSL_GUARDED_BY(mu) = false;
  std::string chain_pem ABSL_GUARDED_BY(mu);
  std::string target_name ABSL_GUARDED_BY(mu);
  absl::Notification done;
};

// Records the server's chain and fails the handshake, so the diagnostic
// connection never carries a request.
class RecordingVerifier final
    : public grpc::experimental::ExternalCertificateVerifier {
 public:
  explicit RecordingVerifier(std::shared_ptr<Fetched> fetched)
      : fetched_(std::move(fetched)) {}

  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
              std::function<void(grpc::Status)> /*callback*/,
              grpc::Status* sync_status) override {
    bool first = false;
    {
      MutexLock lock(&fetched_->mu);
      if (!fetched_->recorded) {
        first = fetched_->recorded = true;
        grpc::string_ref chain = request->peer_cert_full_chain();
        if (chain.empty()) chain = request->peer_cert();
        fetched_->chain_pem.assign(chain.data(),
                                   std::min(chain.size(), kMaxChainBytes + 1));
        const grpc::string_ref target = request->target_name();
        fetched_->target_name.assign(target.data(), target.size());
      }
    }
    if (first) fetched_->done.Notify();
    *sync_status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                "xdsfed: certificate fetched for diagnosis");
    return true;  // answered synchronously
  }

  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {
  }

 private:
  const std::shared_ptr<Fetched> fetched_;
};

}  // namespace

std::string ExplainServerCertificate(const ServerCertificateCheck& check) {
  std::vector<std::string> problems = Problems(check);
  // Leave OpenSSL's error queue of this thread as it was found: empty.
  ERR_clear_error();
  return absl::StrJoin(problems, "; ");
}

std::string HostOfTargetName(absl::string_view target_name) {
  if (!target_name.empty() && target_name.front() == '[') {
    const size_t close = target_name.find(']');
    if (close != absl::string_view::npos) {
      return std::string(target_name.substr(1, close - 1));
    }
    return std::string(target_name);
  }
  const size_t colon = target_name.find(':');
  // No colon: no port. More than one: a bare IPv6 address.
  if (colon == absl::string_view::npos ||
      target_name.find(':', colon + 1) != absl::string_view::npos) {
    return std::string(target_name);
  }
  return std::string(target_name.substr(0, colon));
}

std::string DiagnoseServerCertificate(const XdsServerConfig& server,
                                      absl::Duration timeout) {
  if (server.channel_creds_type() != "tls" || server.tls_config() == nullptr) {
    return "";
  }
  const schema::TlsChannelCredsConfig& tls = *server.tls_config();
  PeerCertificateProbe probe;
  probe.target = server.server_uri();
  probe.roots_file = tls.ca_certificate_file;
  probe.roots_name = tls.ca_certificate_file.empty()
                         ? "the system roots"
                         : absl::StrCat("ca_certificate_file ",
                                        Quote(tls.ca_certificate_file));
  probe.certificate_file = tls.certificate_file;
  probe.private_key_file = tls.private_key_file;
  probe.check_host = true;
  return DiagnosePeerCertificate(probe, timeout);
}

std::string DiagnosePeerCertificate(const PeerCertificateProbe& probe,
                                    absl::Duration timeout) {
  ServerCertificateCheck check;
  check.roots_name = probe.roots_name;
  if (!probe.roots_file.empty()) {
    absl::StatusOr<std::string> roots =
        ReadFileCapped(probe.roots_file, kMaxRootsFileBytes);
    if (!roots.ok()) return std::string(roots.status().message());
    check.roots_pem = *std::move(roots);
    // An empty roots text would mean "the system roots" below.
    if (check.roots_pem.empty()) check.roots_pem = "\n";
  }

  auto fetched = std::make_shared<Fetched>();
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_verify_server_certs(false);
  options.set_check_call_host(false);
  options.set_certificate_verifier(
      grpc::experimental::ExternalCertificateVerifier::Create<
          RecordingVerifier>(fetched));
  if (!probe.certificate_file.empty() && !probe.private_key_file.empty()) {
    options.set_certificate_provider(
        std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
            probe.private_key_file, probe.certificate_file,
            /*refresh_interval_sec=*/1));
    options.watch_identity_key_cert_pairs();
  }
  std::shared_ptr<grpc::ChannelCredentials> creds =
      grpc::experimental::TlsCredentials(options);
  if (creds == nullptr) return "";
  grpc::ChannelArguments args;
  // Its own connection, never one of the real channel's.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(probe.target, creds, args);
  channel->GetState(/*try_to_connect=*/true);
  if (!fetched->done.WaitForNotificationWithTimeout(timeout)) return "";
  {
    MutexLock lock(&fetched->mu);
    check.chain_pem = fetched->chain_pem;
    if (probe.check_host) check.host = HostOfTargetName(fetched->target_name);
  }
  check.now = absl::Now();
  return ExplainServerCertificate(check);
}

}  // namespace xdsfed::transport
