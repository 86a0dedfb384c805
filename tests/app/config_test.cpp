#include "app/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "app/config_test_support.h"
#include "sigil/store/sqlite.h"
#include "support/temp_dir.h"

namespace sigil::app {
namespace {

using testing::config_error;
using testing::env_of;
using testing::expect_errors;
using testing::sample_config;

const EnvLookup no_env = env_of({});

std::string error_of(std::string_view toml, const ConfigFlags& flags = {}) {
  return config_error(toml, no_env, flags);
}

TEST(Config, DefaultsWithoutFileEnvOrFlags) {
  const Config c = load_config_text("", "x.toml", {}, no_env);
  EXPECT_EQ(c.server.host, "127.0.0.1");
  EXPECT_EQ(c.server.port, 8080);
  EXPECT_EQ(c.server.api_token, "");
  EXPECT_EQ(c.server.threads, 1u);
  EXPECT_DOUBLE_EQ(c.server.messages_per_minute, 30);
  EXPECT_EQ(c.server.message_burst, 10u);
  EXPECT_EQ(c.store.data, "data");
  EXPECT_EQ(c.model.url, "");
  EXPECT_EQ(c.model.replay, "");
  EXPECT_DOUBLE_EQ(c.model.tokens_per_second, 50);
  EXPECT_FALSE(c.model.max_tokens.has_value());
  EXPECT_EQ(c.agent.max_model_calls, 6);
  EXPECT_FALSE(c.agent.say_mode);
  EXPECT_TRUE(c.actions.voice);
  EXPECT_EQ(c.actions.voice_chars_per_turn, 2000u);
  EXPECT_EQ(c.actions.voice_chars_per_minute, 6000u);
  EXPECT_EQ(c.agent.results_message_bytes, 16384u);
  EXPECT_TRUE(c.actions.file_roots.empty());
  EXPECT_EQ(c.actions.schedule_offset.count(), 0);
}

TEST(Config, ReadsEverySection) {
  const Config c = load_config_text(R"(
[server]
listen = "[::1]:9000"
api_token = "tok"
max_body = 4096
threads = 2
messages_per_minute = 12.5
message_burst = 3
public_url = "https://chat.example.org"

[store]
data = "state"

[model]
url = "https://api.example.org/v1"
key = "sk-secret"
name = "small"
replay = "/abs/replay.jsonl"
tokens_per_second = 20
timeout_seconds = 30
max_tokens = 512
temperature = 0.5

[agent]
say_mode = true
max_model_calls = 3
history_messages = 8
denied_actions = ["command"]
system_prompt = "You are terse."
results_message_bytes = 4096

[actions]
file_roots = ["files", "/srv/shared"]
allow_cleanup = true
voice = false
voice_language = "de"
voice_chars_per_turn = 500
voice_chars_per_minute = 0
react_allow = ["thumbsup", "heart"]
default_telegram_chat = "42"
schedule_utc_offset = "+01:00"
page_scripts = true

[[actions.message_targets]]
channel = "telegram"
chat = "42"

[[actions.commands]]
name = "uptime"
program = "/usr/bin/uptime"
args = ["-p"]
description = "how long the machine has been up"
timeout_seconds = 5
)",
                                    "/etc/sigil/sigil.toml", {}, no_env);
  EXPECT_EQ(c.server.host, "::1");
  EXPECT_EQ(c.server.port, 9000);
  EXPECT_EQ(c.server.api_token, "tok");
  EXPECT_EQ(c.server.max_body, 4096u);
  EXPECT_EQ(c.server.threads, 2u);
  EXPECT_DOUBLE_EQ(c.server.messages_per_minute, 12.5);
  EXPECT_EQ(c.server.message_burst, 3u);
  EXPECT_EQ(c.server.public_url, "https://chat.example.org");
  EXPECT_EQ(c.store.data, "/etc/sigil/state");  // relative to the file's folder
  EXPECT_EQ(c.model.url, "https://api.example.org/v1");
  EXPECT_EQ(c.model.key, "sk-secret");
  EXPECT_EQ(c.model.name, "small");
  EXPECT_EQ(c.model.replay, "/abs/replay.jsonl");
  EXPECT_DOUBLE_EQ(c.model.tokens_per_second, 20);
  EXPECT_EQ(c.model.timeout_seconds, 30);
  EXPECT_EQ(c.model.max_tokens, 512);
  EXPECT_DOUBLE_EQ(*c.model.temperature, 0.5);
  EXPECT_TRUE(c.agent.say_mode);
  EXPECT_EQ(c.agent.max_model_calls, 3);
  EXPECT_EQ(c.agent.history_messages, 8u);
  EXPECT_EQ(c.agent.denied_actions, std::vector<std::string>{"command"});
  EXPECT_EQ(c.agent.system_prompt, "You are terse.");
  EXPECT_EQ(c.agent.results_message_bytes, 4096u);
  EXPECT_EQ(c.actions.file_roots, (std::vector<std::string>{"/etc/sigil/files", "/srv/shared"}));
  EXPECT_TRUE(c.actions.allow_cleanup);
  EXPECT_FALSE(c.actions.voice);
  EXPECT_EQ(c.actions.voice_language, "de");
  EXPECT_EQ(c.actions.voice_chars_per_turn, 500u);
  EXPECT_EQ(c.actions.voice_chars_per_minute, 0u);
  EXPECT_EQ(c.actions.react_allow.size(), 2u);
  EXPECT_EQ(c.actions.default_telegram_chat, "42");
  EXPECT_EQ(c.actions.schedule_offset.count(), 60);
  EXPECT_TRUE(c.actions.page_scripts);
  ASSERT_EQ(c.actions.message_targets.size(), 1u);
  EXPECT_EQ(c.actions.message_targets[0].channel, "telegram");
  EXPECT_EQ(c.actions.message_targets[0].chat, "42");
  ASSERT_EQ(c.actions.commands.size(), 1u);
  EXPECT_EQ(c.actions.commands[0].name, "uptime");
  EXPECT_EQ(c.actions.commands[0].args, std::vector<std::string>{"-p"});
  EXPECT_EQ(c.actions.commands[0].timeout_seconds, 5);
}

TEST(Config, PictureSettingsOfTheModel) {
  const Config d = load_config_text("", "x.toml", {}, no_env);
  EXPECT_EQ(d.images.model, "");
  EXPECT_EQ(d.images.size, "1024x1024");
  EXPECT_FALSE(d.model.vision);
  const Config c = load_config_text(
      "[model]\nurl = \"http://127.0.0.1:9/v1\"\nimage_model = \"gpt-image-1\"\nimage_size = \"1536x1024\"\n"
      "vision = true\n",
      "x.toml", {}, no_env);
  EXPECT_EQ(c.images.model, "gpt-image-1");
  EXPECT_EQ(c.images.size, "1536x1024");
  EXPECT_EQ(c.images.url, "");
  EXPECT_TRUE(c.model.vision);
  EXPECT_THROW(load_config_text("[model]\nimage_size = \"huge\"\n", "x.toml", {}, no_env), ConfigError);
  EXPECT_THROW(load_config_text("[model]\nvision = \"yes\"\n", "x.toml", {}, no_env), ConfigError);
}

TEST(Config, AnImagesServerOfItsOwn) {
  const Config c = load_config_text(
      "[images]\nurl = \"https://images.example/v1\"\nkey = \"in-file\"\nmodel = \"gpt-image-1\"\n"
      "size = \"auto\"\n",
      "x.toml", {}, env_of({{"SIGIL_IMAGES_KEY", "from-env"}}));
  using Images = std::tuple<std::string, std::string, std::string, std::string>;
  EXPECT_EQ(Images(c.images.url, c.images.key, c.images.model, c.images.size),
            Images("https://images.example/v1", "from-env", "gpt-image-1", "auto"));
  EXPECT_NE(c.describe().find("images: model gpt-image-1, url https://images.example/v1, key (set)"),
            std::string::npos)
      << c.describe();
  EXPECT_EQ(c.describe().find("from-env"), std::string::npos);
  EXPECT_THROW(load_config_text("[images]\nurl = \"ftp://x\"\n", "x.toml", {}, no_env), ConfigError);
  EXPECT_THROW(load_config_text("[images]\nsize = \"big\"\n", "x.toml", {}, no_env), ConfigError);
  EXPECT_THROW(load_config_text("[images]\nmodels = \"a\"\n", "x.toml", {}, no_env), ConfigError);
  // One place per setting: the shorthand in [model] and [images] together are refused, naming both.
  try {
    load_config_text("[model]\nimage_model = \"a\"\n[images]\nmodel = \"b\"\n", "x.toml", {}, no_env);
    ADD_FAILURE() << "both accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("[images] model"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[model] image_model"), std::string::npos) << e.what();
  }
}

