// Implementation of lib/config/project_config.h: pugixml DOM in, checked struct out; each known
// element has one field parser so every message names its element.
#include "lib/config/project_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <pugixml.hpp>
#include <set>
#include <sstream>

namespace tharsis {
namespace {

std::string trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

bool has_child_elements(const pugi::xml_node& node) {
  for (const pugi::xml_node& child : node.children()) {
    if (child.type() == pugi::node_element) return true;
  }
  return false;
}

// Parses the fields of one <config>; `source` prefixes every message.
class ConfigReader {
 public:
  explicit ConfigReader(std::string_view source) : source_(source) {}

  std::string where(std::string_view element) const {
    return std::string(source_) + ": <" + std::string(element) + ">";
  }
  Error expected(std::string_view element, std::string_view what, std::string_view found) const {
    return make_error(where(element) + " expected " + std::string(what) + ", found '" + std::string(found) +
                      "'");
  }

  Result<int64_t> integer(std::string_view element, const std::string& text, int64_t min,
                          std::string_view what) const {
    int64_t value = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (text.empty() || ec != std::errc() || ptr != last || value < min) {
      return expected(element, what, text);
    }
    return value;
  }

  Result<int> small_integer(std::string_view element, const std::string& text, int min, int max,
                            std::string_view what) const {
    Result<int64_t> value = integer(element, text, min, what);
    if (!value) return make_error(value.error());
    if (*value > max) return expected(element, what, text);
    return static_cast<int>(*value);
  }

  Result<double> non_negative_number(std::string_view element, const std::string& text) const {
    double value = 0;
    const char* last = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), last, value);
    if (text.empty() || ec != std::errc() || ptr != last || !(value >= 0)) {
      return expected(element, "a non-negative number of seconds", text);
    }
    return value;
  }

  Result<bool> boolean(std::string_view element, const std::string& text) const {
    if (text.empty() || text == "1" || text == "true") return true;
    if (text == "0" || text == "false") return false;
    return expected(element, "0 or 1", text);
  }

 private:
  std::string_view source_;
};

using FieldSetter = std::function<Status(ProjectConfig&, const std::string&)>;

