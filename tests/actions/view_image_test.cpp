// viewImage (issue 13, item 6) on real loopback servers behind a stub resolver (as fetch_page_test: the
// stub maps *.test to 127.0.0.1 and allow_private ["127.0.0.1"] makes that count as public), and on files
// in the send-file folders.
#include "sigil/actions/view_image.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "sigil/actions/builtin_handlers.h"
#include "sigil/text/base64.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_openai_server.h"
#include "support/run_turn.h"
#include "support/stub_resolver.h"
#include "support/temp_dir.h"

namespace sigil::actions {
namespace {

using namespace std::chrono_literals;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;

const std::string kPng = *text::base64_decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==");
const std::string kDataUrl =
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

FakeResponse answer(std::string body, std::string type) {
  FakeResponse r;
  r.body = std::move(body);
  r.content_type = std::move(type);
  return r;
}

struct Harness {
  Harness() {
    std::ofstream(dir.file("pic.png"), std::ios::binary) << kPng;
    std::ofstream(dir.file("notes.txt")) << "not a picture";
    config.enabled = true;
    config.fetch.resolver = dns;
    config.fetch.allow_private = {"127.0.0.1"};
    config.fetch.http = std::make_shared<net::HttpClient>(std::make_shared<net::IoThreads>());
    config.fetch.timeout = 5s;
    FileSandbox::Options o;
    o.roots = {dir.path()};
    config.files = std::make_shared<const FileSandbox>(std::move(*FileSandbox::create(std::move(o))));
    dns->set("public.test", {{"127.0.0.1"}});
    dns->set("intranet.test", {{"10.0.0.7"}});
  }
  std::string url(const std::string& path, const std::string& host = "public.test") const {
    return "http://" + host + ":" + std::to_string(server.port()) + path;
  }
  Result<ViewedImage> view(const std::string& where) { return view_image(config, *config.fetch.http, where); }
  exec::HandlerTable table() const {
    exec::HandlerTable t;
    add_view_image_handlers(t, config);
    return t;
  }

  test::TempDir dir{"sigil-view"};
  FakeOpenAiServer server;
  std::shared_ptr<test::StubResolver> dns = std::make_shared<test::StubResolver>();
  ViewImageConfig config;
};

TEST(ViewImage, AFileInTheFoldersBecomesAPictureForTheModel) {
  Harness h;
  auto store = store::sqlite::SqliteStore::open(":memory:");
  ASSERT_TRUE(store);
  auto run = test::run_turn("Let me look. <viewImage>pic.png</viewImage> It is a cat.", h.table(), **store);
  ASSERT_EQ(run.report.results.size(), 1u);
  const exec::ResultEntry& r = run.report.results[0];
  ASSERT_EQ(r.status, exec::ResultStatus::Ok) << r.message;
  EXPECT_EQ(r.message, "the picture pic.png (PNG, 70 bytes) is attached to this message");
  EXPECT_EQ(r.result.at(kModelImageKey).as_string(), kDataUrl);
  EXPECT_EQ(r.result.at("mimeType"), "image/png");
  EXPECT_EQ(run.text(), "Let me look.");  // interrupting: the guess after it is not shown
  EXPECT_EQ(run.model_message,
            "[1] viewImage: ok: the picture pic.png (PNG, 70 bytes) is attached to this message\n");
}

TEST(ViewImage, AUrlIsFetchedThroughTheGuard) {
  Harness h;
  h.server.enqueue(answer(kPng, "image/png"));
  auto got = h.view(h.url("/fox.png"));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->bytes, kPng);
  EXPECT_EQ(got->mime_type, "image/png");
  EXPECT_EQ(got->source, h.url("/fox.png"));
  ASSERT_EQ(h.server.request_count(), 1u);
  EXPECT_EQ(h.server.requests()[0].target, "/fox.png");
}

TEST(ViewImage, PrivateAddressesAreRefusedWithTheReason) {
  Harness h;
  h.config.fetch.allow_private.clear();
  auto loopback = h.view(h.url("/x.png", "127.0.0.1"));
  ASSERT_FALSE(loopback);
  EXPECT_NE(loopback.error().message.find("refused http://127.0.0.1:"), std::string::npos);
  EXPECT_NE(loopback.error().message.find("loopback"), std::string::npos) << loopback.error().message;
  auto intranet = h.view(h.url("/x.png", "intranet.test"));
  ASSERT_FALSE(intranet);
  EXPECT_NE(intranet.error().message.find("private (10.0.0.0/8)"), std::string::npos)
      << intranet.error().message;
  EXPECT_EQ(h.server.request_count(), 0u);
}

TEST(ViewImage, OnlyPicturesWithinTheCapAreViewed) {
  Harness h;
  h.server.enqueue(answer("<html>hi</html>", "text/html"));
  auto page = h.view(h.url("/page"));
  ASSERT_FALSE(page);
  EXPECT_EQ(page.error().message,
            h.url("/page") + " is of type text/html: only pictures (image/*) are viewed");

  h.server.enqueue(answer("GIF? no", "image/gif"));
  auto fake = h.view(h.url("/fake.gif"));
  ASSERT_FALSE(fake);
  EXPECT_EQ(fake.error().message, h.url("/fake.gif") + " is not a PNG, JPEG, WebP or GIF picture");

  h.config.max_bytes = 64;
  h.server.enqueue(answer(kPng, "image/png"));
  auto big = h.view(h.url("/big.png"));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, h.url("/big.png") + " is larger than 64 bytes, the limit for pictures");

  auto file = h.view("notes.txt");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message, "notes.txt is not a PNG, JPEG, WebP or GIF picture");
  auto outside = h.view("../etc/passwd");
  ASSERT_FALSE(outside);
  auto scheme = h.view("file:///etc/passwd");
  ASSERT_FALSE(scheme);
  EXPECT_EQ(scheme.error().message,
            "\"file:///etc/passwd\": only http(s) URLs and paths in the file folders are viewed");
}

TEST(ViewImage, TurnedOffItSaysSoAndShowsNoMarkup) {
  exec::HandlerTable table;
  add_view_image_handlers(table, ViewImageConfig{});
  auto store = store::sqlite::SqliteStore::open(":memory:");
  ASSERT_TRUE(store);
  auto run = test::run_turn("A <viewImage>https://example.com/a.png</viewImage>", table, **store);
  EXPECT_EQ(run.report.results.at(0).message,
            "viewImage: the model on this server cannot see pictures ([model] vision)");
  EXPECT_EQ(run.text(), "A");
}

}  // namespace
}  // namespace sigil::actions
