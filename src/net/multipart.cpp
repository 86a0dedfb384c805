#include "sigil/net/multipart.h"

#include <string_view>

#include "sigil/text/random_id.h"

namespace sigil::net {

namespace {

std::string quote(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '"') {
      out += "%22";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string random_boundary() {
  return text::random_id("----sigil", 24, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
}

bool valid_boundary(std::string_view b) {
  static constexpr std::string_view kAllowed =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=?";
  if (b.empty() || b.size() > 70) return false;
  for (char c : b) {
    if (kAllowed.find(c) == std::string_view::npos) return false;
  }
  return true;
}

bool occurs_in_parts(const std::vector<MultipartPart>& parts, std::string_view boundary) {
  for (const MultipartPart& part : parts) {
    if (part.data.find(boundary) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

MultipartBody encode_multipart(const std::vector<MultipartPart>& parts, std::string boundary) {
  if (boundary.empty()) {
    do boundary = random_boundary();
    while (occurs_in_parts(parts, boundary));
  } else if (!valid_boundary(boundary)) {
    throw std::invalid_argument("multipart: boundary must be 1..70 characters of the RFC 2046 set");
  } else if (occurs_in_parts(parts, boundary)) {
    throw std::invalid_argument("multipart: boundary \"" + boundary + "\" occurs inside a part");
  }
  MultipartBody out;
  out.content_type = "multipart/form-data; boundary=" + boundary;
  std::size_t size = 0;
  for (const MultipartPart& part : parts)
    size += part.data.size() + part.name.size() + part.filename.size() + 160;
  out.body.reserve(size + boundary.size() + 8);
  for (const MultipartPart& part : parts) {
    out.body += "--" + boundary + "\r\n";
    out.body += "Content-Disposition: form-data; name=\"" + quote(part.name) + "\"";
    if (!part.filename.empty()) {
      out.body += "; filename=\"" + quote(part.filename) + "\"\r\n";
      out.body +=
          "Content-Type: " +
          (part.content_type.empty() ? std::string("application/octet-stream") : quote(part.content_type)) +
          "\r\n";
    } else {
      out.body += "\r\n";
    }
    out.body += "\r\n";
    out.body += part.data;
    out.body += "\r\n";
  }
  out.body += "--" + boundary + "--\r\n";
  return out;
}

}  // namespace sigil::net
