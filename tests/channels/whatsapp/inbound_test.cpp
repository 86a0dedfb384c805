// WhatsApp's inbound side (channels/whatsapp/inbound.h, webhook_receiver.h): the signature over the raw body
// (a known answer computed outside sigil, then good, wrong, missing, one byte changed), the subscription's
// verification, payloads read as the fake (tests/fakes/whatsapp.mjs) sends them, admission, and a webhook
// delivery retried after a failed record taken once.
#include "sigil/channels/whatsapp/inbound.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/json/serialize.hpp>
#include <set>

#include "channels/whatsapp/whatsapp_fake.h"
#include "sigil/channels/whatsapp/webhook_receiver.h"

namespace sigil::channels::whatsapp {
namespace {

using testing::kAlice;
using testing::kAppSecret;
using testing::kPhoneNumberId;

// A payload and its signature as Node's crypto computed them (createHmac("sha256", the fake's app secret)).
const std::string kBody =
    R"({"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},"contacts":[{"profile":{"name":"Alice"},"wa_id":"16505551234"}],"messages":[{"from":"16505551234","id":"wamid.HBgLMTY1MDU1NTEyMzQVAgASGAA=","timestamp":"1795950000","type":"text","text":{"body":"hello"}}]},"field":"messages"}]}]})";
const std::string kSignature = "sha256=e9080ccb3c679dd5db87c119d88ae91f37d56706f1855c94c0069d8effd6e3ba";

std::string sign(const std::string& body, const std::string& secret = kAppSecret) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &n);
  std::string out = "sha256=";
  for (unsigned int i = 0; i < n; ++i) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 15];
  }
  return out;
}

TEST(WhatsAppSignature, MatchesOnlyTheExactBodyWithTheSecret) {
  EXPECT_TRUE(signature_matches(kAppSecret, kSignature, kBody));
  std::string upper = kSignature;
  for (std::size_t i = 7; i < upper.size(); ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
  EXPECT_TRUE(signature_matches(kAppSecret, upper, kBody));  // hex in either case
  EXPECT_FALSE(signature_matches("another-secret", kSignature, kBody));
  EXPECT_FALSE(signature_matches(kAppSecret, "", kBody));
  EXPECT_FALSE(signature_matches(kAppSecret, "sha1=" + kSignature.substr(7), kBody));
  EXPECT_FALSE(signature_matches(kAppSecret, kSignature.substr(0, kSignature.size() - 1), kBody));
  EXPECT_FALSE(signature_matches("", sign(kBody, ""), kBody));  // no secret configured: nothing matches
  // The body changed by one byte.
  for (std::size_t at : {std::size_t{0}, kBody.size() / 2, kBody.size() - 1}) {
    std::string changed = kBody;
    changed[at] = static_cast<char>(changed[at] ^ 1);
    EXPECT_FALSE(signature_matches(kAppSecret, kSignature, changed)) << at;
  }
}

TEST(WhatsAppVerification, AnswersTheChallengeOnlyForTheVerifyToken) {
  EXPECT_EQ(verification_answer("hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=tok", "tok"),
            "1158201444");
  EXPECT_EQ(verification_answer("hub.verify_token=a%20b&hub.mode=subscribe&hub.challenge=x", "a b"), "x");
  EXPECT_FALSE(verification_answer("hub.mode=subscribe&hub.challenge=1&hub.verify_token=nope", "tok"));
  EXPECT_FALSE(verification_answer("hub.mode=unsubscribe&hub.challenge=1&hub.verify_token=tok", "tok"));
  EXPECT_FALSE(verification_answer("hub.mode=subscribe&hub.verify_token=tok", "tok"));
  EXPECT_FALSE(verification_answer("hub.mode=subscribe&hub.challenge=1&hub.verify_token=", ""));
}

TEST(WhatsAppInbound, ReadsATextMessageAndAdmitsByPhoneNumber) {
  const auto p = read_payload(kBody);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->messages.size(), 1u);
  const InboundMessage& m = p->messages[0];
  EXPECT_EQ(m.id, "wamid.HBgLMTY1MDU1NTEyMzQVAgASGAA=");
  EXPECT_EQ(m.from, kAlice);
  EXPECT_EQ(m.name, "Alice");
  EXPECT_EQ(m.text, "hello");
  EXPECT_EQ(m.phone_number_id, kPhoneNumberId);
  EXPECT_EQ(admit(m, {kPhoneNumberId, {}}), Verdict::Admitted);
  EXPECT_EQ(admit(m, {kPhoneNumberId, {"+1 (650) 555-1234"}}), Verdict::Admitted);
  EXPECT_EQ(admit(m, {kPhoneNumberId, {"447700900123"}}), Verdict::NotAllowed);
  EXPECT_EQ(admit(m, {"999", {}}), Verdict::OtherNumber);
  EXPECT_FALSE(read_payload(R"({"object":"page","entry":[]})"));
  EXPECT_FALSE(read_payload("not json"));
}

class WhatsAppInboundFake : public testing::WhatsAppFakeTest {};