TEST(Config, EnvironmentOverridesTheFile) {
  const std::string toml = R"(
[model]
url = "http://file.example/v1"
key = "file-key"
name = "file-model"
[server]
api_token = "file-token"
)";
  const Config c = load_config_text(toml, "s.toml", {},
                                    env_of({{"SIGIL_MODEL_URL", "http://env.example/v1"},
                                            {"SIGIL_MODEL_KEY", "env-key"},
                                            {"SIGIL_MODEL", "env-model"},
                                            {"SIGIL_API_TOKEN", "env-token"}}));
  EXPECT_EQ(c.model.url, "http://env.example/v1");
  EXPECT_EQ(c.model.key, "env-key");
  EXPECT_EQ(c.model.name, "env-model");
  EXPECT_EQ(c.server.api_token, "env-token");
  // Not set in the environment: the file's value stays.
  const Config d = load_config_text(toml, "s.toml", {}, env_of({{"SIGIL_MODEL", "only-this"}}));
  EXPECT_EQ(d.model.url, "http://file.example/v1");
  EXPECT_EQ(d.model.name, "only-this");
}

TEST(Config, FlagsOverrideFileAndEnvironment) {
  ConfigFlags flags;
  flags.listen = "127.0.0.1:0";
  flags.data = "flag-data";
  const Config c = load_config_text("[server]\nlisten = \"127.0.0.1:7000\"\n[store]\ndata = \"file-data\"\n",
                                    "/x/s.toml", flags, no_env);
  EXPECT_EQ(c.server.port, 0);
  EXPECT_EQ(c.store.data, "flag-data");  // relative to the working directory, as typed
}

