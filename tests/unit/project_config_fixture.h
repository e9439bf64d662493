// The config.xml of the unit tests that parse a project's configuration: a minimal valid
// document that each test extends with the elements it is about.
#pragma once

#include <string>

namespace tharsis::test {

// <boinc><config> with a name, the URLs, project_dir, db_name and db_user, then `extra`;
// `daemons` (a <daemons> element) after </config>.
inline std::string config_with(const std::string& extra, const std::string& daemons = "") {
  return "<boinc>\n<config>\n"
         "  <name>demo</name>\n"
         "  <master_url>http://127.0.0.1:8080/demo/</master_url>\n"
         "  <upload_url>http://127.0.0.1:8080/demo_cgi/file_upload_handler</upload_url>\n"
         "  <download_url>http://127.0.0.1:8080/demo/download</download_url>\n"
         "  <cgi_url>http://127.0.0.1:8080/demo_cgi/</cgi_url>\n"
         "  <project_dir>/srv/demo</project_dir>\n"
         "  <db_name>demo</db_name>\n"
         "  <db_user>boincadm</db_user>\n" +
         extra + "</config>\n" + daemons + "</boinc>\n";
}

}  // namespace tharsis::test
