// A TLS test's two halves of trust: the self-signed identity its server serves, and a CA file naming that
// certificate for its client's `ca_file`, in a temporary folder that lives as long as this does.
#pragma once

#include <fstream>
#include <string>

#include "support/fake_openai_server.h"
#include "support/temp_dir.h"

namespace sigil::testing {

class TrustedIdentity {
 public:
  explicit TrustedIdentity(const std::string& common_name = "localhost")
      : identity(make_self_signed_identity(common_name)), ca_file(dir_.file("ca.pem")) {
    std::ofstream(ca_file) << identity.cert_pem;
  }

 private:
  sigil::test::TempDir dir_;  // first: ca_file is a path inside it

 public:
  const TlsIdentity identity;
  const std::string ca_file;
};

}  // namespace sigil::testing
