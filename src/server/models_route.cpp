#include "server/models_route.h"

#include <boost/json.hpp>

#include "server/query_string.h"
#include "sigil/net/url.h"

namespace sigil::server {

namespace json = boost::json;

namespace {

json::object model_object(const std::string& id, std::int64_t created) {
  return json::object{{"id", id}, {"object", "model"}, {"created", created}, {"owned_by", "sigil"}};
}

}  // namespace

PlainResponse models_response(const std::string& id, const std::string& param, std::int64_t created) {
  if (param.empty()) {
    const json::object list{{"object", "list"}, {"data", json::array{model_object(id, created)}}};
    return PlainResponse{200, "application/json", json::serialize(list), {}};
  }
  const auto wanted = net::percent_decode(param, false);
  if (wanted && *wanted == id)
    return PlainResponse{200, "application/json", json::serialize(model_object(id, created)), {}};
  const json::object error{
      {"error", json::object{{"message", "The model '" + (wanted ? *wanted : param) +
                                             "' does not exist; this gateway has '" + id + "'"},
                             {"type", "invalid_request_error"},
                             {"param", "model"},
                             {"code", "model_not_found"}}}};
  return PlainResponse{404, "application/json", json::serialize(error), {}};
}

}  // namespace sigil::server