// The known leaf elements of <config>, each with the parser that stores it.
std::map<std::string, FieldSetter, std::less<>> field_setters(const ConfigReader& r) {
  std::map<std::string, FieldSetter, std::less<>> s;
  auto text_field = [](std::string ProjectConfig::*member) {
    return [member](ProjectConfig& c, const std::string& v) -> Status {
      c.*member = v;
      return Status::success();
    };
  };
  auto positive_int = [&r](const char* element, int ProjectConfig::*member) {
    return [&r, element, member](ProjectConfig& c, const std::string& v) -> Status {
      Result<int> n = r.small_integer(element, v, 1, 1 << 30, "a positive integer");
      if (!n) return make_error(n.error());
      c.*member = *n;
      return Status::success();
    };
  };
  auto positive_bytes = [&r](const char* element, int64_t ProjectConfig::*member) {
    return [&r, element, member](ProjectConfig& c, const std::string& v) -> Status {
      Result<int64_t> n = r.integer(element, v, 1, "a positive number of bytes");
      if (!n) return make_error(n.error());
      c.*member = *n;
      return Status::success();
    };
  };
  s["name"] = text_field(&ProjectConfig::name);
  s["long_name"] = text_field(&ProjectConfig::long_name);
  s["master_url"] = text_field(&ProjectConfig::master_url);
  s["upload_url"] = text_field(&ProjectConfig::upload_url);
  s["download_url"] = text_field(&ProjectConfig::download_url);
  s["cgi_url"] = text_field(&ProjectConfig::cgi_url);
  s["project_dir"] = text_field(&ProjectConfig::project_dir);
  s["download_dir"] = text_field(&ProjectConfig::download_dir);
  s["upload_dir"] = text_field(&ProjectConfig::upload_dir);
  s["key_dir"] = text_field(&ProjectConfig::key_dir);
  s["log_dir"] = text_field(&ProjectConfig::log_dir);
  s["pid_dir"] = text_field(&ProjectConfig::pid_dir);
  s["tmp_dir"] = text_field(&ProjectConfig::tmp_dir);
  s["db_host"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.db.host = v;
    return Status::success();
  };
  s["db_port"] = [&r](ProjectConfig& c, const std::string& v) -> Status {
    // 0 is the client library's "default port" (and what a socket-only config carries).
    Result<int> n = r.small_integer("db_port", v, 0, 65535, "a TCP port 0..65535");
    if (!n) return make_error(n.error());
    c.db.port = *n;
    return Status::success();
  };
  s["db_socket"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.db.socket = v;
    return Status::success();
  };
  s["db_user"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.db.user = v;
    return Status::success();
  };
  s["db_passwd"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.db.password = v;
    return Status::success();
  };
  s["db_name"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.db.name = v;
    return Status::success();
  };
  s["replica_db_host"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.replica.host = v;
    return Status::success();
  };
  s["replica_db_port"] = [&r](ProjectConfig& c, const std::string& v) -> Status {
    Result<int> n = r.small_integer("replica_db_port", v, 1, 65535, "a TCP port 1..65535");
    if (!n) return make_error(n.error());
    c.replica.port = *n;
    return Status::success();
  };
  s["replica_db_socket"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.replica.socket = v;
    return Status::success();
  };
  s["replica_db_name"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.replica.name = v;
    return Status::success();
  };
  s["replica_db_user"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.replica.user = v;
    return Status::success();
  };
  s["replica_db_passwd"] = [](ProjectConfig& c, const std::string& v) -> Status {
    c.replica.password = v;
    return Status::success();
  };
  s["uldl_dir_fanout"] = positive_int("uldl_dir_fanout", &ProjectConfig::uldl_dir_fanout);
  s["max_upload_size"] = positive_bytes("max_upload_size", &ProjectConfig::max_upload_size);
  s["max_request_size"] = positive_bytes("max_request_size", &ProjectConfig::max_request_size);
  s["daily_result_quota"] = positive_int("daily_result_quota", &ProjectConfig::daily_result_quota);
  s["max_wus_to_send"] = positive_int("max_wus_to_send", &ProjectConfig::max_wus_to_send);
  s["initial_cluster_size"] = positive_int("initial_cluster_size", &ProjectConfig::initial_cluster_size);
  auto seconds = [&r](const char* element, double ProjectConfig::*member) {
    return [&r, element, member](ProjectConfig& c, const std::string& v) -> Status {
      Result<double> d = r.non_negative_number(element, v);
      if (!d) return make_error(d.error());
      c.*member = *d;
      return Status::success();
    };
  };
  s["request_delay"] = seconds("request_delay", &ProjectConfig::request_delay);
  s["cluster_active_host_minutes"] =
      positive_int("cluster_active_host_minutes", &ProjectConfig::cluster_active_host_minutes);
  s["cluster_window_jobs"] = positive_int("cluster_window_jobs", &ProjectConfig::cluster_window_jobs);
  s["cluster_queue_jobs"] = [&r](ProjectConfig& c, const std::string& v) -> Status {
    Result<int> n = r.small_integer("cluster_queue_jobs", v, 0, 1 << 30, "a non-negative integer");
    if (!n) return make_error(n.error());
    c.cluster_queue_jobs = *n;
    return Status::success();
  };
  s["cluster_task_time_prior"] = seconds("cluster_task_time_prior", &ProjectConfig::cluster_task_time_prior);
  s["cluster_job_overhead_prior"] =
      seconds("cluster_job_overhead_prior", &ProjectConfig::cluster_job_overhead_prior);
  s["census_interval"] = positive_int("census_interval", &ProjectConfig::census_interval);
  s["recluster_policy"] = [&r](ProjectConfig& c, const std::string& v) -> Status {
    if (!parse_policy(v, c.recluster_policy)) {
      return r.expected("recluster_policy", "one of NOOP, DC, SR, DR", v);
    }
    return Status::success();
  };
  return s;
}

bool valid_short_name(const std::string& name) {
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
  });
}