TEST(Config, LoadsANamedFileAndReportsAMissingOne) {
  sigil::test::TempDir dir;
  const std::string path = (dir.path() / "sigil.toml").string();
  std::ofstream(path) << "[store]\ndata = \"here\"\n";
  ConfigFlags flags;
  flags.config_file = path;
  const Config c = load_config(flags, no_env);
  EXPECT_EQ(c.file, path);
  EXPECT_EQ(c.store.data, (dir.path() / "here").string());

  flags.config_file = (dir.path() / "missing.toml").string();
  try {
    load_config(flags, no_env);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.toml: cannot read"), std::string::npos) << e.what();
  }
}

TEST(Config, UnknownKeyNamesFileLineAndKey) {
  expect_errors({
      {"[server]\nlisten = \"127.0.0.1:1\"\nlisen = \"x\"\n",
       {"/etc/sigil/sigil.toml:3:", "[server] unknown key \"lisen\"", "known: "}},
  });
}

TEST(Config, UnknownSectionIsAnError) {
  expect_errors({
      {"\n[serve]\nlisten = \"x\"\n", {"sigil.toml:2:", "unknown section \"serve\""}},
  });
}

TEST(Config, WrongTypesAreErrors) {
  expect_errors({
      {"[server]\nthreads = \"two\"\n", {"sigil.toml:2:", "[server] threads must be an integer"}},
      {"[actions]\nvoice = \"yes\"\n", {"[actions] voice must be true or false"}},
      {"[actions]\nfile_roots = \"files\"\n", {"[actions] file_roots must be an array of strings"}},
      {"[model]\ntemperature = 7\n", {"[model] temperature must be between 0 and 2"}},
      {"model = 3\n", {"sigil.toml:1:9: model must be a table ([model])"}},
      {"[[actions.message_targets]]\nchannel = \"telegram\"\n",
       {"[actions.message_targets] needs both channel and chat"}},
      {"[actions]\nschedule_utc_offset = \"Europe/Paris\"\n", {"schedule_utc_offset is not a UTC offset"}},
      {"[agent]\nresults_message_bytes = 100\n",
       {"[agent] results_message_bytes must be between 256 and 16777216"}},
      {"[actions]\nvoice_chars_per_minute = -1\n",
       {"[actions] voice_chars_per_minute must be between 0 and"}},
      {"[[actions.commands]]\nname = \"x\"\nprogam = \"y\"\n",
       {"sigil.toml:3:", "[actions.commands] unknown key \"progam\""}},
  });
}

TEST(Config, TomlSyntaxErrorsHaveAPosition) {
  const std::string e = error_of("[server]\nlisten = \n");
  EXPECT_NE(e.find("/etc/sigil/sigil.toml:2:"), std::string::npos) << e;
}

TEST(Config, BadListenAddresses) {
  expect_errors({
      {"[server]\nlisten = \"localhost\"\n", {"sigil.toml:2:", "no port"}},
      {"[server]\nlisten = \"127.0.0.1:99999\"\n", {"above 65535"}},
      // the setting is named once
      {"[server]\nlisten = \"::1:80\"\n",
       {"IPv6", "[server] listen bad address \"::1:80\""},
       {"listen listen"}},
  });
  ConfigFlags flags;
  flags.listen = "127.0.0.1:http";
  const std::string e = error_of("", flags);
  EXPECT_NE(e.find("--listen: bad address \"127.0.0.1:http\": the port is not a number"), std::string::npos)
      << e;
}

