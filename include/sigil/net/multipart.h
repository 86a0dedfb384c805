// multipart/form-data bodies (RFC 7578), for uploads: a voice note to Telegram, a file to Discord.
//
// Promises: the body is exactly what a browser would send for the same form, with CRLF line ends; the
// boundary never occurs inside any part (a random one is drawn again until it does not, or the caller's
// is refused); names and file names are quoted as the WHATWG HTML standard does (" → %22, CR → %0D,
// LF → %0A), so no value can break out of its header. Pure: no I/O.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace sigil::net {

struct MultipartPart {
  std::string name;          // the form field's name
  std::string data;          // the value or the file's bytes
  std::string filename;      // non-empty: the part is a file
  std::string content_type;  // for files; empty means application/octet-stream
};

struct MultipartBody {
  std::string content_type;  // "multipart/form-data; boundary=..."
  std::string body;
};

// `boundary` empty: a random one. Throws std::invalid_argument for a caller's boundary that is not 1..70
// characters of the RFC 2046 set or that occurs inside a part.
MultipartBody encode_multipart(const std::vector<MultipartPart>& parts, std::string boundary = {});

}  // namespace sigil::net