bool is_http_url(const std::string& url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

// Checks values that depend on each other or on their form, and fills derived defaults.
Status finish(ProjectConfig& c, const ConfigReader& r) {
  if (!valid_short_name(c.name)) {
    return r.expected("name", "letters, digits, '_' or '-' only", c.name);
  }
  if (c.long_name.empty()) c.long_name = c.name;
  for (auto [element, url] : {std::pair{"master_url", &c.master_url}, std::pair{"upload_url", &c.upload_url},
                              std::pair{"download_url", &c.download_url}, std::pair{"cgi_url", &c.cgi_url}}) {
    if (!is_http_url(*url)) return r.expected(element, "an http:// or https:// URL", *url);
  }
  if (c.project_dir.front() != '/') {
    return r.expected("project_dir", "an absolute path", c.project_dir);
  }
  // Trailing '/' and the blanks before it go (values are read trimmed, so "/srv/x /"
  // written back would read as "/srv/x" and its derived directories would move).
  while (c.project_dir.size() > 1 &&
         (c.project_dir.back() == '/' || std::isspace(static_cast<unsigned char>(c.project_dir.back())))) {
    c.project_dir.pop_back();
  }
  for (auto [element, dir, leaf] :
       {std::tuple{"project_dir", &c.project_dir, ""},
        std::tuple{"download_dir", &c.download_dir, "download"},
        std::tuple{"upload_dir", &c.upload_dir, "upload"}, std::tuple{"key_dir", &c.key_dir, "keys"},
        std::tuple{"log_dir", &c.log_dir, "log"}, std::tuple{"pid_dir", &c.pid_dir, "pid"},
        std::tuple{"tmp_dir", &c.tmp_dir, "tmp"}}) {
    if (dir->empty()) {
      *dir = c.project_dir + "/" + leaf;
    } else if (dir->front() != '/') {
      return r.expected(element, "an absolute path", *dir);
    }
    // A line break or other control character in a path is a typo, never a directory.
    if (std::any_of(dir->begin(), dir->end(), [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; })) {
      return make_error(r.where(element) + " expected a path without control characters (line breaks, tabs)");
    }
  }
  return Status::success();
}

// <db_nodes>: one or more <node> children, each "/abs/socket" or "host[:port]". Ports are
// resolved after the whole <config> is read (<db_port> may come later): 0 here means
// "the default port".
Result<std::vector<DbEndpoint>> parse_db_nodes(const pugi::xml_node& list, const ConfigReader& r) {
  std::vector<DbEndpoint> nodes;
  for (const pugi::xml_node& node : list.children()) {
    if (node.type() == pugi::node_pcdata && trim(node.value()).empty()) continue;
    if (node.type() != pugi::node_element || std::string_view(node.name()) != "node") {
      return r.expected(
          "db_nodes", "only <node> elements",
          node.type() == pugi::node_element ? "<" + std::string(node.name()) + ">" : trim(node.value()));
    }
    std::string text = trim(node.text().get());
    DbEndpoint endpoint;
    if (!text.empty() && text.front() == '/') {
      endpoint.socket = text;
    } else {
      std::string host = text;
      if (auto colon = text.rfind(':'); colon != std::string::npos) {
        host = text.substr(0, colon);
        Result<int> port = r.small_integer("db_nodes", text.substr(colon + 1), 1, 65535,
                                           "<node> as /socket/path or host:port with a port 1..65535");
        if (!port) return make_error(port.error());
        endpoint.port = *port;
      }
      if (host.empty() || host.find_first_of(" \t/:") != std::string::npos) {
        return r.expected("db_nodes", "<node> as /socket/path or host[:port]", text);
      }
      endpoint.host = host;
    }
    if (std::find(nodes.begin(), nodes.end(), endpoint) != nodes.end()) {
      return r.expected("db_nodes", "each <node> once", text);
    }
    nodes.push_back(std::move(endpoint));
  }
  if (nodes.empty()) return r.expected("db_nodes", "at least one <node>", "");
  return nodes;
}

// <scheduler_urls>: one or more <url> children, each an http(s) URL, each once.
Result<std::vector<std::string>> parse_scheduler_urls(const pugi::xml_node& list, const ConfigReader& r) {
  std::vector<std::string> urls;
  for (const pugi::xml_node& node : list.children()) {
    if (node.type() == pugi::node_pcdata && trim(node.value()).empty()) continue;
    if (node.type() != pugi::node_element || std::string_view(node.name()) != "url") {
      return r.expected(
          "scheduler_urls", "only <url> elements",
          node.type() == pugi::node_element ? "<" + std::string(node.name()) + ">" : trim(node.value()));
    }
    std::string url = trim(node.text().get());
    if (!is_http_url(url)) return r.expected("scheduler_urls", "<url> as an http:// or https:// URL", url);
    if (std::find(urls.begin(), urls.end(), url) != urls.end())
      return r.expected("scheduler_urls", "each <url> once", url);
    urls.push_back(std::move(url));
  }
  if (urls.empty()) return r.expected("scheduler_urls", "at least one <url>", "");
  return urls;
}

Result<std::vector<DaemonConfig>> parse_daemons(const pugi::xml_node& daemons, std::string_view source) {
  std::vector<DaemonConfig> out;
  int index = 0;
  for (const pugi::xml_node& node : daemons.children()) {
    if (node.type() != pugi::node_element) continue;
    if (std::string_view(node.name()) != "daemon") {
      return make_error(std::string(source) + ": <daemons> expected only <daemon> elements, found <" +
                        node.name() + ">");
    }
    ++index;
    std::string where = std::string(source) + ": <daemons> entry #" + std::to_string(index);
    DaemonConfig daemon;
    daemon.cmd = trim(node.child("cmd").text().get());
    if (daemon.cmd.empty()) return make_error(where + ": missing or empty <cmd>");
    if (pugi::xml_node disabled = node.child("disabled")) {
      std::string text = trim(disabled.text().get());
      if (!text.empty() && text != "0" && text != "1" && text != "true" && text != "false") {
        return make_error(where + " <disabled> expected 0 or 1, found '" + text + "'");
      }
      daemon.disabled = text.empty() || text == "1" || text == "true";
    }
    if (pugi::xml_node nice = node.child("nice")) {
      std::string text = trim(nice.text().get());
      int value = -1;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > kMaxDaemonNice) {
        return make_error(where + " <nice> expected 0 to " + std::to_string(kMaxDaemonNice) + ", found '" +
                          text + "'");
      }
      daemon.nice = value;
    }
    out.push_back(std::move(daemon));
  }
  return out;
}

