#!/bin/sh
# Fails when the program $1 carries the database: a shared MySQL/MariaDB connector among
# its needed libraries, or the connector's or Tharsis's database code linked in. The
# volunteer client must pass; a tool that opens the database (the test's control) must not.
program=$1
[ -x "$program" ] || { echo "no program at $program"; exit 2; }
if readelf -d "$program" | grep -E 'NEEDED.*(mysqlcppconn|mariadb|mysqlclient)'; then
  echo "$program needs a database connector library"
  exit 1
fi
if nm -C "$program" 2>/dev/null | grep -E -m 3 ' (sql::|tharsis::Database::)'; then
  echo "$program holds database code"
  exit 1
fi
echo "$program: no database connector"