TEST(Config, NonLoopbackListenNeedsAToken) {
  const std::string e = error_of("[server]\nlisten = \"0.0.0.0:8080\"\n");
  EXPECT_NE(e.find("listen address 0.0.0.0 is reachable from other machines: set [server] api_token"),
            std::string::npos)
      << e;
  const Config c = load_config_text("[server]\nlisten = \"0.0.0.0:8080\"\n", "s.toml", {},
                                    env_of({{"SIGIL_API_TOKEN", "t"}}));
  EXPECT_EQ(c.server.host, "0.0.0.0");
}

// The commented sample holds every key with its default: loading it changes nothing.
TEST(Config, TheSampleFileHoldsTheDefaults) {
  const Config c = sample_config();
  const Config d;
  EXPECT_EQ(c.server.host, d.server.host);
  EXPECT_EQ(c.server.port, d.server.port);
  EXPECT_EQ(c.server.max_body, d.server.max_body);
  EXPECT_EQ(c.server.threads, d.server.threads);
  EXPECT_EQ(c.server.messages_per_minute, d.server.messages_per_minute);
  EXPECT_EQ(c.server.message_burst, d.server.message_burst);
  // The sample leaves the data folder unset: following its own instruction writes nothing into the
  // checkout (./data of the working directory, as without a file).
  EXPECT_EQ(c.store.data, d.store.data);
  EXPECT_EQ(c.store.max_messages_per_conversation, d.store.max_messages_per_conversation);
  EXPECT_EQ(c.model.url, d.model.url);
  EXPECT_EQ(c.model.tokens_per_second, d.model.tokens_per_second);
  EXPECT_EQ(c.model.timeout_seconds, d.model.timeout_seconds);
  EXPECT_EQ(c.agent.max_model_calls, d.agent.max_model_calls);
  EXPECT_EQ(c.agent.history_messages, d.agent.history_messages);
  EXPECT_EQ(c.actions.voice, d.actions.voice);
  EXPECT_EQ(c.actions.voice_chars_per_turn, d.actions.voice_chars_per_turn);
  EXPECT_EQ(c.actions.voice_chars_per_minute, d.actions.voice_chars_per_minute);
  EXPECT_EQ(c.agent.results_message_bytes, d.agent.results_message_bytes);
  EXPECT_EQ(c.actions.schedule_utc_offset, d.actions.schedule_utc_offset);
  EXPECT_EQ(c.search.provider, d.search.provider);
  EXPECT_EQ(c.search.url, d.search.url);
  EXPECT_EQ(c.fetch.enabled, d.fetch.enabled);
  EXPECT_EQ(c.fetch.allow_private, d.fetch.allow_private);
  EXPECT_EQ(c.fetch.max_bytes, d.fetch.max_bytes);
}

TEST(Config, DescribeNeverShowsSecrets) {
  const Config c = load_config_text(
      "[model]\nkey = \"sk-very-secret\"\n[server]\napi_token = \"tok-secret\"\n", "s.toml", {}, no_env);
  const std::string text = c.describe();
  EXPECT_EQ(text.find("sk-very-secret"), std::string::npos) << text;
  EXPECT_EQ(text.find("tok-secret"), std::string::npos) << text;
  EXPECT_NE(text.find("key (set)"), std::string::npos) << text;
}

// The history cap: the store's own default, read from [store], shown at start, 0 (keep all) allowed.
TEST(Config, StoreCapOnHistoryDefaultsToTheStoresAndIsReadFromTheFile) {
  const Config d = load_config_text("", "x.toml", {}, no_env);
  EXPECT_EQ(d.store.max_messages_per_conversation,
            store::sqlite::OpenOptions{}.max_messages_per_conversation);
  EXPECT_EQ(d.store.max_messages_per_conversation, 10'000u);

  const Config c = load_config_text("[store]\nmax_messages_per_conversation = 500\n", "x.toml", {}, no_env);
  EXPECT_EQ(c.store.max_messages_per_conversation, 500u);
  EXPECT_NE(c.describe().find("max_messages_per_conversation 500"), std::string::npos) << c.describe();
  EXPECT_EQ(load_config_text("[store]\nmax_messages_per_conversation = 0\n", "x.toml", {}, no_env)
                .store.max_messages_per_conversation,
            0u);

  for (const char* bad : {"-1", "1000000001", "\"many\""}) {
    const std::string e = error_of(std::string("[store]\nmax_messages_per_conversation = ") + bad + "\n");
    EXPECT_NE(e.find("max_messages_per_conversation"), std::string::npos) << bad << ": " << e;
  }
}

}  // namespace
}  // namespace sigil::app
