// MariaDB's error numbers that Tharsis acts on, named once (server: mysqld_error.h; client
// library: errmsg.h). Everything else is reported, not interpreted.
#pragma once

namespace tharsis::mariadb_error {

// Server errors.
constexpr int kUnknownCom = 1047;                // ER_UNKNOWN_COM_ERROR; Galera: "WSREP has not yet prepared
                                                 // node for application use" (joining, donor, non-primary)
constexpr int kServerShutdown = 1053;            // ER_SERVER_SHUTDOWN
constexpr int kDupEntry = 1062;                  // ER_DUP_ENTRY
constexpr int kErrorDuringCommit = 1180;         // ER_ERROR_DURING_COMMIT; Galera: the write set
                                                 // not replicated ("Not connected to Primary
                                                 // Component"), the transaction rolled back
constexpr int kNoSuchTable = 1146;               // ER_NO_SUCH_TABLE
constexpr int kSpecificAccessDenied = 1227;      // ER_SPECIFIC_ACCESS_DENIED_ERROR (a privilege missing)
constexpr int kLockWaitTimeout = 1205;           // ER_LOCK_WAIT_TIMEOUT
constexpr int kLockDeadlock = 1213;              // ER_LOCK_DEADLOCK; Galera also reports a
                                                 // certification conflict at COMMIT and a
                                                 // brute-force abort by a replicated write so
constexpr int kConnectionKilled = 1927;          // ER_CONNECTION_KILLED
constexpr int kClientInteractionTimeout = 4031;  // ER_CLIENT_INTERACTION_TIMEOUT

// Client library errors.
constexpr int kConnectionError = 2002;     // CR_CONNECTION_ERROR (Unix socket refused/missing)
constexpr int kConnHostError = 2003;       // CR_CONN_HOST_ERROR (TCP refused/unreachable)
constexpr int kServerGoneError = 2006;     // CR_SERVER_GONE_ERROR
constexpr int kServerLost = 2013;          // CR_SERVER_LOST
constexpr int kServerLostExtended = 2055;  // CR_SERVER_LOST_EXTENDED

}  // namespace tharsis::mariadb_error
