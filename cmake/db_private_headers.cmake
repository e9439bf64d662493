# SQL lives in db/ alone: outside db/ (and the tests), no source may include db/sql.h (the
# statement entry points), db/mariadb_errors.h (the server's error numbers) or the MySQL
# connector's headers; every other layer reaches the database through db/'s typed
# functions and db/database.h. The connector's headers sit in /usr/include, where no
# include path can hide them, so this scan is what makes such an include fail the build
# (a step every build runs first, CMakeLists.txt). Run as a script:
#   cmake -DROOT=DIR -P cmake/db_private_headers.cmake
set(THARSIS_DB_PRIVATE_INCLUDE_REGEX
    "^[ \t]*#[ \t]*include[ \t]*[<\"](cppconn/|mysql_connection\\.h|mysql_driver\\.h|mysql\\.h|mariadb/|db/sql\\.h|db/mariadb_errors\\.h)")

# Fails with the offending files and lines when a source under `root` outside db/ and
# tests/ includes one of db/'s private headers.
function(tharsis_check_db_private_headers root)
  set(patterns "")
  foreach(folder bench client daemons fuzz html lib sched tools)
    list(APPEND patterns ${root}/${folder}/*.cpp ${root}/${folder}/*.h ${root}/${folder}/*.hpp)
  endforeach()
  file(GLOB_RECURSE sources ${patterns})
  set(offenders "")
  foreach(file ${sources})
    file(STRINGS ${file} hits REGEX "${THARSIS_DB_PRIVATE_INCLUDE_REGEX}")
    file(RELATIVE_PATH name ${root} ${file})
    foreach(hit ${hits})
      list(APPEND offenders "  ${name}: ${hit}")
    endforeach()
  endforeach()
  if(offenders)
    list(JOIN offenders "\n" lines)
    message(FATAL_ERROR "SQL and the MySQL connector are private to db/: these files outside db/ include "
                        "db/sql.h, db/mariadb_errors.h or a connector header; call a typed function of db/ "
                        "instead (db/*_store.h, db/*_queries.h):\n${lines}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED ROOT)
  tharsis_check_db_private_headers(${ROOT})
endif()
