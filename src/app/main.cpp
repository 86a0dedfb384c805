// The `sigil` command.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/mcp_probe_command.h"
#include "bench_command.h"
#include "chat_command.h"
#include "exec_command.h"
#include "parse_command.h"
#include "prompt_command.h"
#include "serve_command.h"

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  CLI::App app{"sigil: directives in model replies, parsed as they stream"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("sigil ") + SIGIL_VERSION);

  sigil::app::ParseCommandOptions parse;
  std::string mcp_servers, deny;
  CLI::App* parse_cmd =
      app.add_subcommand("parse", "Parse one reply from standard input and print what it holds");
  parse_cmd->add_option("--chunk", parse.chunk, "Feed the input in chunks of N bytes")
      ->check(CLI::PositiveNumber);
  parse_cmd->add_flag("--say", parse.say, "Say mode on (spec 6)");
  parse_cmd->add_flag("--events", parse.events, "Print events as they happen, one JSON object a line");
  parse_cmd->add_flag("--stats", parse.stats, "Print only byte and directive counts");
  parse_cmd->add_option("--mcp-servers", mcp_servers, "Configured MCP server names, comma-separated");
  parse_cmd->add_flag("--think-open", parse.think_open, "The reply starts inside a hidden region (spec 8.3)");
  parse_cmd->add_flag("--cut-off", parse.cut_off, "The reply ended with finish reason length (spec 11.6)");
  parse_cmd->add_option("--deny", deny, "Actions policy forbids in this chat, comma-separated");

  sigil::app::BenchCommandOptions bench;
  CLI::App* bench_cmd =
      app.add_subcommand("bench", "Measure the parser on the benchmark cases (README \"Benchmarks\")");
  bench_cmd->add_flag("--json", bench.json, "Print one JSON object instead of the table");
  bench_cmd->add_flag("--quick", bench.quick, "Fewer, shorter runs (rougher figures; for tests)");
  bench_cmd->add_flag("--executor", bench.executor_only, "Only the executor case (f)");

  sigil::app::PromptCommandOptions prompt;
  std::string prompt_deny, prompt_mcp_servers;
  CLI::App* prompt_cmd =
      app.add_subcommand("prompt", "Print the system-prompt section that teaches the actions");
  prompt_cmd->add_flag("--tools", prompt.tools, "Print the actions as OpenAI tool schemas (one JSON line)");
  prompt_cmd->add_flag("--say", prompt.say, "Say mode on: also teach <say> and <file> (spec 6)");
  prompt_cmd->add_option("--deny", prompt_deny, "Actions policy forbids in this chat, comma-separated");
  prompt_cmd->add_option("--mcp-servers", prompt_mcp_servers, "Configured MCP server names, comma-separated");
  prompt_cmd->add_option(
      "--config", prompt.flags.config_file,
      "Configuration file: teach only what it configures (default: ./sigil.toml if present)");

  sigil::app::ExecCommandOptions exec;
  std::string exec_deny, exec_files;
  CLI::App* exec_cmd = app.add_subcommand(
      "exec",
      "Parse one reply from standard input, run its directives against a store, print the turn report");
  exec_cmd->add_option("--data", exec.data_dir, "The store folder (sigil.db, outbound/, voice/)")->required();
  exec_cmd->add_option("--user", exec.user, "User id (default: console)");
  exec_cmd->add_option("--conversation", exec.conversation, "Conversation id (default: console)");
  exec_cmd->add_option("--turn", exec.turn, "Turn id (default: a new one); the same ids repeat nothing");
  exec_cmd->add_option("--now", exec.now, "The clock, ISO 8601 (e.g. 2026-11-21T10:00:00Z); default: now");
  exec_cmd->add_option("--chunk", exec.chunk, "Read and feed the reply N bytes at a time")
      ->check(CLI::PositiveNumber);
  exec_cmd->add_flag("--say", exec.say, "Say mode on (spec 6)");
  exec_cmd->add_option("--deny", exec_deny, "Actions policy forbids in this chat, comma-separated");
  exec_cmd->add_option("--files", exec_files,
                       "Folders files may be sent from, comma-separated (default: DATA/outbound)");

  std::string probe_url;
  CLI::App* probe_cmd = app.add_subcommand(
      "mcp-probe", "Run the MCP client against a Streamable HTTP server: handshake, tools, one call each");
  probe_cmd->add_option("url", probe_url, "The server's URL")->required();
  std::string probe_elicitation = "decline";
  probe_cmd
      ->add_option("--elicitation", probe_elicitation,
                   "How a server's elicitation/create is answered: decline, cancel or defaults")
      ->check(CLI::IsMember({"decline", "cancel", "defaults"}));
  std::string probe_client_metadata_url;
  probe_cmd->add_option(
      "--client-metadata-url", probe_client_metadata_url,
      "OAuth: the client id (an https URL of a client id metadata document) for servers that "
      "accept one");

  sigil::app::ConfigFlags serve;
  CLI::App* serve_cmd = app.add_subcommand(
      "serve", "Run the gateway: web chat, HTTP API, scheduled tasks (docs/configuration.md)");
  serve_cmd->add_option("--config", serve.config_file,
                        "Configuration file (default: ./sigil.toml if present)");
  serve_cmd->add_option("--listen", serve.listen,
                        "HOST:PORT to listen on (default 127.0.0.1:8080; port 0: any)");
  serve_cmd->add_option("--data", serve.data, "Data folder: sigil.db, media/, files/ (default ./data)");
  serve_cmd->add_option("--log-level", serve.log_level,
                        "Log on standard error from this level: debug, info (default), warn, error, off");

  sigil::app::ChatCommandOptions chat;
  CLI::App* chat_cmd = app.add_subcommand(
      "chat", "Talk with the gateway's agent on the terminal, one message a line (docs/channels.md)");
  chat_cmd->add_option("--config", chat.flags.config_file,
                       "Configuration file (default: ./sigil.toml if present)");
  chat_cmd->add_option("--data", chat.flags.data, "Data folder: sigil.db, media/, files/ (default ./data)");
  chat_cmd->add_option("--conversation", chat.conversation, "Conversation id (default: console)");
  chat_cmd->add_option("--log-level", chat.flags.log_level,
                       "Log on standard error from this level (default here: warn)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (parse_cmd->parsed()) {
      parse.mcp_servers = split_list(mcp_servers);
      parse.deny = split_list(deny);
      return sigil::app::run_parse(parse, std::cin, std::cout);
    }
    if (bench_cmd->parsed()) return sigil::app::run_bench(bench, std::cout);
    if (chat_cmd->parsed()) return sigil::app::run_chat(chat, std::cin, std::cout, std::cerr);
    if (exec_cmd->parsed()) {
      exec.deny = split_list(exec_deny);
      exec.files_dirs = split_list(exec_files);
      return sigil::app::run_exec(exec, 0, std::cout, std::cerr);
    }
    if (probe_cmd->parsed())
      return sigil::app::run_mcp_probe(probe_url, probe_elicitation, probe_client_metadata_url, std::cout,
                                       std::cerr);
    if (serve_cmd->parsed()) return sigil::app::run_serve(serve, std::cout, std::cerr);
    if (prompt_cmd->parsed()) {
      prompt.deny = split_list(prompt_deny);
      prompt.mcp_servers = split_list(prompt_mcp_servers);
      return sigil::app::run_prompt(prompt, std::cout, std::cerr);
    }
  } catch (const std::exception& e) {
    std::cerr << "sigil: internal error: " << e.what() << '\n';
    return 1;
  }
  return 2;
}
