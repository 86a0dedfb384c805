// Published pages, the embedded web page and media downloads, answered without sockets
// (server/resource_routes.h, server/content_disposition.h).
#include "server/resource_routes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "server/content_disposition.h"
#include "sigil/deliver/delivery.h"
#include "sigil/store/sha256.h"
#include "store/store_test_support.h"

namespace sigil::server {
namespace {

TEST(ContentDispositionTest, QuotedNameIsPrintableAsciiAndTheOriginalGoesInFilenameStar) {
  EXPECT_EQ(ascii_file_name("report.pdf"), "report.pdf");
  EXPECT_EQ(ascii_file_name("a\"b\\c/d\te"), "a_b_c_d_e");
  EXPECT_EQ(ascii_file_name("caf\xC3\xA9.txt"), "caf__.txt");
  EXPECT_EQ(ascii_file_name(""), "file");
  EXPECT_EQ(content_disposition(false, "caf\xC3\xA9 1.txt"),
            "attachment; filename=\"caf__ 1.txt\"; filename*=UTF-8''caf%C3%A9%201.txt");
  EXPECT_EQ(content_disposition(true, "note.ogg"),
            "inline; filename=\"note.ogg\"; filename*=UTF-8''note.ogg");
}

TEST(ResourceRoutesTest, PagesAreSandboxedAndUnknownSlugsAre404) {
  store::testing::TempDir dir;
  auto db = store::testing::open_or_fail(dir.file("sigil.db"));
  auto page = db->put_page(store::Scope{"u", "c"}, "Plan", "<h1>Plan</h1>", false, store::testing::kT0);
  ASSERT_TRUE(page.ok());
  PlainResponse res = page_response(*db, page->slug);
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(res.body, "<h1>Plan</h1>");
  EXPECT_EQ(res.header("Content-Security-Policy").rfind("sandbox;", 0), 0u);
  EXPECT_EQ(res.header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(res.header("Cache-Control"), "no-store");

  res = page_response(*db, "no-such-page");
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.body, "no such page");
}

TEST(ResourceRoutesTest, AssetsCarryTheWebPagesPolicy) {
  PlainResponse res = asset_response("index.html");
  ASSERT_EQ(res.status, 200);  // web/ is embedded in the test binary
  EXPECT_EQ(res.content_type, "text/html; charset=utf-8");
  EXPECT_NE(res.header("Content-Security-Policy").find("frame-ancestors 'none'"), std::string::npos);
  EXPECT_EQ(res.header("Referrer-Policy"), "no-referrer");
  EXPECT_EQ(res.header("Cache-Control"), "no-cache");
  EXPECT_EQ(asset_response("app.js").status, 200);
  res = asset_response("missing.js");
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.body, "no such file");
}

TEST(ResourceRoutesTest, MediaFromMemoryAndFromDisk) {
  MediaStore memory("");
  auto info = memory.put(*deliver::make_bytes_payload("hello", "caf\xC3\xA9.txt", ""), false);
  ASSERT_TRUE(info.ok()) << info.error();
  MediaResponse res = media_response(memory, info->sha256 + "/caf%C3%A9.txt");
  EXPECT_EQ(res.response.status, 200);
  EXPECT_FALSE(res.file.has_value());
  EXPECT_EQ(res.response.body, "hello");
  EXPECT_EQ(res.response.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(res.response.header("Content-Disposition"),
            "attachment; filename=\"caf__.txt\"; filename*=UTF-8''caf%C3%A9.txt");
  EXPECT_EQ(res.response.header("Content-Security-Policy"), "sandbox");
  EXPECT_EQ(res.response.header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(res.response.header("Cache-Control"), "private, max-age=31536000, immutable");
  EXPECT_EQ(media_response(memory, info->sha256).response.status, 200);  // the first delivery's name

  store::testing::TempDir dir;
  MediaStore disk(dir.file("media"));
  auto voice = disk.put(*deliver::make_bytes_payload("OggS", "note.ogg", "audio/ogg"), true);
  ASSERT_TRUE(voice.ok()) << voice.error();
  res = media_response(disk, voice->sha256 + "/note.ogg");
  EXPECT_EQ(res.response.status, 200);
  ASSERT_TRUE(res.file.has_value());
  EXPECT_TRUE(std::filesystem::exists(*res.file));
  EXPECT_TRUE(res.response.body.empty());
  EXPECT_EQ(res.response.content_type, "audio/ogg");
  EXPECT_EQ(res.response.header("Content-Disposition").rfind("inline;", 0), 0u);
}

TEST(ResourceRoutesTest, MediaRefusals) {
  MediaStore memory("");
  auto info = memory.put(*deliver::make_bytes_payload("hello", "a.txt", ""), false);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(media_response(memory, "").response.status, 400);
  EXPECT_EQ(media_response(memory, "../etc/passwd").response.status, 400);
  EXPECT_EQ(media_response(memory, std::string(64, 'A') + "/a.txt").response.status, 400);
  EXPECT_EQ(media_response(memory, store::sha256_hex("other") + "/a.txt").response.status, 404);
  EXPECT_EQ(media_response(memory, info->sha256 + "/a%2Fb.txt").response.status, 404);  // no '/' in a name
  EXPECT_EQ(media_response(memory, info->sha256 + "/a%zz").response.status, 404);
  EXPECT_FALSE(media_response(memory, "").file.has_value());
}

}  // namespace
}  // namespace sigil::server
