// tharsis-client: a BOINC-protocol volunteer client (scheduler RPC, downloads with md5 and
// code signatures, tasks in child processes with restarts, uploads with the upload
// certificate, reports), or, with --host, a simulation of many faulty volunteer hosts in
// one process. (tools/tharsis-sim is the same client for tests and demos that also
// watches the project's database; this program never links a database connector.)
//   tharsis-client --data_dir D --project_url URL --authenticator KEY        (one host)
//   tharsis-client --data_dir D --project_url URL --authenticator KEY
//       --host "ncpus=2" --host "job_failure=0.3" --host "garbage=1" ...    (simulation)
//       --host "inject=app,task_failure=0.05,job_failure=0.02,task_seconds=0.5" (task_app)
// State lives in D/client_state.xml (D/host<i>/ per simulated host); a restarted client
// carries on. Exit: 0 stopped/done, 1 runtime error, 2 bad options.
#include "client/lib/client_program.h"

int main(int argc, char** argv) { return tharsis::run_client_program("tharsis-client", argc, argv); }
