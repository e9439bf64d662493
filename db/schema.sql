-- Tharsis database schema (MariaDB 10.11, InnoDB). BOINC's table and column names where
-- the concept is the same; state columns hold the seed's numeric codes (db/states.h).
-- Every query a daemon or the scheduler makes has an index; sharded daemons select by
-- `id % N = i`, which the indexes serve through the leading state/time column.
-- Statements are separated by ';' at the end of a line (db/schema_loader.cpp splits so).
-- Every table is utf8mb4 whatever the database's default: text from clients may hold any
-- character, four-byte ones (emoji) included (the scheduler makes it valid UTF-8 first).

-- The schema's version (db/schema_migrations.h): one row (id 1), written when the database
-- is made and by each migration tools/upgrade_db applies; schema_migration records each.
-- A table or index added here needs its migration there as well.
CREATE TABLE IF NOT EXISTS schema_version (
  id            TINYINT NOT NULL PRIMARY KEY,
  version       INT NOT NULL,
  updated_time  BIGINT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS schema_migration (
  version       INT NOT NULL PRIMARY KEY,
  summary       VARCHAR(254) NOT NULL DEFAULT '',
  applied_time  BIGINT NOT NULL DEFAULT 0,
  steps         INT NOT NULL DEFAULT 0  -- statements it ran (0: the database had it all)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A platform a client can run on ("x86_64-pc-linux-gnu").
CREATE TABLE IF NOT EXISTS platform (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  name          VARCHAR(254) NOT NULL,
  user_friendly_name VARCHAR(254) NOT NULL DEFAULT '',
  deprecated    TINYINT NOT NULL DEFAULT 0,
  UNIQUE KEY platform_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- An application; its validator comparator and reclustering policy are per app.
CREATE TABLE IF NOT EXISTS app (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  name          VARCHAR(254) NOT NULL,
  user_friendly_name VARCHAR(254) NOT NULL DEFAULT '',
  min_version   INT NOT NULL DEFAULT 0,
  deprecated    TINYINT NOT NULL DEFAULT 0,
  comparator    VARCHAR(32) NOT NULL DEFAULT 'bitwise',
  UNIQUE KEY app_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A build of an app for a platform; xml_doc lists its signed files.
CREATE TABLE IF NOT EXISTS app_version (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  appid         INT NOT NULL,
  version_num   INT NOT NULL,
  platformid    INT NOT NULL,
  plan_class    VARCHAR(254) NOT NULL DEFAULT '',
  xml_doc       MEDIUMTEXT NOT NULL,
  deprecated    TINYINT NOT NULL DEFAULT 0,
  UNIQUE KEY app_version_key (appid, platformid, version_num, plan_class)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A volunteer account; clients authenticate with `authenticator`.
CREATE TABLE IF NOT EXISTS user (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  email_addr    VARCHAR(254) NOT NULL DEFAULT '',
  name          VARCHAR(254) NOT NULL DEFAULT '',
  authenticator VARCHAR(254) NOT NULL,
  cross_project_id VARCHAR(254) NOT NULL DEFAULT '',
  total_credit  DOUBLE NOT NULL DEFAULT 0,
  expavg_credit DOUBLE NOT NULL DEFAULT 0,
  expavg_time   DOUBLE NOT NULL DEFAULT 0,
  UNIQUE KEY user_authenticator (authenticator),
  KEY user_total_credit (total_credit),
  KEY user_expavg_credit (expavg_credit)  -- volunteers page: top users by recent credit
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A volunteer machine, created at its first scheduler RPC.
CREATE TABLE IF NOT EXISTS host (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  userid        INT NOT NULL,
  rpc_seqno     INT NOT NULL DEFAULT 0,
  rpc_time      BIGINT NOT NULL DEFAULT 0,
  total_credit  DOUBLE NOT NULL DEFAULT 0,
  expavg_credit DOUBLE NOT NULL DEFAULT 0,
  expavg_time   DOUBLE NOT NULL DEFAULT 0,
  domain_name   VARCHAR(254) NOT NULL DEFAULT '',
  host_cpid     VARCHAR(254) NOT NULL DEFAULT '',
  platform_name VARCHAR(254) NOT NULL DEFAULT '',
  p_ncpus       INT NOT NULL DEFAULT 0,
  p_vendor      VARCHAR(254) NOT NULL DEFAULT '',
  p_model       VARCHAR(254) NOT NULL DEFAULT '',
  p_fpops       DOUBLE NOT NULL DEFAULT 0,
  p_iops        DOUBLE NOT NULL DEFAULT 0,
  os_name       VARCHAR(254) NOT NULL DEFAULT '',
  os_version    VARCHAR(254) NOT NULL DEFAULT '',
  m_nbytes      DOUBLE NOT NULL DEFAULT 0,
  m_swap        DOUBLE NOT NULL DEFAULT 0,
  d_total       DOUBLE NOT NULL DEFAULT 0,
  d_free        DOUBLE NOT NULL DEFAULT 0,
  nresults_today INT NOT NULL DEFAULT 0,
  nresults_day  INT NOT NULL DEFAULT 0,   -- the day (unix time / 86400) nresults_today counts
  max_results_day INT NOT NULL DEFAULT 0, -- daily quota; 0 = project default
  error_rate    DOUBLE NOT NULL DEFAULT 0,
  KEY host_user (userid, host_cpid),     -- the scheduler finds a host by owner and cpid
  KEY host_total_credit (total_credit),
  KEY host_expavg_credit (expavg_credit), -- volunteers page: top hosts by recent credit
  KEY host_rpc_time (rpc_time)            -- reclustering page: hosts active lately (r)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A job. State variables and parameters of the seed's law.
CREATE TABLE IF NOT EXISTS workunit (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  appid         INT NOT NULL,
  name          VARCHAR(254) NOT NULL,
  xml_doc       MEDIUMTEXT NOT NULL,
  batch         INT NOT NULL DEFAULT 0,
  rsc_fpops_est DOUBLE NOT NULL DEFAULT 0,
  rsc_fpops_bound DOUBLE NOT NULL DEFAULT 0,
  rsc_memory_bound DOUBLE NOT NULL DEFAULT 0,
  rsc_disk_bound DOUBLE NOT NULL DEFAULT 0,
  delay_bound   INT NOT NULL DEFAULT 0,
  min_quorum    INT NOT NULL DEFAULT 1,
  target_nresults INT NOT NULL DEFAULT 1,
  max_error_results INT NOT NULL DEFAULT 3,
  max_total_results INT NOT NULL DEFAULT 10,
  max_success_results INT NOT NULL DEFAULT 6,
  priority      INT NOT NULL DEFAULT 0,
  canonical_resultid INT NOT NULL DEFAULT 0,
  transition_time BIGINT NOT NULL DEFAULT 0,
  file_delete_state SMALLINT NOT NULL DEFAULT 0,
  assimilate_state SMALLINT NOT NULL DEFAULT 0,
  need_validate TINYINT NOT NULL DEFAULT 0,
  error_mask    INT NOT NULL DEFAULT 0,
  canonical_credit DOUBLE NOT NULL DEFAULT 0,
  result_template_file VARCHAR(254) NOT NULL DEFAULT '',
  graph_id      INT NOT NULL DEFAULT 0,
  UNIQUE KEY wu_name (name),
  KEY wu_transition (transition_time),
  KEY wu_validate (need_validate),
  KEY wu_assimilate (assimilate_state),
  KEY wu_file_delete (file_delete_state),
  KEY wu_graph (graph_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One copy of a job sent (or to be sent) to one host.
CREATE TABLE IF NOT EXISTS result (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  workunitid    INT NOT NULL,
  appid         INT NOT NULL,
  name          VARCHAR(254) NOT NULL,
  server_state  SMALLINT NOT NULL DEFAULT 2,
  outcome       SMALLINT NOT NULL DEFAULT 0,
  client_state  SMALLINT NOT NULL DEFAULT 0,
  file_delete_state SMALLINT NOT NULL DEFAULT 0,
  validate_state SMALLINT NOT NULL DEFAULT 0,
  report_deadline BIGINT NOT NULL DEFAULT 0,
  hostid        INT NOT NULL DEFAULT 0,
  userid        INT NOT NULL DEFAULT 0,
  sent_time     BIGINT NOT NULL DEFAULT 0,
  received_time BIGINT NOT NULL DEFAULT 0,
  app_version_id INT NOT NULL DEFAULT 0,
  exit_status   INT NOT NULL DEFAULT 0,
  cpu_time      DOUBLE NOT NULL DEFAULT 0,
  elapsed_time  DOUBLE NOT NULL DEFAULT 0,
  xml_doc_in    MEDIUMTEXT NOT NULL,
  xml_doc_out   MEDIUMTEXT NOT NULL,
  claimed_credit DOUBLE NOT NULL DEFAULT 0,
  granted_credit DOUBLE NOT NULL DEFAULT 0,
  random        INT NOT NULL DEFAULT 0,
  priority      INT NOT NULL DEFAULT 0,
  UNIQUE KEY res_name (name),
  KEY res_wuid (workunitid),
  KEY res_wu_host (workunitid, hostid),  -- the scheduler: was this host ever sent a result of this workunit
  -- The send order itself (no filesort); workunitid last, so a scheduler process's read of its
  -- part of the queue (by workunit id) skips other parts' entries in the index alone.
  KEY res_send (server_state, priority DESC, id, workunitid),
  KEY res_host (hostid, server_state),
  KEY res_file_delete (file_delete_state),
  KEY res_user (userid),
  KEY res_state_outcome (server_state, outcome)  -- status pages: results by state, from the index alone
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The stderr_out a client reported with a result (up to 64 KB: lib/protocol/protocol_limits.h),
-- kept out of the result row, which every daemon reads and locks: a wide row would make
-- each of those reads touch more pages. A row only for a result whose accepted report
-- carried stderr; deleted with its result (db_purge).
CREATE TABLE IF NOT EXISTS result_stderr (
  resultid      INT NOT NULL PRIMARY KEY,    -- result.id
  stderr_out    MEDIUMTEXT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A workunit's inputs (owner 0) or a result's outputs (owner 1) the file deleter could
-- not all unlink: not tried again before next_time, which backs off with each failure,
-- so rows that keep failing never hold up the others. Deleted once the files are gone.
CREATE TABLE IF NOT EXISTS file_delete_retry (
  owner         TINYINT NOT NULL,
  id            INT NOT NULL,                -- workunit.id or result.id
  failures      INT NOT NULL DEFAULT 0,
  next_time     BIGINT NOT NULL DEFAULT 0,   -- Unix seconds
  last_error    VARCHAR(254) NOT NULL DEFAULT '',
  PRIMARY KEY (owner, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A submitted operand graph (tensor computation); state holds GraphState (db/states.h).
CREATE TABLE IF NOT EXISTS graph (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  create_time   BIGINT NOT NULL DEFAULT 0,
  name          VARCHAR(254) NOT NULL,
  state         SMALLINT NOT NULL DEFAULT 0,
  expression    MEDIUMTEXT NOT NULL,
  result_path   VARCHAR(1024) NOT NULL DEFAULT '',
  finish_time   BIGINT NOT NULL DEFAULT 0,
  user_id       INT NOT NULL DEFAULT 0,        -- the submitter's account (0: an admin on the server)
  UNIQUE KEY graph_name (name),
  KEY graph_state (state),
  KEY graph_user (user_id)                     -- query_graphs: a submitter's graphs
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One chunk operand of a graph. Each run of it is one workunit (workunitid: the current
-- run): an operand whose output was lost after its workunit was assimilated runs again in a
-- new workunit, since a workunit is assimilated exactly once. state holds OperandState.
CREATE TABLE IF NOT EXISTS operand (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  graph_id      INT NOT NULL,
  name          VARCHAR(254) NOT NULL,             -- chunk key in the graph, e.g. "add[0,1]"
  workunitid    INT NOT NULL DEFAULT 0,
  runs          INT NOT NULL DEFAULT 0,            -- workunits made for it so far
  state         SMALLINT NOT NULL DEFAULT 0,
  state_time    BIGINT NOT NULL DEFAULT 0,         -- when state last changed
  depth         INT NOT NULL DEFAULT 0,
  priority      INT NOT NULL DEFAULT 0,
  output_bytes  BIGINT NOT NULL DEFAULT 0,         -- estimated size of its output chunk
  preferred_host INT NOT NULL DEFAULT 0,           -- the host holding most of its inputs
  preferred_until BIGINT NOT NULL DEFAULT 0,       -- ... preferred until then, then anyone
  output_file   VARCHAR(254) NOT NULL DEFAULT '',  -- canonical output in upload/ once FINISHED
  output_md5    VARCHAR(32) NOT NULL DEFAULT '',
  output_nbytes BIGINT NOT NULL DEFAULT 0,
  output_host   INT NOT NULL DEFAULT 0,            -- host that computed the canonical output
  result_chunk  INT NOT NULL DEFAULT -1,           -- index among the graph's result chunks, or -1
  spec          MEDIUMTEXT NOT NULL,               -- the operand spec file the app runs
  UNIQUE KEY operand_name (graph_id, name),
  KEY operand_graph_state (graph_id, state),
  KEY operand_state (state),
  KEY operand_workunit (workunitid),
  KEY operand_reserved (preferred_until)  -- the scheduler: results reserved for a host right now
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Edge of the operand DAG: the successor reads the predecessor's output as input number
-- input_index (open name "in<input_index>" in the successor's workunit).
CREATE TABLE IF NOT EXISTS operand_dependency (
  predecessor_id INT NOT NULL,
  successor_id   INT NOT NULL,
  input_index    INT NOT NULL DEFAULT 0,
  PRIMARY KEY (successor_id, input_index),
  KEY dependency_predecessor (predecessor_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A task inside a clustered job (reclustering, docs/reclustering.md): k tasks per workunit. state:
-- 0 WAITING (workunitid = 0; retry_of = the job it failed in, 0 if never run), 1 IN_JOB
-- (workunitid = the one live job carrying it), 2 DONE (workunitid = the job that did it).
CREATE TABLE IF NOT EXISTS cluster_task (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  workunitid    INT NOT NULL DEFAULT 0,
  task_key      VARCHAR(254) NOT NULL,
  task_index    INT NOT NULL DEFAULT 0,
  state         SMALLINT NOT NULL DEFAULT 0,
  attempts      INT NOT NULL DEFAULT 0,
  appid         INT NOT NULL DEFAULT 0,
  payload       VARCHAR(1024) NOT NULL DEFAULT '',  -- the task's input line, given to the app
  retry_of      INT NOT NULL DEFAULT 0,
  output        VARCHAR(254) NOT NULL DEFAULT '',   -- the task's output as the app reported it
  done_time     BIGINT NOT NULL DEFAULT 0,
  user_id       INT NOT NULL DEFAULT 0,        -- the submitter's account (0: an admin on the server)
  UNIQUE KEY cluster_task_key (appid, task_key),
  KEY cluster_task_wu (workunitid),
  KEY cluster_task_state (appid, state, retry_of)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One clustered job (a workunit carrying k tasks) and, once settled, how it ended; the
-- estimator's sliding window is the app's most recently settled rows. state: 0 LIVE,
-- 1 SETTLED (set in the assimilator's transaction, so exactly once).
CREATE TABLE IF NOT EXISTS cluster_job (
  workunitid    INT NOT NULL PRIMARY KEY,
  appid         INT NOT NULL,
  k             INT NOT NULL,
  create_time   BIGINT NOT NULL DEFAULT 0,
  state         SMALLINT NOT NULL DEFAULT 0,
  failed_tasks  INT NOT NULL DEFAULT 0,
  job_failed    TINYINT NOT NULL DEFAULT 0,   -- no usable result: every task lost
  run_time      DOUBLE NOT NULL DEFAULT 0,    -- the canonical result's elapsed time, seconds
  turnaround    DOUBLE NOT NULL DEFAULT 0,    -- the canonical result sent to reported, seconds
  settle_time   BIGINT NOT NULL DEFAULT 0,
  KEY cluster_job_app_state (appid, state, settle_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Online failure-rate estimates per app, one row per estimate made (a time series): the
-- window's counts, α and β, and the inputs of the model (n, r, φ̄, D) with the cluster
-- size k the policy picks from them, so a status page can draw M(k).
CREATE TABLE IF NOT EXISTS failure_stat (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  appid         INT NOT NULL,
  time          BIGINT NOT NULL,
  jobs          INT NOT NULL DEFAULT 0,
  tasks         INT NOT NULL DEFAULT 0,
  failed_jobs   INT NOT NULL DEFAULT 0,
  failed_tasks  INT NOT NULL DEFAULT 0,
  alpha         DOUBLE NOT NULL DEFAULT 0,
  beta          DOUBLE NOT NULL DEFAULT 0,
  cluster_size  INT NOT NULL DEFAULT 1,
  model         VARCHAR(8) NOT NULL DEFAULT '',   -- TFM or JFM
  policy        VARCHAR(8) NOT NULL DEFAULT '',   -- NOOP, DC, SR, DR
  tasks_left    INT NOT NULL DEFAULT 0,           -- n
  hosts         INT NOT NULL DEFAULT 0,           -- r
  task_time     DOUBLE NOT NULL DEFAULT 0,        -- φ̄, seconds
  job_overhead  DOUBLE NOT NULL DEFAULT 0,        -- D, seconds
  KEY failure_stat_app_time (appid, time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The assimilator's record of each workunit it assimilated, committed with DONE: the
-- unique key makes "assimilated exactly once" a fact the database enforces.
CREATE TABLE IF NOT EXISTS assimilation (
  workunitid    INT NOT NULL PRIMARY KEY,
  time          BIGINT NOT NULL,
  canonical_resultid INT NOT NULL DEFAULT 0,
  error_mask    INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Each daemon instance's last sign of life (tools/status, status pages).
CREATE TABLE IF NOT EXISTS daemon_heartbeat (
  name          VARCHAR(64) NOT NULL,
  mod_n         INT NOT NULL DEFAULT 1,
  mod_id        INT NOT NULL DEFAULT 0,
  hostname      VARCHAR(254) NOT NULL DEFAULT '',
  pid           INT NOT NULL DEFAULT 0,
  start_time    BIGINT NOT NULL DEFAULT 0,
  last_beat     BIGINT NOT NULL DEFAULT 0,
  units_done    BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (name, mod_n, mod_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The census daemon's snapshot of the counts that would scan big tables on every status
-- page view: results by (server_state, outcome) and each back-end queue's exact backlog.
-- Each census pass replaces all three tables in one transaction, so a reader sees one
-- whole snapshot; census_run has one row (id 1) saying when it was taken.
CREATE TABLE IF NOT EXISTS census_run (
  id            TINYINT NOT NULL PRIMARY KEY,
  taken_at      BIGINT NOT NULL,            -- when the counting began (Unix seconds)
  duration      DOUBLE NOT NULL DEFAULT 0,  -- seconds the counting took
  interval_seconds INT NOT NULL DEFAULT 0   -- the daemon's time between snapshots then
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS census_result (
  server_state  SMALLINT NOT NULL,
  outcome       SMALLINT NOT NULL,
  results       BIGINT NOT NULL,
  PRIMARY KEY (server_state, outcome)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS census_queue (
  name          VARCHAR(32) NOT NULL PRIMARY KEY,  -- transition, validation, ... (db/queue_stats.h)
  items         BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The input files each workunit names, so the file deleter can tell whether a shared
-- input (or a graph predecessor's output) is still needed by a live workunit.
CREATE TABLE IF NOT EXISTS workunit_input (
  workunitid    INT NOT NULL,
  file_name     VARCHAR(254) NOT NULL,
  PRIMARY KEY (workunitid, file_name),
  KEY workunit_input_file (file_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A file in download/ that a transaction is taking as a workunit's input (deleting 0: the
-- row lives only inside that transaction, which removes it again before it commits) or
-- that a file deleter has decided to unlink (deleting 1: from the commit of that decision
-- until the unlink is over, when the row goes with its owner's DONE). Both write the row,
-- so they conflict whatever the node: a workunit never takes a file a deleter is
-- unlinking, and a deleter decides only after every workunit taking the file has
-- committed its workunit_input row (db/file_store.h).
CREATE TABLE IF NOT EXISTS download_claim (
  name          VARCHAR(254) NOT NULL PRIMARY KEY,
  deleting      TINYINT NOT NULL DEFAULT 0,
  owner         INT NOT NULL DEFAULT 0,      -- deleting: the READY workunit whose inputs it is deleted with
  takers        BIGINT NOT NULL DEFAULT 0    -- bumped by each taker: a write, even when the row is there
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Remote job submission (docs/remote_submission.md). A batch of jobs (workunit.batch =
-- batch.id) handed in through submit_rpc; state holds BatchState (db/states.h: BOINC's
-- 0 init, 1 in progress, 2 completed, 3 aborted, 4 retired). njobs_done, nerror_jobs,
-- fraction_done, credit_canonical and completion_time are kept current by the
-- assimilator in the transaction that assimilates each workunit, so reading a batch
-- never counts its workunits.
CREATE TABLE IF NOT EXISTS batch (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id       INT NOT NULL,
  create_time   BIGINT NOT NULL DEFAULT 0,
  logical_start_time DOUBLE NOT NULL DEFAULT 0,
  logical_end_time DOUBLE NOT NULL DEFAULT 0,
  est_completion_time DOUBLE NOT NULL DEFAULT 0,
  njobs         INT NOT NULL DEFAULT 0,
  njobs_done    INT NOT NULL DEFAULT 0,      -- jobs assimilated with a canonical result
  nerror_jobs   INT NOT NULL DEFAULT 0,      -- jobs assimilated in error (aborted ones too)
  fraction_done DOUBLE NOT NULL DEFAULT 0,   -- (njobs_done + nerror_jobs) / njobs
  state         SMALLINT NOT NULL DEFAULT 0,
  completion_time BIGINT NOT NULL DEFAULT 0,
  credit_estimate DOUBLE NOT NULL DEFAULT 0,
  credit_canonical DOUBLE NOT NULL DEFAULT 0,
  credit_total  DOUBLE NOT NULL DEFAULT 0,
  name          VARCHAR(254) NOT NULL,
  app_id        INT NOT NULL DEFAULT 0,
  project_state INT NOT NULL DEFAULT 0,
  description   VARCHAR(254) NOT NULL DEFAULT '',
  expire_time   DOUBLE NOT NULL DEFAULT 0,     -- > 0: retired by the file deleter at this time
  files_deleted TINYINT NOT NULL DEFAULT 0,  -- 1: retired, and its jobs' results/ dirs removed
  UNIQUE KEY batch_name (name),
  KEY batch_user_state (user_id, state),     -- query_batches, jobs in progress per user
  KEY batch_cleanup (files_deleted, state, expire_time)  -- the file deleter's expiry and cleanup
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- query_batch lists a batch's jobs through this index (an index range, never a scan).
CREATE INDEX IF NOT EXISTS wu_batch ON workunit (batch);

-- Who may submit remotely (BOINC's user_submit): all apps (submit_all) or those listed in
-- user_submit_app. quota and logical_start_time are BOINC's allocation fields (kept,
-- not used yet); max_jobs_in_progress 0 = no limit.
CREATE TABLE IF NOT EXISTS user_submit (
  user_id       INT NOT NULL PRIMARY KEY,
  submit_all    TINYINT NOT NULL DEFAULT 0,
  quota         DOUBLE NOT NULL DEFAULT 0,
  logical_start_time DOUBLE NOT NULL DEFAULT 0,
  create_apps   TINYINT NOT NULL DEFAULT 0,
  manage_all    TINYINT NOT NULL DEFAULT 0,
  max_jobs_in_progress INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE IF NOT EXISTS user_submit_app (
  user_id       INT NOT NULL,
  app_id        INT NOT NULL,
  manage        TINYINT NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, app_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- A submitter's sandbox (BOINC's job_file, per account): the files an account uploaded
-- through job_file.php, named jf_<md5 of the content> in download/. A row says this
-- account holds the file until delete_time (default 30 days after the upload); only the
-- holder may name the file in a job, and query_files tells an account only about its own
-- rows. Two accounts uploading the same content share one file and hold a row each.
CREATE TABLE IF NOT EXISTS job_file (
  id            INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id       INT NOT NULL,
  name          VARCHAR(254) NOT NULL,
  create_time   BIGINT NOT NULL DEFAULT 0,
  delete_time   BIGINT NOT NULL DEFAULT 0,
  UNIQUE KEY job_file_user_name (user_id, name),
  KEY job_file_name (name),
  KEY job_file_delete_time (delete_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Sandbox files a batch uses (BOINC's batch_file_assoc): a job_file row is kept past its
-- delete_time while a batch not yet retired uses it.
CREATE TABLE IF NOT EXISTS batch_file_assoc (
  batch_id      INT NOT NULL,
  job_file_id   INT NOT NULL,
  PRIMARY KEY (batch_id, job_file_id),
  KEY batch_file_assoc_file (job_file_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Granted credit on its way to the totals of its host and the host's owner. The validator's
-- transaction only inserts here (one row per host and user of a batch), so it never waits
-- for a scheduler RPC that holds a host row, nor holds its workunits while it would; each
-- validator pass then adds the rows to host.total_credit and user.total_credit in a short
-- transaction of its own that passes over the rows another transaction holds
-- (daemons/validator/lib/credit_fold.h). host_id / user_id 0: no host / no user.
CREATE TABLE IF NOT EXISTS credit_pending (
  id            BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  host_id       INT NOT NULL DEFAULT 0,
  user_id       INT NOT NULL DEFAULT 0,
  credit        DOUBLE NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
