// Implementation of db/workunit_bulk_store.h.
#include "db/workunit_bulk_store.h"

#include <cstdio>

#include "db/id_list.h"

namespace tharsis {
namespace {

// Keeps each statement's JSON well under MariaDB's default max_allowed_packet (16 MiB).
constexpr size_t kChunkBytes = 4u << 20;

void append_json_string(std::string& out, const std::string& text) {
  out += '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void append_number(std::string& out, double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  out += text;
}

void append_number(std::string& out, int64_t value) { out += std::to_string(value); }

const std::string kInsertWorkunits =
    "INSERT INTO workunit (create_time, appid, name, xml_doc, batch, rsc_fpops_est, rsc_fpops_bound, "
    "rsc_memory_bound, rsc_disk_bound, delay_bound, min_quorum, target_nresults, max_error_results, "
    "max_total_results, max_success_results, priority, transition_time, result_template_file, graph_id) "
    "SELECT j.create_time, j.appid, j.name, j.xml_doc, j.batch, j.rsc_fpops_est, j.rsc_fpops_bound, "
    "j.rsc_memory_bound, j.rsc_disk_bound, j.delay_bound, j.min_quorum, j.target_nresults, "
    "j.max_error_results, "
    "j.max_total_results, j.max_success_results, j.priority, j.transition_time, j.result_template_file, "
    "j.graph_id FROM JSON_TABLE(?, '$[*]' COLUMNS ("
    "create_time BIGINT PATH '$[0]', appid INT PATH '$[1]', name VARCHAR(254) PATH '$[2]', "
    "xml_doc MEDIUMTEXT PATH '$[3]', batch INT PATH '$[4]', rsc_fpops_est DOUBLE PATH '$[5]', "
    "rsc_fpops_bound DOUBLE PATH '$[6]', rsc_memory_bound DOUBLE PATH '$[7]', rsc_disk_bound DOUBLE PATH "
    "'$[8]', "
    "delay_bound INT PATH '$[9]', min_quorum INT PATH '$[10]', target_nresults INT PATH '$[11]', "
    "max_error_results INT PATH '$[12]', max_total_results INT PATH '$[13]', "
    "max_success_results INT PATH '$[14]', priority INT PATH '$[15]', transition_time BIGINT PATH '$[16]', "
    "result_template_file VARCHAR(254) PATH '$[17]', graph_id INT PATH '$[18]')) j";

void append_row(std::string& json, const WorkunitRow& wu) {
  json += json.size() > 1 ? ",[" : "[";
  append_number(json, wu.create_time);
  json += ',';
  append_number(json, wu.appid);
  json += ',';
  append_json_string(json, wu.name);
  json += ',';
  append_json_string(json, wu.xml_doc);
  json += ',';
  append_number(json, static_cast<int64_t>(wu.batch));
  for (double v : {wu.rsc_fpops_est, wu.rsc_fpops_bound, wu.rsc_memory_bound, wu.rsc_disk_bound}) {
    json += ',';
    append_number(json, v);
  }
  for (int v : {wu.delay_bound, wu.min_quorum, wu.target_nresults, wu.max_error_results, wu.max_total_results,
                wu.max_success_results, wu.priority}) {
    json += ',';
    append_number(json, static_cast<int64_t>(v));
  }
  json += ',';
  append_number(json, wu.transition_time);
  json += ',';
  append_json_string(json, wu.result_template_file);
  json += ',';
  append_number(json, wu.graph_id);
  json += ']';
}

}  // namespace

void insert_workunits_bulk(Database& db, const std::vector<WorkunitRow>& workunits) {
  std::string json = "[";
  for (const auto& wu : workunits) {
    append_row(json, wu);
    if (json.size() >= kChunkBytes) {
      db.exec(kInsertWorkunits, json + "]");
      json = "[";
    }
  }
  if (json.size() > 1) db.exec(kInsertWorkunits, json + "]");
}

void record_workunit_inputs_bulk(Database& db,
                                 const std::vector<std::pair<std::string, std::string>>& inputs) {
  static const std::string kInsert =
      "INSERT IGNORE INTO workunit_input (workunitid, file_name) SELECT w.id, j.file_name FROM "
      "JSON_TABLE(?, '$[*]' COLUMNS (wu_name VARCHAR(254) PATH '$[0]', file_name VARCHAR(254) PATH '$[1]')) "
      "j "
      "STRAIGHT_JOIN workunit w ON w.name = j.wu_name";
  std::string json = "[";
  for (const auto& [wu_name, file_name] : inputs) {
    json += json.size() > 1 ? ",[" : "[";
    append_json_string(json, wu_name);
    json += ',';
    append_json_string(json, file_name);
    json += ']';
    if (json.size() >= kChunkBytes) {
      db.exec(kInsert, json + "]");
      json = "[";
    }
  }
  if (json.size() > 1) db.exec(kInsert, json + "]");
}

int64_t count_existing_workunit_names(Database& db, const std::vector<std::string>& names) {
  int64_t found = 0;
  for (size_t first = 0; first < names.size(); first += 20000) {
    std::vector<std::string> part(names.begin() + first,
                                  names.begin() + std::min(names.size(), first + 20000));
    found += db.query_int(
        "SELECT COUNT(*) FROM " + kNameListTable + " STRAIGHT_JOIN workunit w ON w.name = wanted.wanted_name",
        name_list_json(part));
  }
  return found;
}

}  // namespace tharsis
