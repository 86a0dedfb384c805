// The OpenAI-compatible embeddings client (embeddings.h), a blocking call on net::HttpClient.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <future>
#include <mutex>
#include <stdexcept>

#include "sigil/model/embeddings.h"
#include "sigil/net/http_client.h"
#include "sigil/net/http_fetch.h"
#include "sigil/net/url.h"
#include "sigil/text/diagnostic_text.h"

namespace sigil::model {
namespace {

namespace json = boost::json;

class OpenAiEmbeddings final : public Embeddings {
 public:
  explicit OpenAiEmbeddings(EmbeddingsConfig config) : config_(std::move(config)) {
    auto parsed = net::parse_url(config_.base_url);
    if (auto* error = std::get_if<std::string>(&parsed))
      throw std::invalid_argument("embeddings: url: " + *error);
    const net::Url& url = std::get<net::Url>(parsed);
    if (url.scheme != "http" && url.scheme != "https")
      throw std::invalid_argument("embeddings: url must start with http:// or https://");
    where_ = url.where();
    url_ = net::without_trailing_slashes(config_.base_url) + "/embeddings";
    io_ = std::make_shared<net::IoThreads>(1);
    net::HttpClientConfig http_config;
    http_config.ca_file = config_.ca_file;
    http_ = std::make_unique<net::HttpClient>(io_, http_config);
  }

  bool available() const override { return available_.load(); }
  const std::string& model() const override { return config_.model; }

  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) override {
    if (!available_.load())
      return Failure{"embeddings: " + where_ + " offers no embeddings (" + why_off() + ")"};
    if (texts.empty()) return std::vector<std::vector<float>>();
    json::array input;
    for (const std::string& t : texts) input.emplace_back(t);
    net::HttpRequest request;
    request.method = "POST";
    request.url = url_;
    request.headers.push_back({"Content-Type", "application/json"});
    if (!config_.api_key.empty()) request.headers.push_back({"Authorization", "Bearer " + config_.api_key});
    request.body = json::serialize(json::object{{"model", config_.model}, {"input", std::move(input)}});
    request.timeouts.deadline = std::chrono::steady_clock::now() + config_.timeout;
    std::promise<net::HttpResult> promise;
    auto answer = promise.get_future();
    auto call = net::fetch(*http_, std::move(request), config_.max_response_bytes,
                           [&promise](net::HttpResult r) { promise.set_value(std::move(r)); });
    const net::HttpResult r = answer.get();
    return read(r, texts.size());
  }

 private:
  Result<std::vector<std::vector<float>>> read(const net::HttpResult& r, std::size_t n) {
    const std::string from = "embeddings: " + where_ + ": ";
    if (r.error) return Failure{from + r.error->message};
    if (r.truncated)
      return Failure{from + "the answer is larger than " + std::to_string(config_.max_response_bytes) +
                     " bytes"};
    const int status = r.head.status;
    boost::system::error_code ec;
    const json::value body = json::parse(r.body, ec);
    std::string server_message;
    if (!ec && body.is_object()) {
      if (const auto* e = body.as_object().if_contains("error")) {
        if (e->is_object() && e->as_object().contains("message") && e->at("message").is_string())
          server_message = std::string(e->at("message").as_string());
        else if (e->is_string())
          server_message = std::string(e->as_string());
      }
    }
    if (status < 200 || status > 299) {
      const std::string what = "HTTP " + std::to_string(status) +
                               (server_message.empty() ? "" : ": " + text::one_line(server_message));
      if (status == 404 || status == 405 || status == 501) switch_off(what);
      return Failure{from + what};
    }
    if (ec || !body.is_object() || !body.as_object().contains("data") || !body.at("data").is_array())
      return Failure{from + "the answer has no \"data\" list"};
    const json::array& data = body.at("data").as_array();
    if (data.size() != n)
      return Failure{from + "asked for " + std::to_string(n) + " vectors, got " +
                     std::to_string(data.size())};
    std::vector<std::vector<float>> out(n);
    for (std::size_t i = 0; i < data.size(); ++i) {
      const json::value& d = data[i];
      if (!d.is_object() || !d.as_object().contains("embedding") || !d.at("embedding").is_array())
        return Failure{from + "an answer item has no \"embedding\" list"};
      std::size_t at = i;
      if (const auto* index = d.as_object().if_contains("index"); index != nullptr && index->is_int64()) {
        if (index->as_int64() < 0 || static_cast<std::size_t>(index->as_int64()) >= n)
          return Failure{from + "an index is out of range"};
        at = static_cast<std::size_t>(index->as_int64());
      }
      std::vector<float>& v = out[at];
      if (!v.empty()) return Failure{from + "two vectors for text " + std::to_string(at)};
      for (const json::value& x : d.at("embedding").as_array()) {
        if (!x.is_number()) return Failure{from + "an embedding value is not a number"};
        v.push_back(static_cast<float>(x.to_number<double>()));
      }
    }
    for (const auto& v : out)
      if (v.empty() || v.size() != out[0].size())
        return Failure{from + "the vectors are not all of one length"};
    return out;
  }

  void switch_off(const std::string& why) {
    {
      std::lock_guard lock(mu_);
      off_because_ = why;
    }
    available_.store(false);
  }
  std::string why_off() const {
    std::lock_guard lock(mu_);
    return off_because_;
  }

  EmbeddingsConfig config_;
  std::string url_;
  std::string where_;
  std::shared_ptr<net::IoThreads> io_;
  std::unique_ptr<net::HttpClient> http_;
  std::atomic<bool> available_{true};
  mutable std::mutex mu_;
  std::string off_because_;
};

}  // namespace

std::unique_ptr<Embeddings> make_openai_embeddings(EmbeddingsConfig config) {
  return std::make_unique<OpenAiEmbeddings>(std::move(config));
}

}  // namespace sigil::model
