// tharsis-submit's commands for Tharsis's extensions (docs/remote_submission.md#operand-
// graphs-and-clustered-tasks):
//   graph submit [--app A] [--graph_name N] (--expression TEXT | --json FILE | FILE)
//                [--wait [--out RESULT.npy] [--poll SECONDS]]
//   graph query [GRAPH_ID]          one graph in detail, or every graph of the account
//   graph output GRAPH_ID FILE      the result .npy (get_output.php?cmd=graph_output)
//   graph abort GRAPH_ID
//   tasks --app A TASKS_FILE        clustered tasks, one "KEY PAYLOAD" per line
// A FILE given to graph submit holds the expression language, or the JSON graph when its
// text starts with '{'. The request builders are pure; the transport is the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <pugixml.hpp>
#include <string>
#include <vector>

#include "lib/result.h"
#include "lib/task_file.h"

namespace tharsis::submit_client {

struct GraphSubmitOptions {
  std::string app;         // "" = the server's default (operand)
  std::string graph_name;  // "" = the server names it
  std::string text;        // the expression, or the JSON graph
  bool json = false;
};

std::string submit_graph_xml(const std::string& authenticator, const GraphSubmitOptions& options);
// <query_graph>, <get_graph_output>, <abort_graph> with <graph_id>; <query_graphs> when id is "".
std::string graph_xml(const std::string& operation, const std::string& authenticator,
                      const std::string& graph_id);
std::string submit_tasks_xml(const std::string& authenticator, const std::string& app,
                             const std::vector<TaskSubmission>& tasks);
// get_output.php's query for a graph's result: cmd=graph_output&graph_id=G&auth_str=...
std::string graph_output_query(const std::string& authenticator, const std::string& graph_id);
// "graph 12 'name': running, 10/40 operands (0.25), staged 4096 bytes" from a <graph>.
std::string graph_line(pugi::xml_node graph);

// How the commands reach the server: `post` sends a submit_rpc request and loads the
// reply (an error for an <error> reply); `fetch` GETs <master_url><page_and_query> into a file.
struct GraphTransport {
  std::function<Status(const std::string& xml, pugi::xml_document& reply)> post;
  std::function<Status(const std::string& page_and_query, const std::string& path)> fetch;
};

// Runs `words` ("graph ..." or "tasks ...") with `app` from --app. Exit code: 0 done, 1 the
// server refused or the graph failed, 2 usage.
int run_graph_command(const std::vector<std::string>& words, const std::string& authenticator,
                      const std::string& app, const GraphTransport& transport);

}  // namespace tharsis::submit_client
