// [search] and [fetch] in sigil.toml: read strictly, checked for what the actions need, the key from
// SIGIL_SEARCH_KEY, and never printed.
#include <gtest/gtest.h>

#include <map>

#include "app/config.h"
#include "app/config_test_support.h"

namespace sigil::app {
namespace {

using testing::config_error;
using testing::env_of;

std::string error_of(std::string_view toml, const EnvLookup& env = env_of({})) {
  return config_error(toml, env, {}, "sigil.toml");
}

TEST(WebConfig, DefaultsAreNoSearchAndFetchingOn) {
  const Config c = load_config_text("", "sigil.toml", {}, env_of({}));
  EXPECT_EQ(c.search.provider, "");
  EXPECT_TRUE(c.fetch.enabled);
  EXPECT_TRUE(c.fetch.allow_private.empty());
  EXPECT_EQ(c.fetch.max_bytes, 2097152u);
}

TEST(WebConfig, ReadsBothSections) {
  const Config c = load_config_text(R"(
[search]
provider = "searxng"
url = "http://127.0.0.1:8888"

[fetch]
enabled = false
allow_private = ["wiki.lan", "10.0.0.0/8", "fd00::/8"]
max_bytes = 65536
)",
                                    "sigil.toml", {}, env_of({}));
  EXPECT_EQ(c.search.provider, "searxng");
  EXPECT_EQ(c.search.url, "http://127.0.0.1:8888");
  EXPECT_FALSE(c.fetch.enabled);
  EXPECT_EQ(c.fetch.allow_private, (std::vector<std::string>{"wiki.lan", "10.0.0.0/8", "fd00::/8"}));
  EXPECT_EQ(c.fetch.max_bytes, 65536u);
}

TEST(WebConfig, TheKeyComesFromTheEnvironmentAndIsNeverPrinted) {
  const Config c = load_config_text("[search]\nprovider = \"brave\"\napi_key = \"from-file\"\n", "sigil.toml",
                                    {}, env_of({{"SIGIL_SEARCH_KEY", "from-env-secret"}}));
  EXPECT_EQ(c.search.api_key, "from-env-secret");
  const std::string described = c.describe();
  EXPECT_EQ(described.find("from-env-secret"), std::string::npos);
  EXPECT_NE(described.find("search: provider brave, api_key (set)"), std::string::npos) << described;
  EXPECT_NE(described.find("fetch: on, allow_private 0, max_bytes 2097152"), std::string::npos) << described;
}

TEST(WebConfig, MistakesNameTheKey) {
  EXPECT_EQ(error_of("[search]\nprovider = \"google\"\n"),
            "sigil.toml:2:12: [search] provider must be \"brave\", \"tavily\", \"searxng\" or \"\", not "
            "\"google\"");
  EXPECT_EQ(error_of("[search]\nprovider = \"tavily\"\n"),
            "[search] provider \"tavily\" needs api_key (or SIGIL_SEARCH_KEY)");
  EXPECT_EQ(error_of("[search]\nprovider = \"tavily\"\n", env_of({{"SIGIL_SEARCH_KEY", "k"}})), "(no error)");
  EXPECT_EQ(error_of("[search]\nprovider = \"searxng\"\n"),
            "[search] provider \"searxng\" needs url: the instance's address, e.g. http://127.0.0.1:8888");
  EXPECT_NE(error_of("[search]\nurl = \"ftp://x\"\n").find("[search] url must start with http://"),
            std::string::npos);
  EXPECT_NE(error_of("[search]\nkey = \"x\"\n").find("[search] unknown key \"key\""), std::string::npos);
  EXPECT_NE(error_of("[fetch]\nallow_private = [\"10.0.0.0/99\"]\n")
                .find("[fetch] allow_private \"10.0.0.0/99\" is not"),
            std::string::npos)
      << error_of("[fetch]\nallow_private = [\"10.0.0.0/99\"]\n");
  EXPECT_NE(error_of("[fetch]\nmax_bytes = 10\n").find("[fetch] max_bytes must be between 1024"),
            std::string::npos);
  EXPECT_NE(error_of("[fetch]\nenabled = \"yes\"\n").find("[fetch] enabled must be true or false"),
            std::string::npos);
}

}  // namespace
}  // namespace sigil::app