size_t line_of_offset(std::string_view text, ptrdiff_t offset) {
  size_t end = std::min(text.size(), static_cast<size_t>(std::max<ptrdiff_t>(offset, 0)));
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(end), '\n'));
}

std::string format_number(double value) {
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, ptr);
}

}  // namespace

Result<ProjectConfig> parse_project_config(std::string_view xml, std::string_view source) {
  const std::string src(source);
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    return make_error(src + ": malformed XML at offset " + std::to_string(parsed.offset) + " (line " +
                      std::to_string(line_of_offset(xml, parsed.offset)) + "): " + parsed.description());
  }
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "boinc") {
    return make_error(src + ": expected root element <boinc>, found <" + root.name() + ">");
  }
  pugi::xml_node config_node = root.child("config");
  if (!config_node) return make_error(src + ": missing <config> inside <boinc>");

  ConfigReader reader(source);
  auto setters = field_setters(reader);
  ProjectConfig config;
  std::set<std::string, std::less<>> seen;
  for (const pugi::xml_node& node : config_node.children()) {
    if (node.type() != pugi::node_element) continue;
    std::string name = node.name();
    if (!seen.insert(name).second) return make_error(reader.where(name) + " given twice");
    if (name == "db_nodes") {
      Result<std::vector<DbEndpoint>> nodes = parse_db_nodes(node, reader);
      if (!nodes) return make_error(nodes.error());
      config.db_nodes = std::move(*nodes);
      continue;
    }
    if (name == "scheduler_urls") {
      Result<std::vector<std::string>> urls = parse_scheduler_urls(node, reader);
      if (!urls) return make_error(urls.error());
      config.scheduler_urls = std::move(*urls);
      continue;
    }
    auto setter = setters.find(name);
    if (has_child_elements(node)) {
      return make_error(reader.where(name) + (setter == setters.end()
                                                  ? " is unknown and has child elements; only "
                                                    "simple <tag>value</tag> extras are kept"
                                                  : " expected text, found child elements"));
    }
    std::string value = trim(node.text().get());
    if (setter == setters.end()) {
      config.other[name] = value;
      continue;
    }
    Status stored = setter->second(config, value);
    if (!stored) return make_error(stored.error());
  }

  std::string missing;
  for (const char* required :
       {"name", "master_url", "upload_url", "download_url", "cgi_url", "project_dir", "db_name", "db_user"}) {
    auto it = seen.find(std::string_view(required));
    bool empty = it == seen.end() || trim(config_node.child(required).text().get()).empty();
    if (empty) missing += std::string(missing.empty() ? "" : ", ") + "<" + required + ">";
  }
  if (!missing.empty()) return make_error(src + ": missing required " + missing + " in <config>");

  Status finished = finish(config, reader);
  if (!finished) return make_error(finished.error());
  if (!config.db_nodes.empty()) {
    for (const char* single : {"db_host", "db_socket"}) {
      if (seen.count(std::string_view(single))) {
        return make_error(reader.where(single) + " and <db_nodes> both given: list every node in <db_nodes>");
      }
    }
    for (DbEndpoint& node : config.db_nodes) {
      if (node.socket.empty() && node.port == 0) node.port = config.db.port;
    }
    Status selected = select_db_node(config, 1);
    if (!selected) return make_error(selected.error());
  }

  if (pugi::xml_node daemons = root.child("daemons")) {
    Result<std::vector<DaemonConfig>> list = parse_daemons(daemons, source);
    if (!list) return make_error(list.error());
    config.daemons = std::move(*list);
  }
  return config;
}

