#include "sigil/net/multipart.h"

#include <gtest/gtest.h>

namespace sigil::net {
namespace {

TEST(Multipart, FieldsAndFilesAsABrowserSendsThem) {
  MultipartBody out = encode_multipart({{"chat_id", "42", "", ""},
                                        {"voice", std::string("OggS\0\x01", 6), "note.ogg", "audio/ogg"},
                                        {"blob", "xyz", "raw.bin", ""}},
                                       "XyZ");
  EXPECT_EQ(out.content_type, "multipart/form-data; boundary=XyZ");
  const std::string expected = std::string(
                                   "--XyZ\r\n"
                                   "Content-Disposition: form-data; name=\"chat_id\"\r\n"
                                   "\r\n"
                                   "42\r\n"
                                   "--XyZ\r\n"
                                   "Content-Disposition: form-data; name=\"voice\"; filename=\"note.ogg\"\r\n"
                                   "Content-Type: audio/ogg\r\n"
                                   "\r\n") +
                               std::string("OggS\0\x01", 6) +
                               "\r\n"
                               "--XyZ\r\n"
                               "Content-Disposition: form-data; name=\"blob\"; filename=\"raw.bin\"\r\n"
                               "Content-Type: application/octet-stream\r\n"
                               "\r\n"
                               "xyz\r\n"
                               "--XyZ--\r\n";
  EXPECT_EQ(out.body, expected);
}

TEST(Multipart, NamesCannotBreakOutOfTheirHeader) {
  MultipartBody out =
      encode_multipart({{"a\"b", "v", "evil\"\r\nX-Injected: 1.txt", "text/plain\r\nX: y"}}, "B");
  EXPECT_NE(out.body.find("name=\"a%22b\"; filename=\"evil%22%0D%0AX-Injected: 1.txt\"\r\n"),
            std::string::npos)
      << out.body;
  EXPECT_NE(out.body.find("Content-Type: text/plain%0D%0AX: y\r\n"), std::string::npos);
  EXPECT_EQ(out.body.find("\r\nX-Injected"), std::string::npos);
}

TEST(Multipart, RandomBoundaryNeverOccursInAPart) {
  MultipartBody first = encode_multipart({{"f", "data", "", ""}});
  const std::string prefix = "multipart/form-data; boundary=";
  ASSERT_EQ(first.content_type.rfind(prefix, 0), 0u);
  std::string boundary = first.content_type.substr(prefix.size());
  EXPECT_GE(boundary.size(), 20u);
  EXPECT_EQ(first.body.rfind("--" + boundary + "--\r\n"), first.body.size() - boundary.size() - 6);
  // A part that contains the caller's boundary is refused rather than sent corrupt.
  EXPECT_THROW(encode_multipart({{"f", "abc--B--def", "", ""}}, "B"), std::invalid_argument);
  EXPECT_THROW(encode_multipart({{"f", "x", "", ""}}, "bad boundary"), std::invalid_argument);
  EXPECT_THROW(encode_multipart({{"f", "x", "", ""}}, std::string(71, 'a')), std::invalid_argument);
  // Two random boundaries differ: a part made from one body cannot predict the next.
  EXPECT_NE(encode_multipart({{"f", "x", "", ""}}).content_type, first.content_type);
}

TEST(Multipart, NoPartsIsJustTheCloseDelimiter) { EXPECT_EQ(encode_multipart({}, "B").body, "--B--\r\n"); }

}  // namespace
}  // namespace sigil::net
