// Which Slack events become turns (channels/slack/inbound.h): the payloads as the fake (and Slack) send them.
#include "sigil/channels/slack/inbound.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace sigil::channels::slack {
namespace {

boost::json::object payload(const std::string& event) {
  return boost::json::parse(R"({"type":"event_callback","event_id":"Ev1","event":)" + event + "}")
      .as_object();
}

const AdmitPolicy kPolicy{{}, "U0SIGILBOT1", "B0SIGIL0001"};

TEST(SlackInbound, ADirectMessageIsAdmittedAndAnsweredAtTheTopLevel) {
  const auto m = read_event(payload(
      R"({"type":"message","channel":"D1","channel_type":"im","user":"U1","text":"hi &amp; bye","ts":"1.000001"})"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->key(), "D1:1.000001");
  EXPECT_EQ(admit(*m, kPolicy), Verdict::Admitted);
  EXPECT_EQ(thread_for(*m), "");
  EXPECT_EQ(readable_text(m->text), "hi & bye");
}

TEST(SlackInbound, AMentionInAChannelIsAnsweredInItsThread) {
  const auto m = read_event(payload(
      R"({"type":"app_mention","channel":"C1","user":"U1","text":"<@U0SIGILBOT1> hello","ts":"2.5"})"));
  ASSERT_TRUE(m);
  EXPECT_EQ(admit(*m, kPolicy), Verdict::Admitted);
  EXPECT_EQ(thread_for(*m), "2.5");
  EXPECT_EQ(without_bot_mention(m->text, "U0SIGILBOT1"), "hello");
  const auto in_thread = read_event(payload(
      R"({"type":"app_mention","channel":"C1","user":"U1","text":"<@U0SIGILBOT1> more","ts":"3.1","thread_ts":"2.5"})"));
  EXPECT_EQ(thread_for(*in_thread), "2.5");
  // The same message as a `message` event has the same key: recorded once.
  const auto as_message = read_event(payload(
      R"({"type":"message","channel":"C1","channel_type":"channel","user":"U1","text":"<@U0SIGILBOT1> hello","ts":"2.5"})"));
  EXPECT_EQ(as_message->key(), m->key());
}

TEST(SlackInbound, WhatStartsNothing) {
  const auto verdict = [](const std::string& event) { return admit(*read_event(payload(event)), kPolicy); };
  EXPECT_EQ(
      verdict(
          R"({"type":"message","channel":"D1","channel_type":"im","user":"U0SIGILBOT1","bot_id":"B0SIGIL0001","text":"mine","ts":"1.1"})"),
      Verdict::Own);
  EXPECT_EQ(
      verdict(R"({"type":"message","channel":"D1","channel_type":"im","bot_id":"B9","text":"x","ts":"1.1"})"),
      Verdict::FromBot);
  EXPECT_EQ(
      verdict(
          R"({"type":"message","subtype":"message_changed","channel":"D1","channel_type":"im","ts":"1.1"})"),
      Verdict::Subtype);
  EXPECT_EQ(
      verdict(R"({"type":"message","channel":"D1","channel_type":"im","user":"U1","text":"  ","ts":"1.1"})"),
      Verdict::NoText);
  EXPECT_EQ(
      verdict(
          R"({"type":"message","channel":"C1","channel_type":"channel","user":"U1","text":"chat","ts":"1.1"})"),
      Verdict::NotAddressed);
  AdmitPolicy only_bob = kPolicy;
  only_bob.allowed_users = {"U2"};
  EXPECT_EQ(
      admit(
          *read_event(payload(
              R"({"type":"message","channel":"D1","channel_type":"im","user":"U1","text":"x","ts":"1.1"})")),
          only_bob),
      Verdict::NotAllowed);
  EXPECT_FALSE(read_event(payload(R"({"type":"reaction_added","user":"U1"})")));
}

TEST(SlackInbound, FilesAndTheirDownloadUrls) {
  const auto m = read_event(payload(
      R"({"type":"message","subtype":"file_share","channel":"D1","channel_type":"im","user":"U1","text":"","ts":"1.1",
          "files":[{"id":"F1","name":"a.ogg","mimetype":"audio/ogg","size":5,"url_private":"https://files.slack.com/a","url_private_download":"https://files.slack.com/a/download"}]})"));
  ASSERT_TRUE(m);
  EXPECT_EQ(admit(*m, kPolicy), Verdict::Admitted);
  ASSERT_EQ(m->files.size(), 1u);
  EXPECT_EQ(m->files[0].url, "https://files.slack.com/a/download");
  EXPECT_EQ(m->files[0].size, 5);
}

TEST(SlackInbound, ReadableText) {
  EXPECT_EQ(readable_text("see <https://x.org/a?b=1&amp;c=2|the page> and <https://y.org>"),
            "see the page (https://x.org/a?b=1&c=2) and https://y.org");
  EXPECT_EQ(readable_text("<@U1> &lt;b&gt; <#C1|general>"), "<@U1> <b> <#C1|general>");
}

}  // namespace
}  // namespace sigil::channels::slack