Result<ProjectConfig> load_project_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open project config file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  Result<ProjectConfig> config = parse_project_config(text.str(), path);
  if (!config) return config;
  if (const char* node = std::getenv("THARSIS_DB_NODE"); node != nullptr && *node != '\0') {
    std::string text_node = node;
    int index = 0;
    auto [ptr, ec] = std::from_chars(text_node.data(), text_node.data() + text_node.size(), index);
    if (ec != std::errc() || ptr != text_node.data() + text_node.size()) {
      return make_error(path + ": THARSIS_DB_NODE expected a node number, found '" + text_node + "'");
    }
    Status selected = select_db_node(*config, index);
    if (!selected) return make_error(path + ": THARSIS_DB_NODE: " + selected.error());
  }
  return config;
}

Status select_db_node(ProjectConfig& config, int node) {
  const int count = static_cast<int>(config.db_nodes.size());
  if (count == 0) {
    if (node == 1) return Status::success();
    return make_error("database node " + std::to_string(node) +
                      " does not exist: config.xml has no <db_nodes>, only node 1");
  }
  if (node < 1 || node > count) {
    return make_error("database node " + std::to_string(node) + " does not exist: <db_nodes> lists " +
                      std::to_string(count) + " (1.." + std::to_string(count) + ")");
  }
  const DbEndpoint& own = config.db_nodes[static_cast<size_t>(node - 1)];
  config.db.host = own.host;
  config.db.port = own.port;
  config.db.socket = own.socket;
  config.db.fallbacks.clear();
  for (int k = 1; k < count; ++k) {
    config.db.fallbacks.push_back(config.db_nodes[static_cast<size_t>((node - 1 + k) % count)]);
  }
  return Status::success();
}

bool has_replica_db(const ProjectConfig& c) {
  const auto& r = c.replica;
  return !r.host.empty() || !r.socket.empty() || !r.name.empty() || !r.user.empty() || !r.password.empty() ||
         r.port != 0;
}

DbConfig replica_db_config(const ProjectConfig& c) {
  if (!has_replica_db(c)) return c.db;
  const auto& r = c.replica;
  DbConfig out = c.db;
  if (!r.host.empty() || !r.socket.empty()) {
    out.host = r.host.empty() ? "localhost" : r.host;
    out.socket = r.socket;
    out.port = r.port != 0 ? r.port : c.db.port;
    out.fallbacks.clear();  // a replica is one server; the primary's nodes are not copies of it
  } else if (r.port != 0) {
    out.port = r.port;
  }
  if (!r.name.empty()) out.name = r.name;
  if (!r.user.empty()) out.user = r.user;
  if (!r.password.empty()) out.password = r.password;
  return out;
}

