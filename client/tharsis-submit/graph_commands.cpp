// Implementation of client/tharsis-submit/graph_commands.h.
#include "client/tharsis-submit/graph_commands.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "client/tharsis-submit/job_file.h"
#include "lib/crypto/md5.h"

namespace tharsis::submit_client {
namespace {

std::string element(const std::string& name, const std::string& value) {
  return "<" + name + ">" + escape(value) + "</" + name + ">\n";
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_final(const std::string& state) {
  return state == "done" || state == "failed" || state == "cancelled";
}

int refused(const std::string& why) {
  std::cerr << "tharsis-submit: " << why << "\n";
  return 1;
}

int usage() {
  std::cerr
      << "usage: tharsis-submit --url URL [--authenticator KEY] (graph submit [--app A] [--graph_name N] "
         "(--expression TEXT | --json FILE | FILE) [--wait [--out FILE] [--poll S]] | graph query [ID] | "
         "graph output ID FILE | graph abort ID | tasks --app A TASKS_FILE)\n";
  return 2;
}

// Polls query_graph until the graph is over; its final state, or the error.
Result<std::string> wait_for_graph(const std::string& key, const std::string& id, double poll,
                                   const GraphTransport& transport) {
  for (;;) {
    pugi::xml_document reply;
    if (Status asked = transport.post(graph_xml("query_graph", key, id), reply); !asked.ok())
      return make_error(asked.error());
    pugi::xml_node graph = reply.document_element().child("graph");
    std::string state = graph.child_value("state");
    std::cerr << "\r" << graph_line(graph) << std::flush;
    if (is_final(state)) {
      std::cerr << "\n";
      if (state != "done") std::cerr << "graph " << id << ": " << graph.child_value("failure_reason") << "\n";
      return state;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(poll));
  }
}

int graph_submit(const std::vector<std::string>& args, const std::string& key, const std::string& app,
                 const GraphTransport& transport) {
  GraphSubmitOptions options;
  options.app = app;
  std::string file, out;
  bool wait = false;
  double poll = 2;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--graph_name" && has_value) {
      options.graph_name = args[++i];
    } else if (a == "--expression" && has_value) {
      options.text = args[++i];
    } else if (a == "--json" && has_value) {
      file = args[++i];
      options.json = true;
    } else if (a == "--out" && has_value) {
      out = args[++i];
    } else if (a == "--poll" && has_value) {
      poll = std::atof(args[++i].c_str());
    } else if (a == "--wait") {
      wait = true;
    } else if (a.rfind("--", 0) != 0 && file.empty()) {
      file = a;
    } else {
      return usage();
    }
  }
  if (options.text.empty() == file.empty()) return usage();
  if (!file.empty()) {
    auto text = read_file(file);
    if (!text.ok()) return refused(text.error());
    options.text = std::move(*text);
    size_t first = options.text.find_first_not_of(" \t\r\n");
    options.json = options.json || (first != std::string::npos && options.text[first] == '{');
  }
  pugi::xml_document reply;
  if (Status sent = transport.post(submit_graph_xml(key, options), reply); !sent.ok())
    return refused(sent.error());
  pugi::xml_node root = reply.document_element();
  std::string id = root.child_value("graph_id");
  std::cout << "graph " << id << " '" << root.child_value("name")
            << "': " << root.child_value("operand_count") << " operands\n"
            << std::flush;
  if (!wait) return 0;
  auto state = wait_for_graph(key, id, poll > 0 ? poll : 2, transport);
  if (!state.ok()) return refused(state.error());
  if (*state != "done") return 1;
  if (out.empty()) return 0;
  if (Status saved = transport.fetch(graph_output_query(key, id), out); !saved.ok())
    return refused(saved.error());
  std::cout << "saved " << out << "\n";
  return 0;
}

bool is_id(const std::string& word) {
  if (word.empty() || word.size() > 18) return false;
  for (char c : word) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int graph_command(const std::vector<std::string>& words, const std::string& key, const std::string& app,
                  const GraphTransport& transport) {
  if (words.size() < 2) return usage();
  const std::string& sub = words[1];
  if (sub == "submit") return graph_submit({words.begin() + 2, words.end()}, key, app, transport);
  if (words.size() >= 3 && !is_id(words[2])) {
    std::cerr << "tharsis-submit: expected a graph id, found '" << words[2] << "'\n";
    return 2;
  }
  pugi::xml_document reply;
  if (sub == "query" && words.size() <= 3) {
    std::string id = words.size() == 3 ? words[2] : "";
    if (Status sent = transport.post(graph_xml(id.empty() ? "query_graphs" : "query_graph", key, id), reply);
        !sent.ok())
      return refused(sent.error());
    for (pugi::xml_node graph : reply.document_element().children("graph")) {
      std::cout << graph_line(graph) << "\n";
      std::string why = graph.child_value("failure_reason");
      if (!why.empty()) std::cout << "  " << why << "\n";
      if (id.empty()) continue;
      for (pugi::xml_node count : graph.child("operands").children())
        std::cout << "  " << count.name() << " " << count.text().get() << "\n";
    }
    return 0;
  }
  if (sub == "output" && words.size() == 4) {
    if (Status saved = transport.fetch(graph_output_query(key, words[2]), words[3]); !saved.ok())
      return refused(saved.error());
    std::cout << "saved " << words[3] << "\n";
    return 0;
  }
  if (sub == "abort" && words.size() == 3) {
    if (Status sent = transport.post(graph_xml("abort_graph", key, words[2]), reply); !sent.ok())
      return refused(sent.error());
    std::cout << "graph " << words[2] << " cancelling\n";
    return 0;
  }
  return usage();
}

int tasks_command(const std::vector<std::string>& words, const std::string& key, const std::string& app,
                  const GraphTransport& transport) {
  if (words.size() != 2 || app.empty()) return usage();
  auto text = read_file(words[1]);
  if (!text.ok()) return refused(text.error());
  auto tasks = parse_task_file(*text);
  if (!tasks.ok()) {
    std::cerr << "tharsis-submit: " << words[1] << ": " << tasks.error() << "\n";
    return 2;
  }
  pugi::xml_document reply;
  if (Status sent = transport.post(submit_tasks_xml(key, app, *tasks), reply); !sent.ok())
    return refused(sent.error());
  std::cout << "submitted " << reply.document_element().child_value("ntasks") << " tasks to app " << app
            << "\n";
  return 0;
}

}  // namespace

std::string submit_graph_xml(const std::string& authenticator, const GraphSubmitOptions& options) {
  std::string xml = "<submit_graph>\n" + element("authenticator", authenticator);
  if (!options.app.empty()) xml += element("app_name", options.app);
  if (!options.graph_name.empty()) xml += element("graph_name", options.graph_name);
  xml += element(options.json ? "graph_json" : "expression", options.text);
  return xml + "</submit_graph>\n";
}

std::string graph_xml(const std::string& operation, const std::string& authenticator,
                      const std::string& graph_id) {
  std::string xml = "<" + operation + ">\n" + element("authenticator", authenticator);
  if (!graph_id.empty()) xml += element("graph_id", graph_id);
  return xml + "</" + operation + ">\n";
}

std::string submit_tasks_xml(const std::string& authenticator, const std::string& app,
                             const std::vector<TaskSubmission>& tasks) {
  std::string xml = "<submit_tasks>\n" + element("authenticator", authenticator) + element("app_name", app);
  for (const auto& task : tasks) {
    xml += "<task>" + element("key", task.key) + element("payload", task.payload) + "</task>\n";
  }
  return xml + "</submit_tasks>\n";
}

std::string graph_output_query(const std::string& authenticator, const std::string& graph_id) {
  return "get_output.php?cmd=graph_output&graph_id=" + graph_id +
         "&auth_str=" + md5_hex(authenticator + "graph" + graph_id);
}

std::string graph_line(pugi::xml_node graph) {
  std::string line = "graph " + std::string(graph.child_value("id")) + " '" + graph.child_value("name") +
                     "': " + graph.child_value("state") + ", " + graph.child_value("noperands_finished") +
                     "/" + graph.child_value("noperands") + " operands (" +
                     graph.child_value("fraction_done") + ")";
  if (graph.child("staged_bytes"))
    line += ", staged " + std::string(graph.child_value("staged_bytes")) + " bytes";
  return line;
}

int run_graph_command(const std::vector<std::string>& words, const std::string& authenticator,
                      const std::string& app, const GraphTransport& transport) {
  if (!words.empty() && words[0] == "graph") return graph_command(words, authenticator, app, transport);
  if (!words.empty() && words[0] == "tasks") return tasks_command(words, authenticator, app, transport);
  return usage();
}

}  // namespace tharsis::submit_client
