// The MCP argument checker: what it catches, the message the model gets, and what it leaves to the server.
#include "sigil/actions/mcp_schema.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace sigil::actions {
namespace {

namespace json = boost::json;

json::object schema(const char* text) { return json::parse(text).as_object(); }

std::string error_of(const json::object& s, const char* arguments) {
  auto r = check_mcp_arguments(s, json::parse(arguments));
  return r ? std::string("ok") : r.error();
}

const char* kSchema = R"({
  "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
  "properties": {
    "message": {"type": "string"}, "count": {"type": "integer"}, "ratio": {"type": "number"},
    "loud": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
    "options": {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"]},
    "kind": {"type": "string", "enum": ["error", "success"]}, "maybe": {"type": ["string", "null"]}
  },
  "required": ["message"], "additionalProperties": false, "minProperties": 1})";

TEST(McpSchema, ArgumentsThatFitPass) {
  const auto s = schema(kSchema);
  EXPECT_EQ(error_of(s, R"({"message": "hi"})"), "ok");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "count": 3, "ratio": 0.5, "loud": true, "tags": ["a"],
                           "options": {"depth": 2}, "kind": "error", "maybe": null})"),
            "ok");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "count": 3.0, "ratio": 2})"), "ok");  // 3.0 is an integer
  // Keywords the checker does not know are the server's: an extra property passes here.
  EXPECT_EQ(error_of(s, R"({"message": "hi", "extra": 1})"), "ok");
}

TEST(McpSchema, EachMismatchIsNamedWithItsPath) {
  const auto s = schema(kSchema);
  EXPECT_EQ(error_of(s, R"({})"), "arguments.message is required");
  EXPECT_EQ(error_of(s, R"([])"), "arguments must be object, not an array");
  EXPECT_EQ(error_of(s, R"({"message": 5})"), "arguments.message must be string, not an integer");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "count": 1.5})"),
            "arguments.count must be integer, not a number");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "ratio": "1"})"),
            "arguments.ratio must be number, not a string");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "loud": "yes"})"),
            "arguments.loud must be boolean, not a string");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "tags": ["a", 2]})"),
            "arguments.tags[1] must be string, not an integer");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "options": {}})"), "arguments.options.depth is required");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "kind": "debug"})"),
            R"(arguments.kind must be one of ["error","success"], not "debug")");
  EXPECT_EQ(error_of(s, R"({"message": "hi", "maybe": 1})"),
            "arguments.maybe must be string or null, not an integer");
}

TEST(McpSchema, AnEmptySchemaTakesAnything) {
  EXPECT_EQ(error_of(json::object(), R"({"a": [1, {"b": null}]})"), "ok");
  EXPECT_EQ(error_of(schema(R"({"type": "object"})"), R"({"a": 1})"), "ok");
}

}  // namespace
}  // namespace sigil::actions
