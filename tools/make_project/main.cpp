// make_project: create a Tharsis project directory (BOINC layout, keys, config.xml, Apache
// include) and, unless --no_db, its database. Thin main over tools/lib/make_project.h.
#include <boost/program_options.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "tools/lib/make_project.h"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  tharsis::MakeProjectOptions options;
  po::options_description described(
      "Usage: make_project --project_dir DIR --name NAME --url_base http://127.0.0.1:PORT/\n"
      "         [--db_socket S | --db_host H --db_port P] --db_user U [--db_passwd P]\n"
      "         --db_name N [--key_bits N] [--fastcgi_pool N] [--force] [--no_db]\n\n"
      "Creates a project directory in BOINC's layout: config.xml, keys/ (BOINC key files),\n"
      "download/ and upload/ with hashed subdirectories, cgi-bin/, html/, log/, pid/, tmp/,\n"
      "and <name>.httpd.conf to Include from an Apache configuration.\n\nOptions");
  described.add_options()("help", "show this help and exit")(
      "project_dir", po::value(&options.project_dir)->required(), "project directory to create")(
      "name", po::value(&options.name)->required(), "short project name (letters, digits, _ -)")(
      "long_name", po::value(&options.long_name), "human-readable name (default: --name)")(
      "url_base", po::value(&options.url_base)->required(),
      "URL of the web server root, e.g. http://127.0.0.1:8080/")(
      "db_host", po::value(&options.db.host)->default_value("localhost"), "MariaDB host")(
      "db_port", po::value(&options.db.port)->default_value(3306), "MariaDB TCP port")(
      "db_socket", po::value(&options.db.socket), "MariaDB unix socket (instead of host/port)")(
      "db_user", po::value(&options.db.user)->required(), "database user")(
      "db_passwd", po::value(&options.db.password), "database password (default empty)")(
      "db_name", po::value(&options.db.name)->required(), "database name")(
      "key_bits", po::value(&options.key_bits)->default_value(1024),
      "RSA key size, 512..1024 (the most BOINC's key format holds)")(
      "uldl_dir_fanout", po::value(&options.uldl_dir_fanout)->default_value(1024),
      "hashed subdirectories of download/ and upload/")(
      "scheduler_url", po::value(&options.scheduler_urls)->composing(),
      "a scheduler host's URL for the master page (repeat for each; default <cgi_url>cgi)")(
      "fastcgi_pool", po::value(&options.fastcgi_pool)->default_value(0),
      "also run the scheduler and upload handler as FastCGI pools of N workers each, as daemons "
      "reached through mod_proxy_fcgi (0: mod_fcgid and CGI only)")("force", po::bool_switch(&options.force),
                                                                    "reuse an existing project directory")(
      "no_db", po::bool_switch(&options.no_db), "do not create the database");
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, described), vm);
    if (vm.count("help")) {
      std::cout << described << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "make_project: " << e.what() << " (see --help)\n";
    return 1;
  }
  try {
    tharsis::Result<tharsis::ProjectConfig> made = tharsis::make_project(options);
    if (!made) {
      std::cerr << "make_project: " << made.error() << "\n";
      return 1;
    }
    std::cout << "created project '" << made->name << "' in " << made->project_dir << "\n"
              << "  master URL:    " << made->master_url << "\n"
              << "  httpd include: " << made->project_dir << "/" << made->name << ".httpd.conf\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "make_project: unexpected failure: " << e.what() << "\n";
    return 1;
  }
}
