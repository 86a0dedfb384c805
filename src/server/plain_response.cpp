#include "server/plain_response.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace sigil::server {

std::string_view PlainResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return {};
}

PlainResponse json_error(int status, std::string_view message) {
  PlainResponse res;
  res.status = status;
  res.content_type = "application/json";
  res.body = boost::json::serialize(boost::json::object{{"error", message}});
  return res;
}

PlainResponse text_response(int status, std::string body, std::string_view type) {
  PlainResponse res;
  res.status = status;
  res.content_type = std::string(type);
  res.body = std::move(body);
  return res;
}

}  // namespace sigil::server
