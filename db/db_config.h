// DbConfig: where and as whom to reach the project's MariaDB database. Filled from the
// project's config.xml (<db_host>, <db_port>, <db_socket>, <db_user>, <db_passwd>,
// <db_name>); a non-empty socket is used instead of host and port.
#pragma once

#include <string>

namespace tharsis {

struct DbConfig {
  std::string host;
  int port;
  std::string socket;
  std::string user;
  std::string password;
  std::string name;
};

}  // namespace tharsis