TEST_F(WhatsAppInboundFake, ReadsTheFakesVoiceNoteDocumentReactionAndStatuses) {
  const std::string ogg = "T2dnUwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";  // "OggS…", base64
  auto voice = fake.user_message({{"audio", {{"name", "v.ogg"}, {"data_base64", ogg}, {"voice", true}}}});
  auto doc = fake.user_message(
      {{"document", {{"name", "notes.pdf"}, {"data_base64", "JVBERi0xLjQK"}, {"caption", "mine"}}},
       {"context", voice.at("message").at("id")}});
  auto reaction =
      fake.user_message({{"reaction", {{"message_id", voice.at("message").at("id")}, {"emoji", "👍"}}}});
  auto read = [](const boost::json::object& injected) {
    auto p = read_payload(boost::json::serialize(injected.at("payload")));
    EXPECT_TRUE(p && p->messages.size() == 1u);
    return p->messages.at(0);
  };
  const InboundMessage v = read(voice);
  EXPECT_EQ(v.type, "audio");
  ASSERT_TRUE(v.media);
  EXPECT_TRUE(v.media->voice);
  EXPECT_EQ(v.media->mime_type, "audio/ogg; codecs=opus");
  EXPECT_EQ(admit(v, {kPhoneNumberId, {}}), Verdict::Admitted);
  const InboundMessage d = read(doc);
  ASSERT_TRUE(d.media);
  EXPECT_EQ(d.media->filename, "notes.pdf");
  EXPECT_EQ(d.text, "mine");
  EXPECT_EQ(d.context_id, v.id);
  const InboundMessage r = read(reaction);
  EXPECT_EQ(r.reaction_to, v.id);
  EXPECT_EQ(r.reaction_emoji, "👍");
  EXPECT_EQ(admit(r, {kPhoneNumberId, {}}), Verdict::Unsupported);  // a reaction starts no turn

  const auto failed = read_payload(
      R"({"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"statuses":[{"id":"wamid.X","status":"failed","recipient_id":"15005550006","errors":[{"code":131026,"title":"Message undeliverable","error_data":{"details":"Message Undeliverable."}}]}]}}]}]})");
  ASSERT_TRUE(failed);
  ASSERT_EQ(failed->statuses.size(), 1u);
  EXPECT_EQ(failed->statuses[0].error_code, 131026);
  EXPECT_EQ(failed->statuses[0].error, "Message undeliverable: Message Undeliverable.");
}

// The receiver with a store stand-in: a set of recorded wamids, whose first write fails (a crash before the
// record, as far as Meta can tell: no 200).
TEST_F(WhatsAppInboundFake, ARetriedDeliveryIsTakenOnceAndBadSignaturesNever) {
  std::set<std::string> recorded;
  int turns = 0, calls = 0;
  WebhookReceiver receiver({kAppSecret, testing::kVerifyToken, {kPhoneNumberId, {kAlice}}},
                           [&](const InboundMessage& m) {
                             if (++calls == 1) return false;  // the store failed
                             if (recorded.insert(m.id).second) ++turns;
                             return true;
                           });
  const std::string body = boost::json::serialize(fake.user_message({{"text", "hi"}}).at("payload"));
  const std::string sig = sign(body);
  EXPECT_EQ(receiver.receive("", body).status, 401);
  EXPECT_EQ(receiver.receive(sign(body, "wrong"), body).status, 403);
  std::string changed = body;
  changed[changed.find("\"hi\"") + 1] = 'H';  // the text, one byte
  EXPECT_EQ(receiver.receive(sig, changed).status, 403);
  EXPECT_EQ(calls, 0);  // nothing of a refused body was read
  EXPECT_EQ(receiver.stats().refused, 3u);

  EXPECT_EQ(receiver.receive(sig, body).status, 500);  // not recorded: Meta delivers it again
  EXPECT_EQ(receiver.receive(sig, body).status, 200);
  EXPECT_EQ(receiver.receive(sig, body).status, 200);  // a redelivery of a recorded message
  EXPECT_EQ(turns, 1);
  EXPECT_EQ(recorded.size(), 1u);

  // Another user's message is ignored (allowed_users), answered 200 so Meta stops.
  const std::string other =
      boost::json::serialize(fake.user_message({{"from", "447700900123"}, {"text", "me too"}}).at("payload"));
  EXPECT_EQ(receiver.receive(sign(other), other).status, 200);
  EXPECT_EQ(receiver.stats().ignored, 1u);
  EXPECT_EQ(turns, 1);

  EXPECT_EQ(
      receiver.verify("hub.mode=subscribe&hub.challenge=42&hub.verify_token=sigil-fake-verify-token").body,
      "42");
  EXPECT_EQ(receiver.verify("hub.mode=subscribe&hub.challenge=42&hub.verify_token=x").status, 403);
  receiver.stop();
  EXPECT_EQ(receiver.receive(sig, body).status, 503);
}

}  // namespace
}  // namespace sigil::channels::whatsapp