std::string render_project_config(const ProjectConfig& c) {
  pugi::xml_document doc;
  pugi::xml_node root = doc.append_child("boinc");
  pugi::xml_node config = root.append_child("config");
  auto put = [&config](const char* name, const std::string& value) {
    config.append_child(name).text().set(value.c_str());
  };
  auto put_if = [&put](const char* name, const std::string& value) {
    if (!value.empty()) put(name, value);
  };
  put("name", c.name);
  put("long_name", c.long_name);
  put("master_url", c.master_url);
  put("upload_url", c.upload_url);
  put("download_url", c.download_url);
  put("cgi_url", c.cgi_url);
  if (!c.scheduler_urls.empty()) {
    pugi::xml_node urls = config.append_child("scheduler_urls");
    for (const std::string& url : c.scheduler_urls) urls.append_child("url").text().set(url.c_str());
  }
  if (c.db_nodes.empty()) {
    put("db_host", c.db.host);
    put("db_port", std::to_string(c.db.port));
    put_if("db_socket", c.db.socket);
  } else {
    put("db_port", std::to_string(c.db.port));
    pugi::xml_node nodes = config.append_child("db_nodes");
    for (const DbEndpoint& node : c.db_nodes) {
      std::string text = node.socket.empty() ? node.host + ":" + std::to_string(node.port) : node.socket;
      nodes.append_child("node").text().set(text.c_str());
    }
  }
  put("db_user", c.db.user);
  put_if("db_passwd", c.db.password);
  put("db_name", c.db.name);
  put_if("replica_db_host", c.replica.host);
  if (c.replica.port != 0) put("replica_db_port", std::to_string(c.replica.port));
  put_if("replica_db_socket", c.replica.socket);
  put_if("replica_db_name", c.replica.name);
  put_if("replica_db_user", c.replica.user);
  put_if("replica_db_passwd", c.replica.password);
  put("project_dir", c.project_dir);
  put("download_dir", c.download_dir);
  put("upload_dir", c.upload_dir);
  put("key_dir", c.key_dir);
  put("log_dir", c.log_dir);
  put("pid_dir", c.pid_dir);
  put("tmp_dir", c.tmp_dir);
  put("uldl_dir_fanout", std::to_string(c.uldl_dir_fanout));
  put("max_upload_size", std::to_string(c.max_upload_size));
  put("max_request_size", std::to_string(c.max_request_size));
  put("daily_result_quota", std::to_string(c.daily_result_quota));
  put("request_delay", format_number(c.request_delay));
  put("max_wus_to_send", std::to_string(c.max_wus_to_send));
  put("recluster_policy", std::string(policy_name(c.recluster_policy)));
  put("initial_cluster_size", std::to_string(c.initial_cluster_size));
  put("cluster_active_host_minutes", std::to_string(c.cluster_active_host_minutes));
  put("cluster_window_jobs", std::to_string(c.cluster_window_jobs));
  put("cluster_queue_jobs", std::to_string(c.cluster_queue_jobs));
  put("cluster_task_time_prior", format_number(c.cluster_task_time_prior));
  put("cluster_job_overhead_prior", format_number(c.cluster_job_overhead_prior));
  put("census_interval", std::to_string(c.census_interval));
  for (const auto& [name, value] : c.other) put(name.c_str(), value);

  pugi::xml_node daemons = root.append_child("daemons");
  for (const DaemonConfig& d : c.daemons) {
    pugi::xml_node daemon = daemons.append_child("daemon");
    daemon.append_child("cmd").text().set(d.cmd.c_str());
    daemon.append_child("disabled").text().set(d.disabled ? "1" : "0");
    if (d.nice != 0) daemon.append_child("nice").text().set(d.nice);
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent | pugi::format_no_declaration);
  return out.str();
}

std::vector<std::string> project_scheduler_urls(const ProjectConfig& config) {
  if (!config.scheduler_urls.empty()) return config.scheduler_urls;
  return {config.cgi_url + "cgi"};
}

}  // namespace tharsis
