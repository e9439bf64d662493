#!/usr/bin/env python3
"""Collects seed inputs for fuzz/corpus/<target>/ from the unit tests' literal documents.

Usage: fuzz/seeds.py   (from the repository root; writes only files that are new)
Raw string literals R"(...)" in tests/*/*.cpp are sorted by what they hold. The stock
client's requests and our replies come from THARSIS_KEEP_SCHED_XML=DIR with the
StockBoincClient integration tests (docs/fuzzing.md); hand-written seeds sit beside them.
"""
import hashlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
RAW = re.compile(r'R"(\w*)\((.*?)\)\1"', re.S)
KINDS = [
    ("<scheduler_request", "scheduler_request"),
    ("<scheduler_reply", "scheduler_reply"),
    ("<data_server_request", "data_server_request"),
    ("<data_server_reply", "data_server_reply"),
    ("tharsis-tasks 1", "task_list"),
    ("tharsis-task-report 1", "task_report"),
    ("<boinc>", "project_config"),
]
# Remote submission requests (submit_rpc, job_file): the root element names the operation.
SUBMIT_ROOTS = ("ping", "get_templates", "estimate_batch", "create_batch", "submit_batch",
                "query_batches", "query_batch", "query_job", "query_completed_job", "abort_batch",
                "abort_jobs", "retire_batch", "set_expire_time", "query_files", "upload_files")


def add(target, text, origin):
    data = text.encode()
    name = origin + "-" + hashlib.sha1(data).hexdigest()[:10]
    path = ROOT / "fuzz" / "corpus" / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(data)


for source in sorted((ROOT / "tests").glob("*/*.cpp")):
    for _, text in RAW.findall(source.read_text()):
        for marker, target in KINDS:
            if marker in text:
                add(target, text, source.stem)
        stripped = text.lstrip()
        if stripped.startswith(tuple("<" + root for root in SUBMIT_ROOTS)):
            add("submit_request", text, source.stem)
        if stripped.startswith("{") and '"op"' in text:
            add("graph_json", text, source.stem)
        if stripped.startswith(("{", "[")):
            add("json_reader", text, source.stem)
